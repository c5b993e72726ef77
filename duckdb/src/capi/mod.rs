//! The seam with DuckDB: the entry point `LOAD` calls, the functions' registration, and
//! the callback DuckDB calls with each vector. Only this module uses `unsafe`, each block
//! with its argument; everything past the seam is [`answer`](crate::answer), safe code.
//!
//! No panic crosses into DuckDB: the entry point and every call catch it and report it as
//! the load's or the query's error.

mod vectors;

use std::any::Any;
use std::ffi::CString;
use std::panic::{AssertUnwindSafe, catch_unwind};

use libduckdb_sys::{
    DUCKDB_TYPE_DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_DUCKDB_TYPE_VARCHAR, DuckDBSuccess,
    duckdb_add_scalar_function_to_set, duckdb_connect, duckdb_connection, duckdb_create_list_type,
    duckdb_create_logical_type, duckdb_create_scalar_function, duckdb_create_scalar_function_set,
    duckdb_data_chunk, duckdb_data_chunk_get_column_count, duckdb_data_chunk_get_size,
    duckdb_data_chunk_get_vector, duckdb_destroy_logical_type, duckdb_destroy_scalar_function,
    duckdb_destroy_scalar_function_set, duckdb_disconnect, duckdb_extension_access,
    duckdb_extension_info, duckdb_function_info, duckdb_logical_type,
    duckdb_register_scalar_function_set, duckdb_rs_extension_api_init,
    duckdb_scalar_function_add_parameter, duckdb_scalar_function_set_error,
    duckdb_scalar_function_set_function, duckdb_scalar_function_set_name,
    duckdb_scalar_function_set_return_type, duckdb_scalar_function_set_special_handling,
    duckdb_vector,
};

use crate::answer::{self, Args, Firsts, Function, Lists};
use extract_between::rows::sql::SqlType;

/// The oldest C API whose function table the extension needs: every function it calls is
/// in v1.2.0's stable table, so one file loads into every DuckDB from 1.2.0 on.
const C_API_VERSION: &str = "v1.2.0";

/// Set (to anything) when the extension is loaded, this registers
/// `__extract_between_panic(text)`, a function that panics: for the test that a panic
/// becomes the query's error.
pub const PANIC_TEST_VARIABLE: &str = "EXTRACT_BETWEEN_DUCKDB_PANIC_TEST";

/// The entry point DuckDB calls at `LOAD extract_between` (its name is the extension's
/// name, then `_init_c_api`): registers the functions on the database.
///
/// # Safety
/// Called by DuckDB only, with the `info` and `access` of the load under way.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn extract_between_init_c_api(
    info: duckdb_extension_info,
    access: *const duckdb_extension_access,
) -> bool {
    // SAFETY: DuckDB's arguments, passed on unchanged.
    let loaded = catch_unwind(|| unsafe { load(info, access) });
    let error = match loaded {
        Ok(Ok(done)) => return done,
        Ok(Err(e)) => e,
        Err(panic) => format!("extract_between failed to load: {}", panic_text(&*panic)),
    };
    // SAFETY: `access` is DuckDB's, valid during the load.
    if let Some(set_error) = unsafe { (*access).set_error } {
        let error = c_string(&error);
        // SAFETY: DuckDB copies the message before the call returns.
        unsafe { set_error(info, error.as_ptr()) };
    }
    false
}

/// Fetches the function table and registers the functions; `Ok(false)` where this DuckDB
/// offers no table of [`C_API_VERSION`] (DuckDB then says so itself).
///
/// # Safety
/// DuckDB's arguments to the entry point.
unsafe fn load(
    info: duckdb_extension_info,
    access: *const duckdb_extension_access,
) -> Result<bool, String> {
    // SAFETY: DuckDB's arguments; this fills the table every other call goes through.
    if !unsafe { duckdb_rs_extension_api_init(info, access, C_API_VERSION) }? {
        return Ok(false);
    }
    // SAFETY: `access` is DuckDB's, valid during the load.
    let get_database = unsafe { (*access).get_database }.ok_or("DuckDB gave no database")?;
    // SAFETY: as above; the database outlives the load.
    let database = unsafe { get_database(info) };
    if database.is_null() {
        return Ok(false);
    }
    let mut connection: duckdb_connection = core::ptr::null_mut();
    // SAFETY: `database` is the one being loaded into; `connection` is written on success.
    if unsafe { duckdb_connect(*database, &mut connection) } != DuckDBSuccess {
        return Err("extract_between could not connect to the database".into());
    }
    // SAFETY: a connection just opened, closed below whatever the registration answers.
    let registered = unsafe { register(connection) };
    // SAFETY: the connection opened above, not used after.
    unsafe { duckdb_disconnect(&mut connection) };
    registered.map(|()| true)
}

/// A parameter's or result's type.
/// Registers each function the library describes, one overload an arity.
///
/// # Safety
/// `connection` is open.
unsafe fn register(connection: duckdb_connection) -> Result<(), String> {
    for function in Function::BOTH {
        let callback: Callback = match function {
            Function::All => call_all,
            Function::First => call_first,
        };
        let sql = function.sql();
        let overloads: Vec<Vec<SqlType>> = sql
            .overloads()
            .map(|arguments| arguments.iter().map(|a| a.ty).collect())
            .collect();
        // SAFETY: `connection` is open.
        unsafe { register_set(connection, sql.name, callback, &overloads, sql.returns) }?;
    }
    if std::env::var_os(PANIC_TEST_VARIABLE).is_some() {
        let name = "__extract_between_panic";
        // SAFETY: as above.
        unsafe {
            register_set(
                connection,
                name,
                call_panic,
                &[vec![SqlType::Varchar]],
                SqlType::Varchar,
            )
        }?;
    }
    Ok(())
}

type Callback = unsafe extern "C" fn(duckdb_function_info, duckdb_data_chunk, duckdb_vector);

/// Registers `name` with an overload per parameter list, each calling `callback`.
///
/// # Safety
/// `connection` is open.
unsafe fn register_set(
    connection: duckdb_connection,
    name: &str,
    callback: Callback,
    overloads: &[Vec<SqlType>],
    returns: SqlType,
) -> Result<(), String> {
    let name = CString::new(name).map_err(|_| format!("a function name with a NUL: {name:?}"))?;
    // SAFETY: DuckDB copies the name; the set is destroyed below.
    let mut set = unsafe { duckdb_create_scalar_function_set(name.as_ptr()) };
    let mut added = true;
    for parameters in overloads {
        // SAFETY: a new function, given its name, types and callback, copied into the set
        // and then destroyed; every logical type is destroyed after DuckDB copied it.
        unsafe {
            let mut function = duckdb_create_scalar_function();
            duckdb_scalar_function_set_name(function, name.as_ptr());
            for &parameter in parameters {
                let mut logical = logical_type(parameter);
                duckdb_scalar_function_add_parameter(function, logical);
                duckdb_destroy_logical_type(&mut logical);
            }
            let mut logical = logical_type(returns);
            duckdb_scalar_function_set_return_type(function, logical);
            duckdb_destroy_logical_type(&mut logical);
            duckdb_scalar_function_set_function(function, Some(callback));
            // NULLs reach the function: a NULL max_matches means no cap and a NULL
            // on_unclosed 'raise', where DuckDB would otherwise answer NULL for the call.
            duckdb_scalar_function_set_special_handling(function);
            added &= duckdb_add_scalar_function_to_set(set, function) == DuckDBSuccess;
            duckdb_destroy_scalar_function(&mut function);
        }
    }
    // SAFETY: the set built above, destroyed after DuckDB copied it into its catalog.
    let registered =
        added && unsafe { duckdb_register_scalar_function_set(connection, set) } == DuckDBSuccess;
    // SAFETY: as above.
    unsafe { duckdb_destroy_scalar_function_set(&mut set) };
    if registered {
        Ok(())
    } else {
        Err(format!(
            "extract_between could not register {}",
            name.to_string_lossy()
        ))
    }
}

/// A new logical type (the caller destroys it).
///
/// # Safety
/// Called with the function table filled.
unsafe fn logical_type(of: SqlType) -> duckdb_logical_type {
    // SAFETY: plain constructors; the list's element type is destroyed once the list
    // holds its copy.
    unsafe {
        match of {
            SqlType::Varchar => duckdb_create_logical_type(DUCKDB_TYPE_DUCKDB_TYPE_VARCHAR),
            SqlType::Bigint => duckdb_create_logical_type(DUCKDB_TYPE_DUCKDB_TYPE_BIGINT),
            SqlType::VarcharList => {
                let mut element = duckdb_create_logical_type(DUCKDB_TYPE_DUCKDB_TYPE_VARCHAR);
                let list = duckdb_create_list_type(element);
                duckdb_destroy_logical_type(&mut element);
                list
            }
        }
    }
}

/// DuckDB's call of `extract_between_all` with a vector.
unsafe extern "C" fn call_all(
    info: duckdb_function_info,
    input: duckdb_data_chunk,
    output: duckdb_vector,
) {
    // SAFETY: DuckDB's arguments, for a function registered with `call_all`.
    unsafe { call(Function::All, info, input, output) }
}

/// DuckDB's call of `extract_between_first` with a vector.
unsafe extern "C" fn call_first(
    info: duckdb_function_info,
    input: duckdb_data_chunk,
    output: duckdb_vector,
) {
    // SAFETY: as in `call_all`.
    unsafe { call(Function::First, info, input, output) }
}

/// `__extract_between_panic`: panics, for the test that the panic becomes an error.
unsafe extern "C" fn call_panic(
    info: duckdb_function_info,
    _input: duckdb_data_chunk,
    _output: duckdb_vector,
) {
    // SAFETY: DuckDB's `info`; the closure panics before writing anything.
    unsafe { contain(info, || panic!("the panic test function was called")) }
}

/// Answers a vector of `function`; an error or a panic becomes the query's error.
///
/// # Safety
/// DuckDB's arguments to a scalar function's callback: `input` holds the call's arguments,
/// flattened (DuckDB flattens them before calling a C API function), of the types the
/// overload declared; `output` is the result vector, of the declared type, with room for
/// the input's rows. Both live until the callback returns, and nothing else touches them
/// meanwhile.
unsafe fn call(
    function: Function,
    info: duckdb_function_info,
    input: duckdb_data_chunk,
    output: duckdb_vector,
) {
    // SAFETY: `info` is the call's; the contract above is `answer_vector`'s.
    unsafe { contain(info, || answer_vector(function, input, output)) }
}

/// Runs `work`, reporting its error or panic through `info`.
///
/// # Safety
/// `info` is the running call's.
unsafe fn contain(info: duckdb_function_info, work: impl FnOnce() -> Result<(), String>) {
    let message = match catch_unwind(AssertUnwindSafe(work)) {
        Ok(Ok(())) => return,
        Ok(Err(message)) => message,
        Err(panic) => format!(
            "extract_between failed (a bug, please report it): {}",
            panic_text(&*panic)
        ),
    };
    let message = c_string(&message);
    // SAFETY: `info` is the running call's; DuckDB copies the message.
    unsafe { duckdb_scalar_function_set_error(info, message.as_ptr()) };
}

/// Reads the vector's arguments, answers them, writes the answer.
///
/// # Safety
/// The contract of [`call`]. Columns 0-2 are VARCHAR (text, start, end); for
/// `extract_between_all`, column 3 is BIGINT (max_matches) and 4 VARCHAR (on_unclosed); for
/// `extract_between_first`, column 3 is VARCHAR (on_unclosed): the overloads registered.
unsafe fn answer_vector(
    function: Function,
    input: duckdb_data_chunk,
    output: duckdb_vector,
) -> Result<(), String> {
    // SAFETY: `input` is the call's chunk.
    let rows = unsafe { duckdb_data_chunk_get_size(input) } as usize;
    // SAFETY: as above.
    let columns = unsafe { duckdb_data_chunk_get_column_count(input) };
    // SAFETY: a column index below `columns`, each read as the overload's type.
    let column = |i: u64| unsafe { duckdb_data_chunk_get_vector(input, i) };
    // SAFETY: a VARCHAR column of the chunk, flat, of `rows` rows.
    let strings = |i: u64| unsafe { vectors::strings(column(i), rows) };
    let mut args = Args {
        texts: strings(0),
        starts: strings(1),
        ends: strings(2),
        ..Args::default()
    };
    match function {
        Function::All => {
            // SAFETY: column 3 of `extract_between_all` is BIGINT, flat, of `rows` rows.
            args.caps = (columns > 3).then(|| unsafe { vectors::integers(column(3), rows) });
            args.policies = (columns > 4).then(|| strings(4));
            let mut out = Lists::default();
            answer::answer(function, &args, &mut out).map_err(|e| e.to_string())?;
            // SAFETY: `output` is the call's `VARCHAR[]` result with room for `rows`.
            unsafe { vectors::write_lists(output, &out.rows, &out.matches) }
                .map_err(|e| format!("{}: {e}", function.name()))
        }
        Function::First => {
            args.policies = (columns > 3).then(|| strings(3));
            let mut out = Firsts::default();
            answer::answer(function, &args, &mut out).map_err(|e| e.to_string())?;
            // SAFETY: `output` is the call's VARCHAR result with room for `rows`.
            unsafe { vectors::write_strings(output, &out.rows) };
            Ok(())
        }
    }
}

/// A panic's message.
fn panic_text(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message")
}

/// `text` for C, a NUL in it (a row's excerpt may hold one) written `\0`.
fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', "\\0")).unwrap_or_default()
}
