//! aarch64's kernels: the ASCII and UTF-8 kernels with NEON, which every aarch64 CPU has
//! (the architecture makes it part of the base: no detection needed).

use super::{AsciiKernels, Job, Set, Utf8Kernels};

mod neon;

/// The sets this CPU runs, narrowest first.
pub(super) fn available() -> Vec<Set> {
    vec![Set::Portable, Set::Neon]
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
        Set::Neon => with_neon(job, state, data, sink),
    }
}

/// The NEON set's entry function.
#[inline(never)]
fn with_neon<J: Job>(job: J, state: &mut J::State, data: &[u8], sink: &mut J::Sink) -> J::Out {
    job.run(state, data, sink, (Neon(()), Neon(())))
}

/// NEON, part of every aarch64 CPU.
#[derive(Clone, Copy)]
struct Neon(());

ascii_kernels!(unsafe Neon, neon);
utf8_kernels!(unsafe Neon, neon, neon);
