//! Python arguments turned into what the scans read: `str` arguments as UTF-8 bytes (lone
//! surrogates refused by name), buffers copied into `bytes` that a scan may borrow with the
//! GIL released.

use crate::errors;
use pyo3::exceptions::PyUnicodeEncodeError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyInt, PyString};

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

/// An integer argument as Python reads one: an `int` or an object with `__index__` (numpy's
/// integers), never a `bool`; `None` for anything else.
pub fn integer<'py>(value: &Bound<'py, PyAny>) -> Option<Bound<'py, PyInt>> {
    if value.is_instance_of::<PyBool>() {
        return None;
    }
    if let Ok(int) = value.cast::<PyInt>() {
        return Some(int.clone());
    }
    value
        .call_method0("__index__")
        .ok()
        .and_then(|i| i.cast_into::<PyInt>().ok())
}

/// A count argument (`max_match_bytes`): `TypeError` for what is no integer, `ValueError`
/// for one below 0 or past the address space.
pub fn int_arg(value: &Bound<'_, PyAny>, name: &str, expected: &str) -> PyResult<usize> {
    let Some(int) = integer(value) else {
        return Err(errors::wrong_type(name, expected, value));
    };
    int.extract::<usize>()
        .map_err(|_| PyValueError::new_err(format!("{name} must be {expected} (it is {int})")))
}

/// An optional argument that tells "left out" from an explicit `None` (which the card refuses
/// where it means `null`).
pub enum Given<'py> {
    Absent,
    Value(Bound<'py, PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Given<'py> {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Given::Value(value.to_owned()))
    }
}
