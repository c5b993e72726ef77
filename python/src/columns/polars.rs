//! The column functions as a polars expression plugin (`polars.plugins`): polars calls
//! `extract_all` / `extract_first` on each batch through the plugin interface, on the thread
//! it runs the batch on, with no GIL and no Python call; `extract_between.polars` registers
//! them. Rows are scanned one after another (polars spreads batches over its threads
//! itself) and read as the Arrow column functions read them (`run::row_end`). A batch's
//! matches are gathered as byte ranges of their rows, then built into polars' string array
//! in one pass, not row by row through a list builder.

use super::EXCERPT_CHARS;
use super::run::{RowEnd, Why, row_end};
use crate::input::OnUnclosed;
use extract_between::{Capped, Markers, Pos, Scanner, Sink};
use polars::prelude::*;
use polars_arrow::array::{ListArray, MutableBinaryViewArray, Utf8ViewArray};
use polars_arrow::bitmap::Bitmap;
use polars_arrow::datatypes::ArrowDataType;
use polars_arrow::offset::OffsetsBuffer;
use pyo3_polars::derive::polars_expr;
use serde::Deserialize;
use std::ops::ControlFlow;

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

/// The one input column, which must hold strings, when the plan is resolved: refused as
/// polars' own string functions refuse another type, before any batch is imported.
fn text_field(fields: &[Field]) -> PolarsResult<&Field> {
    let [field] = fields else {
        polars_bail!(ComputeError: "extract_between takes one column, not {}", fields.len());
    };
    match field.dtype() {
        DataType::String | DataType::Null => Ok(field),
        other => polars_bail!(SchemaMismatch: "expected String type, got: {other}"),
    }
}

fn list_of_strings(fields: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new(
        text_field(fields)?.name().clone(),
        DataType::List(Box::new(DataType::String)),
    ))
}

fn string(fields: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new(
        text_field(fields)?.name().clone(),
        DataType::String,
    ))
}

/// Every match of each row, a `list[str]` column.
#[polars_expr(output_type_func=list_of_strings)]
fn extract_all(inputs: &[Series], kwargs: AllOptions) -> PolarsResult<Series> {
    let rows = Rows::new(&kwargs.start, &kwargs.end, &kwargs.on_unclosed)?;
    let cap = kwargs.max_matches.unwrap_or(u64::MAX);
    let texts = strings(inputs)?;
    let mut first = 0;
    let mut lists = Vec::with_capacity(texts.chunks().len());
    for chunk in texts.downcast_iter() {
        let found = rows.scan(chunk, first, cap)?;
        first += chunk.len();
        let values = found.values(chunk);
        let offsets = OffsetsBuffer::try_from(found.row_ends)?;
        let dtype = ListArray::<i64>::default_datatype(ArrowDataType::Utf8View);
        lists.push(ListArray::<i64>::try_new(
            dtype,
            offsets,
            values.boxed(),
            validity(found.valid),
        )?);
    }
    Ok(ListChunked::from_chunk_iter(texts.name().clone(), lists).into_series())
}

/// Each row's first match, a `str` column.
#[polars_expr(output_type_func=string)]
fn extract_first(inputs: &[Series], kwargs: FirstOptions) -> PolarsResult<Series> {
    let rows = Rows::new(&kwargs.start, &kwargs.end, &kwargs.on_unclosed)?;
    let texts = strings(inputs)?;
    let mut first = 0;
    let mut columns = Vec::with_capacity(texts.chunks().len());
    for chunk in texts.downcast_iter() {
        let found = rows.scan(chunk, first, 1)?;
        first += chunk.len();
        let mut matches = found.matches(chunk);
        // A row without a match, as a null row, answers null; each other row has one.
        let mut values = MutableBinaryViewArray::<str>::with_capacity(chunk.len());
        let mut valid = Vec::with_capacity(chunk.len());
        for (ok, ends) in found.valid.iter().zip(found.row_ends.windows(2)) {
            let content = (ends[1] > ends[0]).then(|| matches.next()).flatten();
            valid.push(*ok && content.is_some());
            values.push_value_ignore_validity(content.unwrap_or_default());
        }
        columns.push(values.freeze().with_validity(validity(valid)));
    }
    Ok(StringChunked::from_chunk_iter(texts.name().clone(), columns).into_series())
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

/// A validity bitmap, none when every row is valid.
fn validity(valid: Vec<bool>) -> Option<Bitmap> {
    valid.contains(&false).then(|| Bitmap::from_iter(valid))
}

/// The scanner of the batch's markers and what an unclosed row becomes.
struct Rows {
    scanner: Scanner,
    on_unclosed: OnUnclosed,
}

/// The matches of a chunk's rows: each match's byte range within its row and the row it
/// lies in, where each row's matches end, and which rows are valid.
struct Found {
    spans: Vec<(u32, u32)>,
    owners: Vec<u32>,
    row_ends: Vec<i64>,
    valid: Vec<bool>,
}

impl Found {
    /// The content of each match, in order: cut from its row at the scanner's match
    /// boundaries, which fall on character boundaries.
    fn matches<'a>(&'a self, chunk: &'a Utf8ViewArray) -> impl Iterator<Item = &'a str> {
        self.spans
            .iter()
            .zip(&self.owners)
            .map(|(&(from, to), &row)| {
                let text = chunk.value(row as usize);
                text.get(from as usize..to as usize).unwrap_or_default()
            })
    }

    /// The matches as one string array, built flat (a match of at most 12 bytes is kept in
    /// its view, a longer one copied into the array's buffer).
    fn values(&self, chunk: &Utf8ViewArray) -> Utf8ViewArray {
        let mut values = MutableBinaryViewArray::<str>::with_capacity(self.spans.len());
        for content in self.matches(chunk) {
            values.push_value_ignore_validity(content);
        }
        values.freeze()
    }
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

    /// The matches (at most `cap` a row) of a chunk whose first row is row `first` of the
    /// batch, or the card's error naming the row.
    fn scan(&self, chunk: &Utf8ViewArray, first: usize, cap: u64) -> PolarsResult<Found> {
        let mut found = Found {
            spans: Vec::new(),
            owners: Vec::new(),
            row_ends: Vec::with_capacity(chunk.len() + 1),
            valid: Vec::with_capacity(chunk.len()),
        };
        found.row_ends.push(0);
        let mut scanner = self.scanner.clone();
        for (i, text) in chunk.iter().enumerate() {
            let Some(text) = text else {
                found.row_ends.push(found.spans.len() as i64);
                found.valid.push(false);
                continue;
            };
            let before = found.spans.len();
            scanner.reset();
            let mut sink = Capped::new(
                Spans {
                    spans: &mut found.spans,
                    open: 0,
                },
                cap,
            );
            let outcome = scanner
                .feed(text.as_bytes(), &mut sink)
                .and_then(|_| scanner.finish(&mut sink));
            let valid = match row_end(outcome, self.on_unclosed, text.as_bytes()) {
                RowEnd::Matches => true,
                RowEnd::Null => {
                    found.spans.truncate(before);
                    false
                }
                RowEnd::Stop(why) => return Err(stopped(first + i, text, why)),
            };
            found.owners.resize(found.spans.len(), i as u32);
            found.row_ends.push(found.spans.len() as i64);
            found.valid.push(valid);
        }
        Ok(found)
    }
}

/// The error of a row that stops the batch: the card's error, where, and how the row begins.
fn stopped(row: usize, text: &str, why: Why) -> PolarsError {
    // Quoted as Python's repr quotes it, as the package's own errors show it.
    let excerpt: String = text.chars().take(EXCERPT_CHARS).collect();
    let excerpt = excerpt.escape_debug().to_string().replace("\\\"", "\"");
    match why {
        Why::Unclosed(Pos { byte, utf16 }) => polars_err!(ComputeError:
            "UnclosedStartMarker: unclosed start marker in row {row} at UTF-16 offset {utf16} (byte offset {byte}); the row begins '{excerpt}' (row {row} counts from the start of the batch polars handed to the function, not from the start of the frame)"),
        Why::InvalidUtf8(offset) => {
            polars_err!(ComputeError: "row {row}: invalid UTF-8 at byte offset {offset}")
        }
    }
}

/// A sink that keeps each closed match's content as a byte range of its row. Rows of a
/// polars string column are shorter than 4 GiB (a view's length is a `u32`).
struct Spans<'a> {
    spans: &'a mut Vec<(u32, u32)>,
    open: u32,
}

impl Sink for Spans<'_> {
    fn open(&mut self, _marker: Pos, content: Pos) -> ControlFlow<()> {
        self.open = content.byte as u32;
        ControlFlow::Continue(())
    }

    fn content(&mut self, _fragment: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn close(&mut self, content_end: Pos, _marker_end: Pos) -> ControlFlow<()> {
        self.spans.push((self.open, content_end.byte as u32));
        ControlFlow::Continue(())
    }

    fn utf16_offsets(&self) -> bool {
        false
    }
}
