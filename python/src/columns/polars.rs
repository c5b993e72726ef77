//! The column functions as a polars expression plugin (`polars.plugins`): polars calls
//! `extract_all` / `extract_first` on each batch through the plugin interface, on the thread
//! it runs the batch on, with no GIL and no Python call; `extract_between.polars` registers
//! them. Rows are scanned one after another (polars spreads batches over its threads
//! itself) by the library's row API (`extract_between::rows`), as the Arrow column functions
//! scan theirs. A batch's matches are gathered as byte ranges of their rows, then built into
//! polars' string array in one pass, not row by row through a list builder.

use extract_between::Markers;
use extract_between::rows::{RowAnswer, RowError, RowOptions, RowPlace, RowScanner, Spelling};
use polars::prelude::*;
use polars_arrow::array::{ListArray, MutableBinaryViewArray, Utf8ViewArray};
use polars_arrow::bitmap::Bitmap;
use polars_arrow::datatypes::ArrowDataType;
use polars_arrow::offset::OffsetsBuffer;
use pyo3_polars::derive::polars_expr;
use serde::Deserialize;
use std::ops::Range;

/// `extract_all`'s options, as the Python side pickles them (checked there first).
#[derive(Deserialize)]
struct AllOptions {
    start: String,
    end: String,
    max_matches: Option<u64>,
    on_unclosed: Option<String>,
}

/// `extract_first`'s options.
#[derive(Deserialize)]
struct FirstOptions {
    start: String,
    end: String,
    on_unclosed: Option<String>,
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

/// Every match of each row, a `list[str]` column. Named as the SQL function is: polars'
/// plans and errors show a plugin as `LIBRARY:NAME()`.
#[polars_expr(output_type_func=list_of_strings)]
fn extract_between_all(inputs: &[Series], kwargs: AllOptions) -> PolarsResult<Series> {
    let rows = Rows::new(
        FUNCTION_ALL,
        &kwargs.start,
        &kwargs.end,
        kwargs.max_matches,
        kwargs.on_unclosed.as_deref(),
    )?;
    let texts = strings(inputs)?;
    let mut first = 0;
    let mut lists = Vec::with_capacity(texts.chunks().len());
    for chunk in texts.downcast_iter() {
        let found = rows.scan(chunk, first, texts.len())?;
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
fn extract_between_first(inputs: &[Series], kwargs: FirstOptions) -> PolarsResult<Series> {
    let rows = Rows::new(
        FUNCTION_FIRST,
        &kwargs.start,
        &kwargs.end,
        Some(1),
        kwargs.on_unclosed.as_deref(),
    )?;
    let texts = strings(inputs)?;
    let mut first = 0;
    let mut columns = Vec::with_capacity(texts.chunks().len());
    for chunk in texts.downcast_iter() {
        let found = rows.scan(chunk, first, texts.len())?;
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

/// The plugin functions' names, as polars shows them.
const FUNCTION_ALL: &str = "extract_between_all";
const FUNCTION_FIRST: &str = "extract_between_first";

/// The row scanner of the batch's markers, cap and policy, and the function it answers.
struct Rows {
    rows: RowScanner,
    function: &'static str,
}

/// The matches of a chunk's rows: each match's byte range within its row and the row it
/// lies in, where each row's matches end, and which rows are valid.
struct Found {
    spans: Vec<Range<usize>>,
    owners: Vec<u32>,
    row_ends: Vec<i64>,
    valid: Vec<bool>,
}

impl Found {
    /// The content of each match, in order: cut from its row at the scanner's match
    /// boundaries, which fall on character boundaries.
    fn matches<'a>(&'a self, chunk: &'a Utf8ViewArray) -> impl Iterator<Item = &'a str> {
        self.spans.iter().zip(&self.owners).map(|(span, &row)| {
            let text = chunk.value(row as usize);
            text.get(span.clone()).unwrap_or_default()
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
    fn new(
        function: &'static str,
        start: &str,
        end: &str,
        cap: Option<u64>,
        policy: Option<&str>,
    ) -> PolarsResult<Rows> {
        let markers = Markers::new(start, end).map_err(|e| polars_err!(ComputeError: "{e}"))?;
        let options = RowOptions::parse(cap, policy.map(str::as_bytes)).map_err(
            |e| polars_err!(ComputeError: "InvalidInput: {}", e.spelled(Spelling::PYTHON)),
        )?;
        Ok(Rows {
            rows: RowScanner::new(&markers, options),
            function,
        })
    }

    /// The matches of a chunk whose first row is row `first` of the batch of `total` rows, or
    /// the card's error naming the row.
    fn scan(&self, chunk: &Utf8ViewArray, first: usize, total: usize) -> PolarsResult<Found> {
        let mut found = Found {
            spans: Vec::new(),
            owners: Vec::new(),
            row_ends: Vec::with_capacity(chunk.len() + 1),
            valid: Vec::with_capacity(chunk.len()),
        };
        found.row_ends.push(0);
        let mut rows = self.rows.clone();
        for (i, text) in chunk.iter().enumerate() {
            let valid = match text.map(|t| rows.scan(t.as_bytes(), &mut found.spans)) {
                None | Some(Ok(RowAnswer::Null)) => false,
                Some(Ok(RowAnswer::Matches { .. })) => true,
                Some(Err(e)) => return Err(stopped(first + i, total, self.function, &e)),
            };
            found.owners.resize(found.spans.len(), i as u32);
            found.row_ends.push(found.spans.len() as i64);
            found.valid.push(valid);
        }
        Ok(found)
    }
}

/// The error of a row that stops the batch: the library's class and words, and which row of
/// the batch it is.
fn stopped(row: usize, rows: usize, function: &str, e: &RowError) -> PolarsError {
    let place = RowPlace::Piece {
        row,
        rows,
        piece: "batch",
        host: "polars",
        function,
        whole: "frame",
    };
    polars_err!(ComputeError: "{}: {}", e.class(), e.at(place))
}
