//! Arguments that are a choice: `on_unclosed`, and `Given`, which tells an argument left out
//! from an explicit `None`.

use crate::errors;
use extract_between::rows::OnUnclosed;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

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

/// `on_unclosed` (the column functions): `"raise"` when left out or `None` (SQL's NULL in the
/// engines' functions), else one of the three names of the library's policy.
pub fn on_unclosed(value: Given<'_>) -> PyResult<OnUnclosed> {
    let value = match value {
        Given::Value(v) if !v.is_none() => v,
        _ => return Ok(OnUnclosed::Raise),
    };
    let choices = "\"raise\", \"null\" or \"partial\"";
    let Ok(text) = value.cast::<PyString>() else {
        return Err(errors::wrong_type("on_unclosed", choices, &value));
    };
    let name = text.to_cow()?;
    OnUnclosed::from_name(&name).ok_or_else(|| {
        PyValueError::new_err(format!("on_unclosed must be {choices}, not {name:?}"))
    })
}
