//! A column as it crosses the Arrow C data interface, checked before a byte of it is read.
//!
//! The interface carries pointers and the producer's word for what lies behind them, and
//! arrow-rs imports it without checking. So every offset, view and null count is checked
//! here, in one pass over the offsets or views (the text itself is left to the scan, which
//! validates its UTF-8): a bad producer gets a `ValueError` naming the row and what is
//! wrong, never a read outside a buffer. Strings are read as bytes from here on, so that no
//! `&str` exists before the scan has checked its UTF-8.

use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, LargeBinaryArray, OffsetSizeTrait,
};
use arrow_buffer::{Buffer, NullBuffer};
use arrow_schema::DataType;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3_arrow::input::AnyArray;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Why a column was refused.
#[derive(Debug)]
pub enum InputError {
    /// Not an object of the Arrow PyCapsule interface at all: its type's name.
    NotArrow(String),
    /// An Arrow column of another type.
    NotStrings { found: DataType, field: String },
    /// The producer's buffers contradict themselves.
    Malformed { row: Option<usize>, reason: String },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::NotArrow(type_name) => write!(
                f,
                "column must be an Arrow column (an object with __arrow_c_array__ or __arrow_c_stream__: pyarrow, polars, pandas, DuckDB), not {type_name}"
            ),
            InputError::NotStrings { found, field } => write!(
                f,
                "column must hold strings (Arrow string, large_string or string_view), not {found} (field {field:?})"
            ),
            InputError::Malformed {
                row: Some(row),
                reason,
            } => write!(f, "column is a malformed Arrow array: row {row} {reason}"),
            InputError::Malformed { row: None, reason } => {
                write!(f, "column is a malformed Arrow array: {reason}")
            }
        }
    }
}

/// One chunk's strings, as bytes.
enum Texts {
    Utf8(BinaryArray),
    Large(LargeBinaryArray),
    View(BinaryViewArray),
    /// Arrow's `null` type: every row null.
    Null(usize),
}

/// One chunk of the column, checked: its strings and which rows are null (a struct's own
/// nulls joined with its field's).
pub struct Chunk {
    texts: Texts,
    nulls: Option<NullBuffer>,
}

impl Chunk {
    /// Row `row`'s text, or `None` where it is null.
    pub fn get(&self, row: usize) -> Option<&[u8]> {
        if self.nulls.as_ref().is_some_and(|n| n.is_null(row)) {
            return None;
        }
        Some(match &self.texts {
            Texts::Utf8(a) => a.value(row),
            Texts::Large(a) => a.value(row),
            Texts::View(a) => a.value(row),
            Texts::Null(_) => return None,
        })
    }

    pub fn len(&self) -> usize {
        match &self.texts {
            Texts::Utf8(a) => a.len(),
            Texts::Large(a) => a.len(),
            Texts::View(a) => a.len(),
            Texts::Null(n) => *n,
        }
    }

    /// The bytes of text the chunk's rows hold, about.
    pub fn text_bytes(&self) -> usize {
        match &self.texts {
            Texts::Utf8(a) => a.values().len(),
            Texts::Large(a) => a.values().len(),
            Texts::View(a) => a.total_bytes_len(),
            Texts::Null(_) => 0,
        }
    }

    /// `array` checked, its rows numbered from `first_row` in messages.
    fn checked(array: &ArrayRef, field: &str, first_row: usize) -> Result<Chunk, InputError> {
        let (array, outer) = match array.data_type() {
            DataType::Struct(fields) if fields.len() == 1 => {
                let outer = array.as_struct();
                check_nulls(outer.nulls(), "the struct's")?;
                (outer.column(0).clone(), outer.nulls().cloned())
            }
            _ => (array.clone(), None),
        };
        check_nulls(array.nulls(), "its")?;
        let texts = match array.data_type() {
            DataType::Utf8 => {
                let a = BinaryArray::from(array.as_string::<i32>().clone());
                check_offsets(a.value_offsets(), a.values(), first_row)?;
                Texts::Utf8(a)
            }
            DataType::LargeUtf8 => {
                let a = LargeBinaryArray::from(array.as_string::<i64>().clone());
                check_offsets(a.value_offsets(), a.values(), first_row)?;
                Texts::Large(a)
            }
            DataType::Utf8View => {
                let a = array.as_string_view().clone().to_binary_view();
                check_views(&a, first_row)?;
                Texts::View(a)
            }
            DataType::Null => Texts::Null(array.len()),
            other => {
                return Err(InputError::NotStrings {
                    found: other.clone(),
                    field: field.to_owned(),
                });
            }
        };
        Ok(Chunk {
            nulls: NullBuffer::union(outer.as_ref(), array.nulls()),
            texts,
        })
    }
}

/// Whether `data_type` is a column the functions read: a string type, `null`, or a struct
/// of one such field (a DuckDB relation's stream).
fn readable(data_type: &DataType) -> bool {
    let text = |t: &DataType| {
        matches!(
            t,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null
        )
    };
    match data_type {
        DataType::Struct(fields) if fields.len() == 1 => text(fields[0].data_type()),
        t => text(t),
    }
}

/// The column's chunks, each checked. A panic inside the import (arrow-rs asserts on some
/// inconsistent layouts, a struct whose field is shorter than itself) is a malformed column
/// too.
pub fn import(column: &Bound<'_, PyAny>) -> PyResult<Vec<Chunk>> {
    let imported = catch_unwind(AssertUnwindSafe(|| -> PyResult<_> {
        let exports =
            column.hasattr("__arrow_c_array__")? || column.hasattr("__arrow_c_stream__")?;
        let column: AnyArray = column.extract().map_err(|e| {
            if exports {
                // An Arrow object whose export failed: its own error says why.
                PyTypeError::new_err(format!("column's Arrow export failed: {e}"))
            } else {
                let name = column
                    .get_type()
                    .name()
                    .map_or_else(|_| "?".to_owned(), |n| n.to_string());
                InputError::NotArrow(name).into()
            }
        })?;
        Ok(column.into_chunked_array()?.into_inner())
    }));
    let (arrays, field) = imported.map_err(|panic| InputError::Malformed {
        row: None,
        reason: panic_message(panic.as_ref()),
    })??;
    // The field, not the chunks: a column of no chunks has a type too.
    if !readable(field.data_type()) {
        return Err(InputError::NotStrings {
            found: field.data_type().clone(),
            field: field.name().clone(),
        }
        .into());
    }
    let mut chunks = Vec::with_capacity(arrays.len());
    let mut first_row = 0;
    for array in &arrays {
        let chunk = Chunk::checked(array, field.name(), first_row)?;
        first_row += chunk.len();
        chunks.push(chunk);
    }
    Ok(chunks)
}

impl From<InputError> for PyErr {
    fn from(e: InputError) -> PyErr {
        match e {
            InputError::NotArrow(_) | InputError::NotStrings { .. } => {
                PyTypeError::new_err(e.to_string())
            }
            InputError::Malformed { .. } => PyValueError::new_err(e.to_string()),
        }
    }
}

/// The text a panic carried.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "the Arrow import failed".to_owned())
}

/// A validity bitmap must hold as many nulls as the producer said: arrow-rs takes the count
/// on trust.
fn check_nulls(nulls: Option<&NullBuffer>, whose: &str) -> Result<(), InputError> {
    let Some(nulls) = nulls else { return Ok(()) };
    let actual = nulls.len() - nulls.inner().count_set_bits();
    if actual != nulls.null_count() {
        return Err(InputError::Malformed {
            row: None,
            reason: format!(
                "{whose} null count is {} but its validity bitmap marks {actual} rows null",
                nulls.null_count()
            ),
        });
    }
    Ok(())
}

/// Offsets must start at 0 or later, never decrease, and end inside the values buffer.
fn check_offsets<O: OffsetSizeTrait + std::fmt::Display>(
    offsets: &[O],
    values: &Buffer,
    first_row: usize,
) -> Result<(), InputError> {
    let malformed = |row: usize, reason: String| InputError::Malformed {
        row: Some(first_row + row),
        reason,
    };
    // An empty array reads no offset: the import sizes its values buffer 0 whatever the
    // single offset says.
    let [first, ..] = offsets else { return Ok(()) };
    if offsets.len() < 2 {
        return Ok(());
    }
    if first.to_usize().is_none() {
        return Err(malformed(
            0,
            format!("starts at a negative offset ({first})"),
        ));
    }
    let mut previous = *first;
    for (row, &end) in offsets.iter().skip(1).enumerate() {
        if end < previous {
            return Err(malformed(
                row,
                format!(
                    "ends at offset {end}, before it starts ({previous}): offsets must not decrease"
                ),
            ));
        }
        previous = end;
    }
    let last = previous.as_usize();
    // A values buffer past isize::MAX is a negative length the import took as unsigned.
    if last > values.len() || values.len() > isize::MAX as usize {
        return Err(malformed(
            offsets.len() - 2,
            format!(
                "ends at offset {last}, past the end of the values buffer ({} bytes)",
                values.len().min(isize::MAX as usize)
            ),
        ));
    }
    Ok(())
}

/// Each view of a valid row must lie inside a data buffer that exists.
fn check_views(array: &BinaryViewArray, first_row: usize) -> Result<(), InputError> {
    let buffers = array.data_buffers();
    for buffer in buffers {
        if buffer.len() > isize::MAX as usize {
            return Err(InputError::Malformed {
                row: None,
                reason: "a data buffer's length is negative".to_owned(),
            });
        }
    }
    for (row, &view) in array.views().iter().enumerate() {
        if array.is_null(row) {
            continue;
        }
        let len = view as u32;
        if len <= 12 {
            continue;
        }
        let index = (view >> 64) as u32 as usize;
        let offset = (view >> 96) as u32 as usize;
        let reason = match buffers.get(index) {
            None => format!(
                "points into data buffer {index}, which does not exist ({} buffers)",
                buffers.len()
            ),
            Some(b) if offset + len as usize > b.len() => format!(
                "spans bytes {offset}..{} of data buffer {index}, which holds {} bytes",
                offset + len as usize,
                b.len()
            ),
            Some(_) => continue,
        };
        return Err(InputError::Malformed {
            row: Some(first_row + row),
            reason,
        });
    }
    Ok(())
}
