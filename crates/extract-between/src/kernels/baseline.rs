//! The one vector set of an architecture whose every CPU (or build) has it, so nothing is
//! detected: NEON on aarch64, part of the base architecture, and simd128 on WebAssembly
//! when the build enables it (`-C target-feature=+simd128`, as `js/build.sh` does).
//! WebAssembly has no run-time detection: an engine without simd128 refuses a module that
//! uses it as a whole, so the build decides. Every current engine has it (Chrome and Node
//! from 16, Firefox 89, Safari 16.4, Deno, workerd, wasmtime).

use super::{Job, Set};

#[cfg(target_arch = "aarch64")]
use core::arch::aarch64::uint8x16_t as Vector;
#[cfg(target_arch = "wasm32")]
use core::arch::wasm32::v128 as Vector;

/// The set, as `Isa` names it.
#[cfg(target_arch = "aarch64")]
const SET: Set = Set::Neon;
#[cfg(target_arch = "wasm32")]
const SET: Set = Set::Simd128;

/// The sets this CPU runs, narrowest first.
pub(super) fn available() -> Vec<Set> {
    vec![Set::Portable, SET]
}

/// Runs `job` with the set's kernels: its entry function. The architecture's baseline (or
/// the build) has its instructions, so it needs no `#[target_feature]`.
#[inline(never)]
pub(super) fn with_baseline<J: Job>(
    job: J,
    state: &mut J::State,
    data: &[u8],
    sink: &mut J::Sink,
) -> J::Out {
    job.run(state, data, sink, (Baseline(()), Baseline(())))
}

/// The set's token: every CPU this build runs on has it.
#[derive(Clone, Copy)]
struct Baseline(());

ascii_kernels!(Baseline, Vector);
utf8_kernels!(Baseline, Vector, Vector);
