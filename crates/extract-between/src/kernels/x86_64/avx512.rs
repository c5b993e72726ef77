//! AVX-512 BW's vector: 64 bytes, compares into mask registers. Beside it, the kernels
//! where mask registers and VBMI beat the generic form on AMD Zen 4: the quiet scans (one
//! mask test per 128 bytes) and the UTF-8 block test with 64-entry tables (`vpermb`) and
//! its units kept in a vector.

use crate::kernels::BlockUnits;
use crate::kernels::generic;
use crate::kernels::lookup::{BY_CURRENT_HIGH, BY_PREV_HIGH, BY_PREV_LOW};
use crate::kernels::vector::{Shuffle, Vector};
use core::arch::x86_64::{
    __m512i, _mm_loadu_si128, _mm512_add_epi64, _mm512_and_si512, _mm512_broadcast_i32x4,
    _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_maskz_mov_epi8, _mm512_movepi8_mask,
    _mm512_movm_epi8, _mm512_or_si512, _mm512_permutexvar_epi8, _mm512_reduce_add_epi64,
    _mm512_sad_epu8, _mm512_set1_epi8, _mm512_setzero_si512, _mm512_shuffle_epi8,
    _mm512_srli_epi16, _mm512_sub_epi8, _mm512_subs_epu8, _mm512_ternarylogic_epi32,
    _mm512_test_epi8_mask, _mm512_xor_si512,
};

impl Vector for __m512i {
    const BYTES: usize = 64;

    with_features! { "avx512bw";
        unsafe fn splat(byte: u8) -> Self {
            _mm512_set1_epi8(byte as i8)
        }

        /// One unaligned load. (Built from eight word reads, LLVM fused them into one load in
        /// some callers but into three loads and a permute in the ASCII walk, its hottest loop.)
        unsafe fn load(bytes: &[u8]) -> Self {
            match bytes.first_chunk::<64>() {
                // SAFETY: `lane` is 64 readable bytes, what the unaligned load reads.
                Some(lane) => unsafe { _mm512_loadu_si512(lane.as_ptr().cast()) },
                None => _mm512_setzero_si512(),
            }
        }

        unsafe fn eq(self, other: Self) -> Self {
            _mm512_movm_epi8(_mm512_cmpeq_epi8_mask(self, other))
        }

        unsafe fn and(self, other: Self) -> Self {
            _mm512_and_si512(self, other)
        }

        unsafe fn or(self, other: Self) -> Self {
            _mm512_or_si512(self, other)
        }

        unsafe fn xor(self, other: Self) -> Self {
            _mm512_xor_si512(self, other)
        }

        unsafe fn sub_sat(self, other: Self) -> Self {
            _mm512_subs_epu8(self, other)
        }

        unsafe fn movemask(self) -> u64 {
            _mm512_movepi8_mask(self)
        }

        unsafe fn any_high(self) -> bool {
            _mm512_movepi8_mask(self) != 0
        }
    }
}

impl Shuffle for __m512i {
    with_features! { "avx512bw";
        unsafe fn table(t: &[u8; 16]) -> Self {
            // SAFETY: `t` is 16 readable bytes, what the unaligned load reads.
            _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(t.as_ptr().cast()) })
        }

        unsafe fn lookup(table: Self, index: Self) -> Self {
            _mm512_shuffle_epi8(table, index)
        }

        unsafe fn high_nibbles(self, nibble: Self) -> Self {
            _mm512_and_si512(_mm512_srli_epi16::<4>(self), nibble)
        }

        unsafe fn any(self) -> bool {
            _mm512_test_epi8_mask(self, self) != 0
        }
    }
}

/// 64 bytes of `bytes` from `at` (zeros past their end), for the kernels of this file.
#[inline]
#[target_feature(enable = "avx512bw")]
fn load(bytes: &[u8], at: usize) -> __m512i {
    // SAFETY: the load's one precondition, AVX-512 BW, is this function's feature.
    unsafe { generic::load(bytes, at) }
}

/// `quiet128` with AVX-512 BW, in vectors but for one test: a byte stops
/// where it or `(byte ^ probe) - 1` has its high bit set (not ASCII, or the probed
/// byte, which is ASCII). Per 128 bytes one mask instead of six (four compares into masks
/// and their ORs were slower on AMD Zen 4, where mask operations are dear).
#[inline]
#[target_feature(enable = "avx512bw")]
pub(super) fn quiet128(bytes: &[u8; 128], byte: u8) -> bool {
    let (byte, one) = (_mm512_set1_epi8(byte as i8), _mm512_set1_epi8(1));
    let stops = |k: usize| {
        let v = load(bytes, 64 * k);
        _mm512_or_si512(v, _mm512_sub_epi8(_mm512_xor_si512(v, byte), one))
    };
    let high = _mm512_set1_epi8(0x80u8 as i8);
    _mm512_test_epi8_mask(_mm512_or_si512(stops(0), stops(1)), high) == 0
}

/// `quiet128_pair` with AVX-512 BW, as [`quiet128`]: the probed bytes
/// match where `((first ^ b1) | (second ^ b2)) - 1` has its high bit set (also where one
/// of them is not ASCII: a false alarm the block test then clears).
#[inline]
#[target_feature(enable = "avx512bw")]
pub(super) fn quiet128_pair(bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
    let ([first, second], [b1, b2]) = (at, probe);
    let (b1, b2) = (_mm512_set1_epi8(b1 as i8), _mm512_set1_epi8(b2 as i8));
    let one = _mm512_set1_epi8(1);
    let stops = |k: usize| {
        // (first ^ b1) | (second ^ b2), in one ternary-logic instruction.
        let differ = _mm512_ternarylogic_epi32::<0xBE>(
            load(first, 64 * k),
            b1,
            _mm512_xor_si512(load(second, 64 * k), b2),
        );
        _mm512_or_si512(load(bytes, 64 * k), _mm512_sub_epi8(differ, one))
    };
    let high = _mm512_set1_epi8(0x80u8 as i8);
    _mm512_test_epi8_mask(_mm512_or_si512(stops(0), stops(1)), high) == 0
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

/// The UTF-16 units of a valid 64-byte block, as `Utf8Block` but kept in a
/// vector, one byte's units per lane: a walk sums them over quiet blocks in a vector
/// ([`Units::add_to`]) and only moves them to a register at an event. (As two bit masks
/// moved to registers and counted per block, they slowed the quiet loop badly on AMD Zen 4,
/// where moves out of mask registers are dear.)
#[derive(Clone, Copy)]
pub(super) struct Units(__m512i);

impl Units {
    /// [`Units::reduce`] of `sum` plus the units of the block's bytes below `k` (all 64
    /// for `k == 64`): one reduction for both, as an event needs them.
    #[inline]
    #[target_feature(enable = "avx512bw")]
    fn reduce_below(&self, k: u32, sum: __m512i) -> u64 {
        let below = if k >= 64 { !0 } else { (1u64 << k) - 1 };
        Units::reduce(Units(_mm512_maskz_mov_epi8(below, self.0)).add_to(sum))
    }

    /// `sum` plus the block's units, in the 64-bit lanes of a vector ([`Units::reduce`]).
    #[inline]
    #[target_feature(enable = "avx512bw")]
    fn add_to(&self, sum: __m512i) -> __m512i {
        _mm512_add_epi64(sum, _mm512_sad_epu8(self.0, _mm512_setzero_si512()))
    }

    /// The units summed by [`Units::add_to`] from a zero vector.
    #[inline]
    #[target_feature(enable = "avx512bw")]
    fn reduce(sum: __m512i) -> u64 {
        _mm512_reduce_add_epi64(sum) as u64
    }
}

/// The block test needs no constants prepared.
pub(super) type Consts = ();

#[inline]
#[target_feature(enable = "avx512bw")]
pub(super) fn consts() -> Consts {}

/// `utf8_block` with AVX-512 BW and VBMI.
#[inline]
#[target_feature(enable = "avx512bw,avx512vbmi")]
pub(super) fn utf8_block(
    (): &Consts,
    window: &[u8; 98],
    probe: [(usize, u8); 2],
) -> Option<(Units, u64)> {
    // `vpermb` looks up 64-entry tables with the index's low six bits: the nibble
    // lookups need no mask (three instructions fewer than with `vpshufb` per block).
    let lookup = |index, t: &[u8; 64]| _mm512_permutexvar_epi8(index, load(t, 0));
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
    // SAFETY: the kernel's one precondition, AVX-512 BW, is this function's feature.
    let hits = unsafe { generic::utf8::candidates::<__m512i>(window, probe) };
    Some((units, hits))
}

/// A value of [`Units`] is only made by [`utf8_block`], which runs only on a CPU with
/// AVX-512 BW: the requirement of the methods called here.
impl BlockUnits for Units {
    type Sum = __m512i;
    #[inline(always)]
    fn zero() -> __m512i {
        // SAFETY: see the impl (AVX-512 F, part of BW).
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    fn add(&self, sum: __m512i) -> __m512i {
        // SAFETY: see the impl.
        unsafe { self.add_to(sum) }
    }
    #[inline(always)]
    fn total(sum: __m512i) -> u64 {
        // SAFETY: see the impl.
        unsafe { Units::reduce(sum) }
    }
    #[inline(always)]
    fn total_below(&self, k: u32, sum: __m512i) -> u64 {
        // SAFETY: see the impl.
        unsafe { self.reduce_below(k, sum) }
    }
}
