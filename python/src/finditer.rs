//! `finditer`: the streaming iterator. It pulls the source a chunk at a time (a window of a
//! `str` or of a buffer, a `readinto`/`read` of a binary file, the next item of an iterable of
//! chunks), scans it with the GIL released, and hands the chunk's matches out one by one
//! before it pulls the next, so memory stays flat whatever the source's size.

use crate::batch::{self, Batch, Ended};
use crate::errors;
use crate::input::{self, Given, copy_bytes};
use crate::matched::Match;
use pyo3::exceptions::{PyTypeError, PyUnicodeEncodeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyIterator, PyList, PyMemoryView, PySlice, PyString};

/// Bytes pulled from a binary source at a time.
const CHUNK_BYTES: usize = 1 << 20;
/// Code points of a `str` encoded at a time (at most 1 MiB of UTF-8).
const STR_WINDOW: usize = 1 << 18;

/// Where the bytes come from.
enum Source {
    /// An ASCII `str`, which CPython stores as its own UTF-8: scanned in place a window at a
    /// time; `at` counts bytes (and code points).
    Ascii { text: Py<PyString>, at: usize },
    /// Any other `str`, encoded a window at a time; `at` counts code points.
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
    /// An iterable of bytes-like or `str` chunks; `index` counts them, for error messages.
    Chunks { iter: Py<PyIterator>, index: usize },
}

/// A piece of the source: `bytes` or an ASCII `str` scanned in place, or bytes copied into
/// the iterator's reused buffer.
enum Piece<'py> {
    Bytes(Bound<'py, PyBytes>, std::ops::Range<usize>),
    Ascii(Bound<'py, PyString>, std::ops::Range<usize>),
    Copied(usize),
}

impl Source {
    fn classify(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Source> {
        if let Ok(text) = source.cast::<PyString>() {
            names_a_file(py, text)?;
            if input::is_ascii(py, text)? {
                return Ok(Source::Ascii {
                    text: text.clone().unbind(),
                    at: 0,
                });
            }
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
            if !view.getattr("c_contiguous")?.is_truthy()? {
                // Strided memory has no flat byte view to window: one copy, as `Scanner.feed`
                // makes of such a chunk.
                return Ok(Source::Bytes {
                    data: copy_bytes(py, &view)?.unbind(),
                    at: 0,
                });
            }
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
        if source.hasattr("__fspath__")? {
            // A `pathlib.Path`: the file is what was meant, not the path's text.
            return Err(PyTypeError::new_err(format!(
                "source is a path ({}), not a file: give the open file, finditer(open(path, \"rb\"), ...)",
                source.repr()?
            )));
        }
        match source.try_iter() {
            Ok(iter) => Ok(Source::Chunks {
                iter: iter.unbind(),
                index: 0,
            }),
            Err(_) => Err(errors::wrong_type(
                "source",
                "a str, a bytes-like object, a binary file or an iterable of bytes or str chunks",
                source,
            )),
        }
    }

    /// The next piece of the source, or `None` at its end.
    fn next<'py>(&mut self, py: Python<'py>, copy: &mut Vec<u8>) -> PyResult<Option<Piece<'py>>> {
        match self {
            Source::Ascii { text, at } => {
                let text = text.bind(py).clone();
                let len = text.to_str()?.len();
                if *at >= len {
                    return Ok(None);
                }
                let range = *at..(*at + CHUNK_BYTES).min(len);
                *at = range.end;
                Ok(Some(Piece::Ascii(text, range)))
            }
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
                    return Err(non_blocking("source.readinto()"));
                }
                let Some(n) = input::integer(&got) else {
                    return Err(errors::wrong_type(
                        "source.readinto()'s answer",
                        "an int",
                        &got,
                    ));
                };
                let n = n
                    .extract::<usize>()
                    .ok()
                    .filter(|&n| n <= CHUNK_BYTES)
                    .ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "source.readinto() returned {n}, but it was given a buffer of {CHUNK_BYTES} bytes: it must answer how many bytes it wrote into the buffer, from 0 to its length"
                        ))
                    })?;
                if n == 0 {
                    return Ok(None);
                }
                *copy = buffer.to_vec();
                copy.truncate(n);
                Ok(Some(Piece::Copied(n)))
            }
            Source::Read { file } => {
                let got = file.bind(py).call_method1("read", (CHUNK_BYTES,))?;
                if got.is_none() {
                    return Err(non_blocking("source.read()"));
                }
                chunk(py, &got, "the answer of source.read()", "bytes-like")
            }
            Source::Chunks { iter, index } => loop {
                let Some(item) = iter.bind(py).clone().next() else {
                    return Ok(None);
                };
                let what = format!("chunk {index} of source");
                *index += 1;
                let item = item?;
                // A `str` chunk (a language model's token): ASCII read in place.
                if let Ok(s) = item.cast::<PyString>() {
                    let piece = match input::chunk_arg(py, &what, s.as_any())? {
                        input::Chunk::Ascii(s) => Piece::Ascii(s.clone(), 0..s.to_str()?.len()),
                        input::Chunk::Bytes(b) => {
                            let n = b.as_bytes().len();
                            Piece::Bytes(b, 0..n)
                        }
                    };
                    if matches!(&piece, Piece::Ascii(_, r) | Piece::Bytes(_, r) if r.is_empty()) {
                        continue;
                    }
                    return Ok(Some(piece));
                }
                match chunk(py, &item, &what, "bytes-like or str")? {
                    // An empty chunk is not the end of an iterable: take the next one.
                    None => continue,
                    some => return Ok(some),
                }
            },
        }
    }
}

/// Warns when a `str` source is a short line that names an existing file: the text is
/// scanned as given, and `finditer("dump.html", ...)` most often meant the file.
fn names_a_file(py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<()> {
    const LONGEST_PATH: usize = 4096;
    let Ok(s) = text.to_str() else {
        return Ok(());
    };
    if s.is_empty() || s.len() > LONGEST_PATH || s.contains('\n') {
        return Ok(());
    }
    let is_file = py.import("os.path")?.call_method1("isfile", (text,))?;
    if is_file.is_truthy()? {
        let message = format!(
            "source is the text {s:?}, which names a file: the text is what is scanned; to scan the file, give open({s:?}, \"rb\")"
        );
        let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
        PyErr::warn(
            py,
            &category,
            &std::ffi::CString::new(message).unwrap_or_default(),
            1,
        )?;
    }
    Ok(())
}

/// The error for a source that answered `None`: a non-blocking stream with no data now.
pub fn non_blocking(call: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "{call} returned None: the stream is non-blocking and has no data; give a blocking file"
    ))
}

/// A chunk handed over by the source (`what` names it in errors): `bytes` in place, another
/// buffer copied, `None` when empty; a `str` is a `TypeError` (a text-mode file, or chunks
/// not yet encoded).
fn chunk<'py>(
    py: Python<'py>,
    got: &Bound<'py, PyAny>,
    what: &str,
    expected: &str,
) -> PyResult<Option<Piece<'py>>> {
    if let Ok(bytes) = got.cast::<PyBytes>() {
        let n = bytes.as_bytes().len();
        return Ok((n > 0).then(|| Piece::Bytes(bytes.clone(), 0..n)));
    }
    if got.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what} is a str, not bytes: open files in binary mode ('rb') and give bytes chunks"
        )));
    }
    match PyMemoryView::from(got) {
        Ok(view) => {
            let bytes = copy_bytes(py, &view)?;
            let n = bytes.as_bytes().len();
            Ok((n > 0).then(|| Piece::Bytes(bytes, 0..n)))
        }
        Err(_) => Err(errors::wrong_type(what, expected, got)),
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
    error: Option<Ended>,
}

#[pymethods]
impl MatchIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Match>> {
        loop {
            if let Some(m) = batch::pop(py, &mut self.batch) {
                return Ok(Some(m));
            }
            if let Some(ended) = self.error.take() {
                self.batch.release();
                return Err(batch::error(py, ended, PyList::empty(py)));
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
                    batch::run(py, &mut self.scanner, &mut self.batch, Some(data))
                }
                Some(Piece::Ascii(text, range)) => {
                    let data = text.to_str().map_or(&[][..], str::as_bytes);
                    let data = data.get(range.clone()).unwrap_or_default();
                    batch::run(py, &mut self.scanner, &mut self.batch, Some(data))
                }
                Some(Piece::Copied(n)) => {
                    let data = self.copy.get(..*n).unwrap_or_default();
                    batch::run(py, &mut self.scanner, &mut self.batch, Some(data))
                }
                None => {
                    self.source = None;
                    batch::run(py, &mut self.scanner, &mut self.batch, None)
                }
            };
            match result {
                Ok(()) => {}
                Err(Ended::Interrupted(e)) => {
                    self.source = None;
                    return Err(e);
                }
                Err(ended) => {
                    // Errors are terminal: the matches before it go out first, then the error.
                    self.source = None;
                    self.error = Some(ended);
                }
            }
        }
    }
}

/// Iterates over every match in `source`, streaming: no card limits, no cap, memory bounded
/// whatever the source's size: a chunk at a time, plus at most `max_match_bytes` of a match
/// still open (16 MiB by default, `None` for no limit; past it, `MatchTooLarge`).
///
/// `source` is a `str`; a bytes-like object (`bytes`, `bytearray`, `memoryview`); a binary
/// file (anything with `readinto` or `read`: `open(p, "rb")`, `gzip.open(p)`,
/// `sys.stdin.buffer`, a socket's `makefile("rb")`); or an iterable of chunks, bytes (a
/// `requests` response's `iter_content()`) or `str` (a language model's streamed tokens).
/// Bytes must be UTF-8. Each `Match` gives its text
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
#[pyo3(signature = (source, start, end, *, max_match_bytes = Given::Absent))]
// The default as inspect.signature shows it (the `Given::Absent` sentinel would read `...`).
#[pyo3(text_signature = "(source, start, end, *, max_match_bytes=16777216)")]
pub fn finditer(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    max_match_bytes: Given<'_>,
) -> PyResult<MatchIter> {
    let markers = input::markers(py, start, end)?;
    let limit = input::max_match_bytes(max_match_bytes)?;
    Ok(MatchIter {
        source: Some(Source::classify(py, source)?),
        scanner: Box::new(extract_between::Scanner::new(&markers)),
        batch: Batch::new(limit),
        copy: Vec::new(),
        error: None,
    })
}
