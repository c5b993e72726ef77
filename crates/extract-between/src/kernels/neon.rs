//! NEON's vector, part of every aarch64 CPU: 16 bytes. NEON has no `movemask`: a lane's
//! high bits become 0xFF bytes (an arithmetic shift), are weighted by their bit (1, 2, 4 …
//! 128) and summed pairwise three times (`vpaddq_u8`), which packs four vectors into one
//! 64-bit mask at once ([`Vector::mask64`]); "is any bit set" is a horizontal maximum
//! (`vmaxvq_u8`).

use crate::kernels::vector::{Shuffle, Vector};
use core::arch::aarch64::{
    uint8x16_t, vandq_u8, vceqq_u8, vdupq_n_u8, veorq_u8, vgetq_lane_u64, vld1q_u8, vmaxvq_u8,
    vorrq_u8, vpaddq_u8, vqsubq_u8, vqtbl1q_u8, vreinterpretq_s8_u8, vreinterpretq_u8_s8,
    vreinterpretq_u64_u8, vshrq_n_s8, vshrq_n_u8,
};

impl Vector for uint8x16_t {
    const BYTES: usize = 16;

    with_features! { "neon";
        unsafe fn splat(byte: u8) -> Self {
            vdupq_n_u8(byte)
        }

        unsafe fn load(bytes: &[u8]) -> Self {
            match bytes.first_chunk::<16>() {
                // SAFETY: `lane` is 16 readable bytes, what the load reads (NEON loads need no
                // alignment).
                Some(lane) => unsafe { vld1q_u8(lane.as_ptr()) },
                None => vdupq_n_u8(0),
            }
        }

        unsafe fn eq(self, other: Self) -> Self {
            vceqq_u8(self, other)
        }

        unsafe fn and(self, other: Self) -> Self {
            vandq_u8(self, other)
        }

        unsafe fn or(self, other: Self) -> Self {
            vorrq_u8(self, other)
        }

        unsafe fn xor(self, other: Self) -> Self {
            veorq_u8(self, other)
        }

        unsafe fn sub_sat(self, other: Self) -> Self {
            vqsubq_u8(self, other)
        }

        unsafe fn movemask(self) -> u64 {
            // SAFETY: this function's feature is the packing's one precondition.
            unsafe { Self::mask64(&[self]) }
        }

        /// Four vectors' high bits packed at once (fewer given: zeros in their place).
        unsafe fn mask64(lanes: &[Self]) -> u64 {
            const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
            // SAFETY: `WEIGHTS` is 16 readable bytes, what the load reads.
            let weights = unsafe { vld1q_u8(WEIGHTS.as_ptr()) };
            let mut bits = [vdupq_n_u8(0); 4];
            for (bit, &v) in bits.iter_mut().zip(lanes) {
                // 0xFF where the high bit is set, then each byte's own bit.
                let high = vreinterpretq_u8_s8(vshrq_n_s8::<7>(vreinterpretq_s8_u8(v)));
                *bit = vandq_u8(high, weights);
            }
            let pairs = [vpaddq_u8(bits[0], bits[1]), vpaddq_u8(bits[2], bits[3])];
            let quads = vpaddq_u8(pairs[0], pairs[1]);
            vgetq_lane_u64::<0>(vreinterpretq_u64_u8(vpaddq_u8(quads, quads)))
        }

        unsafe fn any_high(self) -> bool {
            vmaxvq_u8(self) >= 0x80
        }
    }
}

impl Shuffle for uint8x16_t {
    with_features! { "neon";
        unsafe fn table(t: &[u8; 16]) -> Self {
            // SAFETY: `t` is 16 readable bytes, what the load reads.
            unsafe { vld1q_u8(t.as_ptr()) }
        }

        unsafe fn lookup(table: Self, index: Self) -> Self {
            vqtbl1q_u8(table, index)
        }

        /// A shift of bytes: no mask needed.
        unsafe fn high_nibbles(self, _: Self) -> Self {
            vshrq_n_u8::<4>(self)
        }

        unsafe fn any(self) -> bool {
            vmaxvq_u8(self) != 0
        }
    }
}
