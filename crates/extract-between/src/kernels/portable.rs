//! The scalar twin of every kernel: what each vector kernel computes, a byte at a time. The
//! vector kernels are tested against these (`tests.rs`); on targets without vector kernels
//! they are all there is (and the scanner takes its general path).

use super::lookup::{BY_CURRENT_HIGH, BY_PREV_HIGH, BY_PREV_LOW};
use super::{AsciiKernels, Utf8Block, Utf8Kernels};

/// The portable kernels (any CPU).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

/// Bit `k` of the result is `f(k)`.
fn mask64(f: impl Fn(usize) -> bool) -> u64 {
    (0..64).fold(0, |m, k| m | (u64::from(f(k)) << k))
}

impl AsciiKernels for Portable {
    fn stops64(self, block: &[u8; 64], byte: u8) -> u64 {
        mask64(|k| block[k] >= 0x80 || block[k] == byte)
    }

    fn stops64_pair(self, block: &[u8; 64], at: [&[u8; 64]; 2], bytes: [u8; 2]) -> u64 {
        mask64(|k| block[k] >= 0x80 || (at[0][k] == bytes[0] && at[1][k] == bytes[1]))
    }

    fn quiet128(self, bytes: &[u8; 128], byte: u8) -> bool {
        bytes.iter().all(|&b| b < 0x80 && b != byte)
    }

    fn quiet128_pair(self, bytes: &[u8; 128], at: [&[u8; 128]; 2], probe: [u8; 2]) -> bool {
        (0..128).all(|k| bytes[k] < 0x80 && (at[0][k] != probe[0] || at[1][k] != probe[1]))
    }
}

/// The lookup validation's verdict on the byte `window[at]`: whether it is an error, given
/// the three bytes before it (see `lookup.rs`).
fn error_at(window: &[u8; 98], at: usize) -> bool {
    let (prev1, current) = (window[at - 1], window[at]);
    let special = BY_PREV_HIGH[usize::from(prev1 >> 4)]
        & BY_PREV_LOW[usize::from(prev1 & 15)]
        & BY_CURRENT_HIGH[usize::from(current >> 4)];
    // A lead two or three bytes back asks for a continuation byte here.
    let must = window[at - 2] >= 0xE0 || window[at - 3] >= 0xF0;
    (special >= 0x80) != must || special & 0x7F != 0
}

impl Utf8Kernels for Portable {
    type Units = Utf8Block;
    type Consts = ();
    type Prefix = ([u8; 32], usize);

    fn consts(self) {}

    fn utf8_block(
        self,
        (): &(),
        window: &[u8; 98],
        probe: [(usize, u8); 2],
    ) -> Option<(Utf8Block, u64)> {
        if (3..67).any(|at| error_at(window, at)) {
            return None;
        }
        let units = Utf8Block {
            conts: mask64(|k| (window[3 + k] as i8) < -0x40),
            fours: mask64(|k| window[3 + k] >= 0xF0),
        };
        Some((units, self.candidates(window, probe)))
    }

    fn candidates(self, window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
        mask64(|k| probe.iter().all(|&(at, byte)| window[3 + k + at] == byte))
    }

    fn prefix(self, bytes: &[u8; 32], len: usize) -> ([u8; 32], usize) {
        (*bytes, len.min(32))
    }

    fn starts(self, (bytes, len): &([u8; 32], usize), here: &[u8; 32]) -> bool {
        here[..*len] == bytes[..*len]
    }
}
