//! Counting UTF-16 units of the bytes scanned, as the general path goes.

use super::*;

/// The shortest chunk the UTF-8 fast path can decide anything in: a block, the three bytes
/// before it (for the first, zeros) and the 31 after it. Shorter remainders (the end of every
/// chunk the ASCII path scanned) skip the path's setup.
pub(super) const UTF8_MIN_CHUNK: usize = 95;

/// The shortest chunk the ASCII fast path is set up for: a block. It decides nothing in less
/// (it leaves the tail to the general path), and a short text's whole scan is a few tens of
/// nanoseconds, of which the setup was a third.
pub(super) const ASCII_MIN_CHUNK: usize = 64;

/// How UTF-16 units are known within one slice.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Units {
    /// ASCII: one unit per byte, nothing to count.
    Ascii,
    /// Counted from the bytes, lazily, as positions are asked for.
    Count,
    /// The sink does not want them: always 0.
    Off,
}

impl Units {
    /// How units are known for `sink` over a slice that is `ascii` (known all ASCII) or not.
    pub(super) fn of<S: Sink + ?Sized>(sink: &S, ascii: bool) -> Units {
        if !sink.utf16_offsets() {
            Units::Off
        } else if ascii {
            Units::Ascii
        } else {
            Units::Count
        }
    }
}

/// Positions within one slice, asked for in increasing order.
pub(super) struct Counter {
    pub(super) base: Pos,
    pub(super) counted: usize,
    pub(super) utf16: u64,
    pub(super) units: Units,
}

impl Counter {
    #[inline]
    pub(super) fn new(base: Pos, units: Units) -> Counter {
        Counter {
            base,
            counted: 0,
            utf16: base.utf16,
            units,
        }
    }

    /// Position of `data[x]`; `x` never decreases between calls.
    #[inline]
    pub(super) fn pos(&mut self, data: &[u8], x: usize) -> Pos {
        match self.units {
            Units::Ascii => {
                return Pos {
                    byte: self.base.byte + x as u64,
                    utf16: self.base.utf16 + x as u64,
                };
            }
            Units::Off => {
                return Pos {
                    byte: self.base.byte + x as u64,
                    utf16: 0,
                };
            }
            Units::Count => {}
        }
        self.utf16 += utf16_len_from(&data[..x], self.counted);
        self.counted = x;
        Pos {
            byte: self.base.byte + x as u64,
            utf16: self.utf16,
        }
    }
}
