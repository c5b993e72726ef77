//! One row at a time, as Spark hands them over: the markers registered once per process, a
//! scanner per thread for each pair, and a row's matches written as byte offsets into the
//! row, from which the JVM side makes strings over the row's own bytes.

use extract_between::{Capped, Markers, Pos, ScanError, Scanner, Sink};
use std::cell::RefCell;
use std::ops::ControlFlow;
use std::sync::Mutex;

/// The row's matches are all there (capped, if a cap was given).
pub const OK: i32 = 0;
/// A start marker has no end after it; the matches before it are there.
pub const UNCLOSED: i32 = 1;
/// The row is not UTF-8; the matches before the bad byte are there.
pub const INVALID_UTF8: i32 = 2;

/// An answer's layout, ints: the number of matches, the status, the byte offset of the
/// unclosed marker or invalid byte, then each match's content start and end.
pub const HEADER: usize = 3;

/// Every marker pair the process has been asked for, its index the pair's id. Queries name
/// few pairs, so the list stays short; a pair asked again gets its first id.
static REGISTERED: Mutex<Vec<Markers>> = Mutex::new(Vec::new());

thread_local! {
    /// This thread's scanner for each id it has scanned with, kept between rows.
    static SCANNERS: RefCell<Vec<Option<Scanner>>> = const { RefCell::new(Vec::new()) };
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
    let markers = markers(start, end)?;
    let mut registered = REGISTERED
        .lock()
        .map_err(|_| "the marker registry is poisoned")?;
    let id = match registered.iter().position(|m| *m == markers) {
        Some(id) => id,
        None => {
            registered.push(markers);
            registered.len() - 1
        }
    };
    i32::try_from(id).map_err(|_| "too many marker pairs".to_owned())
}

/// Scans `text` with the markers of `id`, keeping at most `cap` matches (the card's rule: an
/// unclosed start met while looking for one more still counts). `out` gets the answer in the
/// layout of [`HEADER`]; the status is returned too.
pub fn scan(id: i32, text: &[u8], cap: u64, out: &mut Vec<i32>) -> Result<i32, String> {
    out.clear();
    out.extend_from_slice(&[0; HEADER]);
    let slot = usize::try_from(id).map_err(|_| format!("no marker pair has id {id}"))?;
    SCANNERS.with(|scanners| {
        let mut scanners = scanners.borrow_mut();
        if scanners.get(slot).is_none_or(Option::is_none) {
            // This thread's first row with this pair: its scanner, from the registry.
            let registered = REGISTERED
                .lock()
                .map_err(|_| "the marker registry is poisoned")?;
            let markers = registered
                .get(slot)
                .ok_or_else(|| format!("no marker pair has id {id}"))?;
            if scanners.len() <= slot {
                scanners.resize(slot + 1, None);
            }
            scanners[slot] = Some(Scanner::new(markers));
        }
        let Some(scanner) = scanners.get_mut(slot).and_then(Option::as_mut) else {
            return Err(format!("no marker pair has id {id}"));
        };
        scanner.reset();
        let mut sink = Capped::new(Offsets { out: &mut *out }, cap);
        let fed = scanner.feed(text, &mut sink);
        let scanned = fed.and_then(|_| scanner.finish(&mut sink));
        let (status, at) = match scanned {
            Ok(()) => (OK, 0),
            Err(ScanError::Unclosed { marker }) => (UNCLOSED, marker.byte),
            Err(ScanError::InvalidUtf8 { offset, .. }) => (INVALID_UTF8, offset),
        };
        // A match left open (an unclosed start) has its start and no end: drop it.
        if (out.len() - HEADER) % 2 == 1 {
            out.pop();
        }
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
        let id = register(b"[", b"]").unwrap();
        let mut out = Vec::new();
        let status = scan(id, text.as_bytes(), cap, &mut out).unwrap();
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
            (OK, vec!["one", "two"], 0)
        );
        assert_eq!(run("é[😀]", u64::MAX), (OK, vec!["😀"], 0));
    }

    #[test]
    fn the_cap_keeps_the_cards_rule_for_the_extra_match() {
        assert_eq!(run("[a][b][c]", 2), (OK, vec!["a", "b"], 0));
        // Looking for a third match finds an unclosed start: that counts.
        assert_eq!(run("[a][b][c", 2).0, UNCLOSED);
        // Past the extra match, nothing more is read.
        assert_eq!(run("[a][b][c][d", 2), (OK, vec!["a", "b"], 0));
    }

    #[test]
    fn an_unclosed_start_keeps_the_matches_before_it() {
        assert_eq!(run("[a] x [b", u64::MAX), (UNCLOSED, vec!["a"], 6));
    }

    #[test]
    fn invalid_utf8_says_where() {
        let id = register(b"[", b"]").unwrap();
        let mut out = Vec::new();
        assert_eq!(
            scan(id, b"[a]\xff[b]", u64::MAX, &mut out),
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
        assert!(scan(i32::MAX, b"", 1, &mut Vec::new()).is_err());
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
}
