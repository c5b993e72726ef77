//! The kernel contracts implemented for a set's token by forwarding to the functions of the
//! set's file: one definition for every architecture. A set whose functions carry
//! `#[target_feature]` beyond the target's baseline (x86-64's, aarch64's NEON) is called in an
//! `unsafe` block; one compiled only where its feature is the build's (WebAssembly's simd128)
//! is called plainly.

/// A call to a set's kernel: `unsafe` for sets whose functions need a CPU feature the caller's
/// context may lack, plain for sets the build enables everywhere.
macro_rules! kernel_call {
    (unsafe, $call:expr) => {
        // SAFETY: a set's token is made only where the CPU has its instructions (detected at
        // run time, or the target's baseline): see the architecture module's `run`.
        unsafe { $call }
    };
    (safe, $call:expr) => {
        $call
    };
}

/// Implements [`AsciiKernels`](super::AsciiKernels) for `$token` with the kernels of the set's
/// file `$set`.
macro_rules! ascii_kernels {
    ($mode:tt $token:ident, $set:ident) => {
        impl AsciiKernels for $token {
            #[inline(always)]
            fn stops64(self, block: &[u8; 64], byte: u8) -> u64 {
                kernel_call!($mode, $set::stops64(block, byte))
            }
            #[inline(always)]
            fn stops64_pair(self, block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
                kernel_call!($mode, $set::stops64_pair(block, at, bytes))
            }
            #[inline(always)]
            fn quiet128(self, bytes: &[u8; 128], byte: u8) -> bool {
                kernel_call!($mode, $set::quiet128(bytes, byte))
            }
            #[inline(always)]
            fn quiet128_pair(self, bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
                kernel_call!($mode, $set::quiet128_pair(bytes, at, probe))
            }
        }
    };
}

/// Implements [`Utf8Kernels`](super::Utf8Kernels) for `$token` with the kernels of the set's
/// file `$set` and the marker comparison of `$prefix`'s.
macro_rules! utf8_kernels {
    ($mode:tt $token:ident, $set:ident, $prefix:ident) => {
        impl Utf8Kernels for $token {
            type Units = $set::Units;
            type Consts = $set::Consts;
            type Prefix = $prefix::Prefix;

            #[inline(always)]
            fn consts(self) -> $set::Consts {
                kernel_call!($mode, $set::consts())
            }
            #[inline(always)]
            fn utf8_block(
                self,
                consts: &$set::Consts,
                window: &[u8; 98],
                probe: [(usize, u8); 2],
            ) -> Option<($set::Units, u64)> {
                kernel_call!($mode, $set::utf8_block(consts, window, probe))
            }
            #[inline(always)]
            fn candidates(self, window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
                kernel_call!($mode, $set::candidates(window, probe))
            }
            #[inline(always)]
            fn prefix(self, bytes: &[u8; 32], len: usize) -> $prefix::Prefix {
                kernel_call!($mode, $prefix::Prefix::new(bytes, len))
            }
            #[inline(always)]
            fn starts(self, prefix: &$prefix::Prefix, here: &[u8; 32]) -> bool {
                kernel_call!($mode, prefix.starts(here))
            }
        }
    };
}
