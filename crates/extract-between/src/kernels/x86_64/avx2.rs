//! AVX2's vector: 32 bytes, table lookups by `vpshufb` in each 16-byte half.

use crate::kernels::vector::{Shuffle, Vector};
use core::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
    _mm256_or_si256, _mm256_set_epi64x, _mm256_set1_epi8, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_subs_epu8, _mm256_testz_si256, _mm256_xor_si256,
};

impl Vector for __m256i {
    const BYTES: usize = 32;

    with_features! { "avx2";
        unsafe fn splat(byte: u8) -> Self {
            _mm256_set1_epi8(byte as i8)
        }

        /// One unaligned load. (Built from four word reads, LLVM fused the block test's
        /// overlapping windows into word loads, inserts and shifts, and the UTF-8 walk fell far
        /// behind `extract` on CJK text.)
        unsafe fn load(bytes: &[u8]) -> Self {
            match bytes.first_chunk::<32>() {
                // SAFETY: `lane` is 32 readable bytes, what the unaligned load reads.
                Some(lane) => unsafe { _mm256_loadu_si256(lane.as_ptr().cast()) },
                None => _mm256_setzero_si256(),
            }
        }

        unsafe fn eq(self, other: Self) -> Self {
            _mm256_cmpeq_epi8(self, other)
        }

        unsafe fn and(self, other: Self) -> Self {
            _mm256_and_si256(self, other)
        }

        unsafe fn or(self, other: Self) -> Self {
            _mm256_or_si256(self, other)
        }

        unsafe fn xor(self, other: Self) -> Self {
            _mm256_xor_si256(self, other)
        }

        unsafe fn sub_sat(self, other: Self) -> Self {
            _mm256_subs_epu8(self, other)
        }

        unsafe fn movemask(self) -> u64 {
            u64::from(_mm256_movemask_epi8(self) as u32)
        }

        unsafe fn any_high(self) -> bool {
            _mm256_movemask_epi8(self) != 0
        }
    }
}

impl Shuffle for __m256i {
    with_features! { "avx2";
        unsafe fn table(t: &[u8; 16]) -> Self {
            let [lo, hi] =
                [&t[..8], &t[8..]].map(|half| i64::from_le_bytes(half.try_into().unwrap_or([0; 8])));
            _mm256_set_epi64x(hi, lo, hi, lo)
        }

        unsafe fn lookup(table: Self, index: Self) -> Self {
            _mm256_shuffle_epi8(table, index)
        }

        unsafe fn high_nibbles(self, nibble: Self) -> Self {
            _mm256_and_si256(_mm256_srli_epi16::<4>(self), nibble)
        }

        unsafe fn any(self) -> bool {
            _mm256_testz_si256(self, self) == 0
        }
    }
}
