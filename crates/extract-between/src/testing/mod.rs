//! Hooks for the tests, the fuzz targets and the benches, built only with the `testing`
//! feature (which they enable): not part of the API.
//!
//! ```
//! use extract_between::testing::{Paths, reference, scanner};
//! use extract_between::{Collect, Markers};
//! let markers = Markers::new("[", "]").unwrap();
//! for seed in 0..64 {
//!     let mut s = scanner(&markers, Paths::vary(seed));
//!     let mut found = Collect::default();
//!     s.feed(b"x[a]y", &mut found).unwrap();
//!     assert_eq!(found.matches[0].text, "a");
//! }
//! assert!(reference::extract("x[a]y", "[", "]", 1).is_ok());
//! ```

mod cases;
mod feed;
pub mod reference;
#[cfg(feature = "tags")]
pub mod tags;

pub use cases::{ALPHABET, Case};
#[cfg(feature = "stream")]
pub use feed::Trickle;
pub use feed::feed_planned;

pub use crate::kernels::Isa;
pub use crate::scanner::paths::Paths;
use crate::{Markers, Scanner};

/// A scanner for `markers` that takes `paths`.
pub fn scanner(markers: &Markers, paths: Paths) -> Scanner {
    Scanner::new(markers).with_paths(paths)
}

impl Paths {
    /// The general path alone: validation, then `memmem`, with the UTF-16 count.
    pub fn general() -> Paths {
        Paths {
            ascii: false,
            utf8: false,
            ..Paths::detect()
        }
    }

    /// Every set of kernels this CPU runs (the portable ones included), with both walks on
    /// and the hints as this CPU's vendor has them.
    pub fn every_set() -> Vec<Paths> {
        let hints = Paths::detect().hints;
        let with = |isa| Paths {
            isa,
            ascii: true,
            utf8: true,
            hints,
        };
        Isa::available().into_iter().map(with).collect()
    }

    /// A choice of paths from `seed`, so that tests and fuzzing cover every set of kernels
    /// this CPU runs (the portable ones included), each walk on and off, and both hint
    /// settings: the set is `seed % n` of [`Isa::available`]; of `seed / n`, the two low
    /// bits turn the ASCII walk off (1), the UTF-8 walk off (2) or both (3), the next one
    /// the hints.
    pub fn vary(seed: usize) -> Paths {
        let sets = Isa::available();
        let bits = seed / sets.len();
        Paths {
            isa: sets[seed % sets.len()],
            ascii: bits & 1 == 0,
            utf8: bits & 2 == 0,
            hints: bits & 4 == 0,
        }
    }
}
