//! The resumable, sans-IO scanner: where matching is decided for every input read as bytes
//! (one-shot [`extract`](crate::extract) over a `&str` is the other engine, held equal to this
//! one by the property tests and the differential fuzz target).
//!
//! A [`Scanner`] is fed UTF-8 bytes in chunks of any size, split anywhere (inside a marker,
//! inside a character), and reports what it finds to a [`Sink`] as it goes: a match opened, a
//! fragment of its content, the match closed — or, for a match that lies within one chunk,
//! the whole match in one call. It does no I/O and knows nothing of async; the stream
//! adapter, the codec, the CLI, the HTTP service's stream route and the row API all drive
//! this same type.
//!
//! # How it stays bounded and linear
//!
//! The scanner alternates between two needles: the start marker while outside a match, the end
//! marker inside one (the end is searched from just after the start, so `"<!-->"` with
//! `<!--`/`-->` is unclosed). Within a chunk it searches with a [`memchr::memmem::Finder`]
//! built once. What may straddle a chunk boundary is a *prefix of the needle being sought*: the
//! scanner remembers only its length (`held`), because its bytes are the needle's own. On the
//! next chunk a Knuth–Morris–Pratt automaton extends or abandons that prefix byte by byte
//! until the candidate occurrence lies wholly inside the new chunk, then `memmem` takes over.
//! So no byte is rescanned more than a constant number of times, whatever the chunk sizes, and
//! the carry-over never exceeds `max(len(start), len(end)) − 1` bytes, plus at most 3 bytes of
//! a character whose encoding was cut by the chunk boundary. Content is handed out as
//! fragments as soon as it is known not to begin the end marker, so a match is never held.
//!
//! # The fast paths
//!
//! With nothing held, `feed` first offers a chunk to two walks over 64-byte blocks, which
//! validate and search in one pass with the vector kernels of `crate::kernels`:
//!
//! - the ASCII walk (`ascii_walk.rs`), for ASCII markers over ASCII text: a block is tested
//!   for non-ASCII bytes and for the marker (its byte, or its two rarest bytes at their
//!   offsets, for markers of up to 32 bytes), and UTF-16 offsets cost nothing (a unit a
//!   byte). It hands over at the first non-ASCII byte.
//! - the UTF-8 walk (`utf8_walk.rs`), for any text: a block is validated by table lookups
//!   on its bytes' nibbles (Keiser and Lemire's method), its UTF-16 units counted, and
//!   searched for the marker's two rarest bytes. It hands over at a character boundary
//!   before a block that breaks UTF-8, where the general path names the exact byte.
//!
//! Both stop where less than a block and a marker are left and hold nothing: the general
//! path (`general.rs`) decides the rest, and alone holds a marker prefix across chunks. All
//! three report through `events.rs`, the one place where matches reach the [`Sink`].
//!
//! # Why searching UTF-8 bytes honours UTF-16 semantics
//!
//! The card compares UTF-16 code units. For valid Unicode, an occurrence of a well-formed
//! needle starts and ends on character boundaries in either encoding, and the two encodings'
//! occurrences correspond one to one, in the same order. So a leftmost byte search finds the
//! same matches. Offsets are reported in both bytes and UTF-16 code units (counted on the fly:
//! one unit per byte that is not a continuation byte, two for a four-byte character). The
//! input is validated incrementally: an invalid byte stops the scan with its offset, after
//! every match completed before it was reported.

use crate::kernels::ascii_run_without;
use crate::markers::Markers;
use crate::utf8::{all_ascii, check, sequence_len, utf16_len, utf16_len_from};
use core::fmt;
use core::ops::ControlFlow;
use memchr::memmem;

mod ascii_walk;
mod events;
mod general;
mod needle;
pub(crate) mod paths;
mod sink;
mod units;
mod utf8_walk;

use events::{Run, deliver};

/// What a run over a slice returns: how much of it was decided, and whether the sink asked
/// to stop.
type Walked = (usize, ControlFlow<()>);
use needle::*;
use paths::Paths;
pub use sink::{Pos, Sink};
use units::*;

/// Why a scan failed. Every match completed before the failure was reported first.
///
/// ```
/// use extract_between::{Collect, Markers, Pos, ScanError, Scanner};
/// let mut s = Scanner::new(&Markers::new("[", "]").unwrap());
/// let mut sink = Collect::default();
/// assert_eq!(
///     s.feed(b"[a] \xff", &mut sink),
///     Err(ScanError::InvalidUtf8 { offset: 4, incomplete: false })
/// );
/// assert_eq!(sink.matches[0].text, "a"); // reported before the error
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScanError {
    /// The input is not valid UTF-8: the sequence starting at byte `offset` is invalid, or
    /// (`incomplete`) the input ended in the middle of a character that starts there.
    InvalidUtf8 {
        /// Byte offset of the first byte of the offending sequence.
        offset: u64,
        /// The input ended inside a character rather than containing an invalid byte.
        incomplete: bool,
    },
    /// The input ended inside a match: the start marker at `marker` has no end marker after
    /// it (the card's "unclosed start marker").
    Unclosed {
        /// Where the unclosed start marker begins.
        marker: Pos,
    },
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScanError::InvalidUtf8 {
                offset,
                incomplete: false,
            } => write!(f, "invalid UTF-8 at byte offset {offset}"),
            ScanError::InvalidUtf8 {
                offset,
                incomplete: true,
            } => write!(
                f,
                "invalid UTF-8: input ends inside a character that starts at byte offset {offset}"
            ),
            ScanError::Unclosed { marker } => write!(
                f,
                "unclosed start marker at byte offset {} (UTF-16 offset {})",
                marker.byte, marker.utf16
            ),
        }
    }
}

impl std::error::Error for ScanError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Looking for a start marker.
    Seek,
    /// Inside a match, looking for its end marker.
    Inside,
    /// The sink asked to stop; input is ignored.
    Stopped,
    /// `finish` succeeded.
    Finished,
}

/// The resumable scanner. See the [module documentation](self) for the design.
///
/// # Examples
///
/// Feed chunks split anywhere, then `finish`:
///
/// ```
/// use extract_between::{Collect, Markers, Scanner};
///
/// let mut scanner = Scanner::new(&Markers::new("「", "」").unwrap());
/// let mut found = Collect::default();
/// let text = "前「一」中「二」後".as_bytes();
/// for chunk in text.chunks(2) {
///     // Chunks cut characters and markers; a `Break` says the sink wants no more.
///     if scanner.feed(chunk, &mut found).unwrap().is_break() {
///         break;
///     }
/// }
/// scanner.finish(&mut found).unwrap();
/// let contents: Vec<&str> = found.matches.iter().map(|m| m.text.as_str()).collect();
/// assert_eq!(contents, ["一", "二"]);
/// assert_eq!(found.matches[1].content_start.utf16, 6);
/// ```
#[derive(Clone, Debug)]
pub struct Scanner {
    start: Needle,
    end: Needle,
    state: State,
    /// Bytes at the end of the input scanned so far that equal the current needle's first
    /// `held` bytes and may begin an occurrence. In `Inside`, they are undelivered content.
    held: usize,
    /// Position just past the last byte handed to the matcher (held bytes included).
    scanned: Pos,
    /// Where the open match's start marker begins.
    open_marker: Pos,
    /// A character cut by a chunk boundary: its first bytes, not yet scanned.
    pending: [u8; 4],
    pending_len: usize,
    error: Option<ScanError>,
    /// Which fast paths run, with which kernels.
    paths: Paths,
}

impl Scanner {
    /// A scanner for `markers`, positioned at the beginning of the input.
    ///
    /// ```
    /// use extract_between::{Markers, Scanner};
    /// let scanner = Scanner::new(&Markers::new("[", "]").unwrap());
    /// assert_eq!(scanner.buffered(), 0);
    /// ```
    pub fn new(markers: &Markers) -> Scanner {
        Scanner {
            start: Needle::new(markers.start()),
            end: Needle::new(markers.end()),
            state: State::Seek,
            held: 0,
            scanned: Pos::default(),
            open_marker: Pos::default(),
            pending: [0; 4],
            pending_len: 0,
            error: None,
            paths: Paths::detect(),
        }
    }

    /// Rewinds to the beginning of a new input, keeping the markers' finders: for scanning
    /// many short texts (the rows of a column) with one scanner.
    ///
    /// ```
    /// use extract_between::{Collect, Markers, Scanner};
    /// let mut scanner = Scanner::new(&Markers::new("[", "]").unwrap());
    /// let mut first = Collect::default();
    /// scanner.feed(b"[a] [b", &mut first).unwrap();
    /// assert!(scanner.finish(&mut first).is_err());
    /// scanner.reset();
    /// let mut second = Collect::default();
    /// scanner.feed(b"[c]", &mut second).unwrap();
    /// scanner.finish(&mut second).unwrap();
    /// assert_eq!(second.matches[0].text, "c");
    /// assert_eq!(second.matches[0].content_start.byte, 1);
    /// ```
    pub fn reset(&mut self) {
        self.state = State::Seek;
        self.held = 0;
        self.scanned = Pos::default();
        self.open_marker = Pos::default();
        self.pending_len = 0;
        self.error = None;
    }

    /// The same scanner taking `paths` (for `testing`).
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    pub(crate) fn with_paths(self, paths: Paths) -> Scanner {
        Scanner { paths, ..self }
    }

    /// Scans the next chunk of input, reporting to `sink`.
    ///
    /// Returns `Ok(ControlFlow::Break(()))` once the sink has asked to stop, now or earlier:
    /// the caller need not read any more input.
    ///
    /// # Errors
    ///
    /// [`ScanError::InvalidUtf8`] at the first invalid byte, after reporting everything
    /// before it. Errors are terminal: later calls return the same error.
    pub fn feed<S: Sink + ?Sized>(
        &mut self,
        mut chunk: &[u8],
        sink: &mut S,
    ) -> Result<ControlFlow<()>, ScanError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if matches!(self.state, State::Stopped | State::Finished) {
            return Ok(ControlFlow::Break(()));
        }
        if self.pending_len > 0 {
            // Complete the character cut by the previous boundary and scan it on its own.
            let total = sequence_len(self.pending[0]).unwrap_or(1);
            let take = total.saturating_sub(self.pending_len).min(chunk.len());
            let (head, rest) = chunk.split_at(take);
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(head);
            self.pending_len += take;
            chunk = rest;
            let pending = self.pending;
            let character = &pending[..self.pending_len];
            match std::str::from_utf8(character) {
                Ok(_) => {
                    self.pending_len = 0;
                    if self.pass_character(character, sink).is_break() {
                        return Ok(ControlFlow::Break(()));
                    }
                }
                // Still cut: the chunk was shorter than the rest of the character.
                Err(e) if e.error_len().is_none() => return Ok(ControlFlow::Continue(())),
                Err(_) => {
                    return Err(self.fail(ScanError::InvalidUtf8 {
                        offset: self.scanned.byte,
                        incomplete: false,
                    }));
                }
            }
        }
        if self.paths.ascii
            && self.held == 0
            && chunk.len() >= ASCII_MIN_CHUNK
            && chunk.first().is_some_and(u8::is_ascii)
        {
            // ASCII markers over ASCII text: validation and search in one pass, up to the
            // first non-ASCII byte (so not even set up when that is the first).
            let (n, flow) = self.scan_ascii(chunk, sink);
            if flow.is_break() {
                return Ok(flow);
            }
            chunk = &chunk[n..];
            if chunk.is_empty() {
                // All of it decided, as the ASCII path does for one-byte markers over ASCII
                // text: nothing to hold.
                return Ok(flow);
            }
            if let Some(flow) = self.hold_ascii_tail(chunk, sink) {
                return Ok(flow);
            }
        }
        if self.paths.utf8 && self.held == 0 && chunk.len() >= UTF8_MIN_CHUNK {
            // Any text, with AVX2: validation, UTF-16 counting and search in one pass. Also
            // for sinks that decline UTF-16 offsets: the count is a few instructions per
            // block, and the pass beats simdutf8 then memmem on CJK text (1.17x).
            let (n, flow) = self.scan_utf8(chunk, sink);
            if flow.is_break() {
                return Ok(flow);
            }
            chunk = &chunk[n..];
        }
        if self.held == 0 {
            // An ASCII run without the first byte of the needle sought holds no event: one
            // fused pass validates it and skips it. On text without markers that is the
            // whole chunk, which then costs one pass over memory instead of two (validation,
            // then search).
            let (inside, needle) = self.sought();
            let n = ascii_run_without(chunk, needle.bytes()[0]);
            if n > 0 {
                let (run, rest) = chunk.split_at(n);
                if inside && deliver(&mut self.state, run, sink).is_break() {
                    return Ok(ControlFlow::Break(()));
                }
                self.scanned = Counter::new(self.scanned, Units::of(sink, true)).pos(run, n);
                chunk = rest;
            }
        }
        // ASCII is valid UTF-8 and counts one UTF-16 unit per byte: one cheap pass decides
        // both, and the common case needs no other.
        if all_ascii(chunk) {
            return Ok(self.scan(chunk, true, sink));
        }
        let checked = check(chunk);
        let (valid, rest) = chunk.split_at(checked.complete);
        if self.scan(valid, false, sink).is_break() {
            return Ok(ControlFlow::Break(()));
        }
        if checked.invalid {
            return Err(self.fail(ScanError::InvalidUtf8 {
                offset: self.scanned.byte,
                incomplete: false,
            }));
        }
        // A character cut by the end of the chunk (at most 3 bytes): keep it.
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
        Ok(ControlFlow::Continue(()))
    }

    /// Ends the input.
    ///
    /// # Errors
    ///
    /// [`ScanError::Unclosed`] when the input ended inside a match (after its `open` and
    /// content were reported, but no `close`); [`ScanError::InvalidUtf8`] when it ended
    /// inside a character; any earlier error again. When the sink stopped the scan early,
    /// nothing after that point is judged and the result is `Ok`.
    pub fn finish<S: Sink + ?Sized>(&mut self, sink: &mut S) -> Result<(), ScanError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if matches!(self.state, State::Stopped | State::Finished) {
            return Ok(());
        }
        if self.pending_len > 0 {
            return Err(self.fail(ScanError::InvalidUtf8 {
                offset: self.scanned.byte,
                incomplete: true,
            }));
        }
        if self.state == State::Inside {
            // Deliver the held bytes: they are the unclosed match's content, not an end.
            if self.held > 0 {
                let held = self.held;
                self.held = 0;
                let _ = deliver(&mut self.state, &self.end.bytes()[..held], sink);
            }
            return Err(self.fail(ScanError::Unclosed {
                marker: self.open_marker,
            }));
        }
        self.state = State::Finished;
        Ok(())
    }

    /// Bytes carried over between chunks: the held marker prefix plus the start of a cut
    /// character. Never more than `markers.max_len() - 1 + 3`.
    ///
    /// ```
    /// use extract_between::{Markers, Scanner};
    /// let mut s = Scanner::new(&Markers::new("<!--", "-->").unwrap());
    /// s.feed(b"abc<!-", &mut extract_between::Collect::default()).unwrap();
    /// assert_eq!(s.buffered(), 3);
    /// ```
    pub fn buffered(&self) -> usize {
        self.held + self.pending_len
    }

    /// Position just past the input scanned so far (cut characters and held bytes count as
    /// not yet scanned and scanned respectively).
    ///
    /// ```
    /// use extract_between::{Markers, Scanner};
    /// let mut s = Scanner::new(&Markers::new("[", "]").unwrap());
    /// s.feed("é".as_bytes(), &mut extract_between::Collect::default()).unwrap();
    /// assert_eq!((s.position().byte, s.position().utf16), (2, 1));
    /// ```
    pub fn position(&self) -> Pos {
        self.scanned
    }

    /// Whether the scanner is inside a match (a start marker was found, its end not yet).
    ///
    /// ```
    /// use extract_between::{Markers, Scanner};
    /// let mut s = Scanner::new(&Markers::new("[", "]").unwrap());
    /// s.feed(b"a[b", &mut extract_between::Collect::default()).unwrap();
    /// assert!(s.is_inside());
    /// ```
    pub fn is_inside(&self) -> bool {
        self.state == State::Inside
    }

    /// Whether the sink stopped the scan early; no further input needs to be read.
    ///
    /// ```
    /// use extract_between::{Capped, Collect, Markers, Scanner};
    /// let mut s = Scanner::new(&Markers::new("[", "]").unwrap());
    /// let mut sink = Capped::new(Collect::default(), 1);
    /// s.feed(b"[a][b][c]", &mut sink).unwrap();
    /// assert!(s.is_stopped() && sink.truncated());
    /// ```
    pub fn is_stopped(&self) -> bool {
        self.state == State::Stopped
    }

    /// Records a terminal error: every later call returns it again.
    fn fail(&mut self, error: ScanError) -> ScanError {
        self.error = Some(error.clone());
        error
    }
}
