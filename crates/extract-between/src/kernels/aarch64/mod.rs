//! aarch64's kernels: the ASCII and UTF-8 kernels with NEON, which every aarch64 CPU has
//! (the architecture makes it part of the base: no detection needed).

use super::{AsciiKernels, Job, Set, Utf8Block, Utf8Kernels};

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

impl AsciiKernels for Neon {
    #[inline(always)]
    fn stops64(self, block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: NEON is part of every aarch64 CPU (the target's baseline).
        unsafe { neon::stops64(block, byte) }
    }
    #[inline(always)]
    fn stops64_pair(self, block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
        // SAFETY: NEON is part of every aarch64 CPU (the target's baseline).
        unsafe { neon::stops64_pair(block, at, bytes) }
    }
    #[inline(always)]
    fn quiet128(self, bytes: &[u8; 128], byte: u8) -> bool {
        // SAFETY: NEON is part of every aarch64 CPU (the target's baseline).
        unsafe { neon::quiet128(bytes, byte) }
    }
    #[inline(always)]
    fn quiet128_pair(self, bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
        // SAFETY: NEON is part of every aarch64 CPU (the target's baseline).
        unsafe { neon::quiet128_pair(bytes, at, probe) }
    }
}

impl Utf8Kernels for Neon {
    type Units = Utf8Block;
    type Consts = neon::Consts;
    type Prefix = neon::Prefix;

    #[inline(always)]
    fn consts(self) -> neon::Consts {
        // SAFETY: NEON is part of every aarch64 CPU (the target's baseline).
        unsafe { neon::consts() }
    }
    #[inline(always)]
    fn utf8_block(
        self,
        consts: &neon::Consts,
        window: &[u8; 98],
        probe: [(usize, u8); 2],
    ) -> Option<(Utf8Block, u64)> {
        // SAFETY: NEON is part of every aarch64 CPU (the target's baseline).
        unsafe { neon::utf8_block(consts, window, probe) }
    }
    #[inline(always)]
    fn candidates(self, window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
        // SAFETY: NEON is part of every aarch64 CPU (the target's baseline).
        unsafe { neon::candidates(window, probe) }
    }
    #[inline(always)]
    fn prefix(self, bytes: &[u8; 32], len: usize) -> neon::Prefix {
        // SAFETY: NEON is part of every aarch64 CPU (the target's baseline).
        unsafe { neon::Prefix::new(bytes, len) }
    }
    #[inline(always)]
    fn starts(self, prefix: &neon::Prefix, here: &[u8; 32]) -> bool {
        // SAFETY: NEON is part of every aarch64 CPU (the target's baseline).
        unsafe { prefix.starts(here) }
    }
}
