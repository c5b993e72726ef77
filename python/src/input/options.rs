//! Arguments that are a choice: `on_unclosed` (read here, decided by the library), and `Given`, which tells an argument left out
//! from an explicit `None`.

use crate::errors;
use extract_between::rows::RowOption;
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::borrow::Cow;

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

/// `on_unclosed` (the column functions): `None` when left out or `None` (SQL's NULL in the
/// engines' functions), which the library reads as `"raise"`, else the name as given; the
/// library's `RowOptions` decides it.
pub fn on_unclosed<'py>(value: &'py Given<'py>) -> PyResult<Option<Cow<'py, str>>> {
    let value = match value {
        Given::Value(v) if !v.is_none() => v,
        _ => return Ok(None),
    };
    match value.cast::<PyString>() {
        Ok(text) => Ok(Some(text.to_cow()?)),
        Err(_) => Err(errors::type_of(RowOption::OnUnclosed, value)),
    }
}
