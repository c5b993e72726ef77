//! The ASCII and UTF-8 kernels with NEON: four 16-byte lanes a block. NEON has no
//! `movemask`: a lane's high bits become 0xFF bytes (an arithmetic shift), are weighted by
//! their bit (1, 2, 4 … 128) and summed pairwise three times (`vpaddq_u8`), which packs four
//! lanes into one 64-bit mask; "is any bit set" is a horizontal maximum (`vmaxvq_u8`).

use crate::kernels::Utf8Block;
use crate::kernels::lookup::{BY_CURRENT_HIGH, BY_PREV_HIGH, BY_PREV_LOW};
use core::arch::aarch64::{
    uint8x16_t, vandq_u8, vceqq_u8, vdupq_n_u8, veorq_u8, vgetq_lane_u64, vld1q_u8, vmaxvq_u8,
    vorrq_u8, vpaddq_u8, vqsubq_u8, vqtbl1q_u8, vreinterpretq_s8_u8, vreinterpretq_u8_s8,
    vreinterpretq_u64_u8, vshrq_n_s8, vshrq_n_u8,
};

/// 16 bytes of `bytes` from `at` as a vector: one unaligned load.
#[inline]
#[target_feature(enable = "neon")]
fn load<const N: usize>(bytes: &[u8; N], at: usize) -> uint8x16_t {
    let lane: &[u8; 16] = bytes[at..][..16].try_into().unwrap_or(&[0; 16]);
    // SAFETY: `lane` is 16 readable bytes, what the load reads (NEON loads need no alignment).
    unsafe { vld1q_u8(lane.as_ptr()) }
}

/// Bytes `16k..16k + 16` of `bytes` as a vector.
#[inline]
#[target_feature(enable = "neon")]
fn lane<const N: usize>(bytes: &[u8; N], k: usize) -> uint8x16_t {
    load(bytes, 16 * k)
}

/// Whether any byte of `v` has its high bit set.
#[inline]
#[target_feature(enable = "neon")]
fn any_high(v: uint8x16_t) -> bool {
    vmaxvq_u8(v) >= 0x80
}

/// The high bits of four lanes' bytes, as one 64-bit mask (bit `16k + i`: byte `i` of lane
/// `k`).
#[inline]
#[target_feature(enable = "neon")]
fn mask64(lanes: [uint8x16_t; 4]) -> u64 {
    const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    let weights = load(&WEIGHTS, 0);
    // 0xFF where the high bit is set, then each byte's own bit.
    let bit = |v| {
        vandq_u8(
            vreinterpretq_u8_s8(vshrq_n_s8::<7>(vreinterpretq_s8_u8(v))),
            weights,
        )
    };
    let pairs = [
        vpaddq_u8(bit(lanes[0]), bit(lanes[1])),
        vpaddq_u8(bit(lanes[2]), bit(lanes[3])),
    ];
    let quads = vpaddq_u8(pairs[0], pairs[1]);
    vgetq_lane_u64::<0>(vreinterpretq_u64_u8(vpaddq_u8(quads, quads)))
}

/// A byte's high bit, ORed with all ones where it is `byte`.
#[inline]
#[target_feature(enable = "neon")]
fn stop(v: uint8x16_t, byte: uint8x16_t) -> uint8x16_t {
    vorrq_u8(v, vceqq_u8(v, byte))
}

/// A byte's high bit, ORed with all ones where the probed bytes at its offsets match.
#[inline]
#[target_feature(enable = "neon")]
fn stop_pair(
    v: uint8x16_t,
    first: uint8x16_t,
    second: uint8x16_t,
    [b1, b2]: [uint8x16_t; 2],
) -> uint8x16_t {
    vorrq_u8(v, vandq_u8(vceqq_u8(first, b1), vceqq_u8(second, b2)))
}

/// Most blocks hold no stop: one maximum answers for all four lanes.
#[inline]
#[target_feature(enable = "neon")]
fn stops(lanes: [uint8x16_t; 4]) -> u64 {
    let any = vorrq_u8(vorrq_u8(lanes[0], lanes[1]), vorrq_u8(lanes[2], lanes[3]));
    if !any_high(any) {
        return 0;
    }
    mask64(lanes)
}

#[inline]
#[target_feature(enable = "neon")]
pub(super) fn stops64(block: &[u8; 64], byte: u8) -> u64 {
    let byte = vdupq_n_u8(byte);
    stops(core::array::from_fn(|k| stop(lane(block, k), byte)))
}

#[inline]
#[target_feature(enable = "neon")]
pub(super) fn stops64_pair(block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
    let probe = bytes.map(|b| vdupq_n_u8(b));
    stops(core::array::from_fn(|k| {
        stop_pair(lane(block, k), lane(at[0], k), lane(at[1], k), probe)
    }))
}

#[inline]
#[target_feature(enable = "neon")]
pub(super) fn quiet128(bytes: &[u8; 128], byte: u8) -> bool {
    let byte = vdupq_n_u8(byte);
    let acc = (0..8).fold(vdupq_n_u8(0), |acc, k| {
        vorrq_u8(acc, stop(lane(bytes, k), byte))
    });
    !any_high(acc)
}

#[inline]
#[target_feature(enable = "neon")]
pub(super) fn quiet128_pair(bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
    let probe = probe.map(|b| vdupq_n_u8(b));
    let acc = (0..8).fold(vdupq_n_u8(0), |acc, k| {
        vorrq_u8(
            acc,
            stop_pair(lane(bytes, k), lane(at[0], k), lane(at[1], k), probe),
        )
    });
    !any_high(acc)
}

/// What a UTF-8 block's units are known as: the portable form.
pub(super) type Units = Utf8Block;

/// The block test's constant vectors, made once per walk.
#[derive(Clone, Copy)]
pub(super) struct Consts {
    prev_high: uint8x16_t,
    prev_low: uint8x16_t,
    current_high: uint8x16_t,
    nibble: uint8x16_t,
    x60: uint8x16_t,
    x70: uint8x16_t,
    x80: uint8x16_t,
}

/// The block test's constants.
#[inline]
#[target_feature(enable = "neon")]
pub(super) fn consts() -> Consts {
    Consts {
        prev_high: load(&BY_PREV_HIGH, 0),
        prev_low: load(&BY_PREV_LOW, 0),
        current_high: load(&BY_CURRENT_HIGH, 0),
        nibble: vdupq_n_u8(0x0F),
        x60: vdupq_n_u8(0x60),
        x70: vdupq_n_u8(0x70),
        x80: vdupq_n_u8(0x80),
    }
}

/// Tests the block `window[3..67]` of UTF-8 (the three bytes before it give the context) in
/// one pass, as AVX2's `utf8_block` (`x86_64/avx2.rs`): validation by the lookup method
/// (`None` when invalid), the UTF-16 units of each byte, and where the probe's bytes sit.
#[inline]
#[target_feature(enable = "neon")]
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
    let [(i1, b1), (i2, b2)] = probe;
    let (b1, b2) = (vdupq_n_u8(b1), vdupq_n_u8(b2));
    let mut errors = vdupq_n_u8(0);
    let mut hits = [vdupq_n_u8(0); 4];
    let mut conts = [vdupq_n_u8(0); 4];
    let mut fours = [vdupq_n_u8(0); 4];
    for (k, at) in [3, 19, 35, 51].into_iter().enumerate() {
        let v = load(window, at);
        let prev1 = load(window, at - 1);
        let current = vqtbl1q_u8(current_high, vshrq_n_u8::<4>(v));
        let special = vandq_u8(
            vandq_u8(
                vqtbl1q_u8(prev_high, vshrq_n_u8::<4>(prev1)),
                vqtbl1q_u8(prev_low, vandq_u8(prev1, nibble)),
            ),
            current,
        );
        // High bit set where a lead two or three bytes back asks for a continuation.
        let must = vandq_u8(
            vorrq_u8(
                vqsubq_u8(load(window, at - 2), x60),
                vqsubq_u8(load(window, at - 3), x70),
            ),
            x80,
        );
        errors = vorrq_u8(errors, veorq_u8(special, must));
        hits[k] = vandq_u8(
            vceqq_u8(load(window, at + i1), b1),
            vceqq_u8(load(window, at + i2), b2),
        );
        // The current byte's class has its high bit (`TWO_CONTS`) set exactly for
        // continuation bytes.
        conts[k] = current;
        // High bit set exactly for F0..=FF.
        fours[k] = vqsubq_u8(v, x70);
    }
    if vmaxvq_u8(errors) != 0 {
        return None;
    }
    let units = Utf8Block {
        conts: mask64(conts),
        fours: mask64(fours),
    };
    Some((units, mask64(hits)))
}

/// Where the probe's bytes sit in the block `window[3..67]`: bit `k` is set when
/// `window[3 + k + offset] == byte` for each `(offset, byte)` of `probe`.
#[inline]
#[target_feature(enable = "neon")]
pub(super) fn candidates(window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
    mask64(core::array::from_fn(|k| {
        probe
            .into_iter()
            .fold(vdupq_n_u8(0xFF), |hit, (offset, byte)| {
                vandq_u8(
                    hit,
                    vceqq_u8(load(window, 3 + 16 * k + offset), vdupq_n_u8(byte)),
                )
            })
    }))
}

/// A needle of up to 32 bytes, ready to be compared with the bytes at a candidate in two
/// vector compares.
#[derive(Clone, Copy)]
pub(super) struct Prefix {
    bytes: [uint8x16_t; 2],
    /// One bit per byte of the needle.
    mask: u64,
}

impl Prefix {
    /// The needle `bytes[..len]`.
    #[inline]
    #[target_feature(enable = "neon")]
    pub(super) fn new(bytes: &[u8; 32], len: usize) -> Prefix {
        Prefix {
            bytes: [load(bytes, 0), load(bytes, 16)],
            mask: if len >= 32 {
                0xFFFF_FFFF
            } else {
                (1u64 << len) - 1
            },
        }
    }

    /// Whether `here` begins with the needle.
    #[inline]
    #[target_feature(enable = "neon")]
    pub(super) fn starts(&self, here: &[u8; 32]) -> bool {
        let zero = vdupq_n_u8(0);
        let equal = mask64([
            vceqq_u8(load(here, 0), self.bytes[0]),
            vceqq_u8(load(here, 16), self.bytes[1]),
            zero,
            zero,
        ]);
        equal & self.mask == self.mask
    }
}
