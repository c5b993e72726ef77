//! One row at a time, as Spark hands them over: the markers registered once per process, a
//! scanner per thread for each pair, and a row's matches written as byte offsets into the
//! row, from which the JVM side makes strings over the row's own bytes.

use extract_between::{Capped, Markers, Pos, ScanError, Scanner, Sink};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;
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
    static SCANNERS: RefCell<HashMap<i32, Scanner>> = RefCell::new(HashMap::new());
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

/// A new scanner for the pair `id`.
fn scanner(id: i32) -> Result<Scanner, String> {
    let registered = REGISTERED
        .lock()
        .map_err(|_| "the marker registry is poisoned")?;
    let markers = usize::try_from(id)
        .ok()
        .and_then(|slot| registered.as_ref()?.pairs.get(slot))
        .ok_or_else(|| format!("no marker pair has id {id}"))?;
    Ok(Scanner::new(markers))
}

/// Scans `text` with the markers of `id`, keeping at most `cap` matches (the card's rule: an
/// unclosed start met while looking for one more still counts), an unclosed start read under
/// `on_unclosed`. `out` gets the answer in the layout of [`HEADER`]; the status is returned
/// too.
pub fn scan(
    id: i32,
    text: &[u8],
    cap: u64,
    on_unclosed: i32,
    out: &mut Vec<i32>,
) -> Result<i32, String> {
    if !matches!(on_unclosed, RAISE | NULL_ROW | PARTIAL) {
        return Err(format!("no on_unclosed policy has the value {on_unclosed}"));
    }
    out.clear();
    out.extend_from_slice(&[0; HEADER]);
    SCANNERS.with(|scanners| {
        let mut scanners = scanners.borrow_mut();
        if !scanners.contains_key(&id) {
            if scanners.len() >= SCANNERS_PER_THREAD {
                scanners.clear();
            }
            scanners.insert(id, scanner(id)?);
        }
        let Some(scanner) = scanners.get_mut(&id) else {
            return Err(format!("no marker pair has id {id}"));
        };
        scanner.reset();
        let mut sink = Capped::new(Offsets { out: &mut *out }, cap);
        let fed = scanner.feed(text, &mut sink);
        let scanned = fed.and_then(|_| scanner.finish(&mut sink));
        // A match left open (an unclosed start) has its start and no end: drop it.
        if (out.len() - HEADER) % 2 == 1 {
            out.pop();
        }
        let (status, at) = match scanned {
            Ok(()) => (MATCHES, 0),
            Err(ScanError::Unclosed { .. }) if on_unclosed == PARTIAL => (MATCHES, 0),
            Err(ScanError::Unclosed { .. }) if on_unclosed == NULL_ROW => {
                out.truncate(HEADER);
                (NULL, 0)
            }
            Err(ScanError::Unclosed { marker }) => (UNCLOSED, marker.byte),
            Err(ScanError::InvalidUtf8 { offset, .. }) => (INVALID_UTF8, offset),
        };
        let count = (out.len() - HEADER) / 2;
        out[0] = i32::try_from(count).map_err(|_| "too many matches in one row")?;
        out[1] = status;
        out[2] = i32::try_from(at).map_err(|_| "a row past 2 GiB")?;
        Ok(status)
    })
}

/// A sink that keeps each closed match's content as a pair of byte offsets.
struct Offsets<'a> {
    out: &'a mut Vec<i32>,
}

impl Sink for Offsets<'_> {
    fn open(&mut self, _marker: Pos, content: Pos) -> ControlFlow<()> {
        // Rows come from Java arrays, shorter than 2 GiB: every offset fits.
        self.out.push(content.byte as i32);
        ControlFlow::Continue(())
    }

    fn content(&mut self, _fragment: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn close(&mut self, content_end: Pos, _marker_end: Pos) -> ControlFlow<()> {
        self.out.push(content_end.byte as i32);
        ControlFlow::Continue(())
    }
}

/// How many characters of a row an error message shows.
const EXCERPT_CHARS: usize = 60;

/// The message of a row that stopped the query: the card's error, where, and how the row
/// begins.
pub fn message(text: &[u8], status: i32, at: usize) -> String {
    let valid = match std::str::from_utf8(text) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&text[..e.valid_up_to()]).unwrap_or_default(),
    };
    let mut chars = valid.chars();
    let mut begins: String = chars.by_ref().take(EXCERPT_CHARS).collect();
    if chars.next().is_some() {
        begins.push('…');
    }
    if status == UNCLOSED {
        let before = valid.get(..at).unwrap_or(valid);
        let utf16 = before.encode_utf16().count();
        format!(
            "UnclosedStartMarker: unclosed start marker at offset {utf16} (UTF-16 code units; byte offset {at}) of a row; the row begins {begins:?}"
        )
    } else {
        format!(
            "ExtractError: a row is not valid UTF-8: invalid byte at byte offset {at}; the row begins {begins:?}"
        )
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
    fn messages_name_the_error_the_offset_and_the_rows_beginning() {
        let m = message("😀 [x".as_bytes(), UNCLOSED, 5);
        assert!(
            m.starts_with("UnclosedStartMarker: unclosed start marker at offset 3 "),
            "{m}"
        );
        assert!(
            m.contains("byte offset 5") && m.contains("\"😀 [x\""),
            "{m}"
        );
        let long = "y".repeat(100);
        assert!(message(long.as_bytes(), UNCLOSED, 0).contains('…'));
        let m = message(b"ab\xffcd", INVALID_UTF8, 2);
        assert!(m.contains("byte offset 2") && m.contains("\"ab\""), "{m}");
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
