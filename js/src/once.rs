//! [`Pair`]: a marker pair prepared once, for whole texts (`extract`, `findAll`). It scans the
//! input buffer through the library's row API and leaves the matches as UTF-16 ranges in a
//! buffer of `u32` pairs, which JavaScript slices its own string with.

use crate::input;
use crate::problem::Problem;
use extract_between::Markers;
use extract_between::card::MAX_TEXT_BYTES;
use extract_between::rows::{OnUnclosed, RowAnswer, RowOptions, RowScanner};
use std::num::NonZeroU64;
use std::ops::Range;
use wasm_bindgen::prelude::*;

/// A prepared marker pair and its last answer.
///
/// ```
/// use extract_between_js::{input, once::Pair};
/// let mut pair = Pair::new("[", "]");
/// input::fill("é[a] [b]".as_bytes());
/// assert_eq!(pair.scan(10, None, false, false), 2);
/// assert_eq!(pair.ranges(), [2, 3, 6, 7]);
/// ```
#[wasm_bindgen]
pub struct Pair {
    rows: Result<RowScanner, Problem>,
    spans: Vec<Range<usize>>,
    ranges: Vec<u32>,
    truncated: bool,
    problem: Option<Problem>,
}

#[wasm_bindgen]
impl Pair {
    /// The pair `start`, `end`; a pair the card refuses answers its problem on every scan.
    #[wasm_bindgen(constructor)]
    pub fn new(start: &str, end: &str) -> Pair {
        Pair {
            rows: Markers::new(start, end)
                .map(|m| RowScanner::new(&m, RowOptions::default()))
                .map_err(|e| Problem::marker(&e)),
            spans: Vec::new(),
            ranges: Vec::new(),
            truncated: false,
            problem: None,
        }
    }

    /// Why the markers were refused, if they were.
    #[wasm_bindgen(getter)]
    pub fn invalid(&self) -> Option<Problem> {
        self.rows.as_ref().err().cloned()
    }

    /// Scans the first `len` bytes of the input buffer, keeping at most `cap` matches (none:
    /// every match; JavaScript checked the card's bound) and, with `card`, refusing a text
    /// over the card's size limit. `ascii` says the
    /// text is ASCII, so byte offsets are already UTF-16 offsets. Answers the number of
    /// matches, or -1 when the scan stopped (see [`problem`](Self::problem); the matches
    /// before the unclosed marker are kept).
    pub fn scan(&mut self, len: usize, cap: Option<u32>, card: bool, ascii: bool) -> i32 {
        self.spans.clear();
        self.ranges.clear();
        self.truncated = false;
        self.problem = None;
        let rows = match &mut self.rows {
            Ok(rows) => rows,
            Err(problem) => {
                self.problem = Some(problem.clone());
                return -1;
            }
        };
        if card && len > MAX_TEXT_BYTES {
            self.problem = Some(Problem::text_too_long(len));
            return -1;
        }
        let options = RowOptions {
            max_matches: cap.and_then(|n| NonZeroU64::new(n.into())),
            on_unclosed: OnUnclosed::Raise,
        };
        let spans = &mut self.spans;
        // ASCII's byte offsets are its UTF-16 offsets: the scan then counts no units.
        let scan = |rows: &mut RowScanner, text: &[u8], spans: &mut Vec<Range<usize>>| {
            if ascii {
                rows.scan(text, spans)
            } else {
                rows.scan_utf16(text, spans)
            }
        };
        // One scan: an unclosed marker's error comes with the matches before it, as the
        // card's other doors deliver them.
        let answer = input::with(len, |text| {
            rows.set_options(options);
            scan(rows, text, spans)
        });
        self.ranges.extend(
            self.spans
                .iter()
                .flat_map(|s| [s.start as u32, s.end as u32]),
        );
        match answer {
            Ok(RowAnswer::Matches { truncated }) => {
                self.truncated = truncated;
                i32::try_from(self.spans.len()).unwrap_or(i32::MAX)
            }
            Ok(RowAnswer::Null) => 0,
            Err(e) => {
                self.problem = Some(Problem::row(e.kind()));
                -1
            }
        }
    }

    /// The last scan's matches as UTF-16 `[start, end)` pairs, back to back.
    pub fn ranges(&self) -> Vec<u32> {
        self.ranges.clone()
    }

    /// The address of [`ranges`](Self::ranges) in WebAssembly memory, for JavaScript to read
    /// in place.
    #[wasm_bindgen(js_name = rangesAt)]
    pub fn ranges_at(&self) -> usize {
        self.ranges.as_ptr() as usize
    }

    /// The last scan found a further complete match past its cap.
    #[wasm_bindgen(getter)]
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Why the last scan stopped, if it did.
    #[wasm_bindgen(getter)]
    pub fn problem(&self) -> Option<Problem> {
        self.problem.clone()
    }
}
