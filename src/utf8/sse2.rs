use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x,
    _mm_set1_epi8,
};

/// Bytes `16k..16k + 16` of `block` as a vector (two plain loads; the compiler fuses
/// them into one unaligned vector load, without a raw pointer).
#[inline]
#[target_feature(enable = "sse2")]
fn lane(block: &[u8; 64], k: usize) -> __m128i {
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&block[at..at + 8]);
        i64::from_le_bytes(w)
    };
    _mm_set_epi64x(word(16 * k + 8), word(16 * k))
}

// Inlined into the caller's loop, across crates too (the scanner is generic over sinks).
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn stops64(block: &[u8; 64], byte: u8) -> u64 {
    let byte = _mm_set1_epi8(byte as i8);
    // A byte's high bit, ORed with all ones where it is `byte`.
    mask(core::array::from_fn(|k| {
        let v = lane(block, k);
        _mm_or_si128(v, _mm_cmpeq_epi8(v, byte))
    }))
}

#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn stops64_pair(block: &[u8; 64], probe: [(&[u8; 64], u8); 2]) -> u64 {
    let [(first, b1), (second, b2)] = probe;
    let (b1, b2) = (_mm_set1_epi8(b1 as i8), _mm_set1_epi8(b2 as i8));
    // A byte's high bit, ORed with all ones where a candidate starts.
    mask(core::array::from_fn(|k| {
        let hit = _mm_and_si128(
            _mm_cmpeq_epi8(lane(first, k), b1),
            _mm_cmpeq_epi8(lane(second, k), b2),
        );
        _mm_or_si128(lane(block, k), hit)
    }))
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
