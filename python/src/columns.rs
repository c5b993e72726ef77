//! Arrow columns: `extract_all` (a `list<string>` a row) and `extract_first` (a `string` a
//! row) over any string column that crosses the Arrow PyCapsule interface (pyarrow, polars,
//! pandas, DuckDB), read in place. Rows are split across cores with the GIL released; each
//! part gathers its matches into flat buffers, and the answer is built from them once.

use crate::errors;
use crate::scan::markers;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, ListArray, StringArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field};
use extract_between::utf8::utf16_len;
use extract_between::{Capped, Pos, ScanError, Scanner, Sink};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3_arrow::PyArray;
use pyo3_arrow::export::Arro3Array;
use pyo3_arrow::input::AnyArray;
use std::ops::ControlFlow;
use std::ops::Range;
use std::sync::Arc;

/// Below this many text bytes a column is scanned on one thread: starting threads would cost
/// more than they save.
const PARALLEL_BYTES: usize = 1 << 20;

/// What a row with an unclosed start marker becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OnUnclosed {
    Raise,
    Null,
    Partial,
}

impl OnUnclosed {
    fn parse(value: &str) -> PyResult<OnUnclosed> {
        match value {
            "raise" => Ok(OnUnclosed::Raise),
            "null" => Ok(OnUnclosed::Null),
            "partial" => Ok(OnUnclosed::Partial),
            other => Err(PyValueError::new_err(format!(
                "on_unclosed must be \"raise\", \"null\" or \"partial\", not {other:?}"
            ))),
        }
    }
}

/// A string column's chunk, whichever of Arrow's three string layouts it uses.
enum Strings<'a> {
    Utf8(&'a StringArray),
    Large(&'a arrow_array::LargeStringArray),
    View(&'a arrow_array::StringViewArray),
}

impl<'a> Strings<'a> {
    fn of(array: &'a ArrayRef) -> Option<Strings<'a>> {
        match array.data_type() {
            DataType::Utf8 => Some(Strings::Utf8(array.as_string::<i32>())),
            DataType::LargeUtf8 => Some(Strings::Large(array.as_string::<i64>())),
            DataType::Utf8View => Some(Strings::View(array.as_string_view())),
            _ => None,
        }
    }

    fn get(&self, row: usize) -> Option<&'a str> {
        match self {
            Strings::Utf8(a) => a.is_valid(row).then(|| a.value(row)),
            Strings::Large(a) => a.is_valid(row).then(|| a.value(row)),
            Strings::View(a) => a.is_valid(row).then(|| a.value(row)),
        }
    }

    fn len(&self) -> usize {
        match self {
            Strings::Utf8(a) => a.len(),
            Strings::Large(a) => a.len(),
            Strings::View(a) => a.len(),
        }
    }

    fn text_bytes(&self) -> usize {
        match self {
            Strings::Utf8(a) => a.values().len(),
            Strings::Large(a) => a.values().len(),
            Strings::View(a) => a.total_bytes_len(),
        }
    }
}

/// The column's chunks as strings; a struct of one string field (a DuckDB relation's stream)
/// is that field.
fn chunks(column: &Bound<'_, PyAny>) -> PyResult<Vec<ArrayRef>> {
    let column: AnyArray = column.extract().map_err(|_| {
        errors::wrong_type(
            "column",
            "an Arrow column (an object with __arrow_c_array__ or __arrow_c_stream__: pyarrow, polars, pandas, DuckDB)",
            column,
        )
    })?;
    let chunked = column.into_chunked_array()?;
    let (chunks, field) = chunked.into_inner();
    let mut out = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        let chunk = match chunk.data_type() {
            DataType::Struct(fields) if fields.len() == 1 => chunk.as_struct().column(0).clone(),
            _ => chunk,
        };
        if Strings::of(&chunk).is_none() {
            return Err(PyTypeError::new_err(format!(
                "column must hold strings (Arrow string, large_string or string_view), not {} (field {:?})",
                chunk.data_type(),
                field.name()
            )));
        }
        out.push(chunk);
    }
    Ok(out)
}

/// The matches of a run of rows, gathered flat: contents back to back, where each ends, how
/// many matches each row has so far, which rows are null, and the first unclosed row.
#[derive(Default)]
struct Part {
    values: Vec<u8>,
    value_ends: Vec<usize>,
    row_ends: Vec<usize>,
    valid: Vec<bool>,
    unclosed: Option<(usize, Unclosed)>,
}

/// Why a row stopped the column: an unclosed start marker (with `on_unclosed="raise"`), or
/// bytes that are not UTF-8 (which a producer of Arrow strings must not hand over).
#[derive(Clone, Copy)]
enum Unclosed {
    Marker(Pos),
    InvalidUtf8(u64),
}

/// One unit of work: rows `rows` of chunk `chunk`, which start at row `first` of the column.
struct Slice {
    chunk: usize,
    rows: Range<usize>,
    first: usize,
}

/// Appends a row's matches to a part's buffers (no UTF-16 counting: rows report bytes).
struct RowSink<'p> {
    values: &'p mut Vec<u8>,
    value_ends: &'p mut Vec<usize>,
}

impl Sink for RowSink<'_> {
    fn open(&mut self, _marker: Pos, _content: Pos) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
        self.values.extend_from_slice(fragment);
        ControlFlow::Continue(())
    }

    fn close(&mut self, _content_end: Pos, _marker_end: Pos) -> ControlFlow<()> {
        self.value_ends.push(self.values.len());
        ControlFlow::Continue(())
    }

    fn matched(&mut self, _open: [Pos; 2], content: &[u8], _close: [Pos; 2]) -> ControlFlow<()> {
        self.values.extend_from_slice(content);
        self.value_ends.push(self.values.len());
        ControlFlow::Continue(())
    }

    fn utf16_offsets(&self) -> bool {
        false
    }
}

/// The rows of one slice, each scanned whole by one scanner rewound between rows.
fn scan(
    columns: &[Strings<'_>],
    slice: &Slice,
    template: &Scanner,
    cap: u64,
    on_unclosed: OnUnclosed,
) -> Part {
    let strings = &columns[slice.chunk];
    let rows = slice.rows.len();
    let mut scanner = template.clone();
    // The matches of a row never outgrow its text: reserving the slice's text bytes means no
    // buffer is moved while it fills, and pages never written are never touched.
    let text_bytes: usize = slice
        .rows
        .clone()
        .filter_map(|r| strings.get(r))
        .map(str::len)
        .sum();
    let mut part = Part {
        values: Vec::with_capacity(text_bytes),
        row_ends: Vec::with_capacity(rows),
        valid: Vec::with_capacity(rows),
        ..Part::default()
    };
    for (i, row) in slice.rows.clone().enumerate() {
        let Some(text) = strings.get(row) else {
            part.row_ends.push(part.value_ends.len());
            part.valid.push(false);
            continue;
        };
        let (values, matches) = (part.values.len(), part.value_ends.len());
        scanner.reset();
        let outcome = {
            let mut sink = Capped::new(
                RowSink {
                    values: &mut part.values,
                    value_ends: &mut part.value_ends,
                },
                cap,
            );
            scanner
                .feed(text.as_bytes(), &mut sink)
                .and_then(|_| scanner.finish(&mut sink))
        };
        // Content of a match left open (an unclosed start) was streamed in: drop it.
        let closed = part
            .value_ends
            .last()
            .copied()
            .filter(|_| part.value_ends.len() > matches);
        part.values.truncate(closed.unwrap_or(values));
        let valid = match (outcome, on_unclosed) {
            (Ok(()), _) | (Err(ScanError::Unclosed { .. }), OnUnclosed::Partial) => true,
            (Err(ScanError::Unclosed { marker }), OnUnclosed::Raise) => {
                let before = text
                    .as_bytes()
                    .get(..marker.byte as usize)
                    .unwrap_or_default();
                let marker = Pos {
                    byte: marker.byte,
                    utf16: utf16_len(before),
                };
                part.unclosed = Some((slice.first + i, Unclosed::Marker(marker)));
                return part;
            }
            (Err(ScanError::InvalidUtf8 { offset, .. }), _) => {
                part.unclosed = Some((slice.first + i, Unclosed::InvalidUtf8(offset)));
                return part;
            }
            (Err(ScanError::Unclosed { .. }), OnUnclosed::Null) => {
                part.values.truncate(values);
                part.value_ends.truncate(matches);
                false
            }
        };
        part.row_ends.push(part.value_ends.len());
        part.valid.push(valid);
    }
    part
}

/// Runs the scanner over every row, on several threads when the column is large.
fn run(
    py: Python<'_>,
    chunks: &[ArrayRef],
    scanner: &Scanner,
    cap: Option<usize>,
    on_unclosed: OnUnclosed,
) -> Vec<Part> {
    let cap = cap.map_or(u64::MAX, |n| n as u64);
    let columns: Vec<Strings<'_>> = chunks.iter().filter_map(Strings::of).collect();
    let bytes: usize = columns.iter().map(Strings::text_bytes).sum();
    let rows: usize = columns.iter().map(Strings::len).sum();
    let threads = if bytes < PARALLEL_BYTES {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    };
    // Slices of about rows / threads rows each, never crossing a chunk.
    let per = rows.div_ceil(threads).max(1);
    let mut slices = Vec::new();
    let mut first = 0;
    for (chunk, strings) in columns.iter().enumerate() {
        let mut at = 0;
        while at < strings.len() {
            let end = (at + per).min(strings.len());
            slices.push(Slice {
                chunk,
                rows: at..end,
                first,
            });
            first += end - at;
            at = end;
        }
    }
    py.detach(|| {
        if threads == 1 || slices.len() == 1 {
            return slices
                .iter()
                .map(|s| scan(&columns, s, scanner, cap, on_unclosed))
                .collect();
        }
        std::thread::scope(|scope| {
            let handles: Vec<_> = slices
                .iter()
                .map(|s| scope.spawn(|| scan(&columns, s, scanner, cap, on_unclosed)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        })
    })
}

/// The first unclosed row, as the error `on_unclosed="raise"` asks for.
fn first_unclosed(py: Python<'_>, parts: &[Part]) -> PyResult<()> {
    match parts.iter().find_map(|p| p.unclosed) {
        Some((row, Unclosed::Marker(marker))) => Err(errors::unclosed_in_row(py, marker, row)),
        Some((row, Unclosed::InvalidUtf8(offset))) => Err(errors::extract_error(
            py,
            &format!("row {row} of the column is not valid UTF-8: invalid byte at offset {offset}"),
        )),
        None => Ok(()),
    }
}

fn offsets(ends: impl Iterator<Item = usize>, what: &str) -> Result<OffsetBuffer<i32>, String> {
    let mut out = vec![0i32];
    for end in ends {
        out.push(i32::try_from(end).map_err(|_| {
            format!(
                "the {what} of this column pass Arrow's 2 GiB limit for one array: split the column into smaller batches"
            )
        })?);
    }
    Ok(OffsetBuffer::new(ScalarBuffer::from(out)))
}

/// The parts joined into one `list<string>` array.
fn list_array(mut parts: Vec<Part>) -> Result<ListArray, String> {
    let (mut values, mut value_ends, mut row_ends, mut valid) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    if parts.len() == 1 {
        // One part is the answer as it stands: no copy.
        let part = parts.remove(0);
        (values, value_ends, row_ends, valid) =
            (part.values, part.value_ends, part.row_ends, part.valid);
    }
    for part in parts {
        let (value_base, match_base) = (values.len(), value_ends.len());
        values.extend_from_slice(&part.values);
        value_ends.extend(part.value_ends.iter().map(|e| e + value_base));
        row_ends.extend(part.row_ends.iter().map(|e| e + match_base));
        valid.extend(part.valid);
    }
    let strings = StringArray::try_new(
        offsets(value_ends.into_iter(), "matches")?,
        Buffer::from_vec(values),
        None,
    )
    .map_err(|e| e.to_string())?;
    let item = Arc::new(Field::new("item", DataType::Utf8, false));
    ListArray::try_new(
        item,
        offsets(row_ends.into_iter(), "rows")?,
        Arc::new(strings),
        nulls(valid),
    )
    .map_err(|e| e.to_string())
}

/// The parts' first matches joined into one `string` array: null where a row has none.
fn first_array(parts: Vec<Part>) -> Result<StringArray, String> {
    let (mut values, mut ends, mut valid) = (Vec::new(), Vec::new(), Vec::new());
    for part in parts {
        let mut from_match = 0;
        for (row_end, row_valid) in part.row_ends.iter().zip(part.valid) {
            let has = row_valid && *row_end > from_match;
            if has {
                let start = if from_match == 0 {
                    0
                } else {
                    part.value_ends[from_match - 1]
                };
                values.extend_from_slice(&part.values[start..part.value_ends[from_match]]);
            }
            ends.push(values.len());
            valid.push(has);
            from_match = *row_end;
        }
    }
    StringArray::try_new(
        offsets(ends.into_iter(), "matches")?,
        Buffer::from_vec(values),
        nulls(valid),
    )
    .map_err(|e| e.to_string())
}

fn nulls(valid: Vec<bool>) -> Option<NullBuffer> {
    let nulls = NullBuffer::from(valid);
    (nulls.null_count() > 0).then_some(nulls)
}

/// `max_matches` of a column function: `None` (no cap) or an `int` of at least 1.
fn cap(py: Python<'_>, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    crate::one_shot::max_matches_arg(
        py,
        value,
        usize::MAX,
        "int or None",
        "a positive integer or None",
    )
    .map(Some)
}

/// Every match of every row of a string column, as a `list<string>` column.
///
/// `column` is any Arrow string column (`string`, `large_string`, `string_view`) that offers
/// `__arrow_c_array__` or `__arrow_c_stream__`: a pyarrow `Array` or `ChunkedArray`, a polars
/// `Series`, a DuckDB relation of one column. Each row gets what `extract(row, start, end,
/// max_matches)` gives, without the card's 256000-byte text limit; `max_matches=None` means
/// no cap; nulls stay null. `on_unclosed` says what a row with an unclosed start marker
/// becomes: `"raise"` (`UnclosedStartMarker`, its `.row` the row's index), `"null"`, or
/// `"partial"` (the matches before it). The answer is an `arro3.core.Array`, which pyarrow,
/// polars and DuckDB read through the same interface.
///
/// >>> import pyarrow as pa
/// >>> from extract_between import extract_all
/// >>> out = extract_all(pa.array(["<b>x</b><b>y</b>", None, "none"]), "<b>", "</b>")
/// >>> pa.array(out).to_pylist()
/// [['x', 'y'], None, []]
#[pyfunction]
#[pyo3(signature = (column, start, end, max_matches = None, on_unclosed = "raise"))]
pub fn extract_all(
    py: Python<'_>,
    column: &Bound<'_, PyAny>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    max_matches: Option<&Bound<'_, PyAny>>,
    on_unclosed: &str,
) -> PyResult<Arro3Array> {
    let scanner = Scanner::new(&markers(py, start, end)?);
    let cap = cap(py, max_matches)?;
    let on_unclosed = OnUnclosed::parse(on_unclosed)?;
    let chunks = chunks(column)?;
    let parts = run(py, &chunks, &scanner, cap, on_unclosed);
    first_unclosed(py, &parts)?;
    let list: ArrayRef = Arc::new(list_array(parts).map_err(|e| errors::extract_error(py, &e))?);
    let field = Arc::new(Field::new("matches", list.data_type().clone(), true));
    Ok(PyArray::try_new(list, field)
        .map_err(|e| errors::extract_error(py, &e.to_string()))?
        .into())
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
#[pyo3(signature = (column, start, end, on_unclosed = "raise"))]
pub fn extract_first(
    py: Python<'_>,
    column: &Bound<'_, PyAny>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    on_unclosed: &str,
) -> PyResult<Arro3Array> {
    let scanner = Scanner::new(&markers(py, start, end)?);
    let on_unclosed = OnUnclosed::parse(on_unclosed)?;
    let chunks = chunks(column)?;
    let parts = run(py, &chunks, &scanner, Some(1), on_unclosed);
    first_unclosed(py, &parts)?;
    let first: ArrayRef = Arc::new(first_array(parts).map_err(|e| errors::extract_error(py, &e))?);
    let field = Arc::new(Field::new("first", DataType::Utf8, true));
    Ok(PyArray::try_new(first, field)
        .map_err(|e| errors::extract_error(py, &e.to_string()))?
        .into())
}
