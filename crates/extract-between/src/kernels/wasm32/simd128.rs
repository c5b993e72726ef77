//! The ASCII and UTF-8 kernels with WebAssembly's 128-bit vectors: four 16-byte lanes a
//! block. The ASCII kernels are SSE2's (`x86_64/sse2.rs`), the UTF-8 ones AVX2's
//! (`x86_64/avx2.rs`) at half the width, with `u8x16_bitmask` for `movemask`,
//! `u8x16_swizzle` for the table lookups and a per-byte `u8x16_shr` for the nibbles.

use crate::kernels::Utf8Block;
use crate::kernels::lookup::{BY_CURRENT_HIGH, BY_PREV_HIGH, BY_PREV_LOW};
use core::arch::wasm32::{
    u8x16_bitmask, u8x16_eq, u8x16_shr, u8x16_splat, u8x16_sub_sat, u8x16_swizzle, v128, v128_and,
    v128_any_true, v128_load, v128_or, v128_xor,
};

/// Bytes `16k..16k + 16` of `bytes` as a vector.
#[inline(always)]
fn lane<const N: usize>(bytes: &[u8; N], k: usize) -> v128 {
    load(bytes, 16 * k)
}

/// 16 bytes of `bytes` from `at` as a vector: one unaligned load.
#[inline(always)]
fn load<const N: usize>(bytes: &[u8; N], at: usize) -> v128 {
    let lane: &[u8; 16] = bytes[at..][..16].try_into().unwrap_or(&[0; 16]);
    // SAFETY: `lane` is 16 readable bytes, what the unaligned load reads.
    unsafe { v128_load(lane.as_ptr().cast()) }
}

/// A byte's high bit, ORed with all ones where it is `byte`.
#[inline(always)]
fn stop(v: v128, byte: v128) -> v128 {
    v128_or(v, u8x16_eq(v, byte))
}

/// A byte's high bit, ORed with all ones where the probed bytes at its offsets match.
#[inline(always)]
fn stop_pair(v: v128, first: v128, second: v128, [b1, b2]: [v128; 2]) -> v128 {
    v128_or(v, v128_and(u8x16_eq(first, b1), u8x16_eq(second, b2)))
}

#[inline(always)]
pub(super) fn stops64(block: &[u8; 64], byte: u8) -> u64 {
    let byte = u8x16_splat(byte);
    mask(core::array::from_fn(|k| stop(lane(block, k), byte)))
}

#[inline(always)]
pub(super) fn stops64_pair(block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
    let probe = bytes.map(|b| u8x16_splat(b));
    mask(core::array::from_fn(|k| {
        stop_pair(lane(block, k), lane(at[0], k), lane(at[1], k), probe)
    }))
}

#[inline(always)]
pub(super) fn quiet128(bytes: &[u8; 128], byte: u8) -> bool {
    let byte = u8x16_splat(byte);
    let stops = (0..8).fold(u8x16_splat(0), |acc, k| {
        v128_or(acc, stop(lane(bytes, k), byte))
    });
    u8x16_bitmask(stops) == 0
}

#[inline(always)]
pub(super) fn quiet128_pair(bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
    let probe = probe.map(|b| u8x16_splat(b));
    let stops = (0..8).fold(u8x16_splat(0), |acc, k| {
        v128_or(
            acc,
            stop_pair(lane(bytes, k), lane(at[0], k), lane(at[1], k), probe),
        )
    });
    u8x16_bitmask(stops) == 0
}

/// The high bits of the four lanes' bytes, as one 64-bit mask.
#[inline(always)]
fn mask(lanes: [v128; 4]) -> u64 {
    // Most blocks hold no stop: one bitmask answers for all four lanes.
    let any = v128_or(v128_or(lanes[0], lanes[1]), v128_or(lanes[2], lanes[3]));
    if u8x16_bitmask(any) == 0 {
        return 0;
    }
    lanes.iter().enumerate().fold(0, |m, (k, &v)| {
        m | (u64::from(u8x16_bitmask(v)) << (16 * k))
    })
}

/// What a UTF-8 block's units are known as: the portable form.
pub(super) type Units = Utf8Block;

/// The block test's constant vectors, made once per walk.
#[derive(Clone, Copy)]
pub(super) struct Consts {
    prev_high: v128,
    prev_low: v128,
    current_high: v128,
    nibble: v128,
    x60: v128,
    x70: v128,
    x80: v128,
}

/// The block test's constants.
#[inline(always)]
pub(super) fn consts() -> Consts {
    Consts {
        prev_high: load(&BY_PREV_HIGH, 0),
        prev_low: load(&BY_PREV_LOW, 0),
        current_high: load(&BY_CURRENT_HIGH, 0),
        nibble: u8x16_splat(0x0F),
        x60: u8x16_splat(0x60),
        x70: u8x16_splat(0x70),
        x80: u8x16_splat(0x80),
    }
}

/// Tests the block `window[3..67]` of UTF-8 (the three bytes before it give the context) in
/// one pass, as AVX2's `utf8_block`: validation by the lookup method (`None` when invalid),
/// the UTF-16 units of each byte, and where the needle's probe bytes sit.
#[inline(always)]
pub(super) fn utf8_block(
    consts: &Consts,
    window: &[u8; 98],
    probe: [(usize, u8); 2],
) -> Option<(Utf8Block, u64)> {
    let Consts {
        prev_high,
        prev_low,
        current_high,
        nibble,
        x60,
        x70,
        x80,
    } = *consts;
    let bits = |v| u64::from(u8x16_bitmask(v));
    let [(i1, b1), (i2, b2)] = probe;
    let (b1, b2) = (u8x16_splat(b1), u8x16_splat(b2));
    let mut errors = u8x16_splat(0);
    let (mut hits, mut conts, mut fours) = (0, 0, 0);
    for at in [3, 19, 35, 51] {
        let v = load(window, at);
        let prev1 = load(window, at - 1);
        let current = u8x16_swizzle(current_high, u8x16_shr(v, 4));
        let special = v128_and(
            v128_and(
                u8x16_swizzle(prev_high, u8x16_shr(prev1, 4)),
                u8x16_swizzle(prev_low, v128_and(prev1, nibble)),
            ),
            current,
        );
        // High bit set where a lead two or three bytes back asks for a continuation.
        let must = v128_and(
            v128_or(
                u8x16_sub_sat(load(window, at - 2), x60),
                u8x16_sub_sat(load(window, at - 3), x70),
            ),
            x80,
        );
        errors = v128_or(errors, v128_xor(special, must));
        let shift = at - 3;
        hits |= bits(v128_and(
            u8x16_eq(load(window, at + i1), b1),
            u8x16_eq(load(window, at + i2), b2),
        )) << shift;
        // The current byte's class has its high bit (`TWO_CONTS`) set exactly for
        // continuation bytes.
        conts |= bits(current) << shift;
        // High bit set exactly for F0..=FF.
        fours |= bits(u8x16_sub_sat(v, x70)) << shift;
    }
    if v128_any_true(errors) {
        return None;
    }
    Some((Utf8Block { conts, fours }, hits))
}

/// Where the needle's probe bytes sit in the block `window[3..67]`: bit `k` is set when
/// `window[3 + k + offset] == byte` for each `(offset, byte)` of `probe`.
#[inline(always)]
pub(super) fn candidates(window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
    [3, 19, 35, 51].into_iter().fold(0, |hits, at| {
        let hit = probe
            .into_iter()
            .fold(u8x16_splat(0xFF), |hit, (offset, byte)| {
                v128_and(hit, u8x16_eq(load(window, at + offset), u8x16_splat(byte)))
            });
        hits | u64::from(u8x16_bitmask(hit)) << (at - 3)
    })
}

/// A needle of up to 32 bytes, ready to be compared with the bytes at a candidate in two
/// vector compares.
#[derive(Clone, Copy)]
pub(super) struct Prefix {
    bytes: [v128; 2],
    /// One bit per byte of the needle.
    mask: u32,
}

impl Prefix {
    /// The needle `bytes[..len]`.
    #[inline(always)]
    pub(super) fn new(bytes: &[u8; 32], len: usize) -> Prefix {
        Prefix {
            bytes: [load(bytes, 0), load(bytes, 16)],
            mask: if len >= 32 { !0 } else { (1u32 << len) - 1 },
        }
    }

    /// Whether `here` begins with the needle.
    #[inline(always)]
    pub(super) fn starts(&self, here: &[u8; 32]) -> bool {
        let low = u32::from(u8x16_bitmask(u8x16_eq(load(here, 0), self.bytes[0])));
        let high = u32::from(u8x16_bitmask(u8x16_eq(load(here, 16), self.bytes[1])));
        (low | high << 16) & self.mask == self.mask
    }
}
