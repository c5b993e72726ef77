//! The kernels' algorithms, each written once over the [`Vector`] primitives and compiled
//! for every set that implements them: `ascii.rs` (the stop and quiet scans of the ASCII
//! walk), `utf8.rs` (the UTF-8 block test, the probe's candidates, a marker's comparison).
//!
//! Every function here is `unsafe` with the one precondition of the primitives it calls:
//! the CPU runs the instructions of the set `V` belongs to. Each is `#[inline(always)]` and
//! calls no closure, so that it is compiled inside the set's entry function (a closure would
//! be compiled without the entry function's instructions).

pub(crate) mod ascii;
pub(crate) mod utf8;

use super::vector::Vector;

/// The most vectors a 64-byte block takes (16-byte vectors).
const MAX_LANES: usize = 4;

/// The vectors a 64-byte block takes with `V`.
const fn per_block<V: Vector>() -> usize {
    64 / V::BYTES
}

/// The vector of `bytes` from `at` (zeros past their end, which fixed-size windows and
/// offsets within them never reach: the load is total, so no panic path is compiled).
///
/// # Safety
///
/// The CPU runs `V`'s instructions.
#[inline(always)]
pub(crate) unsafe fn load<V: Vector>(bytes: &[u8], at: usize) -> V {
    // SAFETY: the caller's precondition is `load`'s.
    unsafe { V::load(bytes.get(at..).unwrap_or_default()) }
}
