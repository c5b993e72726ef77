//! The kernel contracts implemented for a set's token by instantiating the algorithms of
//! `generic/` with the set's vector: one definition for every set. Each call is `unsafe`
//! for the one precondition of the generic kernels, that the CPU runs the set's
//! instructions, which the token proves: a token is made only inside its set's entry
//! function, and that runs only where the CPU has the set (detected at run time, or the
//! target's baseline: NEON on aarch64, simd128 where the build enables it).

/// Implements [`AsciiKernels`](super::AsciiKernels) for `$token` with the generic kernels
/// over `$vector`; with `quiet from $set`, the quiet scans are the set's own functions.
macro_rules! ascii_kernels {
    ($token:ident, $vector:ty) => {
        ascii_kernels!(@impl $token, $vector, $crate::kernels::generic::ascii::quiet128::<$vector>,
            $crate::kernels::generic::ascii::quiet128_pair::<$vector>);
    };
    ($token:ident, $vector:ty, quiet from $set:ident) => {
        ascii_kernels!(@impl $token, $vector, $set::quiet128, $set::quiet128_pair);
    };
    (@impl $token:ident, $vector:ty, $quiet:path, $quiet_pair:path) => {
        impl $crate::kernels::AsciiKernels for $token {
            #[inline(always)]
            fn stops64(self, block: &[u8; 64], byte: u8) -> u64 {
                // SAFETY: the token proves the set (see `forward.rs`).
                unsafe { $crate::kernels::generic::ascii::stops64::<$vector>(block, byte) }
            }
            #[inline(always)]
            fn stops64_pair(self, block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
                // SAFETY: the token proves the set (see `forward.rs`).
                unsafe {
                    $crate::kernels::generic::ascii::stops64_pair::<$vector>(block, at, bytes)
                }
            }
            #[inline(always)]
            fn quiet128(self, bytes: &[u8; 128], byte: u8) -> bool {
                // SAFETY: the token proves the set (see `forward.rs`).
                unsafe { $quiet(bytes, byte) }
            }
            #[inline(always)]
            fn quiet128_pair(self, bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
                // SAFETY: the token proves the set (see `forward.rs`).
                unsafe { $quiet_pair(bytes, at, probe) }
            }
        }
    };
}

/// Implements [`Utf8Kernels`](super::Utf8Kernels) for `$token` with the generic kernels
/// over `$vector`, a marker compared in `$prefix` vectors; with `block from $set`, the block
/// test is the set's own (no constants, its own units).
macro_rules! utf8_kernels {
    ($token:ident, $vector:ty, $prefix:ty) => {
        utf8_kernels!(@impl $token, $vector, $prefix,
            $crate::kernels::Utf8Block, $crate::kernels::generic::utf8::Consts<$vector>,
            $crate::kernels::generic::utf8::consts::<$vector>,
            $crate::kernels::generic::utf8::utf8_block::<$vector>);
    };
    ($token:ident, $vector:ty, $prefix:ty, block from $set:ident) => {
        utf8_kernels!(@impl $token, $vector, $prefix, $set::Units, $set::Consts, $set::consts,
            $set::utf8_block);
    };
    (@impl $token:ident, $vector:ty, $prefix:ty, $units:ty, $consts:ty, $make:path,
        $block:path) => {
        impl $crate::kernels::Utf8Kernels for $token {
            type Units = $units;
            type Consts = $consts;
            type Prefix = $crate::kernels::generic::utf8::Prefix<$prefix>;

            #[inline(always)]
            fn consts(self) -> Self::Consts {
                // SAFETY: the token proves the set (see `forward.rs`).
                unsafe { $make() }
            }
            #[inline(always)]
            fn utf8_block(
                self,
                consts: &Self::Consts,
                window: &[u8; 98],
                probe: [(usize, u8); 2],
            ) -> Option<(Self::Units, u64)> {
                // SAFETY: the token proves the set (see `forward.rs`).
                unsafe { $block(consts, window, probe) }
            }
            #[inline(always)]
            fn candidates(self, window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
                // SAFETY: the token proves the set (see `forward.rs`).
                unsafe { $crate::kernels::generic::utf8::candidates::<$vector>(window, probe) }
            }
            #[inline(always)]
            fn prefix(self, bytes: &[u8; 32], len: usize) -> Self::Prefix {
                // SAFETY: the token proves the set (see `forward.rs`).
                unsafe { $crate::kernels::generic::utf8::Prefix::new(bytes, len) }
            }
            #[inline(always)]
            fn starts(self, prefix: &Self::Prefix, here: &[u8; 32]) -> bool {
                // SAFETY: the token proves the set (see `forward.rs`).
                unsafe { prefix.starts(here) }
            }
        }
    };
}
