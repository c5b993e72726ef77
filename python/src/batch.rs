//! What the streaming entry points (`Scanner`, `finditer`) share: `Batch`, the sink that
//! gathers one call's matches while the GIL is released and hands them over as `Match`
//! objects once it is taken back, holding at most `max_match_bytes` of a match still open;
//! and `run`, which feeds a chunk in pieces and lets Python handle signals between them.

use crate::matched::Match;
use crate::{DETACH_BYTES, errors};
use extract_between::{Pos, ScanError, Sink};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use std::ops::{ControlFlow, Range};

/// A chunk is scanned in pieces of this size, Python's signal handlers run between them: a
/// Ctrl-C stops a call on a gigabyte chunk within a piece's time.
const PIECE_BYTES: usize = 4 << 20;

/// Matches built between two looks at Python's signals.
const SIGNAL_EVERY: usize = 1 << 16;

/// A match gathered without the GIL: its content's place in `Batch::text` and its positions.
struct Span {
    text: Range<usize>,
    start: Pos,
    end: Pos,
}

/// Why a scan ended before its input did.
pub enum Ended {
    /// Invalid UTF-8, or an unclosed start marker at the end.
    Scan(ScanError),
    /// The match whose content begins at this position grew past `max_match_bytes`.
    TooLarge(Pos),
    /// Python raised while the chunk was scanned (a `KeyboardInterrupt`).
    Interrupted(PyErr),
}

/// The matches of one scanner call, contents back to back in one buffer, so that gathering
/// them allocates nothing per match; `take` turns them into `Match` objects.
pub struct Batch {
    text: Vec<u8>,
    spans: Vec<Span>,
    next: usize,
    open: Option<(usize, Pos)>,
    limit: usize,
    too_large: Option<Pos>,
}

impl Sink for Batch {
    fn open(&mut self, _marker: Pos, content: Pos) -> ControlFlow<()> {
        self.open = Some((self.text.len(), content));
        ControlFlow::Continue(())
    }

    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
        if let Some((from, start)) = self.open
            && self.text.len() - from + fragment.len() > self.limit
        {
            self.too_large = Some(start);
            return ControlFlow::Break(());
        }
        self.text.extend_from_slice(fragment);
        ControlFlow::Continue(())
    }

    fn close(&mut self, content_end: Pos, _marker_end: Pos) -> ControlFlow<()> {
        if let Some((from, start)) = self.open.take() {
            self.spans.push(Span {
                text: from..self.text.len(),
                start,
                end: content_end,
            });
        }
        ControlFlow::Continue(())
    }

    fn matched(&mut self, open: [Pos; 2], content: &[u8], close: [Pos; 2]) -> ControlFlow<()> {
        if content.len() > self.limit {
            self.too_large = Some(open[1]);
            return ControlFlow::Break(());
        }
        let from = self.text.len();
        self.text.extend_from_slice(content);
        self.spans.push(Span {
            text: from..self.text.len(),
            start: open[1],
            end: close[0],
        });
        ControlFlow::Continue(())
    }
}

impl Batch {
    /// A batch that holds at most `limit` bytes of one match's content.
    pub fn new(limit: usize) -> Batch {
        Batch {
            text: Vec::new(),
            spans: Vec::new(),
            next: 0,
            open: None,
            limit,
            too_large: None,
        }
    }

    /// The limit on one match's content.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The next gathered match as a `Match`, or `None` once all were taken (the buffer is
    /// then emptied, keeping a match still open).
    pub fn pop(&mut self, py: Python<'_>) -> Option<Match> {
        let Some(span) = self.spans.get(self.next) else {
            self.compact();
            return None;
        };
        self.next += 1;
        // The scanner hands out valid UTF-8 only; the lossy form keeps this panic-free.
        let text = String::from_utf8_lossy(self.text.get(span.text.clone()).unwrap_or_default());
        Some(Match {
            text: PyString::new(py, &text).unbind(),
            byte_start: span.start.byte,
            byte_end: span.end.byte,
            utf16_start: span.start.utf16,
            utf16_end: span.end.utf16,
        })
    }

    /// Every gathered match, as a list; Python's signal handlers run every so many matches,
    /// so a Ctrl-C stops the building of millions of them.
    pub fn take<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        while let Some(m) = self.pop(py) {
            list.append(m)?;
            if list.len() % SIGNAL_EVERY == 0 {
                py.check_signals()?;
            }
        }
        Ok(list)
    }

    /// Drops what was handed over; the content of a match still open moves to the front.
    fn compact(&mut self) {
        self.spans.clear();
        self.next = 0;
        match &mut self.open {
            Some((from, _)) => {
                self.text.drain(..*from);
                *from = 0;
            }
            None => self.text.clear(),
        }
    }

    /// Gives back the memory of a scan that has ended with an error, once its matches were
    /// taken.
    pub fn release(&mut self) {
        *self = Batch::new(self.limit);
    }
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
    match batch.too_large.take() {
        Some(start) => Err(Ended::TooLarge(start)),
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
        let mut step = || scanner.feed(piece, sink);
        let flow = if piece.len() >= DETACH_BYTES {
            py.detach(step)
        } else {
            step()
        };
        match flow {
            Err(e) => return Err(Ended::Scan(e)),
            Ok(ControlFlow::Break(())) => break,
            Ok(ControlFlow::Continue(())) => {}
        }
    }
    Ok(())
}

/// The error a scan ended with, with `found`, the matches before it in the same call.
pub fn error(py: Python<'_>, ended: Ended, limit: usize, found: Bound<'_, PyList>) -> PyErr {
    match ended {
        Ended::Scan(e) => errors::scan_error(py, &e, found),
        Ended::TooLarge(start) => errors::match_too_large(py, start, limit, found),
        Ended::Interrupted(e) => e,
    }
}
