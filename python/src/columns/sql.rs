//! The SQL functions as the library describes them, for the Python package's DuckDB fallback
//! (`_duckdb_udf.py`), which registers and documents them from this.

use extract_between::rows::sql::{FUNCTIONS, WhenNull};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The SQL functions: a list of dicts with `name`, `returns` (DuckDB's type), `doc`,
/// `signature` and `arguments` (each `name`, `type`, `optional`, `null_means_default`). Not
/// part of the API.
#[pyfunction]
pub fn _sql_functions(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let functions = PyList::empty(py);
    for function in &FUNCTIONS {
        let arguments = PyList::empty(py);
        for argument in function.arguments {
            let a = PyDict::new(py);
            a.set_item("name", argument.name)?;
            a.set_item("type", argument.ty.duckdb())?;
            a.set_item("optional", argument.optional)?;
            a.set_item("null_means_default", argument.null == WhenNull::Default)?;
            arguments.append(a)?;
        }
        let f = PyDict::new(py);
        f.set_item("name", function.name)?;
        f.set_item("returns", function.returns.duckdb())?;
        f.set_item("doc", function.doc)?;
        f.set_item("signature", function.signature())?;
        f.set_item("arguments", arguments)?;
        functions.append(f)?;
    }
    Ok(functions)
}
