//! The column functions as a polars expression plugin (`polars.plugins`): polars calls
//! `extract_all` / `extract_first` on each batch through the plugin interface, on the thread
//! it runs the batch on, with no GIL and no Python call; `extract_between.polars` registers
//! them. Rows are scanned as the Arrow column functions scan them (`run::RowSink` behind the
//! card's cap), one after another: polars spreads batches over its threads itself.

use super::EXCERPT_CHARS;
use super::run::RowSink;
use crate::input::OnUnclosed;
use extract_between::{Capped, Markers, ScanError, Scanner};
use polars::prelude::*;
use pyo3_polars::derive::polars_expr;
use serde::Deserialize;

/// `extract_all`'s options, as the Python side pickles them (checked there first).
#[derive(Deserialize)]
struct AllOptions {
    start: String,
    end: String,
    max_matches: Option<u64>,
    on_unclosed: String,
}

/// `extract_first`'s options.
#[derive(Deserialize)]
struct FirstOptions {
    start: String,
    end: String,
    on_unclosed: String,
}

fn list_of_strings(fields: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new(
        fields[0].name().clone(),
        DataType::List(Box::new(DataType::String)),
    ))
}

fn string(fields: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new(fields[0].name().clone(), DataType::String))
}

/// Every match of each row, a `list[str]` column.
#[polars_expr(output_type_func=list_of_strings)]
fn extract_all(inputs: &[Series], kwargs: AllOptions) -> PolarsResult<Series> {
    let rows = Rows::new(&kwargs.start, &kwargs.end, &kwargs.on_unclosed)?;
    let cap = kwargs.max_matches.unwrap_or(u64::MAX);
    let texts = strings(inputs)?;
    let mut out = ListStringChunkedBuilder::new(texts.name().clone(), texts.len(), texts.len() * 4);
    let mut found = Found::default();
    for (row, text) in texts.iter().enumerate() {
        match text.map(|text| rows.scan(row, text, cap, &mut found)) {
            None | Some(Ok(false)) => out.append_null(),
            Some(Ok(true)) => out.append_values_iter(found.matches()),
            Some(Err(e)) => return Err(e),
        }
    }
    Ok(out.finish().into_series())
}

/// Each row's first match, a `str` column.
#[polars_expr(output_type_func=string)]
fn extract_first(inputs: &[Series], kwargs: FirstOptions) -> PolarsResult<Series> {
    let rows = Rows::new(&kwargs.start, &kwargs.end, &kwargs.on_unclosed)?;
    let texts = strings(inputs)?;
    let mut found = Found::default();
    let mut out = StringChunkedBuilder::new(texts.name().clone(), texts.len());
    for (row, text) in texts.iter().enumerate() {
        match text.map(|text| rows.scan(row, text, 1, &mut found)) {
            None | Some(Ok(false)) => out.append_null(),
            Some(Ok(true)) => out.append_option(found.matches().next()),
            Some(Err(e)) => return Err(e),
        }
    }
    Ok(out.finish().into_series())
}

/// The string column of the batch: a `Null` column (all None) is taken as strings.
fn strings(inputs: &[Series]) -> PolarsResult<StringChunked> {
    let [column] = inputs else {
        polars_bail!(ComputeError: "extract_between takes one column, not {}", inputs.len());
    };
    if column.dtype() == &DataType::Null {
        return Ok(column.cast(&DataType::String)?.str()?.clone());
    }
    Ok(column.str()?.clone())
}

/// The scanner of the batch's markers and what an unclosed row becomes.
struct Rows {
    scanner: Scanner,
    on_unclosed: OnUnclosed,
}

impl Rows {
    fn new(start: &str, end: &str, on_unclosed: &str) -> PolarsResult<Rows> {
        let markers = Markers::new(start, end).map_err(|e| polars_err!(ComputeError: "{e}"))?;
        let on_unclosed = OnUnclosed::from_name(on_unclosed).ok_or_else(
            || polars_err!(ComputeError: "on_unclosed must be \"raise\", \"null\" or \"partial\", not {on_unclosed:?}"),
        )?;
        Ok(Rows {
            scanner: Scanner::new(&markers),
            on_unclosed,
        })
    }

    /// The matches of row `row` (at most `cap`) into `found`: whether the row answers them
    /// (`false`: null), or the card's error naming the row.
    fn scan(&self, row: usize, text: &str, cap: u64, found: &mut Found) -> PolarsResult<bool> {
        found.clear();
        let mut scanner = self.scanner.clone();
        let mut sink = Capped::new(RowSink::new(&mut found.values, &mut found.ends), cap);
        let outcome = scanner
            .feed(text.as_bytes(), &mut sink)
            .and_then(|_| scanner.finish(&mut sink));
        // Content of a match left open (an unclosed start) was streamed in: drop it.
        found
            .values
            .truncate(found.ends.last().copied().unwrap_or(0));
        match (outcome, self.on_unclosed) {
            (Ok(()), _) | (Err(ScanError::Unclosed { .. }), OnUnclosed::Partial) => Ok(true),
            (Err(ScanError::Unclosed { .. }), OnUnclosed::Null) => Ok(false),
            (Err(ScanError::Unclosed { marker }), OnUnclosed::Raise) => {
                let before = text.get(..marker.byte as usize).unwrap_or_default();
                // Quoted as Python's repr quotes it, as the package's own errors show it.
                let excerpt: String = text.chars().take(EXCERPT_CHARS).collect();
                let excerpt = excerpt.escape_debug().to_string().replace("\\\"", "\"");
                Err(polars_err!(ComputeError:
                    "UnclosedStartMarker: unclosed start marker in row {row} at UTF-16 offset {} (byte offset {}); the row begins '{excerpt}' (row {row} counts from the start of the batch polars handed to the function, not from the start of the frame)",
                    before.encode_utf16().count(), marker.byte))
            }
            (Err(e), _) => Err(polars_err!(ComputeError: "row {row}: {e}")),
        }
    }
}

/// One row's matches, contents back to back, reused from row to row.
#[derive(Default)]
struct Found {
    values: Vec<u8>,
    ends: Vec<usize>,
}

impl Found {
    fn clear(&mut self) {
        self.values.clear();
        self.ends.clear();
    }

    /// The matches, each a `str`: content cut from a valid `str` at the scanner's match
    /// boundaries, which fall on character boundaries.
    fn matches(&self) -> impl Iterator<Item = &str> {
        let mut from = 0;
        self.ends.iter().map(move |&to| {
            let text = std::str::from_utf8(&self.values[from..to]).unwrap_or_default();
            from = to;
            text
        })
    }
}
