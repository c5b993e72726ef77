//! `finditer`: the streaming iterator. It pulls the source a chunk at a time (a window of a
//! `str` or of a buffer, a `readinto`/`read` of a binary file, the next item of an iterable of
//! chunks), scans it with the GIL released, and hands the chunk's matches out one by one
//! before it pulls the next, so memory stays flat whatever the source's size.

use crate::convert::copy_bytes;
use crate::errors;
use crate::scan::{self, Batch, Match};
use extract_between::ScanError;
use pyo3::exceptions::{PyTypeError, PyUnicodeEncodeError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyIterator, PyList, PyMemoryView, PySlice, PyString};

/// Bytes pulled from a binary source at a time.
const CHUNK_BYTES: usize = 1 << 20;
/// Code points of a `str` encoded at a time (at most 1 MiB of UTF-8).
const STR_WINDOW: usize = 1 << 18;

/// Where the bytes come from.
enum Source {
    /// A `str`, encoded a window at a time; `at` counts code points.
    Str {
        text: Py<PyString>,
        at: usize,
        len: usize,
    },
    /// `bytes`, scanned in place a window at a time.
    Bytes { data: Py<PyBytes>, at: usize },
    /// Any other buffer (`bytearray`, `memoryview`, `array`), as a flat byte view.
    Buffer {
        view: Py<PyAny>,
        at: usize,
        len: usize,
    },
    /// A binary file: `read` answers `bytes`, scanned in place.
    Read { file: Py<PyAny> },
    /// A binary object with `readinto` alone, read into one reused `bytearray`.
    ReadInto {
        file: Py<PyAny>,
        buffer: Py<PyByteArray>,
    },
    /// An iterable of bytes-like chunks; `index` counts them, for error messages.
    Chunks { iter: Py<PyIterator>, index: usize },
}

/// A piece of the source: `bytes` scanned in place, or bytes copied into the iterator's
/// reused buffer.
enum Piece<'py> {
    Bytes(Bound<'py, PyBytes>, std::ops::Range<usize>),
    Copied(usize),
}

impl Source {
    fn classify(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Source> {
        if let Ok(text) = source.cast::<PyString>() {
            return Ok(Source::Str {
                text: text.clone().unbind(),
                at: 0,
                len: text.len()?,
            });
        }
        if let Ok(data) = source.cast::<PyBytes>() {
            return Ok(Source::Bytes {
                data: data.clone().unbind(),
                at: 0,
            });
        }
        if let Ok(view) = PyMemoryView::from(source) {
            let view = view.call_method1("cast", ("B",))?;
            let len = view.len()?;
            return Ok(Source::Buffer {
                view: view.unbind(),
                at: 0,
                len,
            });
        }
        // `read` first: it hands over `bytes`, which the scan borrows in place, where
        // `readinto`'s buffer would have to be copied out (the limited API has no buffer
        // protocol before Python 3.11).
        if source.hasattr("read")? {
            return Ok(Source::Read {
                file: source.clone().unbind(),
            });
        }
        if source.hasattr("readinto")? {
            return Ok(Source::ReadInto {
                file: source.clone().unbind(),
                buffer: PyByteArray::new(py, &vec![0; CHUNK_BYTES]).unbind(),
            });
        }
        match source.try_iter() {
            Ok(iter) => Ok(Source::Chunks {
                iter: iter.unbind(),
                index: 0,
            }),
            Err(_) => Err(errors::wrong_type(
                "source",
                "a str, a bytes-like object, a binary file or an iterable of bytes chunks",
                source,
            )),
        }
    }

    /// The next piece of the source, or `None` at its end.
    fn next<'py>(&mut self, py: Python<'py>, copy: &mut Vec<u8>) -> PyResult<Option<Piece<'py>>> {
        match self {
            Source::Str { text, at, len } => {
                if *at >= *len {
                    return Ok(None);
                }
                let to = (*at + STR_WINDOW).min(*len);
                let window = text
                    .bind(py)
                    .get_item(PySlice::new(py, *at as isize, to as isize, 1))?
                    .cast_into::<PyString>()?;
                let encoded = window.encode_utf8().map_err(|e| surrogate(py, e, *at))?;
                *at = to;
                let n = encoded.as_bytes().len();
                Ok(Some(Piece::Bytes(encoded, 0..n)))
            }
            Source::Bytes { data, at } => {
                let data = data.bind(py).clone();
                let len = data.as_bytes().len();
                if *at >= len {
                    return Ok(None);
                }
                let range = *at..(*at + CHUNK_BYTES).min(len);
                *at = range.end;
                Ok(Some(Piece::Bytes(data, range)))
            }
            Source::Buffer { view, at, len } => {
                if *at >= *len {
                    return Ok(None);
                }
                let to = (*at + CHUNK_BYTES).min(*len);
                let window =
                    view.bind(py)
                        .get_item(PySlice::new(py, *at as isize, to as isize, 1))?;
                *at = to;
                let bytes = copy_bytes(py, &window)?;
                let n = bytes.as_bytes().len();
                Ok(Some(Piece::Bytes(bytes, 0..n)))
            }
            Source::ReadInto { file, buffer } => {
                let buffer = buffer.bind(py);
                let got = file.bind(py).call_method1("readinto", (buffer,))?;
                if got.is_none() {
                    return Err(PyTypeError::new_err(
                        "source.readinto() returned None: the stream is non-blocking and has no data; give a blocking file",
                    ));
                }
                let n: usize = got.extract()?;
                if n == 0 {
                    return Ok(None);
                }
                *copy = buffer.to_vec();
                copy.truncate(n);
                Ok(Some(Piece::Copied(n)))
            }
            Source::Read { file } => {
                let got = file.bind(py).call_method1("read", (CHUNK_BYTES,))?;
                chunk(py, &got, "source.read() returned")
            }
            Source::Chunks { iter, index } => loop {
                let Some(item) = iter.bind(py).clone().next() else {
                    return Ok(None);
                };
                let what = format!("chunk {index} of source is");
                *index += 1;
                match chunk(py, &item?, &what)? {
                    // An empty chunk is not the end of an iterable: take the next one.
                    None => continue,
                    some => return Ok(some),
                }
            },
        }
    }
}

/// A chunk handed over by the source: `bytes` in place, another buffer copied, `None` when
/// empty; a `str` is a `TypeError` (a text-mode file, or chunks not yet encoded).
fn chunk<'py>(
    py: Python<'py>,
    got: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Option<Piece<'py>>> {
    if let Ok(bytes) = got.cast::<PyBytes>() {
        let n = bytes.as_bytes().len();
        return Ok((n > 0).then(|| Piece::Bytes(bytes.clone(), 0..n)));
    }
    if got.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what} a str, not bytes: open files in binary mode ('rb') and give bytes chunks"
        )));
    }
    if got.is_none() {
        return Err(PyTypeError::new_err(format!("{what} None, not bytes")));
    }
    match PyMemoryView::from(got) {
        Ok(view) => {
            let bytes = copy_bytes(py, &view)?;
            let n = bytes.as_bytes().len();
            Ok((n > 0).then(|| Piece::Bytes(bytes, 0..n)))
        }
        Err(_) => Err(errors::wrong_type(what, "bytes-like", got)),
    }
}

/// A lone surrogate in a `str` source, as `InvalidInput` naming its index.
fn surrogate(py: Python<'_>, e: PyErr, window_start: usize) -> PyErr {
    if !e.is_instance_of::<PyUnicodeEncodeError>(py) {
        return e;
    }
    let at = e
        .value(py)
        .getattr("start")
        .and_then(|v| v.extract::<usize>())
        .map_or_else(|_| "?".to_owned(), |i| (window_start + i).to_string());
    errors::invalid_input(
        py,
        "source",
        &format!(
            "source must be valid Unicode text (lone surrogates are not allowed): a lone surrogate is at index {at}"
        ),
    )
}

/// The iterator `finditer` answers: a `Match` at a time, pulling the source as it goes.
///
/// >>> from extract_between import finditer
/// >>> it = finditer(iter([b"[a] [", b"b]"]), "[", "]")
/// >>> [m.text for m in it]
/// ['a', 'b']
#[pyclass(module = "extract_between", skip_from_py_object)]
pub struct MatchIter {
    source: Option<Source>,
    // Boxed: the memmem finders inside hold 32-byte vectors, and Python allocates a class's
    // instances with 16-byte alignment only.
    scanner: Box<extract_between::Scanner>,
    batch: Batch,
    copy: Vec<u8>,
    error: Option<ScanError>,
}

#[pymethods]
impl MatchIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Match>> {
        loop {
            if let Some(m) = self.batch.pop(py) {
                return Ok(Some(m));
            }
            if let Some(e) = self.error.take() {
                return Err(errors::scan_error(py, &e, PyList::empty(py)));
            }
            let Some(source) = self.source.as_mut() else {
                return Ok(None);
            };
            let piece = match source.next(py, &mut self.copy) {
                Ok(piece) => piece,
                Err(e) => {
                    self.source = None;
                    return Err(e);
                }
            };
            let result = match &piece {
                Some(Piece::Bytes(bytes, range)) => {
                    let data = bytes.as_bytes().get(range.clone()).unwrap_or_default();
                    scan::run(py, &mut self.scanner, &mut self.batch, Some(data))
                }
                Some(Piece::Copied(n)) => {
                    let data = self.copy.get(..*n).unwrap_or_default();
                    scan::run(py, &mut self.scanner, &mut self.batch, Some(data))
                }
                None => {
                    self.source = None;
                    scan::run(py, &mut self.scanner, &mut self.batch, None)
                }
            };
            if let Err(e) = result {
                // Errors are terminal: the matches before it go out first, then the error.
                self.source = None;
                self.error = Some(e);
            }
        }
    }
}

/// Iterates over every match in `source`, streaming: no card limits, no cap, memory flat
/// whatever the source's size.
///
/// `source` is a `str`; a bytes-like object (`bytes`, `bytearray`, `memoryview`); a binary
/// file (anything with `readinto` or `read`: `open(p, "rb")`, `gzip.open(p)`,
/// `sys.stdin.buffer`, a socket's `makefile("rb")`); or an iterable of bytes chunks (a
/// `requests` response's `iter_content()`). Bytes must be UTF-8. Each `Match` gives its text
/// and its place in the whole source in UTF-8 bytes and UTF-16 code units.
///
/// A start marker with no end after it raises `UnclosedStartMarker` once every match before
/// it was yielded; invalid UTF-8 raises `ExtractError` naming the byte offset.
///
/// >>> import io
/// >>> from extract_between import finditer
/// >>> [m.text for m in finditer(io.BytesIO(b"<b>x</b> <b>y</b>"), "<b>", "</b>")]
/// ['x', 'y']
#[pyfunction]
pub fn finditer(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
) -> PyResult<MatchIter> {
    let markers = scan::markers(py, start, end)?;
    Ok(MatchIter {
        source: Some(Source::classify(py, source)?),
        scanner: Box::new(extract_between::Scanner::new(&markers)),
        batch: Batch::default(),
        copy: Vec::new(),
        error: None,
    })
}
