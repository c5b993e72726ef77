//! The ASCII and UTF-8 kernels with AVX2: two 32-byte vectors a block.

use crate::kernels::Utf8Block;
use crate::kernels::lookup::{BY_CURRENT_HIGH, BY_PREV_HIGH, BY_PREV_LOW};
use core::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
    _mm256_or_si256, _mm256_set_epi64x, _mm256_set1_epi8, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_subs_epu8, _mm256_testz_si256, _mm256_xor_si256,
};

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn stops64(block: &[u8; 64], byte: u8) -> u64 {
    let byte = _mm256_set1_epi8(byte as i8);
    mask(core::array::from_fn(|k| {
        let v = load(block, 32 * k);
        _mm256_or_si256(v, _mm256_cmpeq_epi8(v, byte))
    }))
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn stops64_pair(block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
    let ([first, second], [b1, b2]) = (at, bytes);
    let (b1, b2) = (_mm256_set1_epi8(b1 as i8), _mm256_set1_epi8(b2 as i8));
    mask(core::array::from_fn(|k| {
        let hit = _mm256_and_si256(
            _mm256_cmpeq_epi8(load(first, 32 * k), b1),
            _mm256_cmpeq_epi8(load(second, 32 * k), b2),
        );
        _mm256_or_si256(load(block, 32 * k), hit)
    }))
}

/// Whether [`stops64`] finds nothing in either half of `bytes`: the walk over quiet
/// stretches tests this, one byte mask for 128 bytes (OR-ed as vectors first).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn quiet128(bytes: &[u8; 128], byte: u8) -> bool {
    let byte = _mm256_set1_epi8(byte as i8);
    let stops = (0..4).fold(_mm256_setzero_si256(), |acc, k| {
        let v = load(bytes, 32 * k);
        _mm256_or_si256(acc, _mm256_or_si256(v, _mm256_cmpeq_epi8(v, byte)))
    });
    _mm256_movemask_epi8(stops) == 0
}

/// Whether [`stops64_pair`] finds nothing in either half of `bytes` (`at`: the 128
/// bytes from each probed offset), as [`quiet128`].
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn quiet128_pair(bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
    let ([first, second], [b1, b2]) = (at, probe);
    let (b1, b2) = (_mm256_set1_epi8(b1 as i8), _mm256_set1_epi8(b2 as i8));
    let stops = (0..4).fold(_mm256_setzero_si256(), |acc, k| {
        let hit = _mm256_and_si256(
            _mm256_cmpeq_epi8(load(first, 32 * k), b1),
            _mm256_cmpeq_epi8(load(second, 32 * k), b2),
        );
        _mm256_or_si256(acc, _mm256_or_si256(load(bytes, 32 * k), hit))
    });
    _mm256_movemask_epi8(stops) == 0
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
pub(super) struct Consts {
    nibble: __m256i,
    prev_high: __m256i,
    prev_low: __m256i,
    current_high: __m256i,
    x60: __m256i,
    x70: __m256i,
    x80: __m256i,
}

/// The block test's constants.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn consts() -> Consts {
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

/// A valid block's UTF-16 units: two bit masks.
pub(super) type Units = Utf8Block;

/// Tests the block `window[3..67]` of UTF-8 (the three bytes before it give the
/// context) in one pass: validation by the lookup method above (`None` when invalid),
/// the UTF-16 units of each byte, and where the needle's probe bytes sit (`probe`:
/// offsets in the needle, at most 31, and bytes; see [`candidates`]).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn utf8_block(
    consts: &Consts,
    window: &[u8; 98],
    probe: [(usize, u8); 2],
) -> Option<(Units, u64)> {
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
    Some((Utf8Block { conts, fours }, hits))
}

/// Where the needle's probe bytes sit in the block `window[3..67]`: bit `k` is set when
/// `window[3 + k + offset] == byte` for each `(offset, byte)` of `probe`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn candidates(window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
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
pub(super) struct Prefix {
    bytes: __m256i,
    /// One bit per byte of the needle.
    mask: u32,
}

impl Prefix {
    /// The needle `bytes[..len]`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn new(bytes: &[u8; 32], len: usize) -> Prefix {
        Prefix {
            bytes: load(bytes, 0),
            mask: if len >= 32 { !0 } else { (1u32 << len) - 1 },
        }
    }

    /// Whether `here` begins with the needle.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn starts(&self, here: &[u8; 32]) -> bool {
        let equal = _mm256_movemask_epi8(_mm256_cmpeq_epi8(load(here, 0), self.bytes)) as u32;
        equal & self.mask == self.mask
    }
}

/// 32 bytes of `bytes` from `at` as a vector: one unaligned load. (Built from four word
/// reads, LLVM fused the block test's overlapping windows into word loads, inserts and
/// shifts, and the AVX2 UTF-8 path fell far behind `extract` on CJK text.)
#[inline]
#[target_feature(enable = "avx2")]
fn load<const N: usize>(bytes: &[u8; N], at: usize) -> __m256i {
    let lane = &bytes[at..at + 32];
    // SAFETY: `lane` is 32 readable bytes, what the unaligned load reads.
    unsafe { _mm256_loadu_si256(lane.as_ptr().cast()) }
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
