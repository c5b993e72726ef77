//! The ASCII kernels with SSE2, part of every x86-64 CPU: four 16-byte lanes a block.

use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
    _mm_set1_epi8, _mm_setzero_si128,
};

/// Bytes `16k..16k + 16` of `bytes` as a vector.
#[inline]
#[target_feature(enable = "sse2")]
fn lane<const N: usize>(bytes: &[u8; N], k: usize) -> __m128i {
    let lane: &[u8; 16] = bytes[16 * k..][..16].try_into().unwrap_or(&[0; 16]);
    // SAFETY: `lane` is 16 readable bytes, what the unaligned load reads.
    unsafe { _mm_loadu_si128(lane.as_ptr().cast()) }
}

/// A byte's high bit, ORed with all ones where it is `byte`.
#[inline]
#[target_feature(enable = "sse2")]
fn stop(v: __m128i, byte: __m128i) -> __m128i {
    _mm_or_si128(v, _mm_cmpeq_epi8(v, byte))
}

/// A byte's high bit, ORed with all ones where the probed bytes at its offsets match.
#[inline]
#[target_feature(enable = "sse2")]
fn stop_pair(v: __m128i, first: __m128i, second: __m128i, [b1, b2]: [__m128i; 2]) -> __m128i {
    let hit = _mm_and_si128(_mm_cmpeq_epi8(first, b1), _mm_cmpeq_epi8(second, b2));
    _mm_or_si128(v, hit)
}

// `#[inline]`: inlined into the caller's walk, which is generic over sinks.
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn stops64(block: &[u8; 64], byte: u8) -> u64 {
    let byte = _mm_set1_epi8(byte as i8);
    mask(core::array::from_fn(|k| stop(lane(block, k), byte)))
}

#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn stops64_pair(block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
    let probe = bytes.map(|b| _mm_set1_epi8(b as i8));
    mask(core::array::from_fn(|k| {
        stop_pair(lane(block, k), lane(at[0], k), lane(at[1], k), probe)
    }))
}

#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn quiet128(bytes: &[u8; 128], byte: u8) -> bool {
    let byte = _mm_set1_epi8(byte as i8);
    let stops = (0..8).fold(_mm_setzero_si128(), |acc, k| {
        _mm_or_si128(acc, stop(lane(bytes, k), byte))
    });
    _mm_movemask_epi8(stops) == 0
}

#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn quiet128_pair(bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
    let probe = probe.map(|b| _mm_set1_epi8(b as i8));
    let stops = (0..8).fold(_mm_setzero_si128(), |acc, k| {
        let v = stop_pair(lane(bytes, k), lane(at[0], k), lane(at[1], k), probe);
        _mm_or_si128(acc, v)
    });
    _mm_movemask_epi8(stops) == 0
}

/// The high bits of the four lanes' bytes, as one 64-bit mask.
#[inline]
#[target_feature(enable = "sse2")]
fn mask(lanes: [__m128i; 4]) -> u64 {
    // Most blocks hold no stop: one byte mask answers for all four lanes.
    let any = _mm_or_si128(
        _mm_or_si128(lanes[0], lanes[1]),
        _mm_or_si128(lanes[2], lanes[3]),
    );
    if _mm_movemask_epi8(any) == 0 {
        return 0;
    }
    lanes.iter().enumerate().fold(0, |m, (k, &v)| {
        m | (u64::from(_mm_movemask_epi8(v) as u16) << (16 * k))
    })
}
