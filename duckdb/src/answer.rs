//! One vector of rows answered, in safe code: the arguments as slices (read from DuckDB's
//! vectors by [`capi`](crate::capi)), the answer as slices of the rows' own text (written
//! into DuckDB's result vector there). Each row goes through the library's
//! [`RowScanner`], so the cap, the `on_unclosed` policies and the card's error are the
//! library's, word for word.

use core::ops::Range;
use std::cell::RefCell;

use extract_between::Markers;
use extract_between::rows::{RowAnswer, RowOptions, RowScanner};

use crate::error::{CallError, Why};
pub use crate::function::Function;

/// A vector's arguments, a value per row (`None` where NULL); the optional arguments are
/// `None` when the call leaves them out.
#[derive(Debug, Default)]
pub struct Args<'a> {
    pub texts: Vec<Option<&'a [u8]>>,
    pub starts: Vec<Option<&'a [u8]>>,
    pub ends: Vec<Option<&'a [u8]>>,
    /// `max_matches` (`extract_between_all` only).
    pub caps: Option<Vec<Option<i64>>>,
    pub policies: Option<Vec<Option<&'a [u8]>>>,
}

/// What a vector answers, row by row in order.
pub trait Answer<'a> {
    /// The row answers NULL.
    fn null(&mut self);
    /// The row answers these matches, byte ranges of `text`.
    fn matches(&mut self, text: &'a [u8], spans: &[Range<usize>]);
}

/// `extract_between_all`'s answer: each row's list as a range of `matches`, or NULL.
#[derive(Debug, Default)]
pub struct Lists<'a> {
    pub rows: Vec<Option<Range<usize>>>,
    pub matches: Vec<&'a [u8]>,
}

impl<'a> Answer<'a> for Lists<'a> {
    fn null(&mut self) {
        self.rows.push(None);
    }

    fn matches(&mut self, text: &'a [u8], spans: &[Range<usize>]) {
        let from = self.matches.len();
        self.matches
            .extend(spans.iter().map(|span| &text[span.clone()]));
        self.rows.push(Some(from..self.matches.len()));
    }
}

/// `extract_between_first`'s answer: each row's first match, or NULL (none, or a NULL row).
#[derive(Debug, Default)]
pub struct Firsts<'a> {
    pub rows: Vec<Option<&'a [u8]>>,
}

impl<'a> Answer<'a> for Firsts<'a> {
    fn null(&mut self) {
        self.rows.push(None);
    }

    fn matches(&mut self, text: &'a [u8], spans: &[Range<usize>]) {
        self.rows
            .push(spans.first().map(|span| &text[span.clone()]));
    }
}

/// Marker pairs a thread keeps scanners for: enough for a column of a few distinct pairs,
/// few enough that a column of all different pairs costs only the lookups.
const KEPT_PAIRS: usize = 16;

/// A marker pair's scanner, kept between vectors.
struct Kept {
    start: Box<[u8]>,
    end: Box<[u8]>,
    rows: RowScanner,
}

thread_local! {
    /// The scanners of the marker pairs this thread met last (DuckDB calls a function from
    /// each of its worker threads; a scanner is never shared).
    static KEPT: RefCell<Vec<Kept>> = const { RefCell::new(Vec::new()) };
}

/// Answers every row of `args` into `out`, or the error of the first row that stops the
/// vector (`out` then holds the rows before it).
pub fn answer<'a>(
    function: Function,
    args: &Args<'a>,
    out: &mut impl Answer<'a>,
) -> Result<(), CallError> {
    let rows = args.texts.len();
    let fail = |row: usize, why: Why| CallError {
        function,
        row,
        rows,
        why,
    };
    KEPT.with_borrow_mut(|kept| {
        let mut spans = Vec::new();
        let mut options = Options::new(function);
        let mut last = usize::MAX;
        for row in 0..rows {
            let (Some(start), Some(end)) = (args.starts[row], args.ends[row]) else {
                out.null();
                continue;
            };
            last = scanner(kept, last, start, end).map_err(|why| fail(row, why))?;
            let parsed = options.at(args, row).map_err(|why| fail(row, why))?;
            let rows = &mut kept[last].rows;
            rows.set_options(parsed);
            let Some(text) = args.texts[row] else {
                out.null();
                continue;
            };
            spans.clear();
            match rows.scan(text, &mut spans) {
                Ok(RowAnswer::Matches { .. }) => out.matches(text, &spans),
                Ok(RowAnswer::Null) => out.null(),
                Err(e) => return Err(fail(row, Why::Row(e))),
            }
        }
        Ok(())
    })
}

/// The index in `kept` of the scanner for `start` and `end`, built when the thread has none
/// (`last`, the one the previous row used, is tried first: markers are most often literals).
fn scanner(kept: &mut Vec<Kept>, last: usize, start: &[u8], end: &[u8]) -> Result<usize, Why> {
    let same = |k: &Kept| *k.start == *start && *k.end == *end;
    if kept.get(last).is_some_and(same) {
        return Ok(last);
    }
    if let Some(found) = kept.iter().position(same) {
        return Ok(found);
    }
    // DuckDB's VARCHARs are UTF-8; a marker that is not is refused, never read lossily.
    let utf8 = |marker, field| core::str::from_utf8(marker).map_err(|_| Why::NotUtf8(field));
    let markers = Markers::new(utf8(start, "start")?, utf8(end, "end")?).map_err(Why::Markers)?;
    if kept.len() == KEPT_PAIRS {
        kept.clear();
    }
    kept.push(Kept {
        start: start.into(),
        end: end.into(),
        rows: RowScanner::new(&markers, RowOptions::default()),
    });
    Ok(kept.len() - 1)
}

/// The cap and policy of the rows, parsed by the library again only where a row's differ
/// from the row before (literals, the common case, are parsed once a vector).
struct Options<'a> {
    function: Function,
    raw: Option<(Option<i64>, Option<&'a [u8]>)>,
    parsed: RowOptions,
}

impl<'a> Options<'a> {
    fn new(function: Function) -> Self {
        Options {
            function,
            raw: None,
            parsed: RowOptions::default(),
        }
    }

    fn at(&mut self, args: &Args<'a>, row: usize) -> Result<RowOptions, Why> {
        let cap = args.caps.as_ref().and_then(|caps| caps[row]);
        let policy = args.policies.as_ref().and_then(|names| names[row]);
        if self.raw != Some((cap, policy)) {
            let cap = match self.function {
                Function::First => Some(1),
                Function::All => cap,
            };
            self.parsed = RowOptions::parse(cap, policy).map_err(Why::Option)?;
            self.raw = Some((cap, policy));
        }
        Ok(self.parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(rows: &[Option<&'a str>]) -> Vec<Option<&'a [u8]>> {
        rows.iter().map(|r| r.map(str::as_bytes)).collect()
    }

    fn same(value: Option<&str>, rows: usize) -> Vec<Option<&[u8]>> {
        vec![value.map(str::as_bytes); rows]
    }

    fn lists(args: &Args<'_>) -> Result<Vec<Option<Vec<String>>>, String> {
        let mut out = Lists::default();
        answer(Function::All, args, &mut out).map_err(|e| e.to_string())?;
        Ok(out
            .rows
            .iter()
            .map(|row| {
                row.clone().map(|range| {
                    out.matches[range]
                        .iter()
                        .map(|m| String::from_utf8(m.to_vec()).unwrap())
                        .collect()
                })
            })
            .collect())
    }

    fn strings(found: &[&str]) -> Option<Vec<String>> {
        Some(found.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn literal_markers_answer_every_row_and_null_rows_answer_null() {
        let rows = [Some("a[1]b[2]"), None, Some(""), Some("😀[é]")];
        let args = Args {
            texts: texts(&rows),
            starts: same(Some("["), 4),
            ends: same(Some("]"), 4),
            ..Args::default()
        };
        assert_eq!(
            lists(&args).unwrap(),
            vec![strings(&["1", "2"]), None, strings(&[]), strings(&["é"])]
        );
    }

    #[test]
    fn markers_that_change_by_row_scan_each_row_with_its_own_and_a_null_marker_answers_null() {
        let args = Args {
            texts: texts(&[Some("[a]{b}"), Some("[a]{b}"), Some("[a]"), Some("[a]{b}")]),
            starts: texts(&[Some("["), Some("{"), None, Some("[")]),
            ends: texts(&[Some("]"), Some("}"), Some("]"), Some("]")]),
            ..Args::default()
        };
        assert_eq!(
            lists(&args).unwrap(),
            vec![strings(&["a"]), strings(&["b"]), None, strings(&["a"])]
        );
    }

    #[test]
    fn a_null_cap_is_no_cap_and_a_cap_keeps_the_first() {
        let args = Args {
            texts: texts(&[Some("[a][b][c]"), Some("[a][b][c]")]),
            starts: same(Some("["), 2),
            ends: same(Some("]"), 2),
            caps: Some(vec![None, Some(2)]),
            ..Args::default()
        };
        assert_eq!(
            lists(&args).unwrap(),
            vec![strings(&["a", "b", "c"]), strings(&["a", "b"])]
        );
    }

    #[test]
    fn each_policy_answers_an_unclosed_row_as_named_and_null_means_raise() {
        let policies = |name: Option<&'static str>| Args {
            texts: texts(&[Some("[a] [b")]),
            starts: same(Some("["), 1),
            ends: same(Some("]"), 1),
            caps: Some(vec![None]),
            policies: Some(same(name, 1)),
        };
        assert_eq!(
            lists(&policies(Some("partial"))).unwrap(),
            vec![strings(&["a"])]
        );
        assert_eq!(lists(&policies(Some("null"))).unwrap(), vec![None]);
        for raise in [Some("raise"), None] {
            let message = lists(&policies(raise)).unwrap_err();
            assert!(
                message
                    .starts_with("UnclosedStartMarker: unclosed start marker at UTF-16 offset 4"),
                "{message}"
            );
        }
    }

    #[test]
    fn first_answers_the_first_match_or_null() {
        let args = Args {
            texts: texts(&[Some("x<b>1</b><b>2</b>"), Some("none"), None]),
            starts: same(Some("<b>"), 3),
            ends: same(Some("</b>"), 3),
            ..Args::default()
        };
        let mut out = Firsts::default();
        answer(Function::First, &args, &mut out).unwrap();
        assert_eq!(out.rows, vec![Some(&b"1"[..]), None, None]);
    }

    #[test]
    fn bad_arguments_stop_the_vector_at_their_row_even_where_the_text_is_null() {
        let args = Args {
            texts: texts(&[Some("[a]"), None]),
            starts: texts(&[Some("["), Some("")]),
            ends: same(Some("]"), 2),
            ..Args::default()
        };
        let message = lists(&args).unwrap_err();
        assert!(
            message.starts_with("InvalidInput: row 1: start must be a non-empty string"),
            "{message}"
        );
        for (cap, policy, words) in [
            (
                Some(0),
                None,
                "max_matches must be an integer from 1 to 9223372036854775807 or NULL (it is 0)",
            ),
            (Some(-5), None, "(it is -5)"),
            (None, Some("skip"), "on_unclosed must be 'raise', "),
            (None, Some("skip"), ", not 'skip'"),
        ] {
            let args = Args {
                texts: texts(&[Some("[a]")]),
                starts: same(Some("["), 1),
                ends: same(Some("]"), 1),
                caps: Some(vec![cap]),
                policies: Some(same(policy, 1)),
            };
            let message = lists(&args).unwrap_err();
            assert!(message.contains(words), "{message}");
        }
    }

    #[test]
    fn more_marker_pairs_than_a_thread_keeps_still_answer_each_row() {
        let pairs: Vec<(String, String)> = (0..40)
            .map(|i| (format!("<{i}>"), format!("</{i}>")))
            .collect();
        let rows: Vec<String> = (0..40).map(|i| format!("<{i}>v{i}</{i}>")).collect();
        let args = Args {
            texts: rows.iter().map(|r| Some(r.as_bytes())).collect(),
            starts: pairs.iter().map(|p| Some(p.0.as_bytes())).collect(),
            ends: pairs.iter().map(|p| Some(p.1.as_bytes())).collect(),
            ..Args::default()
        };
        let expected: Vec<_> = (0..40).map(|i| strings(&[&format!("v{i}")])).collect();
        assert_eq!(lists(&args).unwrap(), expected);
        assert!(KEPT.with_borrow(Vec::len) <= KEPT_PAIRS);
    }
}
