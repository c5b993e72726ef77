//! The resumable tag-set scanner and what it reports to.
//!
//! Within a slice it alternates two searches: the set's start markers while outside a match,
//! the open pair's end marker inside one. What it cannot decide at a slice's end is the
//! longest suffix that may still begin the marker sought (a start marker found there may yet
//! be beaten by a longer one that begins as early): those bytes, and a character cut by the
//! boundary, are carried. The next chunk's first bytes are appended to the carry, a marker's
//! length and a character's worth, which always decides past the carry's end; the rest of the
//! chunk is searched where it lies. So no piece waits longer than a marker requires, and every
//! piece is whole characters.
//!
//! A feed's work is proportional to the chunk plus the carry, which is less than the longest
//! marker: unlike the one-pair scanner, whose resume automaton makes every byte cost the same
//! whatever the chunking, a carry is searched again with each chunk. Chunks of a byte with
//! markers of thousands of bytes that the text keeps almost matching are the worst case.

use super::TagSet;
use crate::scanner::{Pos, ScanError};
use crate::utf8::{utf16_len, valid_prefix};
use core::ops::ControlFlow;

/// What the [`TagScanner`] reports to, in input order. Each piece of text is whole characters
/// and never empty; each method returns [`ControlFlow::Break`] to stop the scan.
///
/// For a match: `open`, zero or more `text`, `close`. Between matches: zero or more
/// `outside`. An input that ends inside a match gets `open` and its text but no `close`
/// ([`TagScanner::finish`] then reports [`ScanError::Unclosed`]). Each call's `span` is where
/// the marker or piece begins and ends in the whole input.
///
/// ```
/// use core::ops::ControlFlow;
/// use extract_between::Pos;
/// use extract_between::tags::{TagScanner, TagSet, TagSink};
///
/// /// Writes the text outside every match, with each match as `[tag]`.
/// struct Outline(String);
/// impl TagSink for Outline {
///     fn outside(&mut self, text: &str, _: [Pos; 2]) -> ControlFlow<()> {
///         self.0.push_str(text);
///         ControlFlow::Continue(())
///     }
///     fn open(&mut self, tag: usize, _: [Pos; 2]) -> ControlFlow<()> {
///         self.0.push_str(&format!("[{tag}]"));
///         ControlFlow::Continue(())
///     }
///     fn text(&mut self, _: usize, _: &str, _: [Pos; 2]) -> ControlFlow<()> {
///         ControlFlow::Continue(())
///     }
///     fn close(&mut self, _: usize, _: [Pos; 2]) -> ControlFlow<()> {
///         ControlFlow::Continue(())
///     }
/// }
/// let tags = TagSet::new([("<b>", "</b>"), ("<i>", "</i>")]).unwrap();
/// let mut out = Outline(String::new());
/// let mut scanner = TagScanner::new(&tags);
/// scanner.feed(b"a<i>x</i>b<b>y</b>c", &mut out).unwrap();
/// scanner.finish(&mut out).unwrap();
/// assert_eq!(out.0, "a[1]b[0]c");
/// ```
pub trait TagSink {
    /// Text outside every match. The default ignores it.
    fn outside(&mut self, text: &str, span: [Pos; 2]) -> ControlFlow<()> {
        let _ = (text, span);
        ControlFlow::Continue(())
    }
    /// Pair `tag`'s start marker, at `span`.
    fn open(&mut self, tag: usize, span: [Pos; 2]) -> ControlFlow<()>;
    /// The next piece of the open match's text.
    fn text(&mut self, tag: usize, text: &str, span: [Pos; 2]) -> ControlFlow<()>;
    /// Pair `tag`'s end marker, at `span`.
    fn close(&mut self, tag: usize, span: [Pos; 2]) -> ControlFlow<()>;
}

impl<S: TagSink + ?Sized> TagSink for &mut S {
    fn outside(&mut self, text: &str, span: [Pos; 2]) -> ControlFlow<()> {
        (**self).outside(text, span)
    }
    fn open(&mut self, tag: usize, span: [Pos; 2]) -> ControlFlow<()> {
        (**self).open(tag, span)
    }
    fn text(&mut self, tag: usize, text: &str, span: [Pos; 2]) -> ControlFlow<()> {
        (**self).text(tag, text, span)
    }
    fn close(&mut self, tag: usize, span: [Pos; 2]) -> ControlFlow<()> {
        (**self).close(tag, span)
    }
}

/// A chunk of at most this many bytes is appended to a carry whole rather than searched
/// where it lies: copying it costs less than a piece cut at the carry's end would.
const WHOLE_CHUNK: usize = 4096;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    /// Outside every match, looking for a start marker.
    #[default]
    Seek,
    /// Inside a match of this pair, looking for its end marker.
    Inside(usize),
    /// The sink asked to stop; input is ignored.
    Stopped,
    /// `finish` succeeded.
    Finished,
}

/// The resumable scanner of a [`TagSet`]: feed it UTF-8 bytes in chunks split anywhere, then
/// `finish`. See the [module documentation](super) for the semantics.
///
/// ```
/// use extract_between::tags::{TagEvent, TagEvents, TagScanner, TagSet};
/// let tags = TagSet::new([("<a>", "</a>"), ("<ab>", "|")]).unwrap();
/// let mut scanner = TagScanner::new(&tags);
/// let mut sink = TagEvents::new();
/// for chunk in ["x<a", "b>1|<a>2</a>"] {
///     scanner.feed(chunk.as_bytes(), &mut sink).unwrap();
/// }
/// scanner.finish(&mut sink).unwrap();
/// let kinds: Vec<_> = sink.drain().map(|e| (e.kind(), e.tag())).collect();
/// assert_eq!(kinds, [
///     ("outside", None), ("open", Some(1)), ("text", Some(1)), ("close", Some(1)),
///     ("open", Some(0)), ("text", Some(0)), ("close", Some(0)),
/// ]);
/// ```
#[derive(Clone, Debug)]
pub struct TagScanner {
    tags: TagSet,
    cursor: Cursor,
    /// Undecided bytes: a suffix that may begin the marker sought, and a cut character.
    carry: Vec<u8>,
    error: Option<ScanError>,
    /// [`WHOLE_CHUNK`]; the tests vary it.
    whole_chunk: usize,
}

impl TagScanner {
    /// A scanner for `tags`, at the beginning of the input.
    ///
    /// ```
    /// use extract_between::tags::{TagScanner, TagSet};
    /// let scanner = TagScanner::new(&TagSet::new([("[", "]")]).unwrap());
    /// assert_eq!(scanner.buffered(), 0);
    /// ```
    pub fn new(tags: &TagSet) -> TagScanner {
        TagScanner {
            tags: tags.clone(),
            cursor: Cursor::default(),
            carry: Vec::new(),
            error: None,
            whole_chunk: WHOLE_CHUNK,
        }
    }

    /// The same scanner appending chunks of at most `bytes` to its carry whole (for
    /// `testing`, whose cases are shorter than the default).
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    pub(crate) fn with_whole_chunk(self, bytes: usize) -> TagScanner {
        TagScanner {
            whole_chunk: bytes,
            ..self
        }
    }

    /// Rewinds to the beginning of a new input, keeping the set's searchers.
    ///
    /// ```
    /// use extract_between::tags::{TagEvents, TagScanner, TagSet};
    /// let mut scanner = TagScanner::new(&TagSet::new([("[", "]")]).unwrap());
    /// let mut sink = TagEvents::new();
    /// scanner.feed(b"[a", &mut sink).unwrap();
    /// scanner.reset();
    /// assert!(!scanner.is_inside() && scanner.position().byte == 0);
    /// ```
    pub fn reset(&mut self) {
        self.cursor = Cursor::default();
        self.carry.clear();
        self.error = None;
    }

    /// Scans the next chunk, reporting to `sink` what it decides.
    ///
    /// Returns `Ok(ControlFlow::Break(()))` once the sink has asked to stop, now or earlier.
    ///
    /// # Errors
    ///
    /// [`ScanError::InvalidUtf8`] at the first invalid byte, after everything before it was
    /// reported. Errors are terminal: later calls return the same error.
    pub fn feed<S: TagSink + ?Sized>(
        &mut self,
        mut chunk: &[u8],
        sink: &mut S,
    ) -> Result<ControlFlow<()>, ScanError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if matches!(self.cursor.state, State::Stopped | State::Finished) {
            return Ok(ControlFlow::Break(()));
        }
        // Decide the carry with the chunk's first bytes; enough of them always decides past
        // the carry's end, and the rest of the chunk is searched where it lies. A token-sized
        // chunk is all taken, so that a feed's text comes as one piece.
        let mut carry = core::mem::take(&mut self.carry);
        while !carry.is_empty() && !chunk.is_empty() {
            let old = carry.len();
            let take = if chunk.len() <= self.whole_chunk {
                chunk.len()
            } else {
                chunk.len().min(self.tags.max_len() + 3)
            };
            carry.extend_from_slice(&chunk[..take]);
            // Pieces stop where the carry ends, so that the chunk's text is not cut in two.
            let limit = if take == chunk.len() { usize::MAX } else { old };
            let (decided, flow) = self.scan(&carry, false, limit, sink)?;
            if flow.is_break() {
                return Ok(flow);
            }
            if take == chunk.len() {
                carry.drain(..decided);
                chunk = &[];
            } else if decided >= old {
                chunk = &chunk[decided - old..];
                carry.clear();
            } else {
                carry.drain(..decided);
                chunk = &chunk[take..];
            }
        }
        self.carry = carry;
        if !chunk.is_empty() {
            let (decided, flow) = self.scan(chunk, false, usize::MAX, sink)?;
            if flow.is_break() {
                return Ok(flow);
            }
            self.carry.extend_from_slice(&chunk[decided..]);
        }
        Ok(ControlFlow::Continue(()))
    }

    /// Ends the input: reports what the carry holds.
    ///
    /// # Errors
    ///
    /// [`ScanError::Unclosed`] when the input ended inside a match (after its `open` and text
    /// were reported; [`open_tag`](Self::open_tag) says which pair);
    /// [`ScanError::InvalidUtf8`] when it ended inside a character; any earlier error again.
    /// When the sink stopped the scan, nothing after that point is judged.
    pub fn finish<S: TagSink + ?Sized>(&mut self, sink: &mut S) -> Result<(), ScanError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if matches!(self.cursor.state, State::Stopped | State::Finished) {
            return Ok(());
        }
        let carry = core::mem::take(&mut self.carry);
        let (decided, flow) = self.scan(&carry, true, usize::MAX, sink)?;
        if flow.is_break() {
            return Ok(());
        }
        if decided < carry.len() {
            return Err(self.fail(ScanError::InvalidUtf8 {
                offset: self.cursor.at.byte,
                incomplete: true,
            }));
        }
        if let State::Inside(_) = self.cursor.state {
            return Err(self.fail(ScanError::Unclosed {
                marker: self.cursor.open_marker,
            }));
        }
        self.cursor.state = State::Finished;
        Ok(())
    }

    /// Bytes carried over between chunks: never more than the set's longest marker less one,
    /// plus 3 bytes of a cut character.
    ///
    /// ```
    /// use extract_between::tags::{TagEvents, TagScanner, TagSet};
    /// let mut s = TagScanner::new(&TagSet::new([("<think>", "</think>")]).unwrap());
    /// s.feed(b"It is 4. <thi", &mut TagEvents::new()).unwrap();
    /// assert_eq!(s.buffered(), 4); // "<thi" may begin the marker; the rest was reported
    /// ```
    pub fn buffered(&self) -> usize {
        self.carry.len()
    }

    /// Where the first byte not yet reported lies (the carry's first byte).
    ///
    /// ```
    /// use extract_between::tags::{TagEvents, TagScanner, TagSet};
    /// let mut s = TagScanner::new(&TagSet::new([("[", "]")]).unwrap());
    /// s.feed("é[".as_bytes(), &mut TagEvents::new()).unwrap();
    /// assert_eq!((s.position().byte, s.position().utf16), (3, 2));
    /// ```
    pub fn position(&self) -> Pos {
        self.cursor.at
    }

    /// Whether the scanner is inside a match.
    ///
    /// ```
    /// use extract_between::tags::{TagEvents, TagScanner, TagSet};
    /// let mut s = TagScanner::new(&TagSet::new([("[", "]")]).unwrap());
    /// s.feed(b"a[b", &mut TagEvents::new()).unwrap();
    /// assert!(s.is_inside());
    /// ```
    pub fn is_inside(&self) -> bool {
        matches!(self.cursor.state, State::Inside(_))
    }

    /// The pair of the open match, if the scanner is inside one (after an
    /// [`Unclosed`](ScanError::Unclosed) error too: the pair left open).
    ///
    /// ```
    /// use extract_between::tags::{TagEvents, TagScanner, TagSet};
    /// let mut s = TagScanner::new(&TagSet::new([("[", "]"), ("(", ")")]).unwrap());
    /// let mut sink = TagEvents::new();
    /// s.feed(b"[a] (b", &mut sink).unwrap();
    /// assert!(s.finish(&mut sink).is_err());
    /// assert_eq!(s.open_tag(), Some(1));
    /// ```
    pub fn open_tag(&self) -> Option<usize> {
        match self.cursor.state {
            State::Inside(tag) => Some(tag),
            _ => None,
        }
    }

    /// The tag set scanned for.
    ///
    /// ```
    /// use extract_between::tags::{TagScanner, TagSet};
    /// let s = TagScanner::new(&TagSet::new([("[", "]")]).unwrap());
    /// assert_eq!(s.tags().len(), 1);
    /// ```
    pub fn tags(&self) -> &TagSet {
        &self.tags
    }

    /// Validates `buf` (which begins at the cursor) and reports what it decides of its whole
    /// characters (all of them at the end of input, `eof`); a last piece of text stops at the
    /// first character boundary from `limit`. Returns how many bytes were decided; an invalid
    /// byte is an error after everything before it was reported.
    fn scan<S: TagSink + ?Sized>(
        &mut self,
        buf: &[u8],
        eof: bool,
        limit: usize,
        sink: &mut S,
    ) -> Result<(usize, ControlFlow<()>), ScanError> {
        let (text, invalid) = valid_prefix(buf);
        // Before a bad byte nothing more can come to complete a marker: decide it all, to the
        // byte the error names.
        let limit = if invalid { usize::MAX } else { limit };
        let (decided, flow) = self.run(text, eof || invalid, limit, sink);
        if flow.is_continue() && invalid {
            return Err(self.fail(ScanError::InvalidUtf8 {
                offset: self.cursor.at.byte,
                incomplete: false,
            }));
        }
        Ok((decided, flow))
    }

    /// Reports what `text` decides; at the end of input (`end`), all of it. A last piece
    /// stops at the first character boundary from `limit`.
    fn run<S: TagSink + ?Sized>(
        &mut self,
        text: &str,
        end: bool,
        limit: usize,
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        // The set is read while the cursor moves: two fields, borrowed apart.
        let (starts, ends) = (&self.tags.inner.starts, &self.tags.inner.ends);
        let cursor = &mut self.cursor;
        let mut i = 0;
        loop {
            let (base, rest) = (i, &text.as_bytes()[i..]);
            let flow = match cursor.state {
                State::Seek => match starts.find(rest) {
                    // Final unless a longer marker that begins as early may still complete.
                    Some((tag, s, e))
                        if end
                            || s + starts.max_len() <= rest.len()
                            || s < starts.open_suffix(rest) =>
                    {
                        i = base + e;
                        cursor.opened(tag, text, [base, base + s, i], sink)
                    }
                    _ => {
                        let h = if end {
                            rest.len()
                        } else {
                            starts.open_suffix(rest)
                        };
                        i = last_piece(text, base, base + h, limit);
                        let flow = cursor.piece(&text[base..i], None, sink);
                        return cursor.stop_if(i, flow);
                    }
                },
                State::Inside(tag) => match ends.find(tag, rest) {
                    (Some(s), len) => {
                        i = base + s + len;
                        cursor.closed(tag, text, [base, base + s, i], sink)
                    }
                    (None, _) => {
                        let h = if end {
                            rest.len()
                        } else {
                            ends.open_suffix(tag, rest)
                        };
                        i = last_piece(text, base, base + h, limit);
                        let flow = cursor.piece(&text[base..i], Some(tag), sink);
                        return cursor.stop_if(i, flow);
                    }
                },
                State::Stopped | State::Finished => return (i, ControlFlow::Break(())),
            };
            if flow.is_break() {
                return cursor.stop_if(i, flow);
            }
        }
    }

    /// Records a terminal error: every later call returns it again.
    fn fail(&mut self, error: ScanError) -> ScanError {
        self.error = Some(error.clone());
        error
    }
}

/// Where a scan stands: what it seeks and the first undecided byte, moved as it reports.
#[derive(Clone, Debug, Default)]
struct Cursor {
    state: State,
    /// Where the open match's start marker begins.
    open_marker: Pos,
    /// Where the first undecided byte lies: everything before it was reported.
    at: Pos,
}

impl Cursor {
    /// Outside text `text[from..begin]`, then pair `tag`'s start marker `text[begin..end]`.
    fn opened<S: TagSink + ?Sized>(
        &mut self,
        tag: usize,
        text: &str,
        [from, begin, end]: [usize; 3],
        sink: &mut S,
    ) -> ControlFlow<()> {
        self.piece(&text[from..begin], None, sink)?;
        let span = self.advance(&text[begin..end]);
        self.open_marker = span[0];
        self.state = State::Inside(tag);
        sink.open(tag, span)
    }

    /// The match's text `text[from..begin]`, then pair `tag`'s end marker `text[begin..end]`.
    fn closed<S: TagSink + ?Sized>(
        &mut self,
        tag: usize,
        text: &str,
        [from, begin, end]: [usize; 3],
        sink: &mut S,
    ) -> ControlFlow<()> {
        self.piece(&text[from..begin], Some(tag), sink)?;
        let span = self.advance(&text[begin..end]);
        self.state = State::Seek;
        sink.close(tag, span)
    }

    /// Reports `piece` when it is not empty: outside text, or pair `tag`'s match text.
    fn piece<S: TagSink + ?Sized>(
        &mut self,
        piece: &str,
        tag: Option<usize>,
        sink: &mut S,
    ) -> ControlFlow<()> {
        if piece.is_empty() {
            return ControlFlow::Continue(());
        }
        let span = self.advance(piece);
        match tag {
            None => sink.outside(piece, span),
            Some(tag) => sink.text(tag, piece, span),
        }
    }

    /// Moves `at` past `decided`; returns the span it covered.
    fn advance(&mut self, decided: &str) -> [Pos; 2] {
        let begin = self.at;
        self.at = Pos {
            byte: begin.byte + decided.len() as u64,
            utf16: begin.utf16 + utf16_len(decided.as_bytes()),
        };
        [begin, self.at]
    }

    fn stop_if(&mut self, decided: usize, flow: ControlFlow<()>) -> (usize, ControlFlow<()>) {
        if flow.is_break() {
            self.state = State::Stopped;
        }
        (decided, flow)
    }
}

/// Where a last piece `text[from..to]` ends when it must stop at the first character boundary
/// from `limit` (nothing when it begins there or later).
fn last_piece(text: &str, from: usize, to: usize, limit: usize) -> usize {
    if to <= limit {
        return to;
    }
    let mut stop = limit.max(from);
    while !text.is_char_boundary(stop) {
        stop += 1;
    }
    stop
}
