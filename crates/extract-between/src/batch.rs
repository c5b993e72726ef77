//! [`Batch`], the sink a binding's streaming scanner gathers one call's matches in: contents
//! back to back in one buffer (nothing allocated per match), at most a limit of bytes of the
//! one match still open (the `max_match_bytes` of every binding), and the matches handed out
//! in order with their positions.
//!
//! Python's `Scanner` and `finditer` and JavaScript's `Scanner` and `extractStream` are this
//! sink; each host turns a [`Gathered`] into its own match object.
//!
//! ```
//! use extract_between::batch::Batch;
//! use extract_between::{Markers, Scanner};
//!
//! let mut scanner = Scanner::new(&Markers::new("[", "]").unwrap());
//! let mut batch = Batch::new(16);
//! scanner.feed(b"a [one] b [tw", &mut batch).unwrap();
//! let first = batch.pop().unwrap();
//! assert_eq!((first.text(), first.start.byte, first.end.byte), ("one", 3, 6));
//! assert!(batch.pop().is_none()); // "[tw" is still open
//! scanner.feed(b"o]", &mut batch).unwrap();
//! assert_eq!(batch.pop().unwrap().text(), "two");
//! assert!(batch.too_large().is_none());
//! ```

use crate::scanner::{Pos, Sink};
use core::fmt;
use core::ops::{ControlFlow, Range};

/// A match that grew past a limit on its content: where the content began, and the limit.
/// Its `Display` is the sentence every binding words the error with; [`naming`](Self::naming)
/// adds the option that set the limit, as the binding's users spell it.
///
/// ```
/// use extract_between::{Pos, batch::TooLarge};
/// let big = TooLarge { start: Pos { byte: 7, utf16: 5 }, limit: 4 };
/// assert_eq!(big.to_string(), "the match starting at UTF-16 offset 5 (byte offset 7) is longer than 4 bytes");
/// assert_eq!(
///     big.naming("maxMatchBytes").to_string(),
///     "the match starting at UTF-16 offset 5 (byte offset 7) is longer than maxMatchBytes (4 bytes)"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// Where the match's content begins.
    pub start: Pos,
    /// The limit it broke, in bytes.
    pub limit: usize,
}

impl TooLarge {
    /// The sentence with `option`, the name of the setting that gave the limit.
    pub fn naming(self, option: &str) -> impl fmt::Display + '_ {
        Naming {
            error: self,
            option,
        }
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, option: Option<&str>) -> fmt::Result {
        let Pos { byte, utf16 } = self.start;
        // The card's order, as in its unclosed-marker message: UTF-16 first.
        write!(
            f,
            "the match starting at UTF-16 offset {utf16} (byte offset {byte}) is longer than "
        )?;
        match option {
            Some(option) => write!(f, "{option} ({} bytes)", self.limit),
            None => write!(f, "{} bytes", self.limit),
        }
    }
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, None)
    }
}

/// [`TooLarge::naming`]'s sentence.
struct Naming<'a> {
    error: TooLarge,
    option: &'a str,
}

impl fmt::Display for Naming<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.write(f, Some(self.option))
    }
}

/// A match gathered: its content's place in the batch's buffer and its positions.
#[derive(Clone, Debug)]
struct Span {
    text: Range<usize>,
    start: Pos,
    end: Pos,
}

/// One gathered match, borrowed from its [`Batch`] until the next call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gathered<'a> {
    /// The content's UTF-8 bytes (whole characters: the scanner hands out valid UTF-8).
    pub bytes: &'a [u8],
    /// Where the content begins in the whole input.
    pub start: Pos,
    /// Where the content ends (where the end marker begins).
    pub end: Pos,
}

impl<'a> Gathered<'a> {
    /// The content as text (empty if the bytes were not UTF-8, which the scanner never hands
    /// out; checked so that no caller can make this panic).
    pub fn text(&self) -> &'a str {
        core::str::from_utf8(self.bytes).unwrap_or_default()
    }
}

/// The matches of a scanner's calls, gathered until they are popped (see the
/// [module documentation](self)).
#[derive(Clone, Debug)]
pub struct Batch {
    text: Vec<u8>,
    spans: Vec<Span>,
    next: usize,
    open: Option<(usize, Pos)>,
    limit: usize,
    too_large: Option<Pos>,
}

impl Sink for Batch {
    fn open(&mut self, _marker: Pos, content: Pos) -> ControlFlow<()> {
        self.open = Some((self.text.len(), content));
        ControlFlow::Continue(())
    }

    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
        if let Some((from, start)) = self.open
            && self.text.len() - from + fragment.len() > self.limit
        {
            self.too_large = Some(start);
            return ControlFlow::Break(());
        }
        self.text.extend_from_slice(fragment);
        ControlFlow::Continue(())
    }

    fn close(&mut self, content_end: Pos, _marker_end: Pos) -> ControlFlow<()> {
        if let Some((from, start)) = self.open.take() {
            self.spans.push(Span {
                text: from..self.text.len(),
                start,
                end: content_end,
            });
        }
        ControlFlow::Continue(())
    }

    fn matched(&mut self, open: [Pos; 2], content: &[u8], close: [Pos; 2]) -> ControlFlow<()> {
        if content.len() > self.limit {
            self.too_large = Some(open[1]);
            return ControlFlow::Break(());
        }
        let from = self.text.len();
        self.text.extend_from_slice(content);
        self.spans.push(Span {
            text: from..self.text.len(),
            start: open[1],
            end: close[0],
        });
        ControlFlow::Continue(())
    }
}

impl Batch {
    /// A batch that holds at most `limit` bytes of one match's content; past it the scan
    /// stops and [`too_large`](Self::too_large) says where that match began.
    pub fn new(limit: usize) -> Batch {
        Batch {
            text: Vec::new(),
            spans: Vec::new(),
            next: 0,
            open: None,
            limit,
            too_large: None,
        }
    }

    /// The limit on one match's content, in bytes.
    ///
    /// ```
    /// assert_eq!(extract_between::batch::Batch::new(8).limit(), 8);
    /// ```
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The match that grew past the limit (where its content begins), once; the scan
    /// stopped there (the matches before it can still be popped).
    ///
    /// ```
    /// use extract_between::{Markers, Scanner, batch::Batch};
    /// let mut batch = Batch::new(2);
    /// let mut scanner = Scanner::new(&Markers::new("[", "]").unwrap());
    /// scanner.feed(b"[ab] [abc]", &mut batch).unwrap();
    /// assert_eq!(batch.too_large().map(|big| (big.start.byte, big.limit)), Some((6, 2)));
    /// assert_eq!(batch.pop().unwrap().text(), "ab");
    /// ```
    pub fn too_large(&mut self) -> Option<TooLarge> {
        let start = self.too_large.take()?;
        Some(TooLarge {
            start,
            limit: self.limit,
        })
    }

    /// Matches gathered and not yet popped.
    ///
    /// ```
    /// assert_eq!(extract_between::batch::Batch::new(8).len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.spans.len() - self.next
    }

    /// No match waits to be popped.
    ///
    /// ```
    /// assert!(extract_between::batch::Batch::new(8).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The next gathered match, or `None` once all were popped (the buffer is then emptied,
    /// keeping the content of a match still open).
    pub fn pop(&mut self) -> Option<Gathered<'_>> {
        if self.next >= self.spans.len() {
            self.compact();
            return None;
        }
        let span = &self.spans[self.next];
        self.next += 1;
        Some(Gathered {
            bytes: self.text.get(span.text.clone()).unwrap_or_default(),
            start: span.start,
            end: span.end,
        })
    }

    /// Drops what was handed out; the content of a match still open moves to the front.
    fn compact(&mut self) {
        self.spans.clear();
        self.next = 0;
        match &mut self.open {
            Some((from, _)) => {
                self.text.drain(..*from);
                *from = 0;
            }
            None => self.text.clear(),
        }
    }

    /// Gives back the memory of a scan that has ended (with an error, or finished), keeping
    /// the limit.
    ///
    /// ```
    /// let mut batch = extract_between::batch::Batch::new(8);
    /// batch.release();
    /// assert_eq!(batch.limit(), 8);
    /// ```
    pub fn release(&mut self) {
        *self = Batch::new(self.limit);
    }
}
