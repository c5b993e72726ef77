//! The native half of the Spark SQL functions `extract_between_all` and
//! `extract_between_first`: the JVM half (`spark/java/`, class
//! `io.github.extractbetween.spark.Native`) hands a row's UTF-8 bytes over JNI and gets the
//! matches back as byte offsets into them. The engine is the library's scanner, one per
//! thread and marker pair ([`rows`]); nothing of the card is written again in Java.
//!
//! Each function here copies what it reads out of Java arrays and what it writes into them
//! through the `jni` crate's safe calls, and turns a failure or a panic into a Java
//! `RuntimeException` instead of unwinding into the JVM.

// No `unsafe` here: every JNI call goes through the jni crate's safe API.
#![deny(unsafe_code)]

pub mod rows;

use jni::errors::ThrowRuntimeExAndDefault;
use jni::objects::{JByteArray, JClass, JIntArray};
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, EnvUnowned, jni_mangle};
use std::cell::RefCell;
use std::fmt;

/// Why a native call failed: a JNI call, or the engine (a row past 2 GiB, a bad id).
#[derive(Debug)]
enum NativeFailure {
    Jni(jni::errors::Error),
    Engine(String),
}

impl fmt::Display for NativeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NativeFailure::Jni(e) => write!(f, "JNI: {e}"),
            NativeFailure::Engine(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for NativeFailure {}

impl From<jni::errors::Error> for NativeFailure {
    fn from(e: jni::errors::Error) -> Self {
        NativeFailure::Jni(e)
    }
}

impl From<String> for NativeFailure {
    fn from(e: String) -> Self {
        NativeFailure::Engine(e)
    }
}

thread_local! {
    /// The row being scanned, copied out of its Java array (reused from row to row).
    static ROW: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The answer being written (reused from row to row).
    static ANSWER: RefCell<Vec<i32>> = const { RefCell::new(Vec::new()) };
}

/// The bytes of `array` from `offset`, `len` of them, into `buf`.
fn read(
    env: &Env<'_>,
    array: &JByteArray<'_>,
    offset: jint,
    len: jint,
    buf: &mut Vec<u8>,
) -> Result<(), NativeFailure> {
    let len = usize::try_from(len).map_err(|_| format!("a negative length {len}"))?;
    // Every byte is overwritten below: the buffer is zero-filled only where it grows.
    buf.resize(len, 0);
    array.get_region(env, offset, bytemuck::cast_slice_mut(buf.as_mut_slice()))?;
    Ok(())
}

/// The two marker arrays' bytes.
fn marker_bytes(
    env: &Env<'_>,
    start: &JByteArray<'_>,
    end: &JByteArray<'_>,
) -> Result<(Vec<u8>, Vec<u8>), NativeFailure> {
    Ok((env.convert_byte_array(start)?, env.convert_byte_array(end)?))
}

/// `Native.check(start, end)`: `null` when the markers are the card's, else why not, as
/// UTF-8 bytes.
#[jni_mangle("io.github.extractbetween.spark.Native")]
pub fn check<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    start: JByteArray<'l>,
    end: JByteArray<'l>,
) -> JByteArray<'l> {
    env.with_env(|env| -> Result<JByteArray<'l>, NativeFailure> {
        let (start, end) = marker_bytes(env, &start, &end)?;
        match rows::markers(&start, &end) {
            Ok(_) => Ok(JByteArray::default()),
            Err(why) => Ok(env.byte_array_from_slice(why.as_bytes())?),
        }
    })
    .resolve::<ThrowRuntimeExAndDefault>()
}

/// The bytes of `array`, `None` for Java's `null`.
fn nullable(env: &Env<'_>, array: &JByteArray<'_>) -> Result<Option<Vec<u8>>, NativeFailure> {
    if array.is_null() {
        return Ok(None);
    }
    Ok(Some(env.convert_byte_array(array)?))
}

/// `Native.checkOptions(capType, capGiven, cap, policyType, policy)`: `null` when the
/// options are the library's, else why not (UTF-8). `capType` or `policyType`, when not
/// `null`, name the SQL type of an argument that cannot be the option.
#[jni_mangle("io.github.extractbetween.spark.Native")]
pub fn check_options<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    cap_type: JByteArray<'l>,
    cap_given: jboolean,
    cap: jlong,
    policy_type: JByteArray<'l>,
    policy: JByteArray<'l>,
) -> JByteArray<'l> {
    env.with_env(|env| -> Result<JByteArray<'l>, NativeFailure> {
        let text = |bytes: Option<Vec<u8>>| bytes.map(|b| String::from_utf8_lossy(&b).into_owned());
        let cap_type = text(nullable(env, &cap_type)?);
        let policy_type = text(nullable(env, &policy_type)?);
        let policy = nullable(env, &policy)?;
        let cap = cap_given.then_some(cap);
        match rows::check_options(
            cap_type.as_deref(),
            cap,
            policy_type.as_deref(),
            policy.as_deref(),
        ) {
            None => Ok(JByteArray::default()),
            Some(why) => Ok(env.byte_array_from_slice(why.as_bytes())?),
        }
    })
    .resolve::<ThrowRuntimeExAndDefault>()
}

/// `Native.options(capGiven, cap, policy)`: checked options as the rows carry them to
/// [`register`] (a string only the native side reads).
#[jni_mangle("io.github.extractbetween.spark.Native")]
pub fn options<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    cap_given: jboolean,
    cap: jlong,
    policy: JByteArray<'l>,
) -> JByteArray<'l> {
    env.with_env(|env| -> Result<JByteArray<'l>, NativeFailure> {
        let policy = nullable(env, &policy)?;
        let written = rows::options(cap_given.then_some(cap), policy.as_deref())?;
        Ok(env.byte_array_from_slice(written.as_bytes())?)
    })
    .resolve::<ThrowRuntimeExAndDefault>()
}

/// `Native.register(start, end, options)`: the id of a valid marker pair under options
/// [`options`] wrote, in this process.
#[jni_mangle("io.github.extractbetween.spark.Native")]
pub fn register<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    start: JByteArray<'l>,
    end: JByteArray<'l>,
    options: JByteArray<'l>,
) -> jint {
    env.with_env(|env| -> Result<jint, NativeFailure> {
        let (start, end) = marker_bytes(env, &start, &end)?;
        let options = env.convert_byte_array(&options)?;
        Ok(rows::register(&start, &end, &options)?)
    })
    .resolve::<ThrowRuntimeExAndDefault>()
}

/// A thread's row and answer buffers keep at most this many bytes between rows: a huge row
/// gives back what it took.
const KEPT_BYTES: usize = 1 << 20;

/// `Native.scan(id, text, offset, length, out)`: the row `text[offset..offset + length]`
/// scanned with the markers and options of `id`. The answer, in the layout of [`rows::HEADER`],
/// goes into `out` when it fits, else into a new array sized for it; the array that holds it
/// is returned.
#[jni_mangle("io.github.extractbetween.spark.Native")]
#[allow(clippy::too_many_arguments)]
pub fn scan<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    id: jint,
    text: JByteArray<'l>,
    offset: jint,
    length: jint,
    out: JIntArray<'l>,
) -> JIntArray<'l> {
    env.with_env(|env| -> Result<JIntArray<'l>, NativeFailure> {
        ROW.with_borrow_mut(|row| {
            read(env, &text, offset, length, row)?;
            ANSWER.with_borrow_mut(|answer| {
                let scanned = rows::scan(id, row, answer);
                let result = scanned.map_err(NativeFailure::from).and_then(|_| {
                    let into = if answer.len() <= out.len(env)? {
                        out
                    } else {
                        env.new_int_array(answer.len())?
                    };
                    into.set_region(env, 0, answer)?;
                    Ok(into)
                });
                if row.capacity() > KEPT_BYTES {
                    *row = Vec::new();
                }
                if answer.capacity() * size_of::<i32>() > KEPT_BYTES {
                    *answer = Vec::new();
                }
                result
            })
        })
    })
    .resolve::<ThrowRuntimeExAndDefault>()
}

/// `Native.message()`: the message of the row that last stopped a query on this thread (the
/// scan that answered the error kept it), as UTF-8 bytes.
#[jni_mangle("io.github.extractbetween.spark.Native")]
pub fn message<'l>(mut env: EnvUnowned<'l>, _class: JClass<'l>) -> JByteArray<'l> {
    env.with_env(|env| -> Result<JByteArray<'l>, NativeFailure> {
        let message = rows::message()?;
        Ok(env.byte_array_from_slice(message.as_bytes())?)
    })
    .resolve::<ThrowRuntimeExAndDefault>()
}
