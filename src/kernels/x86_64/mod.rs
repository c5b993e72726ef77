//! x86-64: the tokens that prove an instruction set was detected, the contract implemented
//! for each by calling into its file, and the entry functions compiled for each set.
//!
//! The soundness argument is one sentence: a token is made only in [`run`], for a `Set` that
//! only [`available`] makes, after detecting every instruction its kernels use; a kernel is
//! called only through a token's methods.

mod avx2;
mod avx512;
mod sse2;

use super::{AsciiKernels, Job, Portable, Set, Utf8Block, Utf8Kernels};

/// The sets this CPU runs, narrowest first.
pub(super) fn available() -> Vec<Set> {
    let mut sets = vec![Set::Portable, Set::Sse2];
    // POPCNT counts UTF-16 units in the UTF-8 walk; every AVX2 CPU has it.
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt") {
        sets.push(Set::Avx2);
        if is_x86_feature_detected!("avx512bw") {
            sets.push(Set::Avx512);
            if is_x86_feature_detected!("avx512vbmi") {
                sets.push(Set::Avx512Vbmi);
            }
        }
    }
    sets
}

/// Runs `job` with the kernels of `set`, from a function compiled with its instructions.
#[inline(always)]
pub(super) fn run<J: Job>(set: Set, job: J) -> J::Out {
    match set {
        Set::Portable => super::with_portable(job),
        // SAFETY: every x86-64 CPU has SSE2.
        Set::Sse2 => unsafe { with_sse2(job) },
        // SAFETY: `available` made `set` after detecting AVX2 and POPCNT.
        Set::Avx2 => unsafe { with_avx2(job) },
        // SAFETY: `available` made `set` after detecting AVX-512 BW, AVX2 and POPCNT.
        Set::Avx512 => unsafe { with_avx512(job) },
        // SAFETY: `available` made `set` after detecting AVX-512 BW and VBMI, AVX2, POPCNT.
        Set::Avx512Vbmi => unsafe { with_avx512_vbmi(job) },
    }
}

// One entry function per set: each walk is compiled into it with the set's instructions,
// and stays small enough for the compiler to inline every kernel call into it.
#[target_feature(enable = "sse2")]
fn with_sse2<J: Job>(job: J) -> J::Out {
    job.run(Sse2(()), Portable)
}

#[target_feature(enable = "avx2,popcnt")]
fn with_avx2<J: Job>(job: J) -> J::Out {
    job.run(Avx2(()), Avx2(()))
}

#[target_feature(enable = "avx512bw,avx2,popcnt")]
fn with_avx512<J: Job>(job: J) -> J::Out {
    job.run(Avx512(()), Avx2(()))
}

#[target_feature(enable = "avx512bw,avx512vbmi,avx2,popcnt")]
fn with_avx512_vbmi<J: Job>(job: J) -> J::Out {
    job.run(Avx512(()), Avx512Vbmi(()))
}

/// SSE2: part of every x86-64 CPU.
#[derive(Clone, Copy)]
struct Sse2(());

/// AVX2 and POPCNT, detected.
#[derive(Clone, Copy)]
struct Avx2(());

/// AVX-512 BW and AVX2, detected.
#[derive(Clone, Copy)]
struct Avx512(());

/// AVX-512 BW and VBMI, AVX2 and POPCNT, detected.
#[derive(Clone, Copy)]
struct Avx512Vbmi(());

impl AsciiKernels for Sse2 {
    #[inline(always)]
    fn stops64(self, block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: every x86-64 CPU has SSE2.
        unsafe { sse2::stops64(block, byte) }
    }
    #[inline(always)]
    fn stops64_pair(self, block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
        // SAFETY: every x86-64 CPU has SSE2.
        unsafe { sse2::stops64_pair(block, at, bytes) }
    }
    #[inline(always)]
    fn quiet128(self, bytes: &[u8; 128], byte: u8) -> bool {
        // SAFETY: every x86-64 CPU has SSE2.
        unsafe { sse2::quiet128(bytes, byte) }
    }
    #[inline(always)]
    fn quiet128_pair(self, bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
        // SAFETY: every x86-64 CPU has SSE2.
        unsafe { sse2::quiet128_pair(bytes, at, probe) }
    }
    #[inline(always)]
    fn skip_quiet_pairs<const HINT: bool>(
        self,
        data: &[u8],
        i: usize,
        reach: usize,
        probe: [(usize, u8); 2],
    ) -> usize {
        // SAFETY: every x86-64 CPU has SSE2.
        unsafe { sse2::skip_quiet_pairs::<HINT>(data, i, reach, probe) }
    }
}

impl AsciiKernels for Avx2 {
    #[inline(always)]
    fn stops64(self, block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: `self` proves AVX2.
        unsafe { avx2::stops64(block, byte) }
    }
    #[inline(always)]
    fn stops64_pair(self, block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
        // SAFETY: `self` proves AVX2.
        unsafe { avx2::stops64_pair(block, at, bytes) }
    }
    #[inline(always)]
    fn quiet128(self, bytes: &[u8; 128], byte: u8) -> bool {
        // SAFETY: `self` proves AVX2.
        unsafe { avx2::quiet128(bytes, byte) }
    }
    #[inline(always)]
    fn quiet128_pair(self, bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
        // SAFETY: `self` proves AVX2.
        unsafe { avx2::quiet128_pair(bytes, at, probe) }
    }
    #[inline(always)]
    fn skip_quiet_pairs<const HINT: bool>(
        self,
        data: &[u8],
        i: usize,
        reach: usize,
        probe: [(usize, u8); 2],
    ) -> usize {
        // SAFETY: `self` proves AVX2.
        unsafe { avx2::skip_quiet_pairs::<HINT>(data, i, reach, probe) }
    }
}

impl AsciiKernels for Avx512 {
    #[inline(always)]
    fn stops64(self, block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: `self` proves AVX-512 BW.
        unsafe { avx512::stops64(block, byte) }
    }
    #[inline(always)]
    fn stops64_pair(self, block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
        // SAFETY: `self` proves AVX-512 BW.
        unsafe { avx512::stops64_pair(block, at, bytes) }
    }
    #[inline(always)]
    fn quiet128(self, bytes: &[u8; 128], byte: u8) -> bool {
        // SAFETY: `self` proves AVX-512 BW.
        unsafe { avx512::quiet128(bytes, byte) }
    }
    #[inline(always)]
    fn quiet128_pair(self, bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
        // SAFETY: `self` proves AVX-512 BW.
        unsafe { avx512::quiet128_pair(bytes, at, probe) }
    }
    #[inline(always)]
    fn skip_quiet_pairs<const HINT: bool>(
        self,
        data: &[u8],
        i: usize,
        reach: usize,
        probe: [(usize, u8); 2],
    ) -> usize {
        // SAFETY: `self` proves AVX-512 BW.
        unsafe { avx512::skip_quiet_pairs::<HINT>(data, i, reach, probe) }
    }
}

impl Utf8Kernels for Avx2 {
    type Units = Utf8Block;
    type Consts = avx2::Consts;
    type Prefix = avx2::Prefix;

    #[inline(always)]
    fn consts(self) -> avx2::Consts {
        // SAFETY: `self` proves AVX2.
        unsafe { avx2::Consts::new() }
    }
    #[inline(always)]
    fn utf8_block(
        self,
        consts: &avx2::Consts,
        window: &[u8; 98],
        probe: [(usize, u8); 2],
    ) -> Option<(Utf8Block, u64)> {
        // SAFETY: `self` proves AVX2.
        unsafe { avx2::utf8_block(consts, window, probe) }
    }
    #[inline(always)]
    fn candidates(self, window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
        // SAFETY: `self` proves AVX2.
        unsafe { avx2::candidates(window, probe) }
    }
    #[inline(always)]
    fn prefix(self, bytes: &[u8; 32], len: usize) -> avx2::Prefix {
        // SAFETY: `self` proves AVX2.
        unsafe { avx2::Prefix::new(bytes, len) }
    }
    #[inline(always)]
    fn starts(self, prefix: &avx2::Prefix, here: &[u8; 32]) -> bool {
        // SAFETY: `self` proves AVX2.
        unsafe { prefix.starts(here) }
    }
}

impl Utf8Kernels for Avx512Vbmi {
    type Units = avx512::Units;
    type Consts = ();
    // A marker is compared in 32 bytes, as with AVX2, which every AVX-512 CPU has.
    type Prefix = avx2::Prefix;

    #[inline(always)]
    fn consts(self) {}
    #[inline(always)]
    fn utf8_block(
        self,
        (): &(),
        window: &[u8; 98],
        probe: [(usize, u8); 2],
    ) -> Option<(avx512::Units, u64)> {
        // SAFETY: `self` proves AVX-512 BW and VBMI.
        unsafe { avx512::utf8_block(window, probe) }
    }
    #[inline(always)]
    fn candidates(self, window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
        // SAFETY: `self` proves AVX-512 BW.
        unsafe { avx512::candidates(window, probe) }
    }
    #[inline(always)]
    fn prefix(self, bytes: &[u8; 32], len: usize) -> avx2::Prefix {
        // SAFETY: `self` proves AVX2.
        unsafe { avx2::Prefix::new(bytes, len) }
    }
    #[inline(always)]
    fn starts(self, prefix: &avx2::Prefix, here: &[u8; 32]) -> bool {
        // SAFETY: `self` proves AVX2.
        unsafe { prefix.starts(here) }
    }
}

/// Whether the CPU is AMD's (asked once: CPUID is slow, in a virtual machine a trip to the
/// hypervisor).
pub(super) fn is_amd() -> bool {
    static AMD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AMD.get_or_init(|| {
        // Leaf 0 names the vendor in EBX, EDX, ECX: "AuthenticAMD".
        let id = core::arch::x86_64::__cpuid(0);
        (id.ebx, id.edx, id.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163)
    })
}

/// PREFETCHT0 of the line holding `data[at]`.
#[inline(always)]
pub(super) fn prefetch(data: &[u8], at: usize) {
    // `wrapping_add`: the pointer may leave the slice; it is never dereferenced.
    let line = data.as_ptr().wrapping_add(at).cast::<i8>();
    // SAFETY: PREFETCHT0 (SSE, part of x86-64) is a hint: it changes no architectural state,
    // reads nothing the program sees and never faults, whatever the address.
    unsafe { core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(line) }
}
