//! Arbitrary input decides text, markers, cap and chunk plan; the scanner (chunked and
//! whole, and chunked for a sink that declines UTF-16 offsets), one-shot `extract` and the
//! naive UTF-16 reference must agree on matches, `truncated`, error kind and offset.
#![no_main]

use core::ops::ControlFlow;
use extract_between::testing::{self, Paths, reference};
use extract_between::{Capped, Collect, ExtractError, Extractor, Markers, Pos, ScanError, Sink};
use libfuzzer_sys::fuzz_target;

/// The decoded case; its Debug output is a pasteable reproducer.
#[derive(Debug)]
struct Case {
    text: Vec<u8>,
    start: String,
    end: String,
    max_matches: usize,
    plan: Vec<usize>,
}

fn decode(data: &[u8]) -> Option<Case> {
    let (&head, data) = data.split_first()?;
    let (&lens, data) = data.split_first()?;
    let (&plan_len, data) = data.split_first()?;
    let max_matches = [1, 2, 3, 100, 1000][usize::from(head % 5)];
    let start_len = 1 + usize::from(lens & 0x7);
    let end_len = 1 + usize::from((lens >> 3) & 0x7);
    let plan_len = usize::from(plan_len % 8);
    if data.len() < start_len + end_len + plan_len {
        return None;
    }
    let (start, data) = data.split_at(start_len);
    let (end, data) = data.split_at(end_len);
    let (plan, text) = data.split_at(plan_len);
    // Equal markers are interesting; a flag bit makes them common.
    let start = String::from_utf8_lossy(start).into_owned();
    let end = if lens & 0x80 != 0 {
        start.clone()
    } else {
        String::from_utf8_lossy(end).into_owned()
    };
    Some(Case {
        text: text.to_vec(),
        start,
        end,
        max_matches,
        plan: plan.iter().map(|&b| 1 + usize::from(b)).collect(),
    })
}

#[derive(Debug, PartialEq)]
struct Seen {
    matches: Vec<(String, u64, u64)>,
    truncated: bool,
    error: Option<ScanError>,
}

/// [`Collect`], asking for UTF-16 offsets or not (the scanner then does not count them).
struct Offsets(Collect, bool);

impl Sink for Offsets {
    fn open(&mut self, marker: Pos, content: Pos) -> ControlFlow<()> {
        self.0.open(marker, content)
    }
    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
        self.0.content(fragment)
    }
    fn close(&mut self, content_end: Pos, marker_end: Pos) -> ControlFlow<()> {
        self.0.close(content_end, marker_end)
    }
    fn matched(&mut self, open: [Pos; 2], content: &[u8], close: [Pos; 2]) -> ControlFlow<()> {
        self.0.matched(open, content, close)
    }
    fn utf16_offsets(&self) -> bool {
        self.1
    }
}

/// Matches (content, byte offset), `truncated`, and the error (unclosed or not, byte offset).
type InBytes<'a> = (Vec<(&'a str, u64)>, bool, Option<(bool, u64)>);

impl Seen {
    /// What a sink without UTF-16 offsets can compare: the same, in bytes only.
    fn in_bytes(&self) -> InBytes<'_> {
        let error = self.error.as_ref().map(|e| match *e {
            ScanError::InvalidUtf8 { offset, .. } => (false, offset),
            ScanError::Unclosed { marker } => (true, marker.byte),
        });
        let matches = self.matches.iter().map(|(t, b, _)| (t.as_str(), *b));
        (matches.collect(), self.truncated, error)
    }
}

fn scan(markers: &Markers, text: &[u8], cap: usize, plan: &[usize], utf16: bool) -> Seen {
    // The plan's length and the text's choose the paths: every set of kernels this CPU
    // runs, each walk on and off, the prefetch hints both ways (see `Paths::vary`).
    let paths = Paths::vary(plan.len() * 7 + text.len());
    let mut scanner = testing::scanner(markers, paths);
    let mut sink = Capped::new(Offsets(Collect::default(), utf16), cap as u64);
    let (error, carried) = testing::feed_planned(&mut scanner, &mut sink, text, plan);
    assert!(carried < markers.max_len() + 3);
    Seen {
        truncated: sink.truncated(),
        matches: sink
            .into_inner()
            .0
            .matches
            .into_iter()
            .map(|m| (m.text, m.content_start.byte, m.content_start.utf16))
            .collect(),
        error,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(case) = decode(data) else { return };
    let markers = Markers::new(case.start.as_str(), case.end.as_str()).unwrap();
    let whole = scan(&markers, &case.text, case.max_matches, &[], true);
    let chunked = scan(&markers, &case.text, case.max_matches, &case.plan, true);
    assert_eq!(whole, chunked, "{case:?}");
    let bytes_only = scan(&markers, &case.text, case.max_matches, &case.plan, false);
    assert_eq!(bytes_only.in_bytes(), chunked.in_bytes(), "{case:?}");
    let Ok(text) = std::str::from_utf8(&case.text) else {
        if let Some(ScanError::InvalidUtf8 { offset, .. }) = whole.error {
            let valid = std::str::from_utf8(&case.text).unwrap_err().valid_up_to();
            assert_eq!(offset, valid as u64, "{case:?}");
        }
        return;
    };
    let ex = Extractor::new(&markers)
        .max_matches(case.max_matches)
        .unwrap()
        .max_text_bytes(None);
    let reference = reference::extract(text, &case.start, &case.end, case.max_matches);
    match ex.extract(text) {
        Ok(out) => {
            let base = text.as_ptr() as usize;
            let expected: Vec<(String, u64, u64)> = out
                .matches
                .iter()
                .map(|m| {
                    let at = m.as_ptr() as usize - base;
                    (
                        m.to_string(),
                        at as u64,
                        text[..at].encode_utf16().count() as u64,
                    )
                })
                .collect();
            assert_eq!(whole.matches, expected, "{case:?}");
            assert_eq!(whole.truncated, out.truncated, "{case:?}");
            assert_eq!(whole.error, None, "{case:?}");
            let theirs = reference.expect("reference agrees it is closed");
            let ours: Vec<Vec<u16>> = out
                .matches
                .iter()
                .map(|m| m.encode_utf16().collect())
                .collect();
            assert_eq!((ours, out.truncated), theirs, "{case:?}");
        }
        Err(ExtractError::Unclosed { marker, .. }) => {
            assert_eq!(
                whole.error,
                Some(ScanError::Unclosed { marker }),
                "{case:?}"
            );
            assert_eq!(reference, Err(marker.utf16 as usize), "{case:?}");
        }
        Err(e) => panic!("unexpected {e} for {case:?}"),
    }
});
