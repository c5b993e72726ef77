//! `findall` on a whole text in memory: every match as a `str`, without the card's limits
//! or cap, the scan run with the GIL released. The package's `findall` takes every other
//! source through `finditer`.

use crate::cached::{self, Last};
use crate::input;
use crate::{detach, errors};
use extract_between::{ExtractError, Extractor};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

/// Every match of `text` (a `str`, or `bytes` holding UTF-8), in order, as a list of `str`;
/// `None` for bytes that are not UTF-8, which the package's `findall` then scans as a
/// stream to report where. An unclosed start marker raises `UnclosedStartMarker` with the
/// matches before it in `.matches`.
///
/// >>> from extract_between._native import findall
/// >>> findall("pre[one]mid[two]post", "[", "]")
/// ['one', 'two']
/// >>> findall(b"<b>x</b>", "<b>", "</b>")
/// ['x']
/// >>> findall(b"\xff", "[", "]") is None
/// True
#[pyfunction]
pub fn findall(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<PyList>>> {
    let last = match cached::take(&LAST, start, end) {
        Some(hit) => hit,
        None => {
            let extractor = Extractor::new(&input::markers(py, start, end)?).unlimited();
            Last::new(start, end, usize::MAX, extractor)
        }
    };
    let answer = answer(py, text, &last.extractor);
    cached::put(&LAST, last);
    answer
}

thread_local! {
    static LAST: std::cell::RefCell<Option<Box<Last>>> = const { std::cell::RefCell::new(None) };
}

/// The matches of `text` as a list (`None` for bytes that are not UTF-8), the scan run with
/// the GIL released for a large text.
fn answer(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    extractor: &Extractor,
) -> PyResult<Option<Py<PyList>>> {
    let given;
    let text = if text.is_instance_of::<PyString>() {
        given = input::text_arg(py, "text", text)?;
        given.as_str(py, "text")?
    } else if let Ok(bytes) = text.cast::<PyBytes>() {
        let Ok(text) = std::str::from_utf8(bytes.as_bytes()) else {
            return Ok(None);
        };
        text
    } else {
        return Err(errors::wrong_type("text", "str or bytes", text));
    };
    let result = detach::if_long(py, text.len(), || extractor.extract(text));
    match result {
        Ok(out) => Ok(Some(PyList::new(py, out.matches)?.unbind())),
        Err(ExtractError::Unclosed { marker, matches }) => {
            Err(errors::unclosed(py, marker, PyList::new(py, matches)?))
        }
        Err(e) => Err(errors::invalid_input(py, "text", &e.to_string())),
    }
}
