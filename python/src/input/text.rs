//! Text arguments: `str` as UTF-8 bytes (lone surrogates refused by name), the marker pair,
//! and buffers copied into `bytes` that a scan may borrow with the GIL released.

use crate::errors;
use extract_between::Markers;
use pyo3::exceptions::PyUnicodeEncodeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyMemoryView, PyString};

/// A `str` argument as UTF-8 bytes: `TypeError` for another type, `InvalidInput` naming the
/// argument for a string holding a lone surrogate (as the card treats `"\ud800"`).
pub fn utf8_arg<'py>(
    py: Python<'py>,
    name: &str,
    value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let Ok(s) = value.cast::<PyString>() else {
        return Err(errors::wrong_type(name, "str", value));
    };
    s.encode_utf8().map_err(|e| {
        if e.is_instance_of::<PyUnicodeEncodeError>(py) {
            let at = e
                .value(py)
                .getattr("start")
                .map_or_else(|_| "?".to_owned(), |v| v.to_string());
            errors::invalid_input(
                py,
                name,
                &format!(
                    "{name} must be valid Unicode text (lone surrogates are not allowed): a lone surrogate is at index {at}"
                ),
            )
        } else {
            e
        }
    })
}

/// A `str` argument's UTF-8 text, copied only where it must be: CPython stores an ASCII `str`
/// as its own UTF-8, so one is read in place; any other is encoded into a new `bytes` (reading
/// it in place would attach a UTF-8 copy to the caller's `str` for as long as it lives).
pub enum Text<'py> {
    /// An ASCII `str`, read where it lies.
    Ascii(Bound<'py, PyString>),
    /// The UTF-8 encoding of a non-ASCII `str`.
    Encoded(Bound<'py, PyBytes>),
}

impl Text<'_> {
    /// The text, `InvalidInput` naming `name` if it is not UTF-8 (which an encoded `str`
    /// always is).
    pub fn as_str(&self, py: Python<'_>, name: &str) -> PyResult<&str> {
        match self {
            Text::Ascii(s) => s.to_str(),
            Text::Encoded(bytes) => as_str(py, name, bytes),
        }
    }
}

/// A `str` argument as [`Text`]: `TypeError` for another type, `InvalidInput` naming the
/// argument for a string holding a lone surrogate, as [`utf8_arg`].
pub fn text_arg<'py>(
    py: Python<'py>,
    name: &str,
    value: &Bound<'py, PyAny>,
) -> PyResult<Text<'py>> {
    let Ok(s) = value.cast::<PyString>() else {
        return Err(errors::wrong_type(name, "str", value));
    };
    if is_ascii(py, s)? {
        return Ok(Text::Ascii(s.clone()));
    }
    utf8_arg(py, name, value).map(Text::Encoded)
}

/// Whether a `str` is ASCII, which CPython then stores as its own UTF-8 (read in place at no
/// cost). `str.isascii` reads a flag of the string object: it costs a call, not a scan.
pub fn is_ascii(py: Python<'_>, s: &Bound<'_, PyString>) -> PyResult<bool> {
    s.call_method0(pyo3::intern!(py, "isascii"))?.is_truthy()
}

/// A chunk fed to a scanner: `bytes` (another buffer copied into one), or a `str`, an ASCII
/// one read in place and any other encoded (a language model's tokens are `str`).
pub enum Chunk<'py> {
    Bytes(Bound<'py, PyBytes>),
    Ascii(Bound<'py, PyString>),
}

impl Chunk<'_> {
    /// The chunk's bytes.
    pub fn as_bytes(&self) -> PyResult<&[u8]> {
        match self {
            Chunk::Bytes(b) => Ok(b.as_bytes()),
            Chunk::Ascii(s) => Ok(s.to_str()?.as_bytes()),
        }
    }
}

/// A scanner's chunk argument as [`Chunk`]: `TypeError` for what is neither bytes-like nor
/// `str`, `InvalidInput` naming `name` for a `str` holding a lone surrogate.
pub fn chunk_arg<'py>(
    py: Python<'py>,
    name: &str,
    value: &Bound<'py, PyAny>,
) -> PyResult<Chunk<'py>> {
    if let Ok(b) = value.cast::<PyBytes>() {
        return Ok(Chunk::Bytes(b.clone()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        if is_ascii(py, s)? {
            return Ok(Chunk::Ascii(s.clone()));
        }
        return utf8_arg(py, name, value).map(Chunk::Bytes);
    }
    match PyMemoryView::from(value) {
        Ok(view) => copy_bytes(py, &view).map(Chunk::Bytes),
        Err(_) => Err(errors::wrong_type(name, "bytes-like or str", value)),
    }
}

/// A copy of a buffer's bytes as `bytes`, which the scan can borrow with the GIL released
/// (a mutable buffer cannot be borrowed safely meanwhile).
pub fn copy_bytes<'py>(
    py: Python<'py>,
    buffer: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    py.get_type::<PyBytes>()
        .call1((buffer,))?
        .cast_into::<PyBytes>()
        .map_err(Into::into)
}

/// UTF-8 that Python produced from a `str`; the check is cheap and keeps the code free of
/// assumptions about what an encoder hands back.
pub fn as_str<'b>(py: Python<'_>, name: &str, bytes: &'b Bound<'_, PyBytes>) -> PyResult<&'b str> {
    std::str::from_utf8(bytes.as_bytes())
        .map_err(|e| errors::invalid_input(py, name, &format!("{name} is not valid UTF-8: {e}")))
}

/// A marker: a `str` as UTF-8, or `bytes` as they are (checked as UTF-8 by [`markers`]).
pub fn marker_arg<'py>(
    py: Python<'py>,
    name: &str,
    value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    match value.cast::<PyBytes>() {
        Ok(bytes) => Ok(bytes.clone()),
        Err(_) => utf8_arg(py, name, value),
    }
}

/// The marker pair of every entry point: two `str` (or UTF-8 `bytes`, as `re` takes bytes
/// patterns) within the card's limits.
pub fn markers(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
) -> PyResult<Markers> {
    let start = marker_arg(py, "start", start)?;
    let end = marker_arg(py, "end", end)?;
    Markers::new(as_str(py, "start", &start)?, as_str(py, "end", &end)?)
        .map_err(|e| errors::marker(py, &e))
}
