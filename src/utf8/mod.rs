//! UTF-8 facts the scanner relies on: UTF-16 lengths counted from UTF-8 bytes, and the
//! length of an incomplete sequence's character.
//!
//! A UTF-16 offset is what a JavaScript client slices with, and the card's semantics are
//! stated in UTF-16 code units. Valid UTF-8 gives one code unit per character, two for a
//! character outside the Basic Multilingual Plane, which is exactly the characters encoded in
//! four bytes. So the count is: one per byte that is not a continuation byte (`10xxxxxx`),
//! plus one per four-byte lead (`11110xxx`). The count is additive over any split of the
//! bytes, even a split inside a character, which lets the scanner count chunk by chunk.

/// Number of UTF-16 code units of the UTF-8 bytes `bytes`, counted per byte as above.
///
/// The sum is over bytes, so it is meaningful for any slice of valid UTF-8, even one that cuts
/// a character: the counts of the pieces add up to the count of the whole.
///
/// ```
/// use extract_between::utf8::utf16_len;
/// assert_eq!(utf16_len("a€😀".as_bytes()), "a€😀".encode_utf16().count() as u64);
/// // Additive across a split inside the emoji.
/// let b = "😀".as_bytes();
/// assert_eq!(utf16_len(&b[..1]) + utf16_len(&b[1..]), 2);
/// ```
pub fn utf16_len(bytes: &[u8]) -> u64 {
    utf16_len_from(bytes, 0)
}

/// Number of UTF-16 code units of `data[from..]`, counted as [`utf16_len`] does. The bytes
/// before `from` are not counted; they may be read, which lets a short tail be counted as one
/// masked 32-byte window instead of byte by byte (the scanner counts many short spans between
/// events, and the tails were most of its counting time).
///
/// ```
/// use extract_between::utf8::utf16_len_from;
/// let text = "ab😀c".as_bytes();
/// assert_eq!(utf16_len_from(text, 2), "😀c".encode_utf16().count() as u64);
/// assert_eq!(utf16_len_from(text, text.len()), 0);
/// ```
///
/// # Panics
///
/// When `from > data.len()`, like slicing.
pub fn utf16_len_from(data: &[u8], from: usize) -> u64 {
    // Units = bytes − continuation bytes + four-byte leads. Each byte contributes −1, 0 or +1
    // to that correction; 32 independent i8 lanes, flushed before they can overflow, let the
    // compiler vectorise the loop.
    let body = &data[from..];
    let mut chunks = body.chunks_exact(32);
    let mut correction = lanes_correction(&mut chunks);
    let tail = chunks.remainder();
    if let Some(window) = data.last_chunk::<32>() {
        // The last 32 bytes of `data` end with the tail: count only the tail's lanes.
        correction += masked_correction(window, 32 - tail.len());
    } else {
        for &b in tail {
            correction += i64::from(byte_correction(b));
        }
    }
    // Never negative for a span that starts on a character boundary.
    (body.len() as i64 + correction).max(0) as u64
}

/// The correction of `window[skip..]`, computed over all 32 lanes with the first `skip`
/// masked out, so it vectorises. At most 32 in magnitude: an i8 holds it.
fn masked_correction(window: &[u8; 32], skip: usize) -> i64 {
    const LANE: [u8; 32] = {
        let mut lane = [0u8; 32];
        let mut i = 0;
        while i < 32 {
            lane[i] = i as u8;
            i += 1;
        }
        lane
    };
    let skip = skip as u8;
    let mut acc = [0i8; 32];
    for ((a, &b), &lane) in acc.iter_mut().zip(window).zip(&LANE) {
        // All ones for lanes at or after `skip`, so the AND keeps their correction.
        let keep = i8::from(lane >= skip).wrapping_neg();
        *a = byte_correction(b) & keep;
    }
    i64::from(acc.iter().fold(0i8, |s, &a| s.wrapping_add(a)))
}

fn lanes_correction(chunks: &mut core::slice::ChunksExact<'_, u8>) -> i64 {
    if chunks.len() == 0 {
        return 0;
    }
    let mut acc = [0i8; 32];
    let mut rounds = 0;
    let mut total = 0i64;
    for chunk in chunks {
        for (a, &b) in acc.iter_mut().zip(chunk) {
            *a += byte_correction(b);
        }
        rounds += 1;
        if rounds == 127 {
            total += reduce_lanes(&acc);
            acc = [0; 32];
            rounds = 0;
        }
    }
    total + reduce_lanes(&acc)
}

fn reduce_lanes(acc: &[i8; 32]) -> i64 {
    // At most 127 per lane in magnitude: an i16 sum of 32 lanes cannot overflow.
    i64::from(acc.iter().map(|&a| i16::from(a)).sum::<i16>())
}

#[inline(always)]
fn byte_correction(b: u8) -> i8 {
    // +1 for a four-byte lead (11110xxx), −1 for a continuation byte (10xxxxxx).
    i8::from(b >= 0xF0) - i8::from((b as i8) < -0x40)
}

/// Whether `bytes` is all ASCII. Unlike `<[u8]>::is_ascii`, which stops at the first
/// non-ASCII byte, this ORs whole blocks together, which the compiler vectorises; for the
/// chunk sizes the scanner sees, that is several times faster on ASCII text.
///
/// ```
/// assert!(extract_between::utf8::all_ascii(b"plain"));
/// assert!(!extract_between::utf8::all_ascii("é".as_bytes()));
/// ```
pub fn all_ascii(bytes: &[u8]) -> bool {
    // Text that is not ASCII usually shows it at once: don't OR a whole block to learn that.
    if !bytes[..bytes.len().min(16)].is_ascii() {
        return false;
    }
    bytes
        .chunks(4096)
        .all(|block| block.iter().fold(0u8, |acc, &b| acc | b) < 0x80)
}

/// Length of the longest prefix of `bytes`, in whole 64-byte blocks, that is ASCII and does
/// not contain `byte`: validation and a one-byte search fused into one pass, which the
/// compiler vectorises.
///
/// ```
/// use extract_between::utf8::ascii_run_without;
/// let text = [b'a'; 200];
/// assert_eq!(ascii_run_without(&text, b'['), 192); // whole blocks only
/// let mut marked = text;
/// marked[130] = b'[';
/// assert_eq!(ascii_run_without(&marked, b'['), 128);
/// marked[70] = 0xC3;
/// assert_eq!(ascii_run_without(&marked, b'['), 64);
/// ```
pub fn ascii_run_without(bytes: &[u8], byte: u8) -> usize {
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

/// Bit `k` is set when `block[k]` is `byte` or not ASCII: validation and a one-byte search
/// fused into one pass over a 64-byte block, for the scanner's one-byte markers.
///
/// On x86-64 this is four SSE2 compares and byte masks (SSE2 is part of the architecture's
/// baseline); a marker 40 bytes away then costs one such block, not a call into a general
/// search plus a separate validation pass. Elsewhere it is the portable definition
/// [`stops64_pair_portable`].
///
/// ```
/// use extract_between::utf8::stops64;
/// let mut block = [b'a'; 64];
/// assert_eq!(stops64(&block, b'['), 0);
/// block[3] = b'[';
/// block[40] = 0xC3;
/// assert_eq!(stops64(&block, b'['), 1 << 3 | 1 << 40);
/// ```
#[inline]
pub fn stops64(block: &[u8; 64], byte: u8) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    // SAFETY: as in `stops64_pair`, SSE2 is all it needs, and every x86-64 CPU has it.
    #[allow(unsafe_code)]
    return unsafe { sse2::stops64(block, byte) };
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    return stops64_pair_portable(block, [(block, byte), (block, byte)]);
}

/// Bit `k` is set when `block[k]` is not ASCII, or when `probe[0].0[k]` is `probe[0].1` and
/// `probe[1].0[k]` is `probe[1].1`: validation fused with a two-byte prefilter (the scanner
/// passes the blocks that start at two offsets of a marker's rarest bytes, so bit `k` says
/// "an occurrence may start at `k`", as in memchr's packed-pair search).
///
/// SSE2 on x86-64, [`stops64_pair_portable`] elsewhere.
///
/// ```
/// use extract_between::utf8::stops64_pair;
/// let mut text = [b'.'; 70];
/// text[10..17].copy_from_slice(b"<title>");
/// text[30..33].copy_from_slice(b"<i>");
/// let at = |i: usize| -> &[u8; 64] { text[i..i + 64].try_into().unwrap() };
/// // "<title>": '<' at offset 0 and '>' at offset 6. "<i>" is no candidate.
/// assert_eq!(stops64_pair(at(0), [(at(0), b'<'), (at(6), b'>')]), 1 << 10);
/// ```
#[inline]
pub fn stops64_pair(block: &[u8; 64], probe: [(&[u8; 64], u8); 2]) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    // SAFETY: the only requirement of `sse2::stops64_pair` is that the CPU has SSE2, and
    // this build targets it (the `cfg` above): every x86-64 CPU has it.
    #[allow(unsafe_code)]
    return unsafe { sse2::stops64_pair(block, probe) };
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    return stops64_pair_portable(block, probe);
}

/// What [`stops64_pair`] (and so [`stops64`]) computes, a byte at a time: the definition it
/// is tested against, and the implementation on targets without SSE2.
///
/// ```
/// use extract_between::utf8::{stops64, stops64_pair_portable};
/// let block: [u8; 64] = core::array::from_fn(|k| [b'x', b']', 0xE3, 0x80][k % 4]);
/// let probe = [(&block, b']'), (&block, b']')];
/// assert_eq!(stops64_pair_portable(&block, probe), stops64(&block, b']'));
/// ```
pub fn stops64_pair_portable(block: &[u8; 64], probe: [(&[u8; 64], u8); 2]) -> u64 {
    let [(first, b1), (second, b2)] = probe;
    (0..64).fold(0, |m, k| {
        let stop = block[k] >= 0x80 || (first[k] == b1 && second[k] == b2);
        m | (u64::from(stop) << k)
    })
}

/// Whether this CPU's hardware prefetchers keep the ASCII search for a needle of two bytes
/// or more and the UTF-8 walk fed without [`prefetch`] hints: on AMD's, as far as measured.
/// On a Zen 4 EPYC (8 KiB chunks, A/B in one binary) the ASCII search ran 1.33–1.35x faster
/// without its hints on the sparse corpus (even one hint per 128 bytes in its quiet walk cost
/// 1.03–1.11x), the UTF-8 walk 1.07–1.12x on CJK text without markers; on an Ice Lake Xeon
/// the hints made them 1.28x and 1.16x faster. (The one-byte block walk keeps its hints on
/// both: without them it lost a third on dense text, on Zen 4 too.)
pub(crate) fn streams_without_hints() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // Asked once: CPUID is slow, in a virtual machine a trip to the hypervisor.
        static AMD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *AMD.get_or_init(|| {
            // Leaf 0 names the vendor in EBX, EDX, ECX: "AuthenticAMD".
            let id = core::arch::x86_64::__cpuid(0);
            (id.ebx, id.edx, id.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163)
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// How far ahead of its current block a fast path's walk asks for data ([`prefetch`]): 16
/// blocks. (512 to 3072 bytes measured the same; 256 was too close.)
pub(crate) const PREFETCH_AHEAD: usize = 1024;

/// Asks the CPU to bring the cache line holding `data[at]` into L1 for a block walk that
/// will read it soon. `at` may lie past the end of `data`: the hint is then wasted, never
/// harmful.
///
/// Why: on this machine the hardware prefetchers did not keep up with the walks. The ASCII
/// block walk on dense text ran 1.5x faster with this hint 16 blocks ahead (A/B in one
/// binary, over a 16 MiB corpus and over 1 MB that stays in L2 alike), the UTF-8 walk over
/// CJK text without markers 1.16x; a walk whose data is in L1 already pays one instruction
/// per block.
#[inline(always)]
pub(crate) fn prefetch(data: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        // `wrapping_add`: the pointer may leave the slice; it is never dereferenced.
        let line = data.as_ptr().wrapping_add(at).cast::<i8>();
        // SAFETY: PREFETCHT0 (SSE, part of the x86-64 baseline) is a hint: it changes no
        // architectural state, reads nothing the program sees and never faults, whatever
        // the address.
        #[allow(unsafe_code)]
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(line);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, at);
}

/// The tables of the lookup validation the vector fast paths share.
#[cfg(target_arch = "x86_64")]
mod lookup;

/// AVX2 twins of [`stops64`] and [`stops64_pair`] (two 32-byte lanes instead of four 16-byte
/// ones), for CPUs found to have AVX2 at run time. Safe to call only from code compiled with
/// AVX2 enabled; the scanner calls them from such functions after detecting it.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;

/// The UTF-16 units of a valid 64-byte block of UTF-8, from [`avx2::utf8_block`] (bit `k` of
/// each mask is about the block's byte `k`).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Utf8Block {
    /// Continuation bytes (`10xxxxxx`); every other byte begins a character, one UTF-16
    /// unit each.
    pub(crate) conts: u64,
    /// Four-byte leads (`11110xxx`): one more UTF-16 unit each.
    pub(crate) fours: u64,
}

#[cfg(target_arch = "x86_64")]
impl Utf8Block {
    /// UTF-16 units of the block's bytes below bit `k` (all 64 for `k == 64`).
    #[inline]
    pub(crate) fn units_below(&self, k: u32) -> u64 {
        let below = if k >= 64 { !0 } else { (1u64 << k) - 1 };
        u64::from(k.min(64) - (self.conts & below).count_ones() + (self.fours & below).count_ones())
    }
}

/// AVX-512 (BW) twins of the UTF-8 fast path's block tests in [`avx2`]: one 64-byte vector
/// per block and compares straight into bit masks, about half the instructions. Safe to call
/// only from code compiled with AVX-512 BW enabled (and VBMI, for [`avx512::utf8_block`]),
/// after detecting it.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2;

/// The result of [`check`]: how much of a chunk is whole, valid characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Length of the prefix made of whole, valid characters.
    pub complete: usize,
    /// Whether the bytes after `complete` are invalid (rather than the start of a character
    /// cut by the end of the chunk, at most 3 bytes).
    pub invalid: bool,
}

/// Validates a chunk of UTF-8 that may end inside a character.
///
/// Fast path: validation (SIMD, with the `simdutf8` feature) of everything up to the last
/// character boundary; the precise error position is only computed (with `std`) when the
/// chunk is invalid.
///
/// ```
/// use extract_between::utf8::{check, Checked};
/// let b = "a€".as_bytes();
/// assert_eq!(check(b), Checked { complete: 4, invalid: false });
/// assert_eq!(check(&b[..3]), Checked { complete: 1, invalid: false }); // "€" cut
/// assert_eq!(check(b"ab\xffc"), Checked { complete: 2, invalid: true });
/// ```
pub fn check(bytes: &[u8]) -> Checked {
    // Where a character cut by the end of the chunk would begin.
    let mut cut = bytes.len();
    for back in 1..=bytes.len().min(3) {
        let b = bytes[bytes.len() - back];
        if (b as i8) >= -0x40 {
            // A lead or ASCII byte: cut before it if its sequence runs past the end.
            if sequence_len(b).is_some_and(|n| n > back) {
                cut = bytes.len() - back;
            }
            break;
        }
    }
    if valid(&bytes[..cut]) {
        return match std::str::from_utf8(&bytes[cut..]) {
            Ok(_) => Checked {
                complete: bytes.len(),
                invalid: false,
            },
            Err(e) => Checked {
                complete: cut + e.valid_up_to(),
                invalid: e.error_len().is_some(),
            },
        };
    }
    match std::str::from_utf8(bytes) {
        Ok(_) => Checked {
            complete: bytes.len(),
            invalid: false,
        },
        Err(e) => Checked {
            complete: e.valid_up_to(),
            invalid: e.error_len().is_some(),
        },
    }
}

/// Whether `bytes` is valid UTF-8. simdutf8 leaves inputs shorter than its 64-byte block to
/// `std`, which walks non-ASCII text a character at a time; the scanner's chunk tails are
/// that short, so they are validated as one zero-padded block (zeros after whole characters
/// are valid; after a character cut short they are not, as `std` would judge the cut).
#[cfg(feature = "simdutf8")]
fn valid(bytes: &[u8]) -> bool {
    if bytes.len() >= 64 {
        return simdutf8::basic::from_utf8(bytes).is_ok();
    }
    if all_ascii(bytes) {
        return true;
    }
    let mut block = [0u8; 64];
    block[..bytes.len()].copy_from_slice(bytes);
    simdutf8::basic::from_utf8(&block).is_ok()
}

/// Whether `bytes` is valid UTF-8 (without the `simdutf8` feature: `std`'s validation, which
/// skips ASCII a word at a time).
#[cfg(not(feature = "simdutf8"))]
fn valid(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok()
}

/// Total length in bytes of the UTF-8 sequence that begins with the lead byte `lead`, or
/// `None` when `lead` cannot begin a sequence.
///
/// ```
/// use extract_between::utf8::sequence_len;
/// assert_eq!(sequence_len(b'a'), Some(1));
/// assert_eq!(sequence_len(0xE2), Some(3));
/// assert_eq!(sequence_len(0x80), None);
/// ```
pub fn sequence_len(lead: u8) -> Option<usize> {
    match lead {
        0x00..=0x7F => Some(1),
        0xC2..=0xDF => Some(2),
        0xE0..=0xEF => Some(3),
        0xF0..=0xF4 => Some(4),
        _ => None,
    }
}
