//! Arguments that are a choice: `on_unclosed`, and `Given`, which tells an argument left out
//! from an explicit `None`.

use crate::errors;
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

/// What a row with an unclosed start marker becomes (the column functions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnUnclosed {
    /// `UnclosedStartMarker` naming the row.
    Raise,
    /// The row answers null.
    Null,
    /// The row answers the matches before the unclosed start.
    Partial,
}

impl OnUnclosed {
    /// `on_unclosed`: `"raise"` when left out, else one of the three names.
    pub fn parse(value: Given<'_>) -> PyResult<OnUnclosed> {
        // Left out or None (SQL's NULL in the engines' functions): the default.
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

    /// The choice a name stands for (`"raise"`, `"null"`, `"partial"`).
    pub fn from_name(name: &str) -> Option<OnUnclosed> {
        match name {
            "raise" => Some(OnUnclosed::Raise),
            "null" => Some(OnUnclosed::Null),
            "partial" => Some(OnUnclosed::Partial),
            _ => None,
        }
    }
}
