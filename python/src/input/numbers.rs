//! Number arguments: what counts as an integer (an `int` or anything with `__index__`, never
//! a `bool`), `max_matches` for the card and for columns, and `max_match_bytes`.

use super::Given;
use crate::errors;
use core::fmt;
use extract_between::card::MAX_MATCHES;
use extract_between::rows::RowOption;
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

/// A column function's `max_matches` as Python has it: `None` (and left out) for no cap, else
/// an integer of any size, which the library's `RowOptions` bounds.
pub fn column_cap<'py>(value: Option<&Bound<'py, PyAny>>) -> PyResult<Option<Integer<'py>>> {
    match value.filter(|v| !v.is_none()) {
        None => Ok(None),
        Some(v) => match integer(v) {
            Some(int) => Ok(Some(Integer(int))),
            None => Err(errors::type_of(RowOption::MaxMatches, v)),
        },
    }
}

/// A Python integer of any size, for the library to bound and to show when it refuses it.
pub struct Integer<'py>(Bound<'py, PyInt>);

impl TryFrom<&Integer<'_>> for u64 {
    type Error = PyErr;

    fn try_from(value: &Integer<'_>) -> PyResult<u64> {
        value.0.extract::<u64>()
    }
}

impl fmt::Display for Integer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
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
