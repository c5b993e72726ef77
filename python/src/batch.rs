//! What the streaming entry points (`Scanner`, `finditer`) share: the library's `Batch`
//! gathers one call's matches while the GIL is released (holding at most `max_match_bytes`
//! of a match still open), `pop` and `take` hand them over as `Match` objects once it is
//! taken back, and `run` feeds a chunk in pieces and lets Python handle signals between them.

use crate::matched::Match;
use crate::{detach, errors};
pub use extract_between::batch::Batch;
use extract_between::batch::TooLarge;
use extract_between::{ScanError, Sink};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use std::ops::ControlFlow;

/// A chunk is scanned in pieces of this size, Python's signal handlers run between them: a
/// Ctrl-C stops a call on a gigabyte chunk within a piece's time.
const PIECE_BYTES: usize = 4 << 20;

/// Matches built between two looks at Python's signals.
const SIGNAL_EVERY: usize = 1 << 16;

/// Why a scan ended before its input did.
pub enum Ended {
    /// Invalid UTF-8, or an unclosed start marker at the end.
    Scan(ScanError),
    /// A match grew past `max_match_bytes`.
    TooLarge(TooLarge),
    /// Python raised while the chunk was scanned (a `KeyboardInterrupt`).
    Interrupted(PyErr),
}

/// The next gathered match as a `Match`, or `None` once all were taken.
pub fn pop(py: Python<'_>, batch: &mut Batch) -> Option<Match> {
    let found = batch.pop()?;
    Some(Match {
        text: PyString::new(py, found.text()).unbind(),
        byte_start: found.start.byte,
        byte_end: found.end.byte,
        utf16_start: found.start.utf16,
        utf16_end: found.end.utf16,
    })
}

/// Every gathered match, as a list; Python's signal handlers run every so many matches, so a
/// Ctrl-C stops the building of millions of them.
pub fn take<'py>(py: Python<'py>, batch: &mut Batch) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    while let Some(m) = pop(py, batch) {
        list.append(m)?;
        if list.len() % SIGNAL_EVERY == 0 {
            py.check_signals()?;
        }
    }
    Ok(list)
}

/// Feeds `chunk` (or finishes, for `None`), with the GIL released for large chunks and
/// Python's signal handlers run between pieces of a very large one.
pub fn run(
    py: Python<'_>,
    scanner: &mut extract_between::Scanner,
    batch: &mut Batch,
    chunk: Option<&[u8]>,
) -> Result<(), Ended> {
    scan(py, scanner, batch, chunk)?;
    match batch.too_large() {
        Some(big) => Err(Ended::TooLarge(big)),
        None => Ok(()),
    }
}

/// [`run`] for any sink: the pieces, the GIL released, the signals between pieces.
pub fn scan<S: Sink + Send>(
    py: Python<'_>,
    scanner: &mut extract_between::Scanner,
    sink: &mut S,
    chunk: Option<&[u8]>,
) -> Result<(), Ended> {
    let Some(chunk) = chunk else {
        return scanner.finish(sink).map_err(Ended::Scan);
    };
    for (i, piece) in chunk.chunks(PIECE_BYTES).enumerate() {
        if i > 0 {
            py.check_signals().map_err(Ended::Interrupted)?;
        }
        let flow = detach::if_long(py, piece.len(), || scanner.feed(piece, sink));
        match flow {
            Err(e) => return Err(Ended::Scan(e)),
            Ok(ControlFlow::Break(())) => break,
            Ok(ControlFlow::Continue(())) => {}
        }
    }
    Ok(())
}

/// The error a scan ended with, with `found`, the matches before it in the same call.
pub fn error(py: Python<'_>, ended: Ended, found: Bound<'_, PyList>) -> PyErr {
    match ended {
        Ended::Scan(e) => errors::scan_error(py, &e, found),
        Ended::TooLarge(big) => errors::match_too_large(py, big, found),
        Ended::Interrupted(e) => e,
    }
}
