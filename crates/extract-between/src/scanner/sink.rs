//! What the scanner reports to: positions ([`Pos`]) and the event interface ([`Sink`]).

use super::*;

/// A position in the input, in UTF-8 bytes and in UTF-16 code units from its beginning.
///
/// ```
/// use extract_between::Pos;
/// let p = Pos { byte: 4, utf16: 2 };
/// assert_eq!(p, Pos { byte: 4, utf16: 2 });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// Offset in UTF-8 bytes.
    pub byte: u64,
    /// Offset in UTF-16 code units (what a JavaScript client slices with).
    pub utf16: u64,
}

/// What the scanner reports to. Each method returns [`ControlFlow::Break`] to stop the scan
/// early: the scanner then ignores all further input (see [`Scanner::is_stopped`]).
///
/// For every match the calls are `open`, zero or more `content`, then `close` — or one
/// [`matched`](Sink::matched) with the whole content, when the match lies within one slice
/// the scanner was fed (the scanner may hold a match's `open` back until the end of that
/// slice to find out). The fragments are raw bytes and may cut a character in two; their
/// concatenation is the match's content, valid UTF-8. An input that ends inside a match gets
/// `open` and fragments but no `close`: [`Scanner::finish`] then reports
/// [`ScanError::Unclosed`].
///
/// # Examples
///
/// A sink that prints matches as they come:
///
/// ```
/// use core::ops::ControlFlow;
/// use extract_between::{Markers, Pos, Scanner, Sink};
///
/// struct Print(String);
/// impl Sink for Print {
///     fn open(&mut self, _marker: Pos, _content: Pos) -> ControlFlow<()> {
///         ControlFlow::Continue(())
///     }
///     fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
///         self.0.push_str(std::str::from_utf8(fragment).unwrap_or("?"));
///         ControlFlow::Continue(())
///     }
///     fn close(&mut self, _content_end: Pos, _marker_end: Pos) -> ControlFlow<()> {
///         self.0.push('\n');
///         ControlFlow::Continue(())
///     }
/// }
///
/// let mut scanner = Scanner::new(&Markers::new("[", "]").unwrap());
/// let mut out = Print(String::new());
/// for chunk in ["a[o", "ne]b[t", "wo]"] {
///     if scanner.feed(chunk.as_bytes(), &mut out).unwrap().is_break() {
///         break;
///     }
/// }
/// scanner.finish(&mut out).unwrap();
/// assert_eq!(out.0, "one\ntwo\n");
/// ```
pub trait Sink {
    /// A start marker was found at `marker`; the match's content begins at `content`.
    fn open(&mut self, marker: Pos, content: Pos) -> ControlFlow<()>;
    /// The next piece of the open match's content (never empty).
    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()>;
    /// The open match's content ends at `content_end`; its end marker ends at `marker_end`.
    fn close(&mut self, content_end: Pos, marker_end: Pos) -> ControlFlow<()>;

    /// A whole match found within one slice the scanner was fed: its start marker spans
    /// `open` (where it begins, where the content begins), its content is all of `content`
    /// (possibly empty), its end marker spans `close` (where the content ends, where the
    /// marker ends). The scanner may call this instead of `open`, `content` and `close`;
    /// the default makes those three calls. A sink that keeps matches as slices of the
    /// input, or writes them out, can take the content in one piece here.
    ///
    /// ```
    /// use core::ops::ControlFlow;
    /// use extract_between::{Collect, Markers, Pos, Scanner, Sink};
    ///
    /// // Counts whole matches seen in one piece, and passes everything on.
    /// struct Whole(usize, Collect);
    /// impl Sink for Whole {
    ///     fn open(&mut self, m: Pos, c: Pos) -> ControlFlow<()> { self.1.open(m, c) }
    ///     fn content(&mut self, f: &[u8]) -> ControlFlow<()> { self.1.content(f) }
    ///     fn close(&mut self, c: Pos, m: Pos) -> ControlFlow<()> { self.1.close(c, m) }
    ///     fn matched(&mut self, open: [Pos; 2], content: &[u8], close: [Pos; 2]) -> ControlFlow<()> {
    ///         self.0 += 1;
    ///         self.1.matched(open, content, close)
    ///     }
    /// }
    /// let text = format!("{}[one]{}[two]", "x".repeat(200), "y".repeat(200));
    /// let mut sink = Whole(0, Collect::default());
    /// let mut scanner = Scanner::new(&Markers::new("[", "]").unwrap());
    /// scanner.feed(text.as_bytes(), &mut sink).unwrap();
    /// let texts: Vec<_> = sink.1.matches.iter().map(|m| m.text.as_str()).collect();
    /// assert_eq!(texts, ["one", "two"]);
    /// assert!(sink.0 <= 2); // how many came whole is the scanner's choice
    /// ```
    fn matched(&mut self, open: [Pos; 2], content: &[u8], close: [Pos; 2]) -> ControlFlow<()> {
        self.open(open[0], open[1])?;
        if !content.is_empty() {
            self.content(content)?;
        }
        self.close(close[0], close[1])
    }

    /// Whether this sink uses [`Pos::utf16`]. Where the vector fast paths do not count UTF-16
    /// code units as they search, counting costs a pass over non-ASCII text between events;
    /// a sink that only needs byte offsets returns `false`, and every `utf16` it is given (and
    /// in [`ScanError::Unclosed`]) is then 0. The answer must not change during a scan.
    ///
    /// ```
    /// use core::ops::ControlFlow;
    /// use extract_between::{Markers, Pos, Scanner, Sink};
    ///
    /// struct Bytes(Vec<u64>);
    /// impl Sink for Bytes {
    ///     fn open(&mut self, _: Pos, c: Pos) -> ControlFlow<()> { self.0.push(c.byte); ControlFlow::Continue(()) }
    ///     fn content(&mut self, _: &[u8]) -> ControlFlow<()> { ControlFlow::Continue(()) }
    ///     fn close(&mut self, _: Pos, _: Pos) -> ControlFlow<()> { ControlFlow::Continue(()) }
    ///     fn utf16_offsets(&self) -> bool { false }
    /// }
    /// let mut s = Scanner::new(&Markers::new("「", "」").unwrap());
    /// let mut sink = Bytes(Vec::new());
    /// s.feed("前「一」".as_bytes(), &mut sink).unwrap();
    /// assert_eq!(sink.0, [6]);
    /// ```
    fn utf16_offsets(&self) -> bool {
        true
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn open(&mut self, marker: Pos, content: Pos) -> ControlFlow<()> {
        (**self).open(marker, content)
    }
    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
        (**self).content(fragment)
    }
    fn close(&mut self, content_end: Pos, marker_end: Pos) -> ControlFlow<()> {
        (**self).close(content_end, marker_end)
    }
    fn matched(&mut self, open: [Pos; 2], content: &[u8], close: [Pos; 2]) -> ControlFlow<()> {
        (**self).matched(open, content, close)
    }
    fn utf16_offsets(&self) -> bool {
        (**self).utf16_offsets()
    }
}
