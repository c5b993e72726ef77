//! Random cases for properties against the reference: texts from a small alphabet that
//! straddles every path of the scanner, markers often taken from the text, chunk plans that
//! cut characters and markers anywhere.

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

/// A random text, markers, cap and chunk plan, drawn so that matches are common.
#[derive(Clone, Debug)]
pub struct Case {
    /// The text.
    pub text: String,
    /// The start marker.
    pub start: String,
    /// The end marker.
    pub end: String,
    /// The cap.
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
        shrunk(self, &self.text, |c, text| c.text = text)
    }
}

/// A case shrunk a character of its text at a time: a copy of `case` without each character
/// of `text` in turn, `set` putting the shorter text in place.
pub(super) fn shrunk<T: Clone + 'static>(
    case: &T,
    text: &str,
    set: fn(&mut T, String),
) -> Box<dyn Iterator<Item = T>> {
    let (case, chars) = (case.clone(), text.chars().collect::<Vec<char>>());
    Box::new((0..chars.len()).map(move |skip| {
        let mut c = case.clone();
        let text = chars
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != skip)
            .map(|(_, ch)| ch)
            .collect();
        set(&mut c, text);
        c
    }))
}
