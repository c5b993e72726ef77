//! The WebAssembly half of the npm package `extract-between` (the JavaScript half is
//! `js/lib/`). It is a thin adapter over the library: strings arrive as UTF-8 bytes in one
//! shared input buffer that JavaScript fills with `TextEncoder.encodeInto`, answers leave as
//! flat numbers in buffers JavaScript reads in place, so a call crosses the boundary with a
//! few integers and never copies a string through wasm-bindgen's glue.
//!
//! - [`input`]: the shared input buffer.
//! - [`once`]: [`once::Pair`], a marker pair prepared once for one-shot texts (`extract`,
//!   `findAll`), over the library's row API.
//! - [`stream`]: [`stream::Stream`], the resumable scanner (`Scanner`, `extractStream`),
//!   matches or events.
//! - [`problem`]: how a marker pair or a scan went wrong, in the library's words.

pub mod input;
pub mod once;
pub mod problem;
pub mod stream;

use wasm_bindgen::prelude::*;

/// The module's WebAssembly memory, which JavaScript reads the answers from in place.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn memory() -> JsValue {
    wasm_bindgen::memory()
}
