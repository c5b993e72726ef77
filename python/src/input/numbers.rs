//! Number arguments: what counts as an integer (an `int` or anything with `__index__`, never
//! a `bool`), `max_matches` for the card and for columns, and `max_match_bytes`.

use super::Given;
use crate::errors;
use extract_between::card::MAX_MATCHES;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

/// The default `max_match_bytes`: 16 MiB, as the CLI's `--max-match-bytes`.
pub const DEFAULT_MAX_MATCH_BYTES: usize = 16 << 20;

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

/// `max_matches` as an integer from 1 to `max`; `expected` names the Python types for a
/// `TypeError`, `range` the values for an `InvalidInput` (written only when one is raised).
fn max_matches(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    max: usize,
    expected: &str,
    range: impl FnOnce() -> String,
) -> PyResult<usize> {
    let Some(int) = integer(value) else {
        return Err(errors::wrong_type("max_matches", expected, value));
    };
    match int.extract::<u64>() {
        Ok(n) if n >= 1 && usize::try_from(n).is_ok_and(|n| n <= max) => Ok(n as usize),
        _ => Err(errors::invalid_input(
            py,
            "max_matches",
            &format!("max_matches must be {} (it is {int})", range()),
        )),
    }
}

/// The card's `max_matches`: 1 to 1000, the card's default when left out; `None` is refused
/// as the card refuses `null`.
pub fn card_max_matches(py: Python<'_>, value: Given<'_>) -> PyResult<usize> {
    match value {
        Given::Absent => Ok(extract_between::card::DEFAULT_MAX_MATCHES),
        Given::Value(v) => max_matches(py, &v, MAX_MATCHES, "an int", || {
            format!("an integer from 1 to {MAX_MATCHES}")
        }),
    }
}

/// A column function's `max_matches`: at least 1, or `None` (and left out) for no cap.
pub fn column_cap(py: Python<'_>, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    match value.filter(|v| !v.is_none()) {
        None => Ok(None),
        // The SQL engines' BIGINT bounds the cap in every front end.
        Some(v) => max_matches(py, v, i64::MAX as usize, "an int or None", || {
            format!("an integer from 1 to {} or None", i64::MAX)
        })
        .map(|n| Some(n as u64)),
    }
}

/// `max_match_bytes`: an int of at least 0, `None` for no limit, the default when left out.
pub fn max_match_bytes(value: Given<'_>) -> PyResult<usize> {
    match value {
        Given::Absent => Ok(DEFAULT_MAX_MATCH_BYTES),
        Given::Value(v) if v.is_none() => Ok(usize::MAX),
        Given::Value(v) => int_arg(&v, "max_match_bytes", "an int of at least 0 or None"),
    }
}
