//! The library's errors as the package's exceptions. The exception classes are written in
//! Python (`python/extract_between/_errors.py`: keyword attributes, pickling, docs); this file
//! builds their instances, so every message and attribute comes from one place.

use extract_between::batch::TooLarge;
use extract_between::rows::{OptionError, RowError, RowErrorKind, RowOption, RowPlace, Spelling};
use extract_between::{MarkerError, Pos, ScanError};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyModule, PyString};

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// Builds `extract_between._errors.<class>(message, **attributes)` as an error to raise.
fn raise(py: Python<'_>, class: &str, message: &str, attributes: &[(&str, Py<PyAny>)]) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let module = ERRORS.get_or_try_init(py, || {
            py.import("extract_between._errors").map(Bound::unbind)
        })?;
        let kwargs = PyDict::new(py);
        for (name, value) in attributes {
            kwargs.set_item(name, value)?;
        }
        let instance = module
            .bind(py)
            .getattr(class)?
            .call((message,), Some(&kwargs))?;
        Ok(PyErr::from_value(instance))
    };
    build().unwrap_or_else(|e| e)
}

fn int(py: Python<'_>, value: u64) -> Py<PyAny> {
    match value.into_pyobject(py) {
        Ok(v) => v.into_any().unbind(),
        Err(never) => match never {},
    }
}

/// `UnclosedStartMarker` for a start marker at `marker`, with the matches found before it.
pub fn unclosed(py: Python<'_>, marker: Pos, matches: Bound<'_, PyList>) -> PyErr {
    unclosed_with(py, marker, [("matches", matches.into_any().unbind())])
}

/// `UnclosedStartMarker` at `marker`, with more attributes.
fn unclosed_with<const N: usize>(
    py: Python<'_>,
    marker: Pos,
    extra: [(&str, Py<PyAny>); N],
) -> PyErr {
    let mut attributes = vec![
        ("offset", int(py, marker.utf16)),
        ("byte_offset", int(py, marker.byte)),
    ];
    attributes.extend(extra);
    raise(
        py,
        "UnclosedStartMarker",
        "unclosed start marker",
        &attributes,
    )
}

/// The error of row `row` of a column that stopped it, of the library's class
/// (`UnclosedStartMarker`, `InvalidUtf8`): its message is the library's words for it, and
/// `placed` those words with the row (the engine wrappers re-place them in their batch).
pub fn row_error(py: Python<'_>, error: &RowError, row: usize) -> PyErr {
    let text = |s: &str| PyString::new(py, s).into_any().unbind();
    let placed = text(&error.at(RowPlace::Column(row)).to_string());
    let mut attributes = vec![
        ("byte_offset", int(py, error.byte_offset())),
        ("row", int(py, row as u64)),
        ("placed", placed),
    ];
    if let RowErrorKind::Unclosed(marker) = error.kind() {
        attributes.push(("offset", int(py, marker.utf16)));
        attributes.push(("excerpt", text(error.excerpt())));
    }
    raise(py, error.class(), &error.to_string(), &attributes)
}

/// A column function's option refused, in `spelling`: `TypeError` for a value of the wrong
/// type, else `InvalidInput` naming the option.
pub fn option_error(py: Python<'_>, error: &OptionError, spelling: Spelling) -> PyErr {
    let message = error.spelled(spelling).to_string();
    match error {
        OptionError::WrongType(..) => PyTypeError::new_err(message),
        _ => invalid_input(py, spelling.name(error.option()), &message),
    }
}

/// A plain `ExtractError` with `message`.
pub fn extract_error(py: Python<'_>, message: &str) -> PyErr {
    raise(py, "ExtractError", message, &[])
}

/// The error a scan ended with, with the matches found before it in the same call.
pub fn scan_error(py: Python<'_>, error: &ScanError, matches: Bound<'_, PyList>) -> PyErr {
    match error {
        ScanError::Unclosed { marker } => unclosed(py, *marker, matches),
        ScanError::InvalidUtf8 { offset, .. } => raise(
            py,
            "InvalidUtf8",
            &error.to_string(),
            &[
                ("byte_offset", int(py, *offset)),
                ("matches", matches.into_any().unbind()),
            ],
        ),
    }
}

/// The error an events scan ended with, with `events`, those decided before it in the same
/// call, on the exception's `.events`.
pub fn scan_error_with_events(
    py: Python<'_>,
    error: &ScanError,
    events: Bound<'_, PyList>,
) -> PyErr {
    let events = events.into_any().unbind();
    match error {
        ScanError::Unclosed { marker } => unclosed_with(py, *marker, [("events", events)]),
        ScanError::InvalidUtf8 { offset, .. } => raise(
            py,
            "InvalidUtf8",
            &error.to_string(),
            &[("byte_offset", int(py, *offset)), ("events", events)],
        ),
    }
}

/// The error a tag scan ended with: [`scan_error_with_events`], with the pair left open on
/// `UnclosedStartMarker`'s `.tag`.
pub fn tag_scan_error(
    py: Python<'_>,
    error: &ScanError,
    tag: Option<usize>,
    events: Bound<'_, PyList>,
) -> PyErr {
    match (error, tag) {
        (ScanError::Unclosed { marker }, Some(tag)) => unclosed_with(
            py,
            *marker,
            [
                ("events", events.into_any().unbind()),
                ("tag", int(py, tag as u64)),
            ],
        ),
        _ => scan_error_with_events(py, error, events),
    }
}

/// `UnclosedStartMarker` for pair `tag` of a tag set's one-shot scan, with the matches
/// before it (pair and text).
pub fn tag_unclosed(py: Python<'_>, marker: Pos, tag: usize, matches: Bound<'_, PyList>) -> PyErr {
    unclosed_with(
        py,
        marker,
        [
            ("matches", matches.into_any().unbind()),
            ("tag", int(py, tag as u64)),
        ],
    )
}

/// `MatchTooLarge` for the match that grew past `max_match_bytes`.
pub fn match_too_large(py: Python<'_>, big: TooLarge, matches: Bound<'_, PyList>) -> PyErr {
    raise(
        py,
        "MatchTooLarge",
        &big.naming("max_match_bytes").to_string(),
        &[
            ("offset", int(py, big.start.utf16)),
            ("byte_offset", int(py, big.start.byte)),
            ("limit", int(py, big.limit as u64)),
            ("matches", matches.into_any().unbind()),
        ],
    )
}

/// `InvalidInput` naming `field`, with the message the JSON contract gives.
pub fn invalid_input(py: Python<'_>, field: &str, message: &str) -> PyErr {
    let field = pyo3::types::PyString::new(py, field).into_any().unbind();
    raise(py, "InvalidInput", message, &[("field", field)])
}

/// A marker that breaks the card's limits, as `InvalidInput`.
pub fn marker(py: Python<'_>, e: &MarkerError) -> PyErr {
    invalid_input(py, e.which().field(), &e.to_string())
}

/// `ValueError` for a call on a scanner (`class`, named with its article) after `why` ended
/// it: a scanner reads one input.
pub fn ended(class: &str, article: &str, method: &str, why: &str) -> PyErr {
    pyo3::exceptions::PyValueError::new_err(format!(
        "{class}.{method}() was called after {why}: {article} {class} reads one input; make a new one for the next"
    ))
}

/// `TypeError` for a column option of the wrong Python type, in the library's words.
pub fn type_of(option: RowOption, got: &Bound<'_, PyAny>) -> PyErr {
    let type_name = got
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string());
    let error = OptionError::WrongType(option, type_name);
    PyTypeError::new_err(error.spelled(Spelling::PYTHON).to_string())
}

/// `TypeError` for an argument of the wrong Python type.
pub fn wrong_type(name: &str, expected: &str, got: &Bound<'_, PyAny>) -> PyErr {
    let type_name = got
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string());
    PyTypeError::new_err(format!("{name} must be {expected}, not {type_name}"))
}
