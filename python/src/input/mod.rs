//! Every entry point's arguments, checked in one place (pydantic-core's `input/` is the
//! model): text and markers (`text`), numbers (`numbers`), choices (`options`). Each check
//! raises the error the package promises for that argument, naming it.

mod numbers;
mod options;
mod text;

pub use numbers::{
    DEFAULT_MAX_MATCH_BYTES, card_max_matches, column_cap, integer, max_match_bytes,
};
pub use options::{Given, on_unclosed};
pub use text::{
    Chunk, as_str, chunk_arg, copy_bytes, is_ascii, marker_arg, markers, text_arg, utf8_arg,
};
