//! One row at a time, as Spark hands them over: the markers registered once per process, a
//! scanner per thread for each pair, and a row's matches written as byte offsets into the
//! row, from which the JVM side makes strings over the row's own bytes.

use extract_between::Markers;
use extract_between::rows::{OnUnclosed, RowAnswer, RowError, RowErrorKind, RowScanner};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Mutex;

/// The row answers its matches (under `PARTIAL`, those before an unclosed start).
pub const MATCHES: i32 = 0;
/// The row answers NULL (an unclosed start under `NULL_ROW`).
pub const NULL: i32 = 1;
/// An unclosed start under `RAISE`: the query stops.
pub const UNCLOSED: i32 = 2;
/// The row is not UTF-8: the query stops.
pub const INVALID_UTF8: i32 = 3;

/// What an unclosed row becomes, as `Rows.java` passes it.
pub const RAISE: i32 = 0;
/// The row answers NULL.
pub const NULL_ROW: i32 = 1;
/// The row answers the matches before the unclosed start.
pub const PARTIAL: i32 = 2;

/// An answer's layout, ints: the number of matches, the status, the byte offset of the
/// unclosed marker or invalid byte, then each match's content start and end.
pub const HEADER: usize = 3;

/// Distinct marker pairs a process registers at most: each is kept for the process's life
/// (queries name their markers as literals, so this bounds a server's queries, not its rows).
pub const MAX_PAIRS: usize = 1 << 16;
/// Scanners a thread keeps, one per pair it scanned with; past this many it starts afresh.
const SCANNERS_PER_THREAD: usize = 64;

/// Every marker pair the process has been asked for: the pairs by id, and each pair's id.
struct Registry {
    pairs: Vec<Markers>,
    ids: HashMap<(Vec<u8>, Vec<u8>), i32>,
}

static REGISTERED: Mutex<Option<Registry>> = Mutex::new(None);

thread_local! {
    /// This thread's scanner for each id it has scanned with, kept between rows.
    static SCANNERS: RefCell<HashMap<i32, RowScanner>> = RefCell::new(HashMap::new());
    /// The row's matches as byte ranges (reused from row to row).
    static SPANS: RefCell<Vec<Range<usize>>> = const { RefCell::new(Vec::new()) };
}

/// The card's markers from `start` and `end` (UTF-8 bytes), or why they are not.
pub fn markers(start: &[u8], end: &[u8]) -> Result<Markers, String> {
    let text = |name: &str, bytes| {
        std::str::from_utf8(bytes).map_err(|_| format!("{name} marker is not valid UTF-8"))
    };
    Markers::new(text("start", start)?, text("end", end)?).map_err(|e| e.to_string())
}

/// The id of the pair `start`, `end`: the same id for the same pair, for as long as the
/// process runs.
pub fn register(start: &[u8], end: &[u8]) -> Result<i32, String> {
    let mut registered = REGISTERED
        .lock()
        .map_err(|_| "the marker registry is poisoned")?;
    let registry = registered.get_or_insert_with(|| Registry {
        pairs: Vec::new(),
        ids: HashMap::new(),
    });
    let key = (start.to_vec(), end.to_vec());
    if let Some(&id) = registry.ids.get(&key) {
        return Ok(id);
    }
    let markers = markers(start, end)?;
    if registry.pairs.len() >= MAX_PAIRS {
        return Err(format!(
            "more than {MAX_PAIRS} distinct marker pairs in one process"
        ));
    }
    let id = i32::try_from(registry.pairs.len()).map_err(|_| "too many marker pairs")?;
    registry.pairs.push(markers);
    registry.ids.insert(key, id);
    Ok(id)
}

/// A new row scanner for the pair `id`.
fn scanner(id: i32) -> Result<RowScanner, String> {
    let registered = REGISTERED
        .lock()
        .map_err(|_| "the marker registry is poisoned")?;
    let markers = usize::try_from(id)
        .ok()
        .and_then(|slot| registered.as_ref()?.pairs.get(slot))
        .ok_or_else(|| format!("no marker pair has id {id}"))?;
    Ok(RowScanner::new(markers, None, OnUnclosed::Raise))
}

/// The policy `Rows.java` passes as `value`.
fn policy(value: i32) -> Result<OnUnclosed, String> {
    match value {
        RAISE => Ok(OnUnclosed::Raise),
        NULL_ROW => Ok(OnUnclosed::Null),
        PARTIAL => Ok(OnUnclosed::Partial),
        other => Err(format!("no on_unclosed policy has the value {other}")),
    }
}

/// Runs `f` with this thread's row scanner for the pair `id`, set to `cap` and `on_unclosed`.
fn with_scanner<T>(
    id: i32,
    cap: u64,
    on_unclosed: i32,
    f: impl FnOnce(&mut RowScanner) -> T,
) -> Result<T, String> {
    let on_unclosed = policy(on_unclosed)?;
    SCANNERS.with(|scanners| {
        let mut scanners = scanners.borrow_mut();
        if !scanners.contains_key(&id) {
            if scanners.len() >= SCANNERS_PER_THREAD {
                scanners.clear();
            }
            scanners.insert(id, scanner(id)?);
        }
        let Some(rows) = scanners.get_mut(&id) else {
            return Err(format!("no marker pair has id {id}"));
        };
        rows.set_options((cap != u64::MAX).then_some(cap), on_unclosed);
        Ok(f(rows))
    })
}

thread_local! {
    /// The words of the last row that stopped a query on this thread, for [`message`]: the
    /// JVM asks for them right after the scan that answered the error, on the same thread.
    static STOPPED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Scans `text` with the markers of `id`, keeping at most `cap` matches, an unclosed start
/// read under `on_unclosed` (the library's row API decides the row). `out` gets the answer in
/// the layout of [`HEADER`] (with an error, the matches before it); the status is returned
/// too, and a row that stops the query leaves its message for [`message`].
pub fn scan(
    id: i32,
    text: &[u8],
    cap: u64,
    on_unclosed: i32,
    out: &mut Vec<i32>,
) -> Result<i32, String> {
    SPANS.with_borrow_mut(|spans| {
        spans.clear();
        let answer = with_scanner(id, cap, on_unclosed, |rows| rows.scan(text, spans))?;
        if let Err(e) = &answer {
            STOPPED.set(Some(worded(e)));
        }
        answer_into(answer, spans, out)
    })
}

/// A row's answer in the layout of [`HEADER`]; its status.
fn answer_into(
    answer: Result<RowAnswer, RowError>,
    spans: &[Range<usize>],
    out: &mut Vec<i32>,
) -> Result<i32, String> {
    let (status, at) = match answer {
        Ok(RowAnswer::Matches { .. }) => (MATCHES, 0),
        Ok(RowAnswer::Null) => (NULL, 0),
        Err(e) => match e.kind() {
            RowErrorKind::Unclosed(_) => (UNCLOSED, e.byte_offset()),
            RowErrorKind::InvalidUtf8(_) => (INVALID_UTF8, e.byte_offset()),
        },
    };
    out.clear();
    let count = i32::try_from(spans.len()).map_err(|_| "too many matches in one row")?;
    let at = i32::try_from(at).map_err(|_| "a row past 2 GiB")?;
    out.extend_from_slice(&[count, status, at]);
    // Rows come from Java arrays, shorter than 2 GiB: every offset fits.
    for span in spans {
        out.push(span.start as i32);
        out.push(span.end as i32);
    }
    Ok(status)
}

/// The message of the row that last stopped a query on this thread: the library's words for
/// it, after the exception's name. The row is not scanned again.
pub fn message() -> Result<String, String> {
    STOPPED
        .take()
        .ok_or_else(|| "no row stopped a query on this thread".to_owned())
}

/// A stopping row's message.
fn worded(e: &RowError) -> String {
    match e.kind() {
        RowErrorKind::Unclosed(_) => format!("UnclosedStartMarker: {e}"),
        RowErrorKind::InvalidUtf8(_) => format!("ExtractError: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, cap: u64) -> (i32, Vec<&str>, i32) {
        run_under(text, cap, RAISE)
    }

    fn run_under(text: &str, cap: u64, on_unclosed: i32) -> (i32, Vec<&str>, i32) {
        let id = register(b"[", b"]").unwrap();
        let mut out = Vec::new();
        let status = scan(id, text.as_bytes(), cap, on_unclosed, &mut out).unwrap();
        let matches = out[HEADER..]
            .chunks(2)
            .map(|p| &text[p[0] as usize..p[1] as usize])
            .collect();
        assert_eq!(out[0] as usize, (out.len() - HEADER) / 2);
        (status, matches, out[2])
    }

    #[test]
    fn matches_come_as_offsets_into_the_row() {
        assert_eq!(
            run("pre[one]mid[two]post", u64::MAX),
            (MATCHES, vec!["one", "two"], 0)
        );
        assert_eq!(run("é[😀]", u64::MAX), (MATCHES, vec!["😀"], 0));
    }

    #[test]
    fn the_cap_keeps_the_cards_rule_for_the_extra_match() {
        assert_eq!(run("[a][b][c]", 2), (MATCHES, vec!["a", "b"], 0));
        // Looking for a third match finds an unclosed start: that counts.
        assert_eq!(run("[a][b][c", 2).0, UNCLOSED);
        // Past the extra match, nothing more is read.
        assert_eq!(run("[a][b][c][d", 2), (MATCHES, vec!["a", "b"], 0));
    }

    #[test]
    fn an_unclosed_start_is_read_under_the_rows_policy() {
        // A row that stops the query answers where it stopped, and the matches before it.
        assert_eq!(run("[a] x [b", u64::MAX), (UNCLOSED, vec!["a"], 6));
        assert_eq!(
            run_under("[a] x [b", u64::MAX, PARTIAL),
            (MATCHES, vec!["a"], 0)
        );
        assert_eq!(run_under("[a] x [b", u64::MAX, NULL_ROW), (NULL, vec![], 0));
        // A closed row is the same under every policy.
        for policy in [RAISE, NULL_ROW, PARTIAL] {
            assert_eq!(run_under("[a]", 1, policy), (MATCHES, vec!["a"], 0));
        }
        assert!(scan(0, b"", 1, 7, &mut Vec::new()).is_err());
    }

    #[test]
    fn invalid_utf8_says_where() {
        let id = register(b"[", b"]").unwrap();
        let mut out = Vec::new();
        assert_eq!(
            scan(id, b"[a]\xff[b]", u64::MAX, PARTIAL, &mut out),
            Ok(INVALID_UTF8)
        );
        assert_eq!((out[0], out[2]), (1, 3));
    }

    #[test]
    fn a_pair_asked_again_has_its_first_id_and_bad_markers_say_why() {
        let first = register(b"<b>", b"</b>").unwrap();
        assert_eq!(register(b"<b>", b"</b>").unwrap(), first);
        assert_ne!(register(b"<i>", b"</i>").unwrap(), first);
        assert!(register(b"", b"]").unwrap_err().contains("start"));
        assert!(register(b"\xff", b"]").unwrap_err().contains("UTF-8"));
        assert!(scan(i32::MAX, b"", 1, RAISE, &mut Vec::new()).is_err());
    }

    #[test]
    fn messages_are_the_librarys_after_the_exceptions_name_from_the_one_scan() {
        let id = register(b"[", b"]").unwrap();
        let stop = |text: &[u8], cap: u64| {
            let status = scan(id, text, cap, RAISE, &mut Vec::new()).unwrap();
            assert!(status == UNCLOSED || status == INVALID_UTF8, "{status}");
            message().unwrap()
        };
        assert_eq!(
            stop("😀 [x".as_bytes(), u64::MAX),
            "UnclosedStartMarker: unclosed start marker at UTF-16 offset 3 (byte offset 5); the row begins \"😀 [x\""
        );
        // The unclosed start met looking for the one extra match past the cap.
        assert!(stop(b"[a][b", 1).starts_with("UnclosedStartMarker: "));
        assert_eq!(
            stop(b"ab\xffcd", u64::MAX),
            "ExtractError: invalid UTF-8 at byte offset 2; the row begins \"ab\""
        );
        // Taken once: no stale message for a later question.
        assert!(message().is_err());
    }

    /// The value a Java file gives `static final int NAME`.
    fn java_constant(source: &str, name: &str) -> i32 {
        let needle = format!("static final int {name} = ");
        let at = source.find(&needle).unwrap_or_else(|| panic!("no {name}")) + needle.len();
        let value = &source[at..at + source[at..].find(';').unwrap()];
        value.trim().parse().unwrap()
    }

    #[test]
    fn the_java_side_has_the_same_codes() {
        let native = include_str!("../java/io/github/extractbetween/spark/Native.java");
        let rows = include_str!("../java/io/github/extractbetween/spark/Rows.java");
        for (name, value) in [
            ("MATCHES", MATCHES),
            ("NULL", NULL),
            ("UNCLOSED", UNCLOSED),
            ("INVALID_UTF8", INVALID_UTF8),
            ("HEADER", HEADER as i32),
        ] {
            assert_eq!(java_constant(native, name), value, "Native.{name}");
        }
        for (name, value) in [("RAISE", RAISE), ("NULL", NULL_ROW), ("PARTIAL", PARTIAL)] {
            assert_eq!(java_constant(rows, name), value, "Rows.{name}");
        }
    }
}
