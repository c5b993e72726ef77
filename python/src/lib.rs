//! The native module `extract_between._native`: the engine of the `extract-between` library
//! behind a Python API. `one_shot` holds the card's one-shot call and its JSON contract,
//! `findall` every match of a text in memory as strings, `scan` the resumable scanner,
//! `events` its events form (a match's text as it arrives), `tags` several pairs in one pass
//! with the text outside them,
//! `matched` the `Match` it reports, `batch` what the streaming calls share, `finditer` the
//! streaming iterator over strings, buffers, files and chunk iterables, `columns` the Arrow
//! column functions, `input` every argument's checks, `cached` the finders a thread's last
//! `extract` or `findall` call built, `errors` the mapping from the library's errors to the
//! package's exceptions (defined in Python, in `python/extract_between/_errors.py`).
//!
//! The GIL is released while a text or chunk of at least `detach::DETACH_BYTES` is scanned
//! (`detach`), so other Python threads run meanwhile.

// No `unsafe` of our own: PyO3, pyo3-arrow and pyo3-polars own the crossings.
#![deny(unsafe_code)]

mod batch;
mod cached;
mod columns;
mod detach;
mod errors;
mod events;
mod findall;
mod finditer;
mod input;
mod matched;
mod one_shot;
mod scan;
mod tags;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(one_shot::extract, m)?)?;
    m.add_function(wrap_pyfunction!(one_shot::run_json, m)?)?;
    m.add_function(wrap_pyfunction!(finditer::finditer, m)?)?;
    m.add_function(wrap_pyfunction!(findall::findall, m)?)?;
    m.add_function(wrap_pyfunction!(columns::extract_all, m)?)?;
    m.add_function(wrap_pyfunction!(columns::extract_first, m)?)?;
    m.add_function(wrap_pyfunction!(columns::_check_column_options, m)?)?;
    m.add_function(wrap_pyfunction!(columns::_place, m)?)?;
    m.add_function(wrap_pyfunction!(columns::_sql_functions, m)?)?;
    m.add_function(wrap_pyfunction!(columns::_extract_all_panicking_at, m)?)?;
    m.add_class::<one_shot::Extraction>()?;
    m.add_class::<matched::Match>()?;
    m.add_class::<scan::Scanner>()?;
    m.add_class::<events::EventScanner>()?;
    m.add_class::<events::Event>()?;
    m.add_class::<finditer::MatchIter>()?;
    m.add_class::<tags::Tags>()?;
    m.add_class::<tags::TagScanner>()?;
    m.add("MAX_TEXT_BYTES", extract_between::card::MAX_TEXT_BYTES)?;
    m.add("MAX_MARKER_BYTES", extract_between::card::MAX_MARKER_BYTES)?;
    m.add("MAX_MATCHES", extract_between::card::MAX_MATCHES)?;
    m.add("DEFAULT_MAX_MATCH_BYTES", input::DEFAULT_MAX_MATCH_BYTES)?;
    m.add(
        "DEFAULT_MAX_MATCHES",
        extract_between::card::DEFAULT_MAX_MATCHES,
    )?;
    Ok(())
}
