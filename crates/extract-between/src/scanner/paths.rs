//! Which fast paths a scanner takes: public through `testing` alone, where tests, fuzzing and
//! benches choose others than this CPU's best.

use crate::kernels::{Isa, streams_without_hints};

/// The fast paths a scanner takes and the kernels they use: by default what this CPU runs
/// best (tests, fuzzing and benches choose others through `testing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paths {
    /// The kernels the walks use.
    pub isa: Isa,
    /// The ASCII walk (`scan_ascii`).
    pub ascii: bool,
    /// The UTF-8 walk (`scan_utf8`).
    pub utf8: bool,
    /// Whether the ASCII walk's search for a marker of two bytes or more asks for data
    /// ahead (see `kernels::streams_without_hints`).
    pub hints: bool,
}

impl Paths {
    /// What this CPU runs best.
    pub fn detect() -> Paths {
        let isa = Isa::detect();
        let (ascii, utf8) = isa.walks();
        Paths {
            isa,
            ascii,
            utf8,
            hints: !streams_without_hints(),
        }
    }
}
