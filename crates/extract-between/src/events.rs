//! A match's life as it happens: [`Event`]s for a text that arrives in pieces (a language
//! model's tokens, a socket), so that a reader sees what is inside `<answer>…</answer>`
//! before the end marker comes. [`EventSink`] is the [`Sink`] that turns the scanner's
//! `open` / `content` / `close` calls into events; it holds no match text, only a character
//! cut between two pieces (at most three bytes), so an open match of any size costs nothing.
//!
//! Every binding's events form (Python's `iter_events`, the Rust stream
//! `stream::events`, JavaScript's `{ events: true }`) is this sink, so the same chunks give
//! the same events everywhere.
//!
//! ```
//! use extract_between::{Markers, Scanner};
//! use extract_between::events::{Event, EventSink};
//!
//! let mut scanner = Scanner::new(&Markers::new("<answer>", "</answer>").unwrap());
//! let mut sink = EventSink::new();
//! let (mut shown, mut kinds) = (String::new(), Vec::new());
//! for token in ["<ans", "wer>Forty", "-two</an", "swer>"] {
//!     assert!(scanner.feed(token.as_bytes(), &mut sink).unwrap().is_continue());
//!     for event in sink.drain() {
//!         kinds.push(event.kind());
//!         if let Event::Text { text, .. } = event {
//!             shown.push_str(&text); // "Forty", then "-two", as they arrive
//!         }
//!     }
//! }
//! scanner.finish(&mut sink).unwrap();
//! assert_eq!(shown, "Forty-two");
//! assert_eq!(kinds, ["open", "text", "text", "close"]);
//! ```

use crate::scanner::{Pos, Sink};
use core::ops::ControlFlow;
use std::collections::VecDeque;

/// One step of a match's life, with its offsets in the whole input (bytes and UTF-16 code
/// units).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A start marker: where it begins (`marker`) and where the content begins (`content`).
    Open {
        /// Where the start marker begins.
        marker: Pos,
        /// Where the content begins (where the marker ends).
        content: Pos,
    },
    /// The next piece of the open match's content: whole characters (never a character cut
    /// in two), never empty. Together a match's pieces are its content.
    Text {
        /// The piece.
        text: String,
        /// Where the piece begins.
        start: Pos,
        /// Where the piece ends.
        end: Pos,
    },
    /// The end marker: where the content ends (`content_end`) and where the marker ends.
    Close {
        /// Where the content ends (where the end marker begins).
        content_end: Pos,
        /// Where the end marker ends.
        marker_end: Pos,
    },
}

impl Event {
    /// The event's name: `"open"`, `"text"` or `"close"`.
    ///
    /// ```
    /// use extract_between::{Pos, events::Event};
    /// let open = Event::Open { marker: Pos::default(), content: Pos::default() };
    /// assert_eq!(open.kind(), "open");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Open { .. } => "open",
            Event::Text { .. } => "text",
            Event::Close { .. } => "close",
        }
    }
}

/// The [`Sink`] that records events; take them with [`drain`](EventSink::drain) after each
/// `feed` (see the [module documentation](self)).
#[derive(Debug, Default)]
pub struct EventSink {
    events: VecDeque<Event>,
    /// Where the next piece of content begins.
    at: Pos,
    /// The start of a character the last piece cut (its remaining bytes come next).
    cut: Vec<u8>,
}

impl EventSink {
    /// An empty sink.
    ///
    /// ```
    /// let sink = extract_between::events::EventSink::new();
    /// assert_eq!(sink.len(), 0);
    /// ```
    pub fn new() -> EventSink {
        EventSink::default()
    }

    /// The events recorded since the last drain, oldest first.
    ///
    /// ```
    /// # let mut sink = extract_between::events::EventSink::new();
    /// assert_eq!(sink.drain().count(), 0);
    /// ```
    pub fn drain(&mut self) -> impl Iterator<Item = Event> + '_ {
        self.events.drain(..)
    }

    /// The next recorded event, if any.
    ///
    /// ```
    /// # let mut sink = extract_between::events::EventSink::new();
    /// assert!(sink.pop().is_none());
    /// ```
    pub fn pop(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// How many events wait to be drained.
    ///
    /// ```
    /// # let sink = extract_between::events::EventSink::new();
    /// assert!(sink.is_empty());
    /// ```
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether no event waits.
    ///
    /// ```
    /// # let sink = extract_between::events::EventSink::new();
    /// assert!(sink.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Bytes of a character cut between two pieces, waiting for its rest (at most 3).
    ///
    /// ```
    /// # let sink = extract_between::events::EventSink::new();
    /// assert_eq!(sink.held(), 0);
    /// ```
    pub fn held(&self) -> usize {
        self.cut.len()
    }

    /// Records `text` (whole characters) as the next piece.
    fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let start = self.at;
        let utf16 = text.chars().map(char::len_utf16).sum::<usize>();
        self.at = Pos {
            byte: start.byte + text.len() as u64,
            utf16: start.utf16 + utf16 as u64,
        };
        self.events.push_back(Event::Text {
            text: text.to_owned(),
            start,
            end: self.at,
        });
    }
}

/// The length of the UTF-8 character that `lead` begins.
fn char_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// Where the last whole character of `bytes` ends: the length of its longest prefix that
/// does not end inside a character (the scanner hands over valid UTF-8 only, cut anywhere).
fn whole(bytes: &[u8]) -> usize {
    // The last lead byte, within the last three bytes: where a cut character would start.
    for back in 1..=bytes.len().min(3) {
        let at = bytes.len() - back;
        if bytes[at] & 0xC0 != 0x80 {
            return if back >= char_len(bytes[at]) {
                bytes.len()
            } else {
                at
            };
        }
    }
    bytes.len()
}

impl Sink for EventSink {
    fn open(&mut self, marker: Pos, content: Pos) -> ControlFlow<()> {
        self.at = content;
        self.cut.clear();
        self.events.push_back(Event::Open { marker, content });
        ControlFlow::Continue(())
    }

    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
        let mut fragment = fragment;
        if let Some(&lead) = self.cut.first() {
            // Complete the cut character first (the scanner validated the bytes).
            let len = char_len(lead);
            let take = (len - self.cut.len()).min(fragment.len());
            self.cut.extend_from_slice(&fragment[..take]);
            fragment = &fragment[take..];
            if self.cut.len() < len {
                return ControlFlow::Continue(());
            }
            let character = core::mem::take(&mut self.cut);
            self.text(core::str::from_utf8(&character).unwrap_or_default());
        }
        let end = whole(fragment);
        self.text(core::str::from_utf8(&fragment[..end]).unwrap_or_default());
        self.cut.extend_from_slice(&fragment[end..]);
        ControlFlow::Continue(())
    }

    fn close(&mut self, content_end: Pos, marker_end: Pos) -> ControlFlow<()> {
        self.cut.clear();
        self.events.push_back(Event::Close {
            content_end,
            marker_end,
        });
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Markers, Scanner};

    /// The events of `chunks`, and the contents they spell.
    fn events(chunks: &[&[u8]], start: &str, end: &str) -> (Vec<Event>, Vec<String>) {
        let mut scanner = Scanner::new(&Markers::new(start, end).unwrap());
        let mut sink = EventSink::new();
        let mut all = Vec::new();
        for chunk in chunks {
            assert!(scanner.feed(chunk, &mut sink).unwrap().is_continue());
            all.extend(sink.drain());
        }
        scanner.finish(&mut sink).unwrap();
        all.extend(sink.drain());
        let mut contents = Vec::new();
        for event in &all {
            match event {
                Event::Open { .. } => contents.push(String::new()),
                Event::Text { text, .. } => contents.last_mut().unwrap().push_str(text),
                Event::Close { .. } => {}
            }
        }
        (all, contents)
    }

    #[test]
    fn a_character_cut_between_chunks_is_never_split_in_a_text_event() {
        let text = "[😀é中]".as_bytes();
        for cut in 0..=text.len() {
            let (all, contents) = events(&[&text[..cut], &text[cut..]], "[", "]");
            assert_eq!(contents, ["😀é中"], "cut at {cut}");
            let mut at = Pos { byte: 1, utf16: 1 };
            for event in &all {
                if let Event::Text { text, start, end } = event {
                    assert_eq!(*start, at);
                    at = *end;
                    assert_eq!(end.byte - start.byte, text.len() as u64);
                    assert_eq!(end.utf16 - start.utf16, text.encode_utf16().count() as u64);
                }
            }
            assert_eq!(at, Pos { byte: 10, utf16: 5 });
        }
    }

    #[test]
    fn every_byte_split_spells_the_one_shot_matches() {
        let text = "a<b>x😀y</b> <b></b><b>中<</b>".as_bytes();
        let whole = crate::extract(core::str::from_utf8(text).unwrap(), "<b>", "</b>").unwrap();
        for cut in 0..=text.len() {
            for cut2 in cut..=text.len() {
                let (_, contents) = events(
                    &[&text[..cut], &text[cut..cut2], &text[cut2..]],
                    "<b>",
                    "</b>",
                );
                assert_eq!(contents, whole.matches, "cuts {cut} {cut2}");
            }
        }
    }

    #[test]
    fn whole_finds_the_last_character_boundary() {
        assert_eq!(whole(b"ab"), 2);
        assert_eq!(whole(&"é".as_bytes()[..1]), 0);
        assert_eq!(whole("aé".as_bytes()), 3);
        assert_eq!(whole(&"a😀".as_bytes()[..4]), 1);
        assert_eq!(whole("a😀".as_bytes()), 5);
    }
}
