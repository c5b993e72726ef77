//! Arrow columns: `extract_all` (a `list<string>` a row) and `extract_first` (a `string` a
//! row) over any string column that crosses the Arrow PyCapsule interface (pyarrow, polars,
//! pandas, DuckDB), read in place. `arrow` checks what crosses the interface, `rows` scans
//! the rows on the library's row API (split across cores, the GIL released, signals
//! handled), `build` makes the answer from the flat buffers the scan filled, with the GIL
//! released too. `polars` is the same functions as a polars expression plugin.

mod arrow;
mod build;
mod polars;
mod rows;
mod sql;

use crate::errors;
use crate::input::{self, Given};
use arrow_array::ArrayRef;
use extract_between::rows::{RowOptions, RowPlace, RowScanner, Spelling};
use pyo3::panic::PanicException;
use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3_arrow::PyArray;
use pyo3_arrow::export::Arro3Array;
use rows::{Part, ScanFailure};
pub use sql::_sql_functions;

/// A column function's arguments, checked: the row scanner for its markers, cap (`cap` when
/// the function fixes it, else `max_matches`) and policy.
fn settings(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    max_matches: Option<&Bound<'_, PyAny>>,
    on_unclosed: Given<'_>,
) -> PyResult<RowScanner> {
    settings_spelled(py, start, end, max_matches, on_unclosed, Spelling::PYTHON)
}

/// [`settings`], a refused option worded in `spelling` (SQL's, for the DuckDB functions).
fn settings_spelled(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    max_matches: Option<&Bound<'_, PyAny>>,
    on_unclosed: Given<'_>,
    spelling: Spelling,
) -> PyResult<RowScanner> {
    let markers = input::markers(py, start, end)?;
    let cap = input::column_cap(max_matches)?;
    let policy = input::on_unclosed(&on_unclosed)?;
    let options = RowOptions::parse(cap.as_ref(), policy.as_deref().map(str::as_bytes))
        .map_err(|e| errors::option_error(py, &e, spelling))?;
    Ok(RowScanner::new(&markers, options))
}

/// The rows scanned and the answer built by `build`, both with the GIL released.
fn answer(
    py: Python<'_>,
    column: &Bound<'_, PyAny>,
    scanner: &RowScanner,
    panic_at: Option<usize>,
    name: &str,
    build: fn(Vec<Part>) -> Result<ArrayRef, arrow_schema::ArrowError>,
) -> PyResult<Arro3Array> {
    let chunks = arrow::import(column)?;
    let parts = match rows::scan(py, &chunks, scanner, panic_at) {
        Ok(parts) => parts,
        Err(ScanFailure::Interrupted(e)) => return Err(e),
        Err(ScanFailure::Panicked(message)) => {
            return Err(PanicException::new_err(format!(
                "a thread scanning the column panicked: {message}"
            )));
        }
    };
    if let Some(stopped) = parts.iter().find_map(|p| p.stopped.as_ref()) {
        return Err(errors::row_error(py, &stopped.why, stopped.row));
    }
    let total: usize = chunks.iter().map(arrow::Chunk::len).sum();
    let answered: usize = parts.iter().map(|p| p.valid.len()).sum();
    if answered != total {
        return Err(PanicException::new_err(format!(
            "the scan answered {answered} rows for a column of {total}"
        )));
    }
    let array = py
        .detach(|| build(parts))
        .map_err(|e| errors::extract_error(py, &e.to_string()))?;
    let field = build::field(name, &array);
    Ok(PyArray::try_new(array, field)
        .map_err(|e| errors::extract_error(py, &e.to_string()))?
        .into())
}

/// Every match of every row of a string column, as a `list<string>` column.
///
/// `column` is any Arrow string column (`string`, `large_string`, `string_view`) that offers
/// `__arrow_c_array__` or `__arrow_c_stream__`: a pyarrow `Array` or `ChunkedArray`, a polars
/// `Series`, a DuckDB relation of one column. Each row gets what `extract(row, start, end,
/// max_matches)` gives, without the card's 256000-byte text limit; `max_matches=None` means
/// no cap; nulls stay null. `on_unclosed` says what a row with an unclosed start marker
/// becomes: `"raise"` (`UnclosedStartMarker`, its `.row` the row's index in `column`),
/// `"null"`, or `"partial"` (the matches before it). The answer is an `arro3.core.Array`,
/// which pyarrow, polars and DuckDB read through the same interface; its type is
/// `list<string>`, or `large_list` / `large_string` where the matches pass Arrow's 2 GiB.
///
/// >>> import pyarrow as pa
/// >>> from extract_between import extract_all
/// >>> out = extract_all(pa.array(["<b>x</b><b>y</b>", None, "none"]), "<b>", "</b>")
/// >>> pa.array(out).to_pylist()
/// [['x', 'y'], None, []]
#[pyfunction]
#[pyo3(signature = (column, start, end, max_matches = None, on_unclosed = Given::Absent))]
pub fn extract_all(
    py: Python<'_>,
    column: &Bound<'_, PyAny>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    max_matches: Option<&Bound<'_, PyAny>>,
    on_unclosed: Given<'_>,
) -> PyResult<Arro3Array> {
    let scanner = settings(py, start, end, max_matches, on_unclosed)?;
    answer(py, column, &scanner, None, "matches", build::list_array)
}

/// Each row's first match, as a `string` column: what `extract(row, start, end,
/// max_matches=1)` finds first, or null where it finds none. As the card says, an unclosed
/// start marker met while looking for the one extra match counts: `on_unclosed` decides
/// (`"raise"`, `"null"`, or `"partial"`: the first match before it, if any).
///
/// >>> import pyarrow as pa
/// >>> from extract_between import extract_first
/// >>> out = extract_first(pa.array(["<title>A</title>", "<p>no title</p>"]), "<title>", "</title>")
/// >>> pa.array(out).to_pylist()
/// ['A', None]
#[pyfunction]
#[pyo3(signature = (column, start, end, on_unclosed = Given::Absent))]
pub fn extract_first(
    py: Python<'_>,
    column: &Bound<'_, PyAny>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    on_unclosed: Given<'_>,
) -> PyResult<Arro3Array> {
    let one = 1_u8.into_pyobject(py)?;
    let scanner = settings(py, start, end, Some(one.as_any()), on_unclosed)?;
    answer(py, column, &scanner, None, "first", build::first_array)
}

/// Checks a column function's arguments without a column: what the polars and Spark
/// wrappers call when an expression is built, so that a mistake fails there and not when the
/// query runs, and the DuckDB functions for each vector (`sql`: a refusal in SQL's words).
#[pyfunction]
#[pyo3(signature = (start, end, max_matches = None, on_unclosed = Given::Absent, sql = false))]
pub fn _check_column_options(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    max_matches: Option<&Bound<'_, PyAny>>,
    on_unclosed: Given<'_>,
    sql: bool,
) -> PyResult<()> {
    let spelling = if sql { Spelling::SQL } else { Spelling::PYTHON };
    settings_spelled(py, start, end, max_matches, on_unclosed, spelling).map(|_| ())
}

/// A row error's words (`message`) placed as row `row` of a batch of `rows` rows that
/// `engine` handed to `function`, as the library words a place: what the engine wrappers
/// raise. Not part of the API.
#[pyfunction]
pub fn _place(message: &str, row: usize, rows: usize, engine: &str, function: &str) -> String {
    let place = RowPlace::Piece {
        row,
        rows,
        piece: "batch",
        host: engine,
        function,
        whole: "frame",
    };
    place.around(message).to_string()
}

/// `extract_all(column, "[", "]")` with a thread that panics at row `row`: for the test that
/// a panic fails the call instead of losing rows. Not part of the API.
#[pyfunction]
pub fn _extract_all_panicking_at(
    py: Python<'_>,
    column: &Bound<'_, PyAny>,
    row: usize,
) -> PyResult<Arro3Array> {
    let start = PyString::new(py, "[");
    let end = PyString::new(py, "]");
    let scanner = settings(py, &start, &end, None, Given::Absent)?;
    answer(
        py,
        column,
        &scanner,
        Some(row),
        "matches",
        build::list_array,
    )
}
