//! The resumable scanner for Python callers who own the loop (`Scanner`), the `Match` it
//! reports, and `Batch`, the sink that gathers one call's matches while the GIL is released
//! and hands them over as `Match` objects once it is taken back.

use crate::{DETACH_BYTES, errors};
use extract_between::{Markers, Pos, ScanError, Sink};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyMemoryView, PyString};
use std::ops::{ControlFlow, Range};

/// One match of a stream: its content and where it lies in the whole source, in UTF-8 bytes
/// and in UTF-16 code units (the card's unit; what a JavaScript client slices with).
///
/// >>> from extract_between import finditer
/// >>> m = next(finditer("😀[é]", "[", "]"))
/// >>> m.text, (m.byte_start, m.byte_end), (m.utf16_start, m.utf16_end)
/// ('é', (5, 7), (3, 4))
#[pyclass(frozen, module = "extract_between", skip_from_py_object)]
pub struct Match {
    /// The content between the markers.
    #[pyo3(get)]
    text: Py<PyString>,
    /// Where the content begins, in UTF-8 bytes from the start of the source.
    #[pyo3(get)]
    byte_start: u64,
    /// Where the content ends (where the end marker begins), in UTF-8 bytes.
    #[pyo3(get)]
    byte_end: u64,
    /// Where the content begins, in UTF-16 code units.
    #[pyo3(get)]
    utf16_start: u64,
    /// Where the content ends, in UTF-16 code units.
    #[pyo3(get)]
    utf16_end: u64,
}

#[pymethods]
impl Match {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Match(text={}, byte_start={}, byte_end={}, utf16_start={}, utf16_end={})",
            self.text.bind(py).repr()?,
            self.byte_start,
            self.byte_end,
            self.utf16_start,
            self.utf16_end
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(other) = other.cast::<Match>() else {
            return Ok(false);
        };
        let o = other.get();
        Ok((
            self.byte_start,
            self.byte_end,
            self.utf16_start,
            self.utf16_end,
        ) == (o.byte_start, o.byte_end, o.utf16_start, o.utf16_end)
            && PyAnyMethods::eq(self.text.bind(py).as_any(), o.text.bind(py))?)
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        let key = (
            self.text.clone_ref(py),
            self.byte_start,
            self.byte_end,
            self.utf16_start,
            self.utf16_end,
        );
        key.into_pyobject(py)?.hash()
    }
}

/// A match gathered without the GIL: its content's place in `Batch::text` and its positions.
struct Span {
    text: Range<usize>,
    start: Pos,
    end: Pos,
}

/// The matches of one scanner call, contents back to back in one buffer, so that gathering
/// them allocates nothing per match; `take` turns them into `Match` objects.
#[derive(Default)]
pub struct Batch {
    text: Vec<u8>,
    spans: Vec<Span>,
    next: usize,
    open: Option<(usize, Pos)>,
}

impl Sink for Batch {
    fn open(&mut self, _marker: Pos, content: Pos) -> ControlFlow<()> {
        self.open = Some((self.text.len(), content));
        ControlFlow::Continue(())
    }

    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
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

    /// Every gathered match, as a list.
    pub fn take<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        while let Some(m) = self.pop(py) {
            list.append(m)?;
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
}

/// Feeds `chunk` (or finishes, for `None`), with the GIL released for large chunks.
pub fn run(
    py: Python<'_>,
    scanner: &mut extract_between::Scanner,
    batch: &mut Batch,
    chunk: Option<&[u8]>,
) -> Result<(), ScanError> {
    let mut step = || match chunk {
        Some(bytes) => scanner.feed(bytes, batch).map(|_| ()),
        None => scanner.finish(batch),
    };
    if chunk.is_some_and(|c| c.len() >= DETACH_BYTES) {
        py.detach(step)
    } else {
        step()
    }
}

/// Builds the marker pair of a streaming call: `str` markers within the card's limits.
pub fn markers(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
) -> PyResult<Markers> {
    let start = crate::convert::utf8_arg(py, "start", start)?;
    let end = crate::convert::utf8_arg(py, "end", end)?;
    let text = |b: &Bound<'_, PyBytes>| String::from_utf8_lossy(b.as_bytes()).into_owned();
    Markers::new(text(&start), text(&end)).map_err(|e| errors::marker(py, &e))
}

/// The resumable scanner: feed it bytes in chunks cut anywhere (inside a character or a
/// marker), then call `finish`. Each call answers the matches it completed; memory stays
/// bounded by the markers' length and the content of the match still open. There is no cap
/// and no limit on the input's size.
///
/// An error (invalid UTF-8, an unclosed start marker at `finish`) is raised after the
/// scanner has gathered every match before it: they are on the exception's `.matches`.
///
/// >>> from extract_between import Scanner
/// >>> s = Scanner("「", "」")
/// >>> [m.text for m in s.feed("前「一」中「".encode()[:13])]
/// ['一']
/// >>> [m.text for m in s.feed("前「一」中「二」後".encode()[13:])]
/// ['二']
/// >>> s.finish()
/// []
#[pyclass(module = "extract_between", skip_from_py_object)]
pub struct Scanner {
    // Boxed: the memmem finders inside hold 32-byte vectors, and Python allocates a class's
    // instances with 16-byte alignment only.
    scanner: Box<extract_between::Scanner>,
    batch: Batch,
}

#[pymethods]
impl Scanner {
    #[new]
    fn new(py: Python<'_>, start: &Bound<'_, PyAny>, end: &Bound<'_, PyAny>) -> PyResult<Scanner> {
        Ok(Scanner {
            scanner: Box::new(extract_between::Scanner::new(&markers(py, start, end)?)),
            batch: Batch::default(),
        })
    }

    /// Scans the next chunk (`bytes`, `bytearray` or `memoryview`); answers the matches it
    /// completed.
    ///
    /// >>> from extract_between import Scanner
    /// >>> Scanner("[", "]").feed(b"[a] [b")[0].text
    /// 'a'
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        chunk: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let bytes = if let Ok(b) = chunk.cast::<PyBytes>() {
            b.clone()
        } else if chunk.is_instance_of::<PyString>() {
            return Err(errors::wrong_type(
                "chunk",
                "bytes-like (encode the str first)",
                chunk,
            ));
        } else if let Ok(view) = PyMemoryView::from(chunk) {
            crate::convert::copy_bytes(py, &view)?
        } else {
            return Err(errors::wrong_type("chunk", "bytes-like", chunk));
        };
        let result = run(
            py,
            &mut self.scanner,
            &mut self.batch,
            Some(bytes.as_bytes()),
        );
        self.answer(py, result)
    }

    /// Ends the input: answers the last matches, or raises `UnclosedStartMarker` for a start
    /// marker with no end after it (or `ExtractError` for a character cut at the end).
    ///
    /// >>> from extract_between import Scanner
    /// >>> s = Scanner("[", "]")
    /// >>> _ = s.feed(b"[a] [b")
    /// >>> s.finish()
    /// Traceback (most recent call last):
    ///     ...
    /// extract_between._errors.UnclosedStartMarker: unclosed start marker at UTF-16 offset 4 (byte offset 4)
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let result = run(py, &mut self.scanner, &mut self.batch, None);
        self.answer(py, result)
    }

    /// Bytes fed so far, in UTF-8 bytes.
    #[getter]
    fn byte_position(&self) -> u64 {
        self.scanner.position().byte
    }
}

impl Scanner {
    fn answer<'py>(
        &mut self,
        py: Python<'py>,
        result: Result<(), ScanError>,
    ) -> PyResult<Bound<'py, PyList>> {
        let found = self.batch.take(py)?;
        match result {
            Ok(()) => Ok(found),
            Err(e) => Err(errors::scan_error(py, &e, found)),
        }
    }
}
