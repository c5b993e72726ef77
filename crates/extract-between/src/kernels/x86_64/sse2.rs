//! SSE2's vector, part of every x86-64 CPU: 16 bytes. (No table lookup: `pshufb` is
//! SSSE3, so the UTF-8 kernels of this set are the portable ones.)

use crate::kernels::vector::Vector;
use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
    _mm_set1_epi8, _mm_setzero_si128, _mm_subs_epu8, _mm_xor_si128,
};

impl Vector for __m128i {
    const BYTES: usize = 16;

    with_features! { "sse2";
        unsafe fn splat(byte: u8) -> Self {
            _mm_set1_epi8(byte as i8)
        }

        unsafe fn load(bytes: &[u8]) -> Self {
            match bytes.first_chunk::<16>() {
                // SAFETY: `lane` is 16 readable bytes, what the unaligned load reads.
                Some(lane) => unsafe { _mm_loadu_si128(lane.as_ptr().cast()) },
                None => _mm_setzero_si128(),
            }
        }

        unsafe fn eq(self, other: Self) -> Self {
            _mm_cmpeq_epi8(self, other)
        }

        unsafe fn and(self, other: Self) -> Self {
            _mm_and_si128(self, other)
        }

        unsafe fn or(self, other: Self) -> Self {
            _mm_or_si128(self, other)
        }

        unsafe fn xor(self, other: Self) -> Self {
            _mm_xor_si128(self, other)
        }

        unsafe fn sub_sat(self, other: Self) -> Self {
            _mm_subs_epu8(self, other)
        }

        unsafe fn movemask(self) -> u64 {
            u64::from(_mm_movemask_epi8(self) as u16)
        }

        unsafe fn any_high(self) -> bool {
            _mm_movemask_epi8(self) != 0
        }
    }
}
