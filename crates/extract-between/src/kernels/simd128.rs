//! WebAssembly's 128-bit vector, compiled in when the build enables simd128: 16 bytes,
//! `u8x16_bitmask` for `movemask`, `u8x16_swizzle` for the table lookups.

use crate::kernels::vector::{Shuffle, Vector};
use core::arch::wasm32::{
    u8x16_bitmask, u8x16_eq, u8x16_shr, u8x16_splat, u8x16_sub_sat, u8x16_swizzle, v128, v128_and,
    v128_any_true, v128_load, v128_or, v128_xor,
};

impl Vector for v128 {
    const BYTES: usize = 16;

    with_features! { "simd128";
        unsafe fn splat(byte: u8) -> Self {
            u8x16_splat(byte)
        }

        unsafe fn load(bytes: &[u8]) -> Self {
            match bytes.first_chunk::<16>() {
                // SAFETY: `lane` is 16 readable bytes, what the unaligned load reads.
                Some(lane) => unsafe { v128_load(lane.as_ptr().cast()) },
                None => u8x16_splat(0),
            }
        }

        unsafe fn eq(self, other: Self) -> Self {
            u8x16_eq(self, other)
        }

        unsafe fn and(self, other: Self) -> Self {
            v128_and(self, other)
        }

        unsafe fn or(self, other: Self) -> Self {
            v128_or(self, other)
        }

        unsafe fn xor(self, other: Self) -> Self {
            v128_xor(self, other)
        }

        unsafe fn sub_sat(self, other: Self) -> Self {
            u8x16_sub_sat(self, other)
        }

        unsafe fn movemask(self) -> u64 {
            u64::from(u8x16_bitmask(self))
        }

        unsafe fn any_high(self) -> bool {
            u8x16_bitmask(self) != 0
        }
    }
}

impl Shuffle for v128 {
    with_features! { "simd128";
        unsafe fn table(t: &[u8; 16]) -> Self {
            // SAFETY: `t` is 16 readable bytes, what the unaligned load reads.
            unsafe { v128_load(t.as_ptr().cast()) }
        }

        unsafe fn lookup(table: Self, index: Self) -> Self {
            u8x16_swizzle(table, index)
        }

        /// A shift of bytes: no mask needed.
        unsafe fn high_nibbles(self, _: Self) -> Self {
            u8x16_shr(self, 4)
        }

        unsafe fn any(self) -> bool {
            v128_any_true(self)
        }
    }
}
