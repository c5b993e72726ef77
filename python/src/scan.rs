//! `Scanner`, the resumable scanner for Python callers who own the loop.

use crate::batch::{self, Batch, Ended};
use crate::input::{self, Given};

use pyo3::prelude::*;
use pyo3::types::PyList;

/// Where a scanner stands: scanning, or ended (by `finish`, or by an error).
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Scanning,
    Finished,
    Failed,
}

/// The resumable scanner: feed it chunks, bytes cut anywhere (inside a character or a
/// marker) or `str`, then call `finish`. Each call answers the matches it completed; memory stays
/// bounded by the markers' length and `max_match_bytes` (16 MiB by default, `None` for no
/// limit), the most of one match's content it holds. There is no cap and no limit on the
/// input's size.
///
/// An error (invalid UTF-8, an unclosed start marker at `finish`, `MatchTooLarge`) is raised
/// after the scanner has gathered every match before it: they are on the exception's
/// `.matches`. The scanner has then ended, as after `finish`: a further call raises
/// `ValueError`.
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
    state: State,
}

#[pymethods]
impl Scanner {
    #[new]
    #[pyo3(signature = (start, end, *, max_match_bytes = Given::Absent))]
    // The default as inspect.signature shows it, not the sentinel.
    #[pyo3(text_signature = "(start, end, *, max_match_bytes=16777216)")]
    fn new(
        py: Python<'_>,
        start: &Bound<'_, PyAny>,
        end: &Bound<'_, PyAny>,
        max_match_bytes: Given<'_>,
    ) -> PyResult<Scanner> {
        let markers = input::markers(py, start, end)?;
        Ok(Scanner {
            scanner: Box::new(extract_between::Scanner::new(&markers)),
            batch: Batch::new(input::max_match_bytes(max_match_bytes)?),
            state: State::Scanning,
        })
    }

    /// Scans the next chunk (`bytes`, `bytearray` or `memoryview`, contiguous or not, or a
    /// `str`: a language model's tokens); answers the matches it completed.
    ///
    /// >>> from extract_between import Scanner
    /// >>> Scanner("[", "]").feed(b"[a] [b")[0].text
    /// 'a'
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        chunk: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.check_scanning("feed")?;
        let chunk = input::chunk_arg(py, "chunk", chunk)?;
        let result = batch::run(
            py,
            &mut self.scanner,
            &mut self.batch,
            Some(chunk.as_bytes()?),
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
    /// extract_between.UnclosedStartMarker: unclosed start marker at UTF-16 offset 4 (byte offset 4)
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.check_scanning("finish")?;
        let result = batch::run(py, &mut self.scanner, &mut self.batch, None);
        if result.is_ok() {
            self.state = State::Finished;
        }
        self.answer(py, result)
    }

    /// Bytes fed so far, in UTF-8 bytes.
    #[getter]
    fn byte_position(&self) -> u64 {
        self.scanner.position().byte
    }
}

impl Scanner {
    fn check_scanning(&self, method: &str) -> PyResult<()> {
        let why = match self.state {
            State::Scanning => return Ok(()),
            State::Finished => "finish() ended its input",
            State::Failed => "it raised an error",
        };
        Err(crate::errors::ended("Scanner", "a", method, why))
    }

    fn answer<'py>(
        &mut self,
        py: Python<'py>,
        result: Result<(), Ended>,
    ) -> PyResult<Bound<'py, PyList>> {
        if let Err(Ended::Interrupted(e)) = result {
            // The caller wants to stop: building the matches so far would only delay it.
            self.state = State::Failed;
            self.batch.release();
            return Err(e);
        }
        let found = match batch::take(py, &mut self.batch) {
            Ok(found) => found,
            Err(interrupted) => {
                self.state = State::Failed;
                self.batch.release();
                return Err(interrupted);
            }
        };
        match result {
            Ok(()) => Ok(found),
            Err(ended) => {
                self.state = State::Failed;
                self.batch.release();
                Err(batch::error(py, ended, found))
            }
        }
    }
}
