//! The block kernels: tests over 64-byte blocks of text that the scanner's fast paths walk
//! with, one instruction set a file, behind one contract and one run-time dispatch. Every
//! `unsafe` block, function and impl of the crate lives in this folder.
//!
//! - The contract: [`AsciiKernels`] (validation of ASCII fused with a marker's search) and
//!   [`Utf8Kernels`] (validation of UTF-8, UTF-16 counting and a marker's search in one pass).
//!   The walks in `scanner/` are generic over them.
//! - [`Portable`]: the scalar twin of every kernel. It is the definition the vector kernels
//!   are tested against (`tests.rs`), and the only set on targets without vector kernels.
//! - `vector.rs`: the primitives of a set's vector of bytes (`Vector`, `Shuffle`), and
//!   `generic/`: every kernel's algorithm written once over them.
//! - The sets, each a file that implements the primitives with its intrinsics: `x86_64/`
//!   (`sse2.rs`, `avx2.rs`, `avx512.rs`, which also keeps AVX-512's own quiet scans and
//!   UTF-8 block test; `x86_64/mod.rs`: detection, the tokens, the entry functions),
//!   `neon.rs` and `simd128.rs`, whose one set `baseline.rs` enters without detection.
//! - `forward.rs`: the contracts implemented for a set's token by instantiating `generic/`
//!   with its vector.
//! - [`Isa::run`]: the one dispatch. It hands a [`Job`] the kernels of the detected set
//!   inside a function compiled with that set's instructions, so the walk, inlined into it,
//!   is compiled with them too.
#![deny(clippy::undocumented_unsafe_blocks)]

// First: the sets' modules below use their macros.
#[macro_use]
mod forward;
#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
#[macro_use]
mod vector;
#[cfg(any(
    target_arch = "aarch64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
mod baseline;
#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
mod generic;
mod lookup;
#[cfg(target_arch = "aarch64")]
mod neon;
mod portable;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;
#[cfg(test)]
mod tests;
#[cfg(target_arch = "x86_64")]
mod x86_64;

pub(crate) use portable::Portable;

/// Validation of ASCII fused with the search for a marker's bytes, over 64-byte blocks (and
/// 128-byte pairs of them for quiet stretches). A type implementing it is a proof that the
/// CPU runs its instructions: only detection makes one. The bytes sought are ASCII (the walk
/// takes only ASCII markers).
pub(crate) trait AsciiKernels: Copy {
    /// Bit `k` is set when `block[k]` is `byte` or not ASCII.
    fn stops64(self, block: &[u8; 64], byte: u8) -> u64;

    /// Bit `k` is set when `block[k]` is not ASCII, or when `at[0][k] == bytes[0]` and
    /// `at[1][k] == bytes[1]` (the scanner passes the blocks that start at the offsets of a
    /// marker's two rarest bytes, so the bit says "an occurrence may start at `k`").
    fn stops64_pair(self, block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64;

    /// Whether [`AsciiKernels::stops64`] finds nothing in either half of `bytes`.
    fn quiet128(self, bytes: &[u8; 128], byte: u8) -> bool;

    /// Whether [`AsciiKernels::stops64_pair`] finds nothing in either half of `bytes`
    /// (`at`: the 128 bytes from each probed offset). Exact when the bytes of `at` are
    /// ASCII; otherwise it may answer `false` where nothing stops (a false alarm costs the
    /// walk one block test), never `true` where something does.
    fn quiet128_pair(self, bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool;
}

/// UTF-8 validation, UTF-16 counting and the search for a marker's bytes in one pass over
/// 64-byte blocks. Only detection makes a value of a type implementing it.
///
/// A block is read through its *window*: the three bytes before it (validation's context;
/// zeros before a chunk's first block), the block, and the 31 bytes after it (where a
/// marker starting in it may reach), 98 bytes.
pub(crate) trait Utf8Kernels: Copy {
    /// A valid block's UTF-16 units, as this set keeps them.
    type Units: BlockUnits;
    /// Constants a walk prepares once.
    type Consts: Copy;
    /// A marker of up to 32 bytes, ready to be compared with the bytes at a candidate.
    type Prefix: Copy;

    fn consts(self) -> Self::Consts;

    /// Validates the block `window[3..67]` (`None`: invalid), counts its units and finds
    /// where the probe's bytes sit: bit `k` is set when `window[3 + k + offset] == byte` for
    /// each `(offset, byte)` of `probe` (offsets at most 31).
    fn utf8_block(
        self,
        consts: &Self::Consts,
        window: &[u8; 98],
        probe: [(usize, u8); 2],
    ) -> Option<(Self::Units, u64)>;

    /// The probe's bits of [`Utf8Kernels::utf8_block`] alone.
    fn candidates(self, window: &[u8; 98], probe: [(usize, u8); 2]) -> u64;

    /// The marker `bytes[..len]`.
    fn prefix(self, bytes: &[u8; 32], len: usize) -> Self::Prefix;

    /// Whether `here` begins with the marker.
    fn starts(self, prefix: &Self::Prefix, here: &[u8; 32]) -> bool;
}

/// The UTF-16 units of a valid block, as a set of [`Utf8Kernels`] keeps them, and a running
/// sum of whole blocks' units.
pub(crate) trait BlockUnits: Copy {
    type Sum: Copy;
    fn zero() -> Self::Sum;
    /// `sum` plus this block's units.
    fn add(&self, sum: Self::Sum) -> Self::Sum;
    fn total(sum: Self::Sum) -> u64;
    /// [`BlockUnits::total`] of `sum` plus the units of the block's bytes below `k`.
    fn total_below(&self, k: u32, sum: Self::Sum) -> u64;
}

/// A valid block's UTF-16 units as two bit masks (bit `k` is about the block's byte `k`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Utf8Block {
    /// Continuation bytes (`10xxxxxx`); every other byte begins a character, one unit each.
    pub(crate) conts: u64,
    /// Four-byte leads (`11110xxx`): one more unit each.
    pub(crate) fours: u64,
}

impl Utf8Block {
    /// The units of the block's bytes below bit `k` (all 64 for `k == 64`).
    #[inline]
    pub(crate) fn units_below(&self, k: u32) -> u64 {
        let below = if k >= 64 { !0 } else { (1u64 << k) - 1 };
        u64::from(k.min(64) - (self.conts & below).count_ones() + (self.fours & below).count_ones())
    }
}

impl BlockUnits for Utf8Block {
    type Sum = u64;
    #[inline(always)]
    fn zero() -> u64 {
        0
    }
    #[inline(always)]
    fn add(&self, sum: u64) -> u64 {
        sum + self.units_below(64)
    }
    #[inline(always)]
    fn total(sum: u64) -> u64 {
        sum
    }
    #[inline(always)]
    fn total_below(&self, k: u32, sum: u64) -> u64 {
        sum + self.units_below(k)
    }
}

/// Work that runs with the kernels of one set over one slice (see [`Isa::run`]). Its state
/// and its sink are arguments of the entry function, not fields of the job, so that the
/// compiler knows they do not alias (as fields, every write to the sink reloaded the walk's
/// state, which slowed dense scans).
pub(crate) trait Job {
    type State: ?Sized;
    type Sink: ?Sized;
    type Out;
    /// Runs with a set's `kernels`. Implementations are `#[inline(always)]`, so that they
    /// are compiled inside the entry function of the set.
    fn run<K: Kernels>(
        self,
        state: &mut Self::State,
        data: &[u8],
        sink: &mut Self::Sink,
        kernels: K,
    ) -> Self::Out;
}

/// A set's kernels as a job gets them: its ASCII kernels and its UTF-8 kernels.
pub(crate) trait Kernels: Copy {
    type Ascii: AsciiKernels;
    type Utf8: Utf8Kernels;
    fn ascii(self) -> Self::Ascii;
    fn utf8(self) -> Self::Utf8;
}

impl<A: AsciiKernels, U: Utf8Kernels> Kernels for (A, U) {
    type Ascii = A;
    type Utf8 = U;
    #[inline(always)]
    fn ascii(self) -> A {
        self.0
    }
    #[inline(always)]
    fn utf8(self) -> U {
        self.1
    }
}

/// An instruction set this CPU runs, as found at run time. Only detection makes one, so
/// running kernels with it is sound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Isa(Set);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Set {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Sse2,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 BW for the ASCII kernels, AVX2 for the UTF-8 ones (no VBMI).
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// AVX-512 BW and VBMI for both.
    #[cfg(target_arch = "x86_64")]
    Avx512Vbmi,
    /// NEON, part of every aarch64 CPU.
    #[cfg(target_arch = "aarch64")]
    Neon,
    /// WebAssembly's 128-bit vectors, when the build enables them.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    Simd128,
}

impl Isa {
    /// The widest set this CPU runs (found once: every scanner asks).
    pub fn detect() -> Isa {
        static WIDEST: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *WIDEST.get_or_init(|| *Isa::available().last().unwrap_or(&Isa(Set::Portable)))
    }

    /// Every set this CPU runs, narrowest first (the portable kernels first).
    pub fn available() -> Vec<Isa> {
        #[cfg(target_arch = "x86_64")]
        return x86_64::available().into_iter().map(Isa).collect();
        #[cfg(any(
            target_arch = "aarch64",
            all(target_arch = "wasm32", target_feature = "simd128")
        ))]
        return baseline::available().into_iter().map(Isa).collect();
        #[cfg(not(any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            all(target_arch = "wasm32", target_feature = "simd128")
        )))]
        vec![Isa(Set::Portable)]
    }

    /// Its name, for test and bench reports.
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    pub fn name(self) -> &'static str {
        match self.0 {
            Set::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Set::Sse2 => "sse2",
            #[cfg(target_arch = "x86_64")]
            Set::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Set::Avx512 => "avx512bw",
            #[cfg(target_arch = "x86_64")]
            Set::Avx512Vbmi => "avx512vbmi",
            #[cfg(target_arch = "aarch64")]
            Set::Neon => "neon",
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Set::Simd128 => "simd128",
        }
    }

    /// Whether the scanner's fast paths use this set by default (the ASCII walk, the UTF-8
    /// walk): the ASCII walk with any vector set, the UTF-8 walk from AVX2 on (SSE2 has no
    /// UTF-8 kernels of its own). The portable kernels are the vector kernels' definition,
    /// not a fast path.
    pub(crate) fn walks(self) -> (bool, bool) {
        match self.0 {
            Set::Portable => (false, false),
            #[cfg(target_arch = "x86_64")]
            Set::Sse2 => (true, false),
            #[cfg(target_arch = "x86_64")]
            _ => (true, true),
            #[cfg(target_arch = "aarch64")]
            Set::Neon => (true, true),
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Set::Simd128 => (true, true),
        }
    }

    /// Runs `job` over `data` with this set's kernels, compiled with its instructions.
    #[inline(always)]
    pub(crate) fn run<J: Job>(
        self,
        job: J,
        state: &mut J::State,
        data: &[u8],
        sink: &mut J::Sink,
    ) -> J::Out {
        match self.0 {
            Set::Portable => with_portable(job, state, data, sink),
            #[cfg(target_arch = "x86_64")]
            set => x86_64::run(set, job, state, data, sink),
            #[cfg(any(
                target_arch = "aarch64",
                all(target_arch = "wasm32", target_feature = "simd128")
            ))]
            _ => baseline::with_baseline(job, state, data, sink),
        }
    }
}

/// The portable kernels' entry function (as each set has one).
#[inline(never)]
fn with_portable<J: Job>(job: J, state: &mut J::State, data: &[u8], sink: &mut J::Sink) -> J::Out {
    job.run(state, data, sink, (Portable, Portable))
}

/// Whether this CPU's hardware prefetchers keep the ASCII walk's search for a marker of two
/// bytes or more fed without [`prefetch`] hints: AMD's, as measured (see
/// `docs/ARCHITECTURE.md`). The other walks keep their hints everywhere.
pub(crate) fn streams_without_hints() -> bool {
    #[cfg(target_arch = "x86_64")]
    return x86_64::is_amd();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// How far ahead of its current block a walk asks for data: 16 blocks. (The hint speeds the
/// one-byte walk over dense text on Intel and AMD alike; `cargo bench --bench paths`.)
pub(crate) const PREFETCH_AHEAD: usize = 1024;

/// Asks the CPU to bring the cache line holding `data[at]` into L1 for a walk that will read
/// it soon. `at` may lie past the end of `data`: the hint is then wasted, never harmful.
#[inline(always)]
pub(crate) fn prefetch(data: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    x86_64::prefetch(data, at);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, at);
}

/// Length of the longest prefix of `bytes`, in whole 64-byte blocks, that is ASCII and does
/// not contain `byte`: validation and a one-byte search fused into one pass, which the
/// compiler vectorises (portable code, used with every set).
#[inline]
pub(crate) fn ascii_run_without(bytes: &[u8], byte: u8) -> usize {
    let mut run = 0;
    for block in bytes.chunks_exact(64) {
        // The high bit of the fold is set by a non-ASCII byte or by `byte` (marked 0x80).
        let flags = block
            .iter()
            .fold(0u8, |acc, &b| acc | b | (u8::from(b == byte) << 7));
        if flags >= 0x80 {
            break;
        }
        run += 64;
    }
    run
}
