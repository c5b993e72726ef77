//! What went wrong, as JavaScript's error classes need it: a code, the field or offsets, and
//! the library's own words for the message.

use extract_between::batch::TooLarge;
use extract_between::rows::RowErrorKind;
use extract_between::{MarkerError, Pos, ScanError};
use wasm_bindgen::prelude::*;

/// Why a marker pair, a text or a scan was refused; JavaScript turns it into `InvalidInput`,
/// `UnclosedStartMarker` or `MatchTooLarge`.
#[wasm_bindgen]
#[derive(Clone, Debug)]
pub struct Problem {
    code: &'static str,
    field: Option<&'static str>,
    message: String,
    at: Pos,
}

#[wasm_bindgen]
impl Problem {
    /// `"invalid_input"`, `"unclosed_start_marker"`, `"invalid_utf8"` or `"match_too_large"`.
    #[wasm_bindgen(getter)]
    pub fn code(&self) -> String {
        self.code.to_string()
    }

    /// The input field at fault, for `invalid_input`.
    #[wasm_bindgen(getter)]
    pub fn field(&self) -> Option<String> {
        self.field.map(str::to_string)
    }

    /// The message, in the library's words.
    #[wasm_bindgen(getter)]
    pub fn message(&self) -> String {
        self.message.clone()
    }

    /// The UTF-16 offset the problem names (the unclosed marker's, the long match's).
    #[wasm_bindgen(getter)]
    pub fn offset(&self) -> f64 {
        self.at.utf16 as f64
    }

    /// The byte offset the problem names.
    #[wasm_bindgen(getter, js_name = byteOffset)]
    pub fn byte_offset(&self) -> f64 {
        self.at.byte as f64
    }
}

impl Problem {
    /// A marker the card refuses.
    pub fn marker(e: &MarkerError) -> Problem {
        Problem {
            code: "invalid_input",
            field: Some(e.which().field()),
            message: e.to_string(),
            at: Pos::default(),
        }
    }

    /// A text longer than the card's limit (`len` UTF-8 bytes).
    pub fn text_too_long(len: usize) -> Problem {
        let e = extract_between::ExtractError::TextTooLong {
            len,
            limit: extract_between::card::MAX_TEXT_BYTES,
        };
        Problem {
            code: "invalid_input",
            field: Some("text"),
            message: e.to_string(),
            at: Pos::default(),
        }
    }

    /// A row or a scan that stopped.
    pub fn row(kind: RowErrorKind) -> Problem {
        let (code, at) = match kind {
            RowErrorKind::Unclosed(at) => ("unclosed_start_marker", at),
            RowErrorKind::InvalidUtf8(byte) => ("invalid_utf8", Pos { byte, utf16: 0 }),
        };
        Problem {
            code,
            field: None,
            message: kind.to_string(),
            at,
        }
    }

    /// The scanner's error.
    pub fn scan(e: ScanError) -> Problem {
        match e {
            ScanError::Unclosed { marker } => Problem::row(RowErrorKind::Unclosed(marker)),
            ScanError::InvalidUtf8 { offset, .. } => {
                Problem::row(RowErrorKind::InvalidUtf8(offset))
            }
        }
    }

    /// A match grew past `maxMatchBytes`, or (`ceiling`) past the most the module holds.
    pub fn too_large(big: TooLarge, ceiling: bool) -> Problem {
        let message = if ceiling {
            format!(
                "{big}, the most one match can hold in the WebAssembly module (maxMatchBytes asked for more, or for no limit)"
            )
        } else {
            big.naming("maxMatchBytes").to_string()
        };
        Problem {
            code: "match_too_large",
            field: None,
            message,
            at: big.start,
        }
    }
}

/// The problem of a text of `len` UTF-8 bytes passed where the card's limit holds.
///
/// ```
/// let p = extract_between_js::problem::text_too_long(300_000.0);
/// assert_eq!(p.field().as_deref(), Some("text"));
/// ```
#[wasm_bindgen(js_name = textTooLong)]
pub fn text_too_long(len: f64) -> Problem {
    Problem::text_too_long(len as usize)
}

/// The problem of a start marker at UTF-16 offset `utf16` (byte offset `byte`) with no end
/// marker after it: what JavaScript throws when it searched the string itself.
///
/// ```
/// let p = extract_between_js::problem::unclosed_at(2.0, 3.0);
/// assert_eq!(p.message(), "unclosed start marker at UTF-16 offset 2 (byte offset 3)");
/// ```
#[wasm_bindgen(js_name = unclosedAt)]
pub fn unclosed_at(utf16: f64, byte: f64) -> Problem {
    let at = Pos {
        byte: byte as u64,
        utf16: utf16 as u64,
    };
    Problem::row(RowErrorKind::Unclosed(at))
}
