//! The ASCII kernels ([`AsciiKernels`](crate::kernels::AsciiKernels)) over any [`Vector`]:
//! validation of ASCII fused with the search for a marker's byte, or for its two probed
//! bytes at their offsets, in 64-byte blocks and 128-byte quiet stretches.

use super::{MAX_LANES, load, per_block};
use crate::kernels::vector::Vector;

/// A byte's high bit, ORed with all ones where it is `byte`.
///
/// # Safety
///
/// The CPU runs `V`'s instructions (as for every function of this file).
#[inline(always)]
unsafe fn stop<V: Vector>(v: V, byte: V) -> V {
    // SAFETY: the caller's precondition is the primitives'.
    unsafe { v.or(v.eq(byte)) }
}

/// The vector of `bytes` from `from`: each byte's high bit, ORed with all ones where the
/// probed bytes at its offsets (`at`, from the same place) match.
#[inline(always)]
unsafe fn stop_pair<V: Vector>(bytes: &[u8], at: [&[u8]; 2], from: usize, [b1, b2]: [V; 2]) -> V {
    // SAFETY: the caller's precondition is the primitives'.
    unsafe {
        let hit = load::<V>(at[0], from)
            .eq(b1)
            .and(load::<V>(at[1], from).eq(b2));
        load::<V>(bytes, from).or(hit)
    }
}

/// The high bits of a block's lanes as one mask. Most blocks hold no stop: with several
/// lanes, one test of their OR answers for all of them first.
#[inline(always)]
unsafe fn block_mask<V: Vector>(lanes: &[V]) -> u64 {
    // SAFETY: the caller's precondition is the primitives'.
    unsafe {
        if let [first, rest @ ..] = lanes
            && !rest.is_empty()
        {
            let mut any = *first;
            for &v in rest {
                any = any.or(v);
            }
            if !any.any_high() {
                return 0;
            }
        }
        V::mask64(lanes)
    }
}

/// [`AsciiKernels::stops64`](crate::kernels::AsciiKernels::stops64).
#[inline(always)]
pub(crate) unsafe fn stops64<V: Vector>(block: &[u8; 64], byte: u8) -> u64 {
    // SAFETY: the caller's precondition is the primitives'.
    unsafe {
        let byte = V::splat(byte);
        let mut lanes = [byte; MAX_LANES];
        for (k, lane) in lanes.iter_mut().take(per_block::<V>()).enumerate() {
            *lane = stop(load(block, V::BYTES * k), byte);
        }
        block_mask(&lanes[..per_block::<V>()])
    }
}

/// [`AsciiKernels::stops64_pair`](crate::kernels::AsciiKernels::stops64_pair).
#[inline(always)]
pub(crate) unsafe fn stops64_pair<V: Vector>(
    block: &[u8; 64],
    at: [&[u8; 64]; 2],
    bytes: [u8; 2],
) -> u64 {
    // SAFETY: the caller's precondition is the primitives'.
    unsafe {
        let probe = [V::splat(bytes[0]), V::splat(bytes[1])];
        let mut lanes = [probe[0]; MAX_LANES];
        for (k, lane) in lanes.iter_mut().take(per_block::<V>()).enumerate() {
            *lane = stop_pair(block, [at[0], at[1]], V::BYTES * k, probe);
        }
        block_mask(&lanes[..per_block::<V>()])
    }
}

/// [`AsciiKernels::quiet128`](crate::kernels::AsciiKernels::quiet128): the stops of 128
/// bytes ORed as vectors, then one test.
#[inline(always)]
pub(crate) unsafe fn quiet128<V: Vector>(bytes: &[u8; 128], byte: u8) -> bool {
    // SAFETY: the caller's precondition is the primitives'.
    unsafe {
        let byte = V::splat(byte);
        let mut stops = V::splat(0);
        for k in 0..128 / V::BYTES {
            stops = stops.or(stop(load(bytes, V::BYTES * k), byte));
        }
        !stops.any_high()
    }
}

/// [`AsciiKernels::quiet128_pair`](crate::kernels::AsciiKernels::quiet128_pair), as
/// [`quiet128`].
#[inline(always)]
pub(crate) unsafe fn quiet128_pair<V: Vector>(
    bytes: &[u8; 128],
    at: [&[u8; 128]; 2],
    probe: [u8; 2],
) -> bool {
    // SAFETY: the caller's precondition is the primitives'.
    unsafe {
        let probe = [V::splat(probe[0]), V::splat(probe[1])];
        let mut stops = V::splat(0);
        for k in 0..128 / V::BYTES {
            stops = stops.or(stop_pair(bytes, [at[0], at[1]], V::BYTES * k, probe));
        }
        !stops.any_high()
    }
}
