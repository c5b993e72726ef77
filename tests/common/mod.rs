//! Shared test helpers: random cases drawn so that matches are common, and a driver that
//! feeds the scanner under a given chunk plan.
#![allow(dead_code)]

#[cfg(feature = "server")]
pub mod http;

use extract_between::testing::{Paths, scanner};
use extract_between::{Capped, Collect, Collected, Markers, ScanError, Scanner, Sink};
use quickcheck::{Arbitrary, Gen};

/// Pieces mixing ASCII, marker-ish punctuation, two- and three-byte characters, an astral
/// emoji (a surrogate pair in UTF-16) and a combining sequence. The zero-width (non-)joiner
/// shares its last two bytes with `「`/`」` (`E2 80 8C`/`8D` against `E3 80 8C`/`8D`): the
/// bytes the UTF-8 fast path probes, so they make candidates that are not occurrences.
pub const ALPHABET: &[&str] = &[
    "a",
    "b",
    "[",
    "]",
    "<",
    "!",
    "-",
    ">",
    "é",
    "€",
    "「",
    "」",
    "😀",
    "e\u{301}",
    "\u{10FFFF}",
    "\u{200C}",
    "\u{200D}",
];

#[derive(Clone, Debug)]
pub struct Case {
    pub text: String,
    pub start: String,
    pub end: String,
    pub max_matches: usize,
    /// Chunk sizes in bytes, cycled; they cut characters and markers anywhere.
    pub chunks: Vec<usize>,
}

fn piece_string(g: &mut Gen, max_pieces: usize) -> String {
    let n = usize::arbitrary(g) % (max_pieces + 1);
    (0..n).map(|_| *g.choose(ALPHABET).unwrap()).collect()
}

fn marker(g: &mut Gen, text: &str) -> String {
    // Half the time take a substring of the text so matches are frequent.
    let chars: Vec<char> = text.chars().collect();
    if !chars.is_empty() && bool::arbitrary(g) {
        let a = usize::arbitrary(g) % chars.len();
        // Now and then a long one: past 32 bytes a needle has no probe and the fast paths
        // leave it to the general path (or search only for the other marker).
        let len = if u8::arbitrary(g) % 8 == 0 {
            8 + usize::arbitrary(g) % 40
        } else {
            1 + usize::arbitrary(g) % 3
        };
        let s: String = chars[a..(a + len).min(chars.len())].iter().collect();
        return s;
    }
    loop {
        let s = piece_string(g, 3);
        if !s.is_empty() {
            return s;
        }
    }
}

impl Arbitrary for Case {
    fn arbitrary(g: &mut Gen) -> Case {
        let size = g.size();
        let mut text = piece_string(g, size);
        // Sometimes long runs, which whole 64-byte blocks of the scanner's fast paths see
        // only when chunks are long too: ASCII with an occasional marker-like piece (the
        // ASCII path), or any pieces (the UTF-8 path).
        let kind = u8::arbitrary(g) % 3;
        if kind < 2 {
            let runs = 1 + usize::arbitrary(g) % 4;
            for _ in 0..runs {
                let len = 60 + usize::arbitrary(g) % 200;
                let mut run = String::new();
                for i in 0..len {
                    run.push_str(if kind == 1 || i % 97 == 96 {
                        g.choose(ALPHABET).unwrap()
                    } else {
                        "a"
                    });
                }
                let at = text
                    .char_indices()
                    .map(|(i, _)| i)
                    .nth(usize::arbitrary(g) % (text.chars().count() + 1))
                    .unwrap_or(text.len());
                text.insert_str(at, &run);
            }
        }
        let start = marker(g, &text);
        let end = if u8::arbitrary(g) % 5 == 0 {
            start.clone()
        } else {
            marker(g, &text)
        };
        let max_matches = *g.choose(&[1, 2, 3, 5, 100]).unwrap();
        let n = 1 + usize::arbitrary(g) % 6;
        let long = bool::arbitrary(g);
        let chunks = (0..n)
            .map(|_| {
                if long {
                    1 + usize::arbitrary(g) % 300
                } else {
                    1 + usize::arbitrary(g) % 9
                }
            })
            .collect();
        Case {
            text,
            start,
            end,
            max_matches,
            chunks,
        }
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Case>> {
        let me = self.clone();
        let texts = self.text.chars().count();
        Box::new((0..texts).map(move |skip| {
            let mut c = me.clone();
            c.text = me
                .text
                .chars()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, ch)| ch)
                .collect();
            c
        }))
    }
}

/// The scanner's view of a run: matches with positions, truncated, error.
#[derive(Debug, PartialEq, Eq)]
pub struct Scanned {
    pub matches: Vec<Collected>,
    pub truncated: bool,
    pub error: Option<ScanError>,
    /// The largest carry-over seen after any feed.
    pub max_buffered: usize,
}

/// Feeds `bytes` to a scanner in chunks cycling through `plan` (empty plan: one chunk). The
/// plan's length and the text's choose the scanner's paths (see `Paths::vary`), so that over a
/// property's cases every set of kernels this CPU runs is taken, each walk on and off, and
/// the prefetch hints both ways.
pub fn scan(markers: &Markers, bytes: &[u8], max_matches: u64, plan: &[usize]) -> Scanned {
    let paths = Paths::vary(plan.len() * 7 + bytes.len());
    scan_with(paths, markers, bytes, max_matches, plan)
}

/// [`scan`] with the given paths.
pub fn scan_with(
    paths: Paths,
    markers: &Markers,
    bytes: &[u8],
    max_matches: u64,
    plan: &[usize],
) -> Scanned {
    let mut scanner = scanner(markers, paths);
    let mut sink = Capped::new(Collect::default(), max_matches);
    let (error, max_buffered) = feed_all(&mut scanner, &mut sink, bytes, plan);
    Scanned {
        truncated: sink.truncated(),
        matches: sink.into_inner().matches,
        error,
        max_buffered,
    }
}

/// Feeds `bytes` to `scanner` and `sink` in chunks cycling through `plan` (empty plan: one
/// chunk), then finishes, stopping at a break or an error: returns the error, if any, and
/// the largest carry-over seen after any feed.
pub fn feed_all<S: Sink>(
    scanner: &mut Scanner,
    sink: &mut S,
    bytes: &[u8],
    plan: &[usize],
) -> (Option<ScanError>, usize) {
    let mut max_buffered = 0;
    let mut rest = bytes;
    let mut k = 0;
    while !rest.is_empty() {
        let size = if plan.is_empty() {
            rest.len()
        } else {
            plan[k % plan.len()].min(rest.len())
        };
        k += 1;
        let (chunk, tail) = rest.split_at(size);
        rest = tail;
        match scanner.feed(chunk, sink) {
            Ok(flow) => {
                max_buffered = max_buffered.max(scanner.buffered());
                if flow.is_break() {
                    break;
                }
            }
            Err(e) => return (Some(e), max_buffered),
        }
    }
    (scanner.finish(sink).err(), max_buffered)
}

pub fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}
