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
mod lookup {
    // The error classes of the lookup validation (Keiser and Lemire, "Validating UTF-8 in
    // less than one instruction per byte", 2021): a byte pair (previous, current) is bad when
    // one bit survives in all three tables, indexed by the previous byte's high and low
    // nibbles and the current byte's high nibble.
    /// A lead byte followed by something other than a continuation byte.
    const TOO_SHORT: u8 = 1 << 0;
    /// A continuation byte after ASCII.
    const TOO_LONG: u8 = 1 << 1;
    /// `E0` followed by `80..=9F`.
    const OVERLONG_3: u8 = 1 << 2;
    /// `F4` followed by `90..=BF`, or `F5..=FF` followed by `90..=BF`.
    const TOO_LARGE: u8 = 1 << 3;
    /// `ED` followed by `A0..=BF`: a UTF-16 surrogate.
    const SURROGATE: u8 = 1 << 4;
    /// `C0` or `C1` followed by a continuation byte.
    const OVERLONG_2: u8 = 1 << 5;
    /// `F0` followed by `80..=8F`, or `F5..=FF` followed by `80..=8F`.
    const OVERLONG_4: u8 = 1 << 6;
    /// A continuation byte after a continuation byte: an error unless a three- or four-byte
    /// lead two or three bytes back asks for it (the `must` vector cancels it then).
    const TWO_CONTS: u8 = 1 << 7;

    pub(super) const BY_PREV_HIGH: [u8; 16] = {
        let mut t = [TOO_LONG; 16];
        let mut k = 8;
        while k < 12 {
            t[k] = TWO_CONTS;
            k += 1;
        }
        t[0xC] = TOO_SHORT | OVERLONG_2;
        t[0xD] = TOO_SHORT;
        t[0xE] = TOO_SHORT | OVERLONG_3 | SURROGATE;
        t[0xF] = TOO_SHORT | TOO_LARGE | OVERLONG_4;
        t
    };

    pub(super) const BY_PREV_LOW: [u8; 16] = {
        let mut t = [TOO_SHORT | TOO_LONG | TWO_CONTS; 16];
        t[0x0] |= OVERLONG_3 | OVERLONG_2 | OVERLONG_4;
        t[0x1] |= OVERLONG_2;
        let mut k = 4;
        while k < 16 {
            // F4 and above are too large (with 90..=BF); F5 and above with anything.
            t[k] |= TOO_LARGE;
            if k >= 5 {
                t[k] |= OVERLONG_4;
            }
            k += 1;
        }
        t[0xD] |= SURROGATE;
        t
    };

    pub(super) const BY_CURRENT_HIGH: [u8; 16] = {
        let mut t = [TOO_SHORT; 16];
        t[0x8] = TOO_LONG | TWO_CONTS | OVERLONG_2 | OVERLONG_3 | OVERLONG_4;
        t[0x9] = TOO_LONG | TWO_CONTS | OVERLONG_2 | OVERLONG_3 | TOO_LARGE;
        t[0xA] = TOO_LONG | TWO_CONTS | OVERLONG_2 | TOO_LARGE | SURROGATE;
        t[0xB] = t[0xA];
        t
    };
}

/// AVX2 twins of [`stops64`] and [`stops64_pair`] (two 32-byte lanes instead of four 16-byte
/// ones), for CPUs found to have AVX2 at run time. Safe to call only from code compiled with
/// AVX2 enabled; the scanner calls them from such functions after detecting it.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use super::lookup::{BY_CURRENT_HIGH, BY_PREV_HIGH, BY_PREV_LOW};
    use core::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set_epi64x, _mm256_set1_epi8, _mm256_setzero_si256,
        _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_subs_epu8, _mm256_testz_si256,
        _mm256_xor_si256,
    };

    #[inline]
    #[target_feature(enable = "avx2")]
    fn lane(block: &[u8; 64], k: usize) -> __m256i {
        load32(block[32 * k..32 * k + 32].try_into().unwrap_or(&[0; 32]))
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn stops64(block: &[u8; 64], byte: u8) -> u64 {
        let byte = _mm256_set1_epi8(byte as i8);
        mask(core::array::from_fn(|k| {
            let v = lane(block, k);
            _mm256_or_si256(v, _mm256_cmpeq_epi8(v, byte))
        }))
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn stops64_pair(block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
        let ([first, second], [b1, b2]) = (at, bytes);
        let (b1, b2) = (_mm256_set1_epi8(b1 as i8), _mm256_set1_epi8(b2 as i8));
        mask(core::array::from_fn(|k| {
            let hit = _mm256_and_si256(
                _mm256_cmpeq_epi8(lane(first, k), b1),
                _mm256_cmpeq_epi8(lane(second, k), b2),
            );
            _mm256_or_si256(lane(block, k), hit)
        }))
    }

    /// Whether [`stops64`] finds nothing in either half of `bytes`: the walk over quiet
    /// stretches tests this, one byte mask for 128 bytes (OR-ed as vectors first).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn quiet128(bytes: &[u8; 128], byte: u8) -> bool {
        let byte = _mm256_set1_epi8(byte as i8);
        let stops = (0..4).fold(_mm256_setzero_si256(), |acc, k| {
            let v = load32(bytes[32 * k..32 * k + 32].try_into().unwrap_or(&[0; 32]));
            _mm256_or_si256(acc, _mm256_or_si256(v, _mm256_cmpeq_epi8(v, byte)))
        });
        _mm256_movemask_epi8(stops) == 0
    }

    /// Whether [`stops64_pair`] finds nothing in either half of `bytes` (`at`: the 128
    /// bytes from each probed offset), as [`quiet128`].
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn quiet128_pair(bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
        let ([first, second], [b1, b2]) = (at, probe);
        let (b1, b2) = (_mm256_set1_epi8(b1 as i8), _mm256_set1_epi8(b2 as i8));
        let lane =
            |b: &[u8; 128], k: usize| load32(b[32 * k..32 * k + 32].try_into().unwrap_or(&[0; 32]));
        let stops = (0..4).fold(_mm256_setzero_si256(), |acc, k| {
            let hit = _mm256_and_si256(
                _mm256_cmpeq_epi8(lane(first, k), b1),
                _mm256_cmpeq_epi8(lane(second, k), b2),
            );
            _mm256_or_si256(acc, _mm256_or_si256(lane(bytes, k), hit))
        });
        _mm256_movemask_epi8(stops) == 0
    }

    /// 32 bytes of `window` from `at` as a vector.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(window: &[u8; 98], at: usize) -> __m256i {
        load32(window[at..at + 32].try_into().unwrap_or(&[0; 32]))
    }

    /// A 16-entry table, repeated in both 128-bit halves for `_mm256_shuffle_epi8`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn table(t: [u8; 16]) -> __m256i {
        let lo = i64::from_le_bytes(t[..8].try_into().unwrap_or([0; 8]));
        let hi = i64::from_le_bytes(t[8..].try_into().unwrap_or([0; 8]));
        _mm256_set_epi64x(hi, lo, hi, lo)
    }

    /// The block test's constant vectors, made once per walk and passed through
    /// [`core::hint::black_box`] so that LLVM treats them as values. As constants, short of
    /// AVX2's 16 registers, it rematerialised five of them inside the quiet loop as byte
    /// broadcasts from memory, each a load and a uop on the shuffle port the lookups need;
    /// as values they stay in registers there (or come back with a plain load).
    #[derive(Clone, Copy)]
    pub(crate) struct Consts {
        nibble: __m256i,
        prev_high: __m256i,
        prev_low: __m256i,
        current_high: __m256i,
        x60: __m256i,
        x70: __m256i,
        x80: __m256i,
    }

    impl Consts {
        #[inline]
        #[target_feature(enable = "avx2")]
        pub(crate) fn new() -> Consts {
            core::hint::black_box(Consts {
                nibble: _mm256_set1_epi8(0x0F),
                prev_high: table(BY_PREV_HIGH),
                prev_low: table(BY_PREV_LOW),
                current_high: table(BY_CURRENT_HIGH),
                x60: _mm256_set1_epi8(0x60),
                x70: _mm256_set1_epi8(0x70),
                x80: _mm256_set1_epi8(0x80u8 as i8),
            })
        }
    }

    /// Tests the block `window[3..67]` of UTF-8 (the three bytes before it give the
    /// context) in one pass: validation by the lookup method above (`None` when invalid),
    /// the UTF-16 units of each byte, and where the needle's probe bytes sit (`probe`:
    /// offsets in the needle, at most 31, and bytes; see [`candidates`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn utf8_block(
        consts: &Consts,
        window: &[u8; 98],
        probe: [(usize, u8); 2],
    ) -> Option<(super::Utf8Block, u64)> {
        let Consts {
            nibble,
            prev_high,
            prev_low,
            current_high,
            x60,
            x70,
            x80,
        } = *consts;
        let high = |v| _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble);
        let mut errors = _mm256_setzero_si256();
        let bits = |v| u64::from(_mm256_movemask_epi8(v) as u32);
        let [(i1, b1), (i2, b2)] = probe;
        let (b1, b2) = (_mm256_set1_epi8(b1 as i8), _mm256_set1_epi8(b2 as i8));
        let (mut hits, mut conts, mut fours) = (0, 0, 0);
        for at in [3, 35] {
            let v = load(window, at);
            let prev1 = load(window, at - 1);
            let current = _mm256_shuffle_epi8(current_high, high(v));
            let special = _mm256_and_si256(
                _mm256_and_si256(
                    _mm256_shuffle_epi8(prev_high, high(prev1)),
                    _mm256_shuffle_epi8(prev_low, _mm256_and_si256(prev1, nibble)),
                ),
                current,
            );
            // High bit set where a lead two or three bytes back asks for a continuation.
            let must = _mm256_and_si256(
                _mm256_or_si256(
                    _mm256_subs_epu8(load(window, at - 2), x60),
                    _mm256_subs_epu8(load(window, at - 3), x70),
                ),
                x80,
            );
            errors = _mm256_or_si256(errors, _mm256_xor_si256(special, must));
            let shift = at - 3;
            hits |= bits(_mm256_and_si256(
                _mm256_cmpeq_epi8(load(window, at + i1), b1),
                _mm256_cmpeq_epi8(load(window, at + i2), b2),
            )) << shift;
            // The current byte's class has its high bit (`TWO_CONTS`) set exactly for
            // continuation bytes: no compare needed.
            conts |= bits(current) << shift;
            // High bit set exactly for F0..=FF.
            fours |= bits(_mm256_subs_epu8(v, x70)) << shift;
        }
        if _mm256_testz_si256(errors, errors) == 0 {
            return None;
        }
        Some((super::Utf8Block { conts, fours }, hits))
    }

    /// Where the needle's probe bytes sit in the block `window[3..67]`: bit `k` is set when
    /// `window[3 + k + offset] == byte` for each `(offset, byte)` of `probe`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn candidates(window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
        [3, 35].into_iter().fold(0, |hits, at| {
            let hit = probe
                .into_iter()
                .fold(_mm256_set1_epi8(-1), |hit, (offset, byte)| {
                    _mm256_and_si256(
                        hit,
                        _mm256_cmpeq_epi8(load(window, at + offset), _mm256_set1_epi8(byte as i8)),
                    )
                });
            hits | u64::from(_mm256_movemask_epi8(hit) as u32) << (at - 3)
        })
    }

    /// A needle of up to 32 bytes, ready to be compared with the bytes at a candidate in
    /// one vector compare (instead of a call to `memcmp` for a needle of a few bytes).
    #[derive(Clone, Copy)]
    pub(crate) struct Prefix {
        bytes: __m256i,
        /// One bit per byte of the needle.
        mask: u32,
    }

    impl Prefix {
        /// The needle `bytes[..len]`.
        #[inline]
        #[target_feature(enable = "avx2")]
        pub(crate) fn new(bytes: &[u8; 32], len: usize) -> Prefix {
            Prefix {
                bytes: load32(bytes),
                mask: if len >= 32 { !0 } else { (1u32 << len) - 1 },
            }
        }

        /// Whether `here` begins with the needle.
        #[inline]
        #[target_feature(enable = "avx2")]
        pub(crate) fn starts(&self, here: &[u8; 32]) -> bool {
            let equal = _mm256_movemask_epi8(_mm256_cmpeq_epi8(load32(here), self.bytes)) as u32;
            equal & self.mask == self.mask
        }
    }

    /// 32 bytes as a vector: one unaligned load. (Built from four word reads, LLVM fused
    /// the block test's overlapping windows into word loads, inserts and shifts: the AVX2
    /// UTF-8 path ran at 0.29x of `extract` on CJK text without markers.)
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load32(bytes: &[u8; 32]) -> __m256i {
        // SAFETY: `bytes` is 32 readable bytes, what the unaligned load reads.
        #[allow(unsafe_code)]
        unsafe {
            _mm256_loadu_si256(bytes.as_ptr().cast())
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn mask(lanes: [__m256i; 2]) -> u64 {
        if _mm256_movemask_epi8(_mm256_or_si256(lanes[0], lanes[1])) == 0 {
            return 0;
        }
        let half = |v| u64::from(_mm256_movemask_epi8(v) as u32);
        half(lanes[0]) | half(lanes[1]) << 32
    }
}

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
pub(crate) mod avx512 {
    use super::lookup::{BY_CURRENT_HIGH, BY_PREV_HIGH, BY_PREV_LOW};
    use core::arch::x86_64::{
        __m512i, _mm512_add_epi64, _mm512_and_si512, _mm512_cmpeq_epi8_mask, _mm512_loadu_si512,
        _mm512_mask_cmpeq_epi8_mask, _mm512_maskz_mov_epi8, _mm512_movepi8_mask, _mm512_or_si512,
        _mm512_permutexvar_epi8, _mm512_reduce_add_epi64, _mm512_sad_epu8, _mm512_set1_epi8,
        _mm512_setzero_si512, _mm512_srli_epi16, _mm512_sub_epi8, _mm512_subs_epu8,
        _mm512_ternarylogic_epi32, _mm512_test_epi8_mask, _mm512_xor_si512,
    };

    /// 64 bytes of `window` from `at` as a vector.
    #[inline]
    #[target_feature(enable = "avx512bw")]
    fn load(window: &[u8; 98], at: usize) -> __m512i {
        block(window[at..at + 64].try_into().unwrap_or(&[0; 64]))
    }

    /// [`super::stops64`] with AVX-512 BW: one vector, two masks.
    #[inline]
    #[target_feature(enable = "avx512bw")]
    pub(crate) fn stops64(bytes: &[u8; 64], byte: u8) -> u64 {
        let v = block(bytes);
        _mm512_movepi8_mask(v) | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(byte as i8))
    }

    /// [`super::stops64_pair`] with AVX-512 BW (the probe's blocks and bytes apart).
    #[inline]
    #[target_feature(enable = "avx512bw")]
    pub(crate) fn stops64_pair(bytes: &[u8; 64], at: [&[u8; 64]; 2], probe: [u8; 2]) -> u64 {
        let ([first, second], [b1, b2]) = (at, probe);
        let hits = _mm512_mask_cmpeq_epi8_mask(
            _mm512_cmpeq_epi8_mask(block(first), _mm512_set1_epi8(b1 as i8)),
            block(second),
            _mm512_set1_epi8(b2 as i8),
        );
        _mm512_movepi8_mask(block(bytes)) | hits
    }

    /// [`super::avx2::quiet128`] with AVX-512 BW, in vectors but for one test: a byte stops
    /// where it or `(byte ^ probe) - 1` has its high bit set (not ASCII, or the probed
    /// byte, which is ASCII). Per 128 bytes one mask instead of six (against four compares
    /// into masks and their ORs, ~1.2x faster on AMD Zen 4, where mask operations are dear).
    #[inline]
    #[target_feature(enable = "avx512bw")]
    pub(crate) fn quiet128(bytes: &[u8; 128], byte: u8) -> bool {
        let (byte, one) = (_mm512_set1_epi8(byte as i8), _mm512_set1_epi8(1));
        let stops = |k: usize| {
            let v = block(bytes[64 * k..64 * k + 64].try_into().unwrap_or(&[0; 64]));
            _mm512_or_si512(v, _mm512_sub_epi8(_mm512_xor_si512(v, byte), one))
        };
        let high = _mm512_set1_epi8(0x80u8 as i8);
        _mm512_test_epi8_mask(_mm512_or_si512(stops(0), stops(1)), high) == 0
    }

    /// [`super::avx2::quiet128_pair`] with AVX-512 BW, as [`quiet128`]: the probed bytes
    /// match where `((first ^ b1) | (second ^ b2)) - 1` has its high bit set (also where one
    /// of them is not ASCII: a false alarm the block test then clears).
    #[inline]
    #[target_feature(enable = "avx512bw")]
    pub(crate) fn quiet128_pair(bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
        let ([first, second], [b1, b2]) = (at, probe);
        let (b1, b2) = (_mm512_set1_epi8(b1 as i8), _mm512_set1_epi8(b2 as i8));
        let one = _mm512_set1_epi8(1);
        let half =
            |b: &[u8; 128], k: usize| block(b[64 * k..64 * k + 64].try_into().unwrap_or(&[0; 64]));
        let stops = |k: usize| {
            // (first ^ b1) | (second ^ b2), in one ternary-logic instruction.
            let differ = _mm512_ternarylogic_epi32::<0xBE>(
                half(first, k),
                b1,
                _mm512_xor_si512(half(second, k), b2),
            );
            _mm512_or_si512(half(bytes, k), _mm512_sub_epi8(differ, one))
        };
        let high = _mm512_set1_epi8(0x80u8 as i8);
        _mm512_test_epi8_mask(_mm512_or_si512(stops(0), stops(1)), high) == 0
    }

    /// 64 bytes as a vector: one unaligned load. (Built from eight word reads, as the SSE2
    /// lanes still are, LLVM fused them into one load in some callers but into three loads
    /// and a permute in the ASCII block walk, its hottest loop; AVX2's `load32` likewise.)
    #[inline]
    #[target_feature(enable = "avx512bw")]
    fn block(bytes: &[u8; 64]) -> __m512i {
        // SAFETY: `bytes` is 64 readable bytes, what the unaligned load reads.
        #[allow(unsafe_code)]
        unsafe {
            _mm512_loadu_si512(bytes.as_ptr().cast())
        }
    }

    /// A 64-entry table for `_mm512_permutexvar_epi8`: entry `i` is `t`'s entry for the
    /// nibble in `i`'s bits from `shift` up.
    const fn table64(t: &[u8; 16], shift: u32) -> [u8; 64] {
        let mut out = [0; 64];
        let mut i = 0;
        while i < 64 {
            out[i] = t[(i >> shift) & 15];
            i += 1;
        }
        out
    }
    /// The lookup tables indexed by six bits of a byte: its high nibble (bits 7..2, from a
    /// shift by two: `vpermb` reads six bits, so no mask is needed) or its low one (bits
    /// 5..0, the byte itself).
    const PREV_HIGH64: [u8; 64] = table64(&BY_PREV_HIGH, 2);
    const PREV_LOW64: [u8; 64] = table64(&BY_PREV_LOW, 0);
    const CURRENT_HIGH64: [u8; 64] = table64(&BY_CURRENT_HIGH, 2);
    /// The UTF-16 units a byte of valid UTF-8 adds, by its high nibble: none for a
    /// continuation byte, two for a four-byte lead, one otherwise.
    const UNITS64: [u8; 64] = table64(&[1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 2], 2);

    /// The UTF-16 units of a valid 64-byte block, as [`super::Utf8Block`] but kept in a
    /// vector, one byte's units per lane: a walk sums them over quiet blocks in a vector
    /// ([`Units::add`]) and only moves them to a register at an event. (As two bit masks
    /// moved to registers and counted per block, they cost the quiet loop ~40 % of its speed
    /// on AMD Zen 4, where moves out of mask registers are dear: 9.8 against 17.0 GB/s over
    /// 1 MB of CJK text in a micro-benchmark, the vector sum 17.0.)
    #[derive(Clone, Copy)]
    pub(crate) struct Units(__m512i);

    impl Units {
        /// [`Units::total`] of `sum` plus the units of the block's bytes below `k` (all 64
        /// for `k == 64`): one reduction for both, as an event needs them.
        #[inline]
        #[target_feature(enable = "avx512bw")]
        pub(crate) fn total_below(&self, k: u32, sum: __m512i) -> u64 {
            let below = if k >= 64 { !0 } else { (1u64 << k) - 1 };
            Units::total(Units(_mm512_maskz_mov_epi8(below, self.0)).add(sum))
        }

        /// `sum` plus the block's units, in the 64-bit lanes of a vector ([`Units::total`]).
        #[inline]
        #[target_feature(enable = "avx512bw")]
        pub(crate) fn add(&self, sum: __m512i) -> __m512i {
            _mm512_add_epi64(sum, _mm512_sad_epu8(self.0, _mm512_setzero_si512()))
        }

        /// The units summed by [`Units::add`] from a zero vector.
        #[inline]
        #[target_feature(enable = "avx512bw")]
        pub(crate) fn total(sum: __m512i) -> u64 {
            _mm512_reduce_add_epi64(sum) as u64
        }
    }

    /// [`super::avx2::utf8_block`] with AVX-512 BW and VBMI.
    #[inline]
    #[target_feature(enable = "avx512bw,avx512vbmi")]
    pub(crate) fn utf8_block(window: &[u8; 98], probe: [(usize, u8); 2]) -> Option<(Units, u64)> {
        // `vpermb` looks up 64-entry tables with the index's low six bits: the nibble
        // lookups need no mask (three instructions fewer than with `vpshufb` per block).
        let lookup = |index, t: &[u8; 64]| _mm512_permutexvar_epi8(index, block(t));
        let v = load(window, 3);
        let prev1 = load(window, 2);
        let high = _mm512_srli_epi16::<2>(v);
        let current = lookup(high, &CURRENT_HIGH64);
        let special = _mm512_and_si512(
            _mm512_and_si512(
                lookup(_mm512_srli_epi16::<2>(prev1), &PREV_HIGH64),
                lookup(prev1, &PREV_LOW64),
            ),
            current,
        );
        // High bit set where a lead two or three bytes back asks for a continuation.
        let must = _mm512_and_si512(
            _mm512_or_si512(
                _mm512_subs_epu8(load(window, 1), _mm512_set1_epi8(0x60)),
                _mm512_subs_epu8(load(window, 0), _mm512_set1_epi8(0x70)),
            ),
            _mm512_set1_epi8(0x80u8 as i8),
        );
        let errors = _mm512_xor_si512(special, must);
        if _mm512_test_epi8_mask(errors, errors) != 0 {
            return None;
        }
        let units = Units(lookup(high, &UNITS64));
        Some((units, candidates(window, probe)))
    }

    /// [`super::avx2::candidates`] with AVX-512 BW.
    #[inline]
    #[target_feature(enable = "avx512bw")]
    pub(crate) fn candidates(window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
        probe.into_iter().fold(!0, |hits, (at, byte)| {
            _mm512_mask_cmpeq_epi8_mask(hits, load(window, 3 + at), _mm512_set1_epi8(byte as i8))
        })
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use core::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x,
        _mm_set1_epi8,
    };

    /// Bytes `16k..16k + 16` of `block` as a vector (two plain loads; the compiler fuses
    /// them into one unaligned vector load, without a raw pointer).
    #[inline]
    #[target_feature(enable = "sse2")]
    fn lane(block: &[u8; 64], k: usize) -> __m128i {
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&block[at..at + 8]);
            i64::from_le_bytes(w)
        };
        _mm_set_epi64x(word(16 * k + 8), word(16 * k))
    }

    // Inlined into the caller's loop, across crates too (the scanner is generic over sinks).
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn stops64(block: &[u8; 64], byte: u8) -> u64 {
        let byte = _mm_set1_epi8(byte as i8);
        // A byte's high bit, ORed with all ones where it is `byte`.
        mask(core::array::from_fn(|k| {
            let v = lane(block, k);
            _mm_or_si128(v, _mm_cmpeq_epi8(v, byte))
        }))
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn stops64_pair(block: &[u8; 64], probe: [(&[u8; 64], u8); 2]) -> u64 {
        let [(first, b1), (second, b2)] = probe;
        let (b1, b2) = (_mm_set1_epi8(b1 as i8), _mm_set1_epi8(b2 as i8));
        // A byte's high bit, ORed with all ones where a candidate starts.
        mask(core::array::from_fn(|k| {
            let hit = _mm_and_si128(
                _mm_cmpeq_epi8(lane(first, k), b1),
                _mm_cmpeq_epi8(lane(second, k), b2),
            );
            _mm_or_si128(lane(block, k), hit)
        }))
    }

    /// The high bits of the four lanes' bytes, as one 64-bit mask.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn mask(lanes: [__m128i; 4]) -> u64 {
        // Most blocks hold no stop: one byte mask answers for all four lanes.
        let any = _mm_or_si128(
            _mm_or_si128(lanes[0], lanes[1]),
            _mm_or_si128(lanes[2], lanes[3]),
        );
        if _mm_movemask_epi8(any) == 0 {
            return 0;
        }
        lanes.iter().enumerate().fold(0, |m, (k, &v)| {
            m | (u64::from(_mm_movemask_epi8(v) as u16) << (16 * k))
        })
    }
}

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
