//! DuckDB's vectors read into slices and written from them. Every function here takes a
//! vector DuckDB handed to the running call, of the type the function's signature declared
//! for it, with `rows` rows: the callers' safety argument, stated once in
//! [`call`](super::call).

use core::ffi::c_char;
use core::ops::Range;
use core::slice;

use libduckdb_sys::{
    DuckDBSuccess, duckdb_list_entry, duckdb_list_vector_get_child, duckdb_list_vector_get_size,
    duckdb_list_vector_reserve, duckdb_list_vector_set_size, duckdb_string_t,
    duckdb_validity_set_row_invalid, duckdb_vector, duckdb_vector_assign_string_element_len,
    duckdb_vector_ensure_validity_writable, duckdb_vector_get_data, duckdb_vector_get_validity,
};

/// The longest string DuckDB keeps inside `duckdb_string_t` itself.
const INLINED: usize = 12;

/// Whether row `row` is valid under `validity` (DuckDB's bit mask; `None`: all valid).
fn valid(validity: Option<&[u64]>, row: usize) -> bool {
    validity.is_none_or(|bits| bits[row / 64] >> (row % 64) & 1 == 1)
}

/// The validity mask of a vector, `None` when every row is valid.
///
/// # Safety
/// `vector` is a flat vector of the running call with `rows` rows.
unsafe fn validity<'a>(vector: duckdb_vector, rows: usize) -> Option<&'a [u64]> {
    // SAFETY: DuckDB answers NULL (every row valid) or a mask of one bit a row.
    let bits = unsafe { duckdb_vector_get_validity(vector) };
    // SAFETY: a non-NULL mask holds `rows.div_ceil(64)` words and lives as long as the vector.
    (!bits.is_null()).then(|| unsafe { slice::from_raw_parts(bits, rows.div_ceil(64)) })
}

/// A flat vector's `rows` values, each read by `read`, `None` where NULL.
///
/// # Safety
/// `vector` is a flat vector of the running call whose data is `rows` values of `T`; what
/// `read` answers does not outlive the call.
unsafe fn flat<'a, T: 'a, U>(
    vector: duckdb_vector,
    rows: usize,
    read: impl Fn(&'a T) -> U,
) -> Vec<Option<U>> {
    let all: &'a [T] = if rows == 0 {
        &[]
    } else {
        // SAFETY: the caller's contract: the data is `rows` `T`s, non-NULL and aligned for a
        // vector with rows, living as long as the call.
        unsafe { slice::from_raw_parts(duckdb_vector_get_data(vector).cast::<T>(), rows) }
    };
    // SAFETY: the caller's contract.
    let validity = unsafe { validity(vector, rows) };
    all.iter()
        .enumerate()
        .map(|(row, value)| valid(validity, row).then(|| read(value)))
        .collect()
}

/// A VARCHAR vector's strings, `None` where NULL.
///
/// # Safety
/// `vector` is a flat VARCHAR vector of the running call with `rows` rows; the slices do not
/// outlive the call.
pub unsafe fn strings<'a>(vector: duckdb_vector, rows: usize) -> Vec<Option<&'a [u8]>> {
    // SAFETY: a flat VARCHAR vector's data is `rows` `duckdb_string_t`s (the caller's
    // contract); the strings borrow from the vector, which outlives the call.
    unsafe { flat::<duckdb_string_t, _>(vector, rows, bytes) }
}

/// A valid row's bytes: inside the `duckdb_string_t` up to 12 bytes, else where it points.
fn bytes(string: &duckdb_string_t) -> &[u8] {
    // SAFETY: both members of the union begin with the length (duckdb.h's layout).
    let len = unsafe { string.value.inlined.length } as usize;
    if len <= INLINED {
        // SAFETY: a string of `len <= 12` bytes is stored in `inlined`, which borrows from
        // `string`.
        let inlined = unsafe { &string.value.inlined.inlined };
        // SAFETY: `len` bytes of the 12-byte array, read as `u8` (same size as `c_char`).
        unsafe { slice::from_raw_parts(inlined.as_ptr().cast::<u8>(), len) }
    } else {
        // SAFETY: a longer string is `len` bytes at `ptr`, in the vector's string heap, which
        // outlives the call.
        unsafe { slice::from_raw_parts(string.value.pointer.ptr.cast::<u8>().cast_const(), len) }
    }
}

/// A BIGINT vector's values, `None` where NULL.
///
/// # Safety
/// `vector` is a flat BIGINT vector of the running call with `rows` rows.
pub unsafe fn integers(vector: duckdb_vector, rows: usize) -> Vec<Option<i64>> {
    // SAFETY: a flat BIGINT vector's data is `rows` `i64`s (the caller's contract).
    unsafe { flat(vector, rows, |n: &i64| *n) }
}

/// Marks row `row` of `vector` NULL.
///
/// # Safety
/// `vector` is the result vector of the running call and `row` one of its rows.
unsafe fn set_null(vector: duckdb_vector, row: usize) {
    // SAFETY: the caller's contract; a writable mask exists after the first call.
    unsafe {
        duckdb_vector_ensure_validity_writable(vector);
        duckdb_validity_set_row_invalid(duckdb_vector_get_validity(vector), row as u64);
    }
}

/// Writes `value` as row `row` of a VARCHAR vector (DuckDB copies it into the vector's heap).
///
/// # Safety
/// `vector` is a VARCHAR vector of the running call with room for row `row`.
unsafe fn set_string(vector: duckdb_vector, row: usize, value: &[u8]) {
    // SAFETY: the caller's contract; DuckDB reads `value.len()` bytes at its pointer.
    unsafe {
        duckdb_vector_assign_string_element_len(
            vector,
            row as u64,
            value.as_ptr().cast::<c_char>(),
            value.len() as u64,
        );
    }
}

/// Writes `extract_between_first`'s answer into its VARCHAR result.
///
/// # Safety
/// `result` is the VARCHAR result vector of the running call, with room for `rows.len()`.
pub unsafe fn write_strings(result: duckdb_vector, rows: &[Option<&[u8]>]) {
    for (row, value) in rows.iter().enumerate() {
        match value {
            // SAFETY: the caller's contract.
            Some(value) => unsafe { set_string(result, row, value) },
            // SAFETY: the caller's contract.
            None => unsafe { set_null(result, row) },
        }
    }
}

/// Writes `extract_between_all`'s answer into its `VARCHAR[]` result: each row a range of
/// `matches`, or NULL.
///
/// # Safety
/// `result` is the `VARCHAR[]` result vector of the running call, with room for
/// `rows.len()` rows.
pub unsafe fn write_lists(
    result: duckdb_vector,
    rows: &[Option<Range<usize>>],
    matches: &[&[u8]],
) -> Result<(), &'static str> {
    // SAFETY: the caller's contract: a LIST vector, whose child is its VARCHAR elements.
    let base = unsafe { duckdb_list_vector_get_size(result) } as usize;
    let size = (base + matches.len()) as u64;
    // SAFETY: as above; reserving grows the child vector to hold `size` elements.
    if unsafe { duckdb_list_vector_reserve(result, size) } != DuckDBSuccess
        // SAFETY: as above, within the capacity just reserved.
        || unsafe { duckdb_list_vector_set_size(result, size) } != DuckDBSuccess
    {
        return Err("DuckDB could not make room for the matches");
    }
    // SAFETY: the child, fetched after the reserve (which may have replaced its buffer).
    let child = unsafe { duckdb_list_vector_get_child(result) };
    for (at, value) in matches.iter().enumerate() {
        // SAFETY: `base + at < size`, the child's reserved length.
        unsafe { set_string(child, base + at, value) };
    }
    // SAFETY: a LIST vector's data is one `duckdb_list_entry` a row, `rows.len()` of them.
    let entries = unsafe { duckdb_vector_get_data(result) }.cast::<duckdb_list_entry>();
    for (row, range) in rows.iter().enumerate() {
        // A NULL row gets an empty entry too, so that nothing reads a stale one.
        let range = range.clone().unwrap_or(0..0);
        let entry = duckdb_list_entry {
            offset: (base + range.start) as u64,
            length: range.len() as u64,
        };
        // SAFETY: `row < rows.len()`, within the vector's entries.
        unsafe { entries.add(row).write(entry) };
        if rows[row].is_none() {
            // SAFETY: the caller's contract.
            unsafe { set_null(result, row) };
        }
    }
    Ok(())
}
