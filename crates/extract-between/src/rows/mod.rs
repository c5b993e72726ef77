//! One row at a time: the job every host of the engine shares (Arrow columns, the polars
//! plugin, Spark's JNI library, a DuckDB extension, the JavaScript package).
//!
//! A host converts its strings to bytes, asks a [`RowScanner`] for a row's matches as byte
//! ranges of the row, and builds its own answer from them: it never implements [`Sink`],
//! counts UTF-16 units or words the card's error itself. The whole row contract is here, so
//! that a change to it is one change:
//!
//! - the options as every host hands them over, parsed once into [`RowOptions`] (a cap with
//!   the card's rule for the one extra match that decides `truncated`, an [`OnUnclosed`]
//!   policy), a refusal worded once in each host's [`Spelling`];
//! - a row that stops the column answers a [`RowError`]: its words, its class
//!   ([`RowError::class`], what every host raises) and where the row lies ([`RowPlace`]);
//! - the SQL functions the engines register, described once in [`sql`].
//!
//! `testdata/rows.json` in the repository holds the vectors every host runs.
//!
//! # Reuse
//!
//! A `RowScanner` holds one marker pair's finders and is rewound for each row: scanning
//! millions of rows allocates nothing after the first (the `spans` buffer is the caller's, to
//! clear and reuse). It is `Send` and `Clone`: a host with threads clones one per thread
//! (cloning copies the finders, no search table is rebuilt), never shares one.
//!
//! ```
//! use extract_between::Markers;
//! use extract_between::rows::{OnUnclosed, RowAnswer, RowOptions, RowScanner};
//!
//! let markers = Markers::new("[", "]").unwrap();
//! let options = RowOptions::parse(Some(2), Some(b"null".as_slice())).unwrap();
//! let mut rows = RowScanner::new(&markers, options);
//! let mut spans = Vec::new();
//! for row in ["a[one]b[two]c[three]", "[open", "none"] {
//!     spans.clear();
//!     match rows.scan(row.as_bytes(), &mut spans) {
//!         Ok(RowAnswer::Matches { truncated }) => {
//!             let found: Vec<&str> = spans.iter().map(|s| &row[s.clone()]).collect();
//!             println!("{found:?} truncated={truncated}");
//!         }
//!         Ok(RowAnswer::Null) => println!("null"),
//!         Err(e) => println!("{e}"),
//!     }
//! }
//! ```

mod error;
mod options;
pub mod sql;

pub use error::{RowError, RowErrorKind, RowPlace};
pub use options::{OnUnclosed, OptionError, RowOption, RowOptions, Spelling};

use crate::{Capped, Markers, Pos, ScanError, Scanner, Sink};
use core::ops::{ControlFlow, Range};

/// What a scanned row answers (its matches are the byte ranges [`RowScanner::scan`]
/// appended).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowAnswer {
    /// The row's matches: every one, or the first `max_matches` (`truncated` when a further
    /// complete match exists), or under [`OnUnclosed::Partial`] those before an unclosed
    /// start marker.
    Matches {
        /// A further complete match exists past the cap.
        truncated: bool,
    },
    /// Null: an unclosed start marker under [`OnUnclosed::Null`] (nothing was appended).
    Null,
}

/// A marker pair's scanner for rows, with [`RowOptions`] (a cap and an [`OnUnclosed`]
/// policy); rewound for each row (see the [module documentation](self)).
#[derive(Clone, Debug)]
pub struct RowScanner {
    scanner: Scanner,
    options: RowOptions,
}

impl RowScanner {
    /// A scanner for rows of `markers` under `options`.
    pub fn new(markers: &Markers, options: RowOptions) -> Self {
        RowScanner {
            scanner: Scanner::new(markers),
            options,
        }
    }

    /// The options of the rows scanned from now on (a host whose options vary by row keeps
    /// one scanner per marker pair and sets them before each row).
    pub fn set_options(&mut self, options: RowOptions) {
        self.options = options;
    }

    /// The options rows are scanned under.
    pub fn options(&self) -> RowOptions {
        self.options
    }

    /// Scans `row`, appending each match's content as a byte range of `row` to `spans` (in
    /// order; ranges fall on character boundaries). On a row that stops the column, the
    /// matches before the error stay appended (every door delivers them with the error, and
    /// none scans the row again for them); a row that answers null appends nothing.
    ///
    /// ```
    /// use extract_between::Markers;
    /// use extract_between::rows::{RowOptions, RowScanner};
    ///
    /// let mut rows = RowScanner::new(&Markers::new("[", "]").unwrap(), RowOptions::default());
    /// let mut spans = Vec::new();
    /// let row = "[a] [b] [open";
    /// assert!(rows.scan(row.as_bytes(), &mut spans).is_err());
    /// assert_eq!(spans.iter().map(|s| &row[s.clone()]).collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    ///
    /// # Errors
    ///
    /// [`RowError`] for an unclosed start marker under [`OnUnclosed::Raise`], and for a row
    /// that is not UTF-8 under any policy.
    pub fn scan(
        &mut self,
        row: &[u8],
        spans: &mut Vec<Range<usize>>,
    ) -> Result<RowAnswer, RowError> {
        self.scan_in::<false>(row, spans)
    }

    /// [`scan`](Self::scan), appending each match's content as a range of UTF-16 code units
    /// of the row: what a host whose strings are UTF-16 (JavaScript's, Java's) slices its own
    /// string with. The units are counted in the scan's one pass.
    ///
    /// ```
    /// use extract_between::Markers;
    /// use extract_between::rows::{RowOptions, RowScanner};
    ///
    /// let row = "😀[é] [x]";
    /// let mut rows = RowScanner::new(&Markers::new("[", "]").unwrap(), RowOptions::default());
    /// let mut spans = Vec::new();
    /// rows.scan_utf16(row.as_bytes(), &mut spans).unwrap();
    /// assert_eq!(spans, [3..4, 7..8]);
    /// ```
    ///
    /// # Errors
    ///
    /// As [`scan`](Self::scan).
    pub fn scan_utf16(
        &mut self,
        row: &[u8],
        spans: &mut Vec<Range<usize>>,
    ) -> Result<RowAnswer, RowError> {
        self.scan_in::<true>(row, spans)
    }

    /// [`scan`](Self::scan) in byte or UTF-16 ranges (a constant, so that each scan is
    /// compiled for its sink).
    fn scan_in<const UTF16: bool>(
        &mut self,
        row: &[u8],
        spans: &mut Vec<Range<usize>>,
    ) -> Result<RowAnswer, RowError> {
        match self.scan_pieces::<UTF16>(row, spans, row.len(), || true) {
            Some(answer) => answer,
            // Asked between pieces only, and a row in one piece has none between.
            None => Ok(RowAnswer::Null),
        }
    }

    /// [`scan`](Self::scan), fed `piece` bytes at a time with `go_on` asked between pieces:
    /// `None` (and nothing appended) when it answers `false`, so that a host can stop a
    /// huge row when its user interrupts.
    ///
    /// ```
    /// use extract_between::Markers;
    /// use extract_between::rows::{RowOptions, RowScanner};
    ///
    /// let mut rows = RowScanner::new(&Markers::new("[", "]").unwrap(), RowOptions::default());
    /// let mut spans = Vec::new();
    /// assert!(rows.scan_in_pieces(b"[a] [b]", &mut spans, 2, || false).is_none());
    /// assert!(spans.is_empty());
    /// ```
    pub fn scan_in_pieces(
        &mut self,
        row: &[u8],
        spans: &mut Vec<Range<usize>>,
        piece: usize,
        go_on: impl FnMut() -> bool,
    ) -> Option<Result<RowAnswer, RowError>> {
        self.scan_pieces::<false>(row, spans, piece, go_on)
    }

    /// The one scan of a row behind [`scan`](Self::scan), [`scan_utf16`](Self::scan_utf16)
    /// and [`scan_in_pieces`](Self::scan_in_pieces): rewound, capped, fed `piece` bytes at a
    /// time (`go_on` asked between pieces), finished, and answered under the policy.
    fn scan_pieces<const UTF16: bool>(
        &mut self,
        row: &[u8],
        spans: &mut Vec<Range<usize>>,
        piece: usize,
        mut go_on: impl FnMut() -> bool,
    ) -> Option<Result<RowAnswer, RowError>> {
        let before = spans.len();
        self.scanner.reset();
        let mut sink = Capped::new(
            Spans::<UTF16> {
                spans: &mut *spans,
                open: 0,
            },
            self.options.max_matches.map_or(u64::MAX, |n| n.get()),
        );
        let mut fed = Ok(ControlFlow::Continue(()));
        let piece = piece.max(1);
        let many = row.len() > piece;
        for part in row.chunks(piece) {
            if many && !go_on() {
                spans.truncate(before);
                return None;
            }
            fed = self.scanner.feed(part, &mut sink);
            if !matches!(fed, Ok(ControlFlow::Continue(()))) {
                break;
            }
        }
        let outcome = fed.and_then(|_| self.scanner.finish(&mut sink));
        let truncated = sink.truncated();
        Some(self.answer(row, spans, before, outcome, truncated))
    }

    /// A scanned row's answer under the policy; what it appended past `before` is taken back
    /// where the row answers null, and kept with an error (the matches before it).
    #[inline]
    fn answer(
        &self,
        row: &[u8],
        spans: &mut Vec<Range<usize>>,
        before: usize,
        outcome: Result<(), ScanError>,
        truncated: bool,
    ) -> Result<RowAnswer, RowError> {
        match (outcome, self.options.on_unclosed) {
            (Ok(()), _) | (Err(ScanError::Unclosed { .. }), OnUnclosed::Partial) => {
                Ok(RowAnswer::Matches { truncated })
            }
            (Err(ScanError::Unclosed { .. }), OnUnclosed::Null) => {
                spans.truncate(before);
                Ok(RowAnswer::Null)
            }
            (Err(ScanError::Unclosed { marker }), OnUnclosed::Raise) => {
                // Rows count no UTF-16 units on the way (a pass over non-ASCII text saved):
                // the error's offset is counted here, once; the text before it was validated.
                let prefix = row.get(..marker.byte as usize).unwrap_or_default();
                let utf16 = core::str::from_utf8(prefix).map_or(0, |s| s.encode_utf16().count());
                let at = Pos {
                    byte: marker.byte,
                    utf16: utf16 as u64,
                };
                Err(RowError::new(RowErrorKind::Unclosed(at), row))
            }
            (Err(ScanError::InvalidUtf8 { offset, .. }), _) => {
                Err(RowError::new(RowErrorKind::InvalidUtf8(offset), row))
            }
        }
    }
}

/// A sink that keeps each closed match's content as a range of its row, in bytes or in
/// UTF-16 units.
/// UTF-16 units (which the scanner then counts) with `UTF16`, bytes without.
struct Spans<'a, const UTF16: bool> {
    spans: &'a mut Vec<Range<usize>>,
    /// Where the open match's content begins.
    open: usize,
}

impl<const UTF16: bool> Spans<'_, UTF16> {
    #[inline(always)]
    fn at(&self, pos: Pos) -> usize {
        (if UTF16 { pos.utf16 } else { pos.byte }) as usize
    }
}

impl<const UTF16: bool> Sink for Spans<'_, UTF16> {
    fn open(&mut self, _marker: Pos, content: Pos) -> ControlFlow<()> {
        self.open = self.at(content);
        ControlFlow::Continue(())
    }

    fn content(&mut self, _fragment: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn close(&mut self, content_end: Pos, _marker_end: Pos) -> ControlFlow<()> {
        let end = self.at(content_end);
        self.spans.push(self.open..end);
        ControlFlow::Continue(())
    }

    fn matched(&mut self, open: [Pos; 2], _content: &[u8], close: [Pos; 2]) -> ControlFlow<()> {
        let range = self.at(open[1])..self.at(close[0]);
        self.spans.push(range);
        ControlFlow::Continue(())
    }

    fn utf16_offsets(&self) -> bool {
        UTF16
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::num::NonZeroU64;

    /// The options of a cap (`None`: none) and a policy.
    fn options(cap: Option<u64>, on_unclosed: OnUnclosed) -> RowOptions {
        RowOptions {
            max_matches: cap.and_then(NonZeroU64::new),
            on_unclosed,
        }
    }

    fn run(row: &str, cap: Option<u64>, policy: OnUnclosed) -> Result<(Vec<&str>, bool), String> {
        let markers = Markers::new("[", "]").unwrap();
        let mut rows = RowScanner::new(&markers, options(cap, policy));
        // A range already there, which the row must leave in place.
        let mut spans = Vec::new();
        spans.push(Range { start: 7, end: 9 });
        match rows.scan(row.as_bytes(), &mut spans) {
            Ok(RowAnswer::Matches { truncated }) => Ok((
                spans[1..].iter().map(|s| &row[s.clone()]).collect(),
                truncated,
            )),
            Ok(RowAnswer::Null) => {
                assert_eq!(spans.len(), 1, "a null row appends nothing");
                Err("null".into())
            }
            Err(e) => {
                // The matches before the error stay: the ones the partial policy answers.
                let kept: Vec<&str> = spans[1..].iter().map(|s| &row[s.clone()]).collect();
                let mut partial = RowScanner::new(&markers, options(cap, OnUnclosed::Partial));
                let mut before = Vec::new();
                partial.scan(row.as_bytes(), &mut before).unwrap();
                let expected: Vec<&str> = before.iter().map(|s| &row[s.clone()]).collect();
                assert_eq!(
                    kept, expected,
                    "a row that stops keeps the matches before it"
                );
                assert_eq!(spans[0], 7..9);
                Err(e.to_string())
            }
        }
    }

    #[test]
    fn utf16_ranges_slice_the_rows_utf16_units_as_byte_ranges_slice_its_bytes() {
        let markers = Markers::new("<<", "」").unwrap();
        let mut rows = RowScanner::new(&markers, RowOptions::default());
        let pieces = ["a", "é", "😀", "字", "<<", "」", " ", "<"];
        for seed in 0..400usize {
            // Rows of up to 300 bytes, so that the 64-byte block walks run too.
            let row: String = (0..seed % 150)
                .map(|k| pieces[(k * 7 + seed * 13 + k * k) % pieces.len()])
                .collect();
            let (mut bytes, mut units) = (Vec::new(), Vec::new());
            let by_bytes = rows.scan(row.as_bytes(), &mut bytes);
            let by_units = rows.scan_utf16(row.as_bytes(), &mut units);
            assert_eq!(by_bytes.is_ok(), by_units.is_ok(), "{row:?}");
            let wide: Vec<u16> = row.encode_utf16().collect();
            let from_units: Vec<String> = units
                .iter()
                .map(|r| String::from_utf16(&wide[r.clone()]).unwrap())
                .collect();
            let from_bytes: Vec<&str> = bytes.iter().map(|r| &row[r.clone()]).collect();
            assert_eq!(from_units, from_bytes, "{row:?}");
        }
    }

    #[test]
    fn matches_are_byte_ranges_of_the_row_after_what_was_there() {
        assert_eq!(
            run("pre[one]mid[二]post", None, OnUnclosed::Raise),
            Ok((vec!["one", "二"], false))
        );
    }

    #[test]
    fn the_cap_and_truncated_follow_the_card() {
        let raise = OnUnclosed::Raise;
        assert_eq!(run("[a][b][c]", Some(2), raise), Ok((vec!["a", "b"], true)));
        assert_eq!(run("[a][b]", Some(2), raise), Ok((vec!["a", "b"], false)));
        // An unclosed start met looking for the extra match still counts.
        assert!(run("[a][b][c", Some(2), raise).is_err());
        assert_eq!(
            run("[a][b][c][d", Some(2), raise),
            Ok((vec!["a", "b"], true))
        );
    }

    #[test]
    fn each_policy_reads_an_unclosed_row() {
        assert_eq!(
            run("[a] x [b", None, OnUnclosed::Raise),
            Err("unclosed start marker at UTF-16 offset 6 (byte offset 6); the row begins \"[a] x [b\"".into())
        );
        assert_eq!(run("[a] x [b", None, OnUnclosed::Null), Err("null".into()));
        assert_eq!(
            run("[a] x [b", None, OnUnclosed::Partial),
            Ok((vec!["a"], false))
        );
    }

    #[test]
    fn invalid_utf8_stops_the_row_under_every_policy() {
        let markers = Markers::new("[", "]").unwrap();
        for policy in OnUnclosed::ALL {
            let mut rows = RowScanner::new(&markers, options(None, policy));
            let e = rows.scan(b"[a]\xff[b]", &mut Vec::new()).unwrap_err();
            assert_eq!(e.kind(), RowErrorKind::InvalidUtf8(3));
            assert_eq!(e.code(), "invalid_utf8");
            assert_eq!(
                e.to_string(),
                "invalid UTF-8 at byte offset 3; the row begins \"[a]\""
            );
        }
    }

    #[test]
    fn the_excerpt_is_sixty_characters_escaped() {
        let row = format!("\"q\"\n{}", "é".repeat(100));
        let e = RowScanner::new(&Markers::new("é", "]").unwrap(), RowOptions::default())
            .scan(row.as_bytes(), &mut Vec::new())
            .unwrap_err();
        assert_eq!(e.excerpt().chars().count(), RowError::EXCERPT_CHARS + 1);
        assert!(e.excerpt().ends_with('…'));
        assert!(e.to_string().contains("begins \"\\\"q\\\"\\n"), "{e}");
        assert_eq!(e.byte_offset(), 4);
    }

    #[test]
    fn a_row_fed_in_pieces_answers_as_one_and_can_be_stopped() {
        let markers = Markers::new("<<", ">>").unwrap();
        let row = "x<<one>> <<t w o>> <<three".repeat(3);
        for piece in 1..8 {
            let mut rows = RowScanner::new(&markers, options(None, OnUnclosed::Partial));
            let (mut whole, mut cut) = (Vec::new(), Vec::new());
            rows.scan(row.as_bytes(), &mut whole).unwrap();
            let answer = rows.scan_in_pieces(row.as_bytes(), &mut cut, piece, || true);
            assert_eq!(answer, Some(Ok(RowAnswer::Matches { truncated: false })));
            assert_eq!(whole, cut, "piece {piece}");
        }
        let mut asked = 0;
        let mut rows = RowScanner::new(&markers, RowOptions::default());
        let mut spans = Vec::new();
        let stopped = rows.scan_in_pieces(row.as_bytes(), &mut spans, 4, || {
            asked += 1;
            asked < 3
        });
        assert!(stopped.is_none() && spans.is_empty());
    }

    #[test]
    fn policies_have_names() {
        for (i, name) in OnUnclosed::NAMES.iter().enumerate() {
            let policy = OnUnclosed::from_name(name).unwrap();
            assert_eq!((policy as usize, policy.name()), (i, *name));
        }
    }
}
