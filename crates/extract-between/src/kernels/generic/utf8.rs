//! The UTF-8 kernels ([`Utf8Kernels`](crate::kernels::Utf8Kernels)) over any [`Shuffle`]
//! vector: the block test (validation by lookup tables, UTF-16 units, the probe's
//! candidates in one pass), the candidates alone, and a marker's comparison at a candidate.

use super::{MAX_LANES, load, per_block};
use crate::kernels::Utf8Block;
use crate::kernels::lookup::{BY_CURRENT_HIGH, BY_PREV_HIGH, BY_PREV_LOW};
use crate::kernels::vector::{Shuffle, Vector};

/// The block test's constant vectors, made once per walk.
#[derive(Clone, Copy)]
pub(crate) struct Consts<V> {
    nibble: V,
    prev_high: V,
    prev_low: V,
    current_high: V,
    x60: V,
    x70: V,
    x80: V,
}

/// The block test's constants, passed through [`core::hint::black_box`] so that LLVM
/// treats them as values. As constants, short of AVX2's 16 registers, it rematerialised
/// five of them inside the quiet loop as byte broadcasts from memory, each a load and a
/// uop on the shuffle port the lookups need; as values they stay in registers there (or
/// come back with a plain load).
///
/// # Safety
///
/// The CPU runs `V`'s instructions (as for every function of this file).
#[inline(always)]
pub(crate) unsafe fn consts<V: Shuffle>() -> Consts<V> {
    // SAFETY: the caller's precondition is the primitives'.
    unsafe {
        core::hint::black_box(Consts {
            nibble: V::splat(0x0F),
            prev_high: V::table(&BY_PREV_HIGH),
            prev_low: V::table(&BY_PREV_LOW),
            current_high: V::table(&BY_CURRENT_HIGH),
            x60: V::splat(0x60),
            x70: V::splat(0x70),
            x80: V::splat(0x80),
        })
    }
}

/// [`Utf8Kernels::utf8_block`](crate::kernels::Utf8Kernels::utf8_block): validates the
/// block `window[3..67]` by the lookup method of `lookup.rs` (`None`: invalid), finds its
/// UTF-16 units and where the probe's bytes sit.
#[inline(always)]
pub(crate) unsafe fn utf8_block<V: Shuffle>(
    consts: &Consts<V>,
    window: &[u8; 98],
    probe: [(usize, u8); 2],
) -> Option<(Utf8Block, u64)> {
    // SAFETY: the caller's precondition is the primitives'.
    unsafe {
        let c = *consts;
        let [(i1, b1), (i2, b2)] = probe;
        // Offsets are at most 31: said to the compiler, it knows every load below lies in
        // the window and compiles no fallback for one that does not.
        let (i1, i2) = (i1 % 32, i2 % 32);
        let (b1, b2) = (V::splat(b1), V::splat(b2));
        let mut errors = V::splat(0);
        let mut hits = [errors; MAX_LANES];
        let (mut conts, mut fours) = (hits, hits);
        for k in 0..per_block::<V>() {
            let at = 3 + V::BYTES * k;
            let v: V = load(window, at);
            let prev1: V = load(window, at - 1);
            let current = V::lookup(c.current_high, v.high_nibbles(c.nibble));
            let special = V::lookup(c.prev_high, prev1.high_nibbles(c.nibble))
                .and(V::lookup(c.prev_low, prev1.and(c.nibble)))
                .and(current);
            // High bit set where a lead two or three bytes back asks for a continuation.
            let must = load::<V>(window, at - 2)
                .sub_sat(c.x60)
                .or(load::<V>(window, at - 3).sub_sat(c.x70))
                .and(c.x80);
            errors = errors.or(special.xor(must));
            hits[k] = load::<V>(window, at + i1)
                .eq(b1)
                .and(load::<V>(window, at + i2).eq(b2));
            // The current byte's class has its high bit (`TWO_CONTS`) set exactly for
            // continuation bytes: no compare needed.
            conts[k] = current;
            // High bit set exactly for F0..=FF.
            fours[k] = v.sub_sat(c.x70);
        }
        if errors.any() {
            return None;
        }
        let n = per_block::<V>();
        let units = Utf8Block {
            conts: V::mask64(&conts[..n]),
            fours: V::mask64(&fours[..n]),
        };
        Some((units, V::mask64(&hits[..n])))
    }
}

/// [`Utf8Kernels::candidates`](crate::kernels::Utf8Kernels::candidates): bit `k` is set when
/// `window[3 + k + offset] == byte` for each `(offset, byte)` of `probe`.
#[inline(always)]
pub(crate) unsafe fn candidates<V: Vector>(window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
    // SAFETY: the caller's precondition is the primitives'.
    unsafe {
        let mut hits = [V::splat(0xFF); MAX_LANES];
        for (k, hit) in hits.iter_mut().take(per_block::<V>()).enumerate() {
            for (offset, byte) in probe {
                // At most 31, as for `utf8_block`.
                let at = 3 + V::BYTES * k + offset % 32;
                *hit = hit.and(load::<V>(window, at).eq(V::splat(byte)));
            }
        }
        V::mask64(&hits[..per_block::<V>()])
    }
}

/// A marker of up to 32 bytes, ready to be compared with the bytes at a candidate in one or
/// two vector compares (instead of a call to `memcmp` for a marker of a few bytes).
#[derive(Clone, Copy)]
pub(crate) struct Prefix<V> {
    /// Its bytes in `32 / BYTES` vectors.
    bytes: [V; 2],
    /// One bit per byte of the marker.
    mask: u32,
}

impl<V: Vector> Prefix<V> {
    /// The vectors 32 bytes take with `V` (a set of 64-byte vectors compares in a narrower
    /// one).
    const VECTORS: usize = {
        assert!(V::BYTES <= 32);
        32 / V::BYTES
    };

    /// [`Utf8Kernels::prefix`](crate::kernels::Utf8Kernels::prefix): the marker
    /// `bytes[..len]`.
    ///
    /// # Safety
    ///
    /// The CPU runs `V`'s instructions.
    #[inline(always)]
    pub(crate) unsafe fn new(bytes: &[u8; 32], len: usize) -> Prefix<V> {
        // SAFETY: the caller's precondition is the primitives'.
        unsafe {
            Prefix {
                bytes: [load(bytes, 0), load(bytes, V::BYTES)],
                mask: if len >= 32 { !0 } else { (1u32 << len) - 1 },
            }
        }
    }

    /// [`Utf8Kernels::starts`](crate::kernels::Utf8Kernels::starts): whether `here` begins
    /// with the marker.
    ///
    /// # Safety
    ///
    /// The CPU runs `V`'s instructions.
    #[inline(always)]
    pub(crate) unsafe fn starts(&self, here: &[u8; 32]) -> bool {
        // SAFETY: the caller's precondition is the primitives'.
        unsafe {
            let equal = [
                load::<V>(here, 0).eq(self.bytes[0]),
                load::<V>(here, V::BYTES).eq(self.bytes[1]),
            ];
            let equal = V::mask64(&equal[..Self::VECTORS]) as u32;
            equal & self.mask == self.mask
        }
    }
}
