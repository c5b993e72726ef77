//! The answer built from the parts' flat buffers: a `list<string>` of every match, or a
//! `string` of each row's first. Arrow's `string` and `list` count in `i32` offsets; where
//! the matches pass 2 GiB, or their number 2^31, the answer uses `large_string` /
//! `large_list` instead (every engine that reads the interface reads both).

use super::rows::Part;
use arrow_array::{ArrayRef, GenericListArray, GenericStringArray, OffsetSizeTrait};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, Field};
use std::sync::Arc;

/// The parts joined into one list array.
pub fn list_array(mut parts: Vec<Part>) -> Result<ArrayRef, ArrowError> {
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
    let strings: ArrayRef = if fits_i32(values.len()) {
        Arc::new(strings::<i32>(values, &value_ends, None)?)
    } else {
        Arc::new(strings::<i64>(values, &value_ends, None)?)
    };
    if fits_i32(value_ends.len()) {
        Ok(Arc::new(list::<i32>(strings, &row_ends, valid)?))
    } else {
        Ok(Arc::new(list::<i64>(strings, &row_ends, valid)?))
    }
}

/// The parts' first matches joined into one string array: null where a row has none.
pub fn first_array(parts: Vec<Part>) -> Result<ArrayRef, ArrowError> {
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
    if fits_i32(values.len()) {
        Ok(Arc::new(strings::<i32>(values, &ends, nulls(valid))?))
    } else {
        Ok(Arc::new(strings::<i64>(values, &ends, nulls(valid))?))
    }
}

fn fits_i32(n: usize) -> bool {
    i32::try_from(n).is_ok()
}

/// Offsets from 0 through each end; the caller chose `O` wide enough for the last.
fn offsets<O: OffsetSizeTrait>(ends: &[usize]) -> Result<OffsetBuffer<O>, ArrowError> {
    let mut out = Vec::with_capacity(ends.len() + 1);
    out.push(O::usize_as(0));
    for &end in ends {
        out.push(O::from_usize(end).ok_or_else(|| {
            ArrowError::InvalidArgumentError(format!("offset {end} does not fit the array"))
        })?);
    }
    Ok(OffsetBuffer::new(ScalarBuffer::from(out)))
}

fn strings<O: OffsetSizeTrait>(
    values: Vec<u8>,
    ends: &[usize],
    nulls: Option<NullBuffer>,
) -> Result<GenericStringArray<O>, ArrowError> {
    GenericStringArray::<O>::try_new(offsets(ends)?, Buffer::from_vec(values), nulls)
}

fn list<O: OffsetSizeTrait>(
    items: ArrayRef,
    row_ends: &[usize],
    valid: Vec<bool>,
) -> Result<GenericListArray<O>, ArrowError> {
    let item = Arc::new(Field::new("item", items.data_type().clone(), false));
    GenericListArray::<O>::try_new(item, offsets(row_ends)?, items, nulls(valid))
}

fn nulls(valid: Vec<bool>) -> Option<NullBuffer> {
    let nulls = NullBuffer::from(valid);
    (nulls.null_count() > 0).then_some(nulls)
}

/// The answer's field: named for what it holds, of the type built.
pub fn field(name: &str, array: &ArrayRef) -> Arc<Field> {
    Arc::new(Field::new(name, array.data_type().clone(), true))
}
