//! The extractor of a thread's last call to an entry point, keyed by the marker objects
//! themselves: a loop over documents passes the same two strings each time, and encoding and
//! checking them and building two finders again costs about as much as scanning a sparse
//! document. Each entry point keeps its own cell (`extract` with the card's limits, `findall`
//! without). A call takes the extractor out of its cell and puts it back when it is done, so a
//! call made from inside it (a finalizer, a signal handler) finds the cell empty and builds
//! its own instead of meeting a borrowed cell. Boxed: the finders are large, and moving a
//! pointer in and out costs nothing.

use extract_between::Extractor;
use pyo3::prelude::*;
use std::cell::RefCell;
use std::thread::LocalKey;

/// A thread's cell for one entry point.
pub type Cell = LocalKey<RefCell<Option<Box<Last>>>>;

/// The last call's markers and what was built from them.
pub struct Last {
    start: Py<PyAny>,
    end: Py<PyAny>,
    /// The cap the extractor was built with (`extract`'s `max_matches`).
    pub cap: usize,
    pub extractor: Extractor,
}

impl Last {
    /// What was built for the markers `start` and `end`.
    pub fn new(
        start: &Bound<'_, PyAny>,
        end: &Bound<'_, PyAny>,
        cap: usize,
        extractor: Extractor,
    ) -> Box<Last> {
        Box::new(Last {
            start: start.clone().unbind(),
            end: end.clone().unbind(),
            cap,
            extractor,
        })
    }
}

/// The cell's extractor if it was built for these very marker objects; the cell is empty
/// until [`put`] gives it back.
pub fn take(
    cell: &'static Cell,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
) -> Option<Box<Last>> {
    cell.take()
        .filter(|last| last.start.is(start) && last.end.is(end))
}

/// Gives the extractor back to the cell, for the thread's next call.
pub fn put(cell: &'static Cell, last: Box<Last>) {
    cell.set(Some(last));
}
