//! The input buffer every call reads: JavaScript asks for room, writes the text's UTF-8 into
//! WebAssembly memory at the address it gets (`TextEncoder.encodeInto`), then calls a scan
//! with the length it wrote. One buffer for the whole module: WebAssembly here runs one call
//! at a time.

use std::cell::RefCell;
use wasm_bindgen::prelude::*;

/// A buffer this large or larger is given back when a call needs a quarter of it or less:
/// one huge text does not keep its memory for the small ones after it.
const SHRINK_FROM: usize = 16 << 20;

thread_local! {
    static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Room for `capacity` bytes of input, keeping the first `keep` bytes written so far;
/// answers the buffer's address in WebAssembly memory (valid until the next call that may
/// grow memory), or 0 when the module's memory cannot hold that many (JavaScript then
/// refuses the input; an allocation failure would abort the module).
///
/// ```
/// let at = extract_between_js::input::reserve(0, 16);
/// assert_ne!(at, 0);
/// ```
#[wasm_bindgen(js_name = reserveInput)]
pub fn reserve(keep: usize, capacity: usize) -> usize {
    INPUT.with_borrow_mut(|buf| {
        if buf.len() >= SHRINK_FROM && capacity <= buf.len() / 4 {
            buf.truncate(keep.min(capacity));
            buf.shrink_to(capacity);
        }
        if buf.len() < capacity {
            if buf.try_reserve_exact(capacity - buf.len()).is_err() {
                return 0;
            }
            buf.resize(capacity, 0);
        }
        buf.as_ptr() as usize
    })
}

/// Runs `f` on the first `len` bytes of the input buffer (fewer if it is shorter).
pub fn with<R>(len: usize, f: impl FnOnce(&[u8]) -> R) -> R {
    INPUT.with_borrow(|buf| f(&buf[..len.min(buf.len())]))
}

/// Copies `bytes` into the input buffer (for Rust callers and the tests; JavaScript writes
/// into it directly).
///
/// ```
/// extract_between_js::input::fill(b"[a]");
/// assert_eq!(extract_between_js::input::with(3, |b| b.to_vec()), b"[a]");
/// ```
pub fn fill(bytes: &[u8]) {
    reserve(0, bytes.len());
    INPUT.with_borrow_mut(|buf| buf[..bytes.len()].copy_from_slice(bytes));
}
