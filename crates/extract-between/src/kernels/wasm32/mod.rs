//! WebAssembly's kernels: the ASCII and UTF-8 kernels with simd128, compiled in when the
//! build enables the feature (`-C target-feature=+simd128`, as `js/build.sh` does).
//! WebAssembly has no run-time detection: a module that uses the instructions is refused as a
//! whole by an engine without them, so the build decides. Every current engine has them
//! (Chrome and Node from 16, Firefox 89, Safari 16.4, Deno, workerd, wasmtime); older
//! Safari is what a simd128 build excludes.

use super::{AsciiKernels, Job, Set, Utf8Block, Utf8Kernels};

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

impl AsciiKernels for Simd128 {
    #[inline(always)]
    fn stops64(self, block: &[u8; 64], byte: u8) -> u64 {
        simd128::stops64(block, byte)
    }
    #[inline(always)]
    fn stops64_pair(self, block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
        simd128::stops64_pair(block, at, bytes)
    }
    #[inline(always)]
    fn quiet128(self, bytes: &[u8; 128], byte: u8) -> bool {
        simd128::quiet128(bytes, byte)
    }
    #[inline(always)]
    fn quiet128_pair(self, bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
        simd128::quiet128_pair(bytes, at, probe)
    }
}

impl Utf8Kernels for Simd128 {
    type Units = Utf8Block;
    type Consts = simd128::Consts;
    type Prefix = simd128::Prefix;

    #[inline(always)]
    fn consts(self) -> simd128::Consts {
        simd128::consts()
    }
    #[inline(always)]
    fn utf8_block(
        self,
        consts: &simd128::Consts,
        window: &[u8; 98],
        probe: [(usize, u8); 2],
    ) -> Option<(Utf8Block, u64)> {
        simd128::utf8_block(consts, window, probe)
    }
    #[inline(always)]
    fn candidates(self, window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
        simd128::candidates(window, probe)
    }
    #[inline(always)]
    fn prefix(self, bytes: &[u8; 32], len: usize) -> simd128::Prefix {
        simd128::Prefix::new(bytes, len)
    }
    #[inline(always)]
    fn starts(self, prefix: &simd128::Prefix, here: &[u8; 32]) -> bool {
        prefix.starts(here)
    }
}
