//! Extract the exact text between a literal start marker and a literal end marker, left to
//! right and without overlap, with the semantics of the tool card `text-extract-between`
//! 1.0.0 (shipped as [`card::CARD_JSON`]).
//!
//! - [`extract`] / [`Extractor`]: one-shot on a `&str`, borrowed matches, the card's limits.
//! - [`Scanner`]: the resumable, sans-IO core. Feed it bytes in chunks of any size; it reports
//!   matches to a [`Sink`] as fragments, holding at most a marker's length of carry-over.
//!   [`Capped`] adds the card's `max_matches`/`truncated` rule to any sink.
//! - [`events`]: a match's life as the text arrives (`open`, `text` pieces, `close`), for
//!   token streams: what is inside a match is seen before its end marker comes.
//! - [`tags`]: several marker pairs in one pass, and the text outside them (a model's reply
//!   split into reasoning, tool calls and answer as it streams).
//! - [`rows`]: one row at a time under a cap and an unclosed-marker policy, its matches as
//!   byte ranges: what every host of the engine (Arrow columns, polars, Spark, DuckDB) calls.
//! - `request` (feature `json`): the card's JSON contract, shared by every front end.
//! - `stream` and `codec` (features of the same names): a `futures` `Stream` of matches over
//!   chunks of `Bytes` or any `AsyncRead`, and a tokio-util `Decoder` for `FramedRead`; a
//!   match inside one chunk shares its memory.
//!
//! With `default-features = false` the crate depends on memchr alone; the default feature
//! `simdutf8` makes the scanner's general path validate UTF-8 with SIMD.
//!
//! The card speaks of UTF-16 code units; the scanner searches UTF-8 bytes, which finds exactly
//! the same matches for valid Unicode text (see [`scanner`]), and reports offsets in both.
//!
//! ```
//! let out = extract_between::extract("pre[one]mid[two]post", "[", "]").unwrap();
//! assert_eq!(out.matches, ["one", "two"]);
//! ```
// `unsafe` lives in `kernels` alone (see its module documentation).
// docs.rs builds with every feature and `--cfg docsrs`: items then say which feature they need.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod batch;
pub mod card;
#[cfg(feature = "codec")]
pub mod codec;
mod collect;
pub mod events;
mod extract;
#[allow(unsafe_code)]
mod kernels;
mod markers;
#[cfg(feature = "json")]
pub mod request;
/// Not public API: the JSON writers this crate's contract and the `extract-between-cli`
/// crate share (its NDJSON lines, MCP results). They may change in any release, minor or
/// patch; write JSON with `serde_json` instead.
#[cfg(feature = "json")]
#[doc(hidden)]
pub mod __private {
    pub use crate::request::write::{
        push_json_bytes, push_json_escaped, push_json_string, push_offsets,
    };
}
pub mod rows;
pub mod scanner;
#[cfg(feature = "stream")]
pub mod stream;
#[cfg(feature = "tags")]
pub mod tags;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod testing;
// UTF-8 facts the scanner relies on: public for the tests and benches alone.
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod utf8;
#[cfg(not(feature = "testing"))]
mod utf8;

pub use collect::{Capped, Collect, Collected};
pub use extract::{ExtractError, Extracted, Extractor, extract};
pub use markers::{MarkerError, Markers, Which};
pub use scanner::{Pos, ScanError, Scanner, Sink};

/// This crate's README examples, run as doctests so they stay true (one uses `request`).
#[cfg(all(doctest, feature = "json", feature = "tags"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
