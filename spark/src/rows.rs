//! One row at a time, as Spark hands them over: the markers registered once per process, a
//! scanner per thread for each pair, and a row's matches written as byte offsets into the
//! row, from which the JVM side makes strings over the row's own bytes.

use extract_between::Markers;
use extract_between::rows::{
    OptionError, RowAnswer, RowError, RowErrorKind, RowOption, RowOptions, RowPlace, RowScanner,
    Spelling,
};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Mutex;

/// The row answers its matches (under `'partial'`, those before an unclosed start).
pub const MATCHES: i32 = 0;
/// The row answers NULL (an unclosed start under `'null'`).
pub const NULL: i32 = 1;
/// An unclosed start under `'raise'`: the query stops.
pub const UNCLOSED: i32 = 2;
/// The row is not UTF-8: the query stops.
pub const INVALID_UTF8: i32 = 3;

/// An answer's layout, ints: the number of matches, the status, the byte offset of the
/// unclosed marker or invalid byte, then each match's content start and end.
pub const HEADER: usize = 3;

/// Distinct marker pairs a process registers at most: each is kept for the process's life
/// (queries name their markers as literals, so this bounds a server's queries, not its rows).
pub const MAX_PAIRS: usize = 1 << 16;
/// Scanners a thread keeps, one per pair it scanned with; past this many it starts afresh.
const SCANNERS_PER_THREAD: usize = 64;

/// Every marker pair and options the process has been asked for: each by id, and each id.
struct Registry {
    pairs: Vec<(Markers, RowOptions)>,
    ids: HashMap<Key, i32>,
}

/// A registration as the JVM asks for it: start, end, options.
type Key = (Vec<u8>, Vec<u8>, Vec<u8>);

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

/// The id of the pair `start`, `end` under `options` (as [`options`] wrote them): the same id
/// for the same three, for as long as the process runs.
pub fn register(start: &[u8], end: &[u8], options: &[u8]) -> Result<i32, String> {
    let mut registered = REGISTERED
        .lock()
        .map_err(|_| "the marker registry is poisoned")?;
    let registry = registered.get_or_insert_with(|| Registry {
        pairs: Vec::new(),
        ids: HashMap::new(),
    });
    let key = (start.to_vec(), end.to_vec(), options.to_vec());
    if let Some(&id) = registry.ids.get(&key) {
        return Ok(id);
    }
    let markers = markers(start, end)?;
    let options = decode(options)?;
    if registry.pairs.len() >= MAX_PAIRS {
        return Err(format!(
            "more than {MAX_PAIRS} distinct marker pairs in one process"
        ));
    }
    let id = i32::try_from(registry.pairs.len()).map_err(|_| "too many marker pairs")?;
    registry.pairs.push((markers, options));
    registry.ids.insert(key, id);
    Ok(id)
}

/// A new row scanner for the pair and options `id`.
fn scanner(id: i32) -> Result<RowScanner, String> {
    let registered = REGISTERED
        .lock()
        .map_err(|_| "the marker registry is poisoned")?;
    let (markers, options) = usize::try_from(id)
        .ok()
        .and_then(|slot| registered.as_ref()?.pairs.get(slot))
        .ok_or_else(|| format!("no marker pair has id {id}"))?;
    Ok(RowScanner::new(markers, *options))
}

/// Why the options a query wrote are refused, in SQL's spelling: `cap_type` or `policy_type`
/// name the SQL type of an argument that cannot be the option, else the values are read by
/// the library (`cap` when given, the policy's name when not NULL).
pub fn check_options(
    cap_type: Option<&str>,
    cap: Option<i64>,
    policy_type: Option<&str>,
    policy: Option<&[u8]>,
) -> Option<String> {
    let refused = match (cap_type, policy_type) {
        (Some(t), _) => Err(OptionError::WrongType(RowOption::MaxMatches, t.to_owned())),
        (None, Some(t)) => Err(OptionError::WrongType(RowOption::OnUnclosed, t.to_owned())),
        (None, None) => RowOptions::parse(cap, policy).map(|_| ()),
    };
    refused.err().map(|e| e.spelled(Spelling::SQL).to_string())
}

/// The options as the JVM carries them to each row, a string only this file reads: the cap
/// (`-` for none) and the policy's name.
pub fn options(cap: Option<i64>, policy: Option<&[u8]>) -> Result<String, String> {
    let options =
        RowOptions::parse(cap, policy).map_err(|e| e.spelled(Spelling::SQL).to_string())?;
    let cap = options
        .max_matches
        .map_or("-".to_owned(), |n| n.to_string());
    Ok(format!("{cap} {}", options.on_unclosed.name()))
}

/// The options [`options`] wrote.
fn decode(options: &[u8]) -> Result<RowOptions, String> {
    let bad = || format!("{:?} are not options", String::from_utf8_lossy(options));
    let text = std::str::from_utf8(options).map_err(|_| bad())?;
    let (cap, policy) = text.split_once(' ').ok_or_else(bad)?;
    let cap = match cap {
        "-" => None,
        n => Some(n.parse::<i64>().map_err(|_| bad())?),
    };
    RowOptions::parse(cap, Some(policy.as_bytes())).map_err(|_| bad())
}

/// Runs `f` with this thread's row scanner for the pair and options `id`.
fn with_scanner<T>(id: i32, f: impl FnOnce(&mut RowScanner) -> T) -> Result<T, String> {
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
        Ok(f(rows))
    })
}

thread_local! {
    /// The words of the last row that stopped a query on this thread, for [`message`]: the
    /// JVM asks for them right after the scan that answered the error, on the same thread.
    static STOPPED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Scans `text` with the markers and options of `id` (the library's row API decides the
/// row). `out` gets the answer in the layout of [`HEADER`] (with an error, the matches before
/// it); the status is returned too, and a row that stops the query leaves its message for
/// [`message`].
pub fn scan(id: i32, text: &[u8], out: &mut Vec<i32>) -> Result<i32, String> {
    SPANS.with_borrow_mut(|spans| {
        spans.clear();
        let answer = with_scanner(id, |rows| rows.scan(text, spans))?;
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

/// A stopping row's message: the library's class and words (Spark numbers no rows).
fn worded(e: &RowError) -> String {
    format!("{}: {}", e.class(), e.at(RowPlace::Unknown))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The id of `[`, `]` under a cap and a policy.
    fn pair(cap: Option<i64>, on_unclosed: &str) -> i32 {
        let options = options(cap, Some(on_unclosed.as_bytes())).unwrap();
        register(b"[", b"]", options.as_bytes()).unwrap()
    }

    fn run(text: &str, cap: Option<i64>) -> (i32, Vec<&str>, i32) {
        run_under(text, cap, "raise")
    }

    fn run_under<'a>(
        text: &'a str,
        cap: Option<i64>,
        on_unclosed: &str,
    ) -> (i32, Vec<&'a str>, i32) {
        let id = pair(cap, on_unclosed);
        let mut out = Vec::new();
        let status = scan(id, text.as_bytes(), &mut out).unwrap();
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
            run("pre[one]mid[two]post", None),
            (MATCHES, vec!["one", "two"], 0)
        );
        assert_eq!(run("é[😀]", None), (MATCHES, vec!["😀"], 0));
    }

    #[test]
    fn the_cap_keeps_the_cards_rule_for_the_extra_match() {
        assert_eq!(run("[a][b][c]", Some(2)), (MATCHES, vec!["a", "b"], 0));
        // Looking for a third match finds an unclosed start: that counts.
        assert_eq!(run("[a][b][c", Some(2)).0, UNCLOSED);
        // Past the extra match, nothing more is read.
        assert_eq!(run("[a][b][c][d", Some(2)), (MATCHES, vec!["a", "b"], 0));
    }

    #[test]
    fn an_unclosed_start_is_read_under_the_rows_policy() {
        // A row that stops the query answers where it stopped, and the matches before it.
        assert_eq!(run("[a] x [b", None), (UNCLOSED, vec!["a"], 6));
        assert_eq!(
            run_under("[a] x [b", None, "partial"),
            (MATCHES, vec!["a"], 0)
        );
        assert_eq!(run_under("[a] x [b", None, "null"), (NULL, vec![], 0));
        // A closed row is the same under every policy.
        for policy in ["raise", "null", "partial"] {
            assert_eq!(run_under("[a]", Some(1), policy), (MATCHES, vec!["a"], 0));
        }
    }

    #[test]
    fn invalid_utf8_says_where() {
        let id = pair(None, "partial");
        let mut out = Vec::new();
        assert_eq!(scan(id, b"[a]\xff[b]", &mut out), Ok(INVALID_UTF8));
        assert_eq!((out[0], out[2]), (1, 3));
    }

    #[test]
    fn a_pair_asked_again_has_its_first_id_and_bad_markers_say_why() {
        let raise = options(None, None).unwrap();
        let first = register(b"<b>", b"</b>", raise.as_bytes()).unwrap();
        assert_eq!(register(b"<b>", b"</b>", raise.as_bytes()).unwrap(), first);
        assert_ne!(register(b"<i>", b"</i>", raise.as_bytes()).unwrap(), first);
        let null = options(None, Some(b"null")).unwrap();
        assert_ne!(register(b"<b>", b"</b>", null.as_bytes()).unwrap(), first);
        assert!(
            register(b"", b"]", raise.as_bytes())
                .unwrap_err()
                .contains("start")
        );
        assert!(
            register(b"\xff", b"]", raise.as_bytes())
                .unwrap_err()
                .contains("UTF-8")
        );
        assert!(register(b"[", b"]", b"7 sometimes").is_err());
        assert!(scan(i32::MAX, b"", &mut Vec::new()).is_err());
    }

    #[test]
    fn messages_are_the_librarys_after_the_exceptions_name_from_the_one_scan() {
        let stop = |text: &[u8], cap: Option<i64>| {
            let status = scan(pair(cap, "raise"), text, &mut Vec::new()).unwrap();
            assert!(status == UNCLOSED || status == INVALID_UTF8, "{status}");
            message().unwrap()
        };
        assert_eq!(
            stop("😀 [x".as_bytes(), None),
            "UnclosedStartMarker: unclosed start marker at UTF-16 offset 3 (byte offset 5); the row begins \"😀 [x\""
        );
        // The unclosed start met looking for the one extra match past the cap.
        assert!(stop(b"[a][b", Some(1)).starts_with("UnclosedStartMarker: "));
        assert_eq!(
            stop(b"ab\xffcd", None),
            "InvalidUtf8: invalid UTF-8 at byte offset 2; the row begins \"ab\""
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
        for (name, value) in [
            ("MATCHES", MATCHES),
            ("NULL", NULL),
            ("UNCLOSED", UNCLOSED),
            ("INVALID_UTF8", INVALID_UTF8),
            ("HEADER", HEADER as i32),
        ] {
            assert_eq!(java_constant(native, name), value, "Native.{name}");
        }
    }

    #[test]
    fn options_are_the_librarys_and_travel_as_written() {
        assert_eq!(options(Some(3), Some(b"partial")).unwrap(), "3 partial");
        assert_eq!(options(None, None).unwrap(), "- raise");
        for (cap, policy) in [
            (None, None),
            (Some(1), Some(&b"null"[..])),
            (Some(i64::MAX), None),
        ] {
            let written = options(cap, policy).unwrap();
            let read = decode(written.as_bytes()).unwrap();
            assert_eq!(read, RowOptions::parse(cap, policy).unwrap());
        }
        assert_eq!(
            check_options(None, Some(0), None, None).unwrap(),
            "max_matches must be an integer from 1 to 9223372036854775807 or NULL (it is 0)"
        );
        let typed = OptionError::WrongType(RowOption::OnUnclosed, "INT".into());
        assert_eq!(
            check_options(None, None, Some("INT"), None).unwrap(),
            typed.spelled(Spelling::SQL).to_string()
        );
        assert!(check_options(None, Some(2), None, Some(b"null")).is_none());
    }

    /// The string literals of `source` from `from` up to `to`, joined (Java's `"a" + "b"`).
    fn java_strings(source: &str, from: &str, to: &str) -> String {
        let at = source.find(from).unwrap_or_else(|| panic!("no {from}"));
        let part = &source[at..at + source[at..].find(to).unwrap()];
        part.split('"').skip(1).step_by(2).collect()
    }

    #[test]
    fn the_java_registry_is_the_librarys_description_of_the_functions() {
        use extract_between::rows::sql::FUNCTIONS;
        let extensions =
            include_str!("../java/io/github/extractbetween/spark/ExtractBetweenExtensions.java");
        let functions = include_str!("../java/io/github/extractbetween/spark/Functions.java");
        for (constant, function) in [("ALL", &FUNCTIONS[0]), ("FIRST", &FUNCTIONS[1])] {
            let name = format!("static final String {constant} = \"{}\";", function.name);
            assert!(functions.contains(&name), "Functions.java lacks {name}");
            let (least, most) = function.arities().into_inner();
            let arity = format!("arity({constant}, args, {least}, {most});");
            assert!(functions.contains(&arity), "Functions.java lacks {arity}");
            let usage = java_strings(
                extensions,
                &format!("Functions.{constant},"),
                "new Abstract",
            );
            let signature = function.signature();
            let described = format!(
                "_FUNC_{} - {}",
                &signature[function.name.len()..],
                function.doc
            );
            assert_eq!(usage, described, "the usage of {}", function.name);
        }
    }
}
