//! The DuckDB extension `extract_between`: `LOAD` it into any DuckDB (1.2.0 or newer, any
//! client: the CLI, Python, Node, R, Java, Go) and SQL has
//!
//! - `extract_between_all(text, start, end[, max_matches[, on_unclosed]])` → `VARCHAR[]`,
//!   every text between a literal `start` and `end` marker, left to right, non-overlapping
//!   (`max_matches` NULL or left out: no cap);
//! - `extract_between_first(text, start, end[, on_unclosed])` → `VARCHAR`, the first (NULL
//!   where none).
//!
//! A NULL text, start or end answers NULL; `on_unclosed` is `'raise'` (the default, and what
//! NULL means), `'null'` or `'partial'`. An unclosed start marker under `'raise'` fails the
//! query with the card's error, naming the row within the vector DuckDB handed over and the
//! offsets:
//!
//! ```sql
//! LOAD 'extract_between.duckdb_extension';
//! SELECT extract_between_all('pre[one]mid[two]post', '[', ']');  -- [one, two]
//! SELECT extract_between_first(html, '<title>', '</title>') FROM 'pages/*.parquet';
//! ```
//!
//! `bash duckdb/build.sh` builds the file; DuckDB loads it where the database allows unsigned
//! extensions (`allow_unsigned_extensions`) until it is in DuckDB's community repository.
//!
//! The crate is the seam ([`capi`], the only `unsafe` code: DuckDB's C extension API through
//! its stable function table) and the rows' answers ([`answer`], through the library's
//! [`RowScanner`](extract_between::rows::RowScanner)).
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod answer;
#[allow(unsafe_code)]
pub mod capi;
pub mod error;
pub mod function;
