//! WebAssembly's kernels: the ASCII and UTF-8 kernels with simd128, compiled in when the
//! build enables the feature (`-C target-feature=+simd128`, as `js/build.sh` does).
//! WebAssembly has no run-time detection: a module that uses the instructions is refused as a
//! whole by an engine without them, so the build decides. Every current engine has them
//! (Chrome and Node from 16, Firefox 89, Safari 16.4, Deno, workerd, wasmtime); older
//! Safari is what a simd128 build excludes.

use super::{AsciiKernels, Job, Set, Utf8Kernels};

mod simd128;

/// The sets this build runs, narrowest first.
pub(super) fn available() -> Vec<Set> {
    vec![Set::Portable, Set::Simd128]
}

/// Runs `job` with the kernels of `set`.
#[inline(always)]
pub(super) fn run<J: Job>(
    set: Set,
    job: J,
    state: &mut J::State,
    data: &[u8],
    sink: &mut J::Sink,
) -> J::Out {
    match set {
        Set::Portable => super::with_portable(job, state, data, sink),
        Set::Simd128 => with_simd128(job, state, data, sink),
    }
}

/// The simd128 set's entry function.
#[inline(never)]
fn with_simd128<J: Job>(job: J, state: &mut J::State, data: &[u8], sink: &mut J::Sink) -> J::Out {
    job.run(state, data, sink, (Simd128(()), Simd128(())))
}

/// simd128, enabled by the build (this module is compiled only then).
#[derive(Clone, Copy)]
struct Simd128(());

ascii_kernels!(safe Simd128, simd128);
utf8_kernels!(safe Simd128, simd128, simd128);
