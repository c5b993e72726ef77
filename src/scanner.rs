//! The resumable, sans-IO scanner: the one place where matching is decided.
//!
//! A [`Scanner`] is fed UTF-8 bytes in chunks of any size, split anywhere (inside a marker,
//! inside a character), and reports what it finds to a [`Sink`] as it goes: a match opened, a
//! fragment of its content, the match closed — or, for a match that lies within one chunk,
//! the whole match in one call. It does no I/O and knows nothing of async; the stream
//! adapter, the codec, the CLI and the HTTP service all drive this same type.
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
//! # The ASCII fast path
//!
//! When no needle prefix is held and the needle sought is ASCII, a chunk is first scanned in
//! 64-byte blocks that are tested for non-ASCII bytes and for the needle (its byte, or its two
//! rarest bytes at their offsets; needles of up to 32 bytes) in one vector pass ([`crate::utf8::stops64_pair`]): on
//! ASCII text, validation and search then cost one pass, and on UTF-16 offsets nothing (one
//! unit per byte). It hands over to the general path above at the first non-ASCII byte and
//! where less than a block and a needle are left, holding nothing itself.
//!
//! # The UTF-8 fast path
//!
//! On CPUs with AVX2, text that is not ASCII gets the same treatment: each 64-byte block is
//! validated by table lookups on its bytes' nibbles (Keiser and Lemire's method), its UTF-16
//! units counted from two byte masks, and searched for the needle's two rarest bytes, all in
//! one pass ([`crate::utf8`]'s `avx2::utf8_block`); a block's results serve every event in
//! it. It hands over at a character boundary before a block that breaks UTF-8 (the general
//! path then finds the exact byte) and where less than a block and a needle are left.
//!
//! # Why searching UTF-8 bytes honours UTF-16 semantics
//!
//! The card compares UTF-16 code units. For valid Unicode, an occurrence of a well-formed
//! needle starts and ends on character boundaries in either encoding, and the two encodings'
//! occurrences correspond one to one, in the same order. So a leftmost byte search finds the
//! same matches. Offsets are reported in both bytes and UTF-16 code units (counted on the fly,
//! see [`crate::utf8::utf16_len`]). The input is validated incrementally: an invalid byte
//! stops the scan with its offset, after every match completed before it was reported.

use crate::markers::Markers;
use crate::utf8::{
    PREFETCH_AHEAD, all_ascii, ascii_run_without, check, prefetch, sequence_len, stops64,
    stops64_pair, streams_without_hints, utf16_len, utf16_len_from,
};
#[cfg(target_arch = "x86_64")]
use crate::utf8::{Utf8Block, avx2, avx512};
use core::fmt;
use core::ops::ControlFlow;
use memchr::memmem;

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
///     scanner.feed(chunk.as_bytes(), &mut out).unwrap();
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

/// One marker, prepared for searching within a chunk and across chunk boundaries.
#[derive(Clone, Debug)]
struct Needle {
    finder: memmem::Finder<'static>,
    /// KMP failure function: `fail[i]` is the length of the longest proper prefix of
    /// `needle[..=i]` that is also a suffix of it.
    fail: Box<[u16]>,
    utf16_len: u64,
    /// How the fast paths find it (needles of up to [`Probe::MAX_LEN`] bytes).
    probe: Option<Probe>,
}

/// Two bytes of an all-ASCII needle and their offsets in it, tested together over 64-byte
/// blocks (see [`stops64_pair`]): the two rarest by memchr's byte-frequency ranking, as its
/// packed-pair search picks them, so that common bytes like `<` in HTML do not make every
/// position a candidate. A one-byte needle probes its byte twice.
///
/// The UTF-8 fast path tests the same two bytes (for a CJK bracket, its two continuation
/// bytes: a third compare per block cost more than the occasional candidate's compare).
#[derive(Clone, Copy, Debug)]
struct Probe {
    first: (usize, u8),
    second: (usize, u8),
    /// The one byte a three-byte needle has left: a candidate is confirmed by comparing it
    /// alone.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    third: Option<(usize, u8)>,
    /// Whether the two probed bytes are the whole needle (a candidate is then an
    /// occurrence; decided here, once, not for every chunk).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    exact: bool,
    /// The needle itself (its first `len` bytes), kept here so the fast path owns a copy.
    bytes: [u8; Probe::MAX_LEN],
    len: usize,
    /// Whether the needle is all ASCII (the ASCII fast path takes only those).
    ascii: bool,
}

impl Probe {
    /// The longest needle probed. A candidate costs a comparison of the whole needle, and
    /// text can make every other position a candidate (`xyxy…` against `xyxy…xx`): bounding
    /// the length keeps that linear, as `memmem`, which takes longer needles, is.
    const MAX_LEN: usize = 32;

    fn new(needle: &[u8]) -> Option<Probe> {
        if needle.len() > Probe::MAX_LEN {
            return None;
        }
        let (i1, i2) = memchr::arch::all::packedpair::Pair::new(needle).map_or((0, 0), |p| {
            (usize::from(p.index1()), usize::from(p.index2()))
        });
        let mut bytes = [0; Probe::MAX_LEN];
        bytes[..needle.len()].copy_from_slice(needle);
        let exact = (0..needle.len()).all(|k| k == i1 || k == i2);
        let third = (0..needle.len())
            .find(|&k| k != i1 && k != i2)
            .filter(|_| needle.len() == 3)
            .map(|k| (k, needle[k]));
        Some(Probe {
            first: (i1, needle[i1]),
            second: (i2, needle[i2]),
            third,
            exact,
            bytes,
            len: needle.len(),
            ascii: needle.is_ascii(),
        })
    }

    #[inline]
    fn needle(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl Needle {
    fn new(needle: &str) -> Needle {
        let bytes = needle.as_bytes();
        let mut fail = vec![0u16; bytes.len()];
        let mut k = 0usize;
        for i in 1..bytes.len() {
            while k > 0 && bytes[i] != bytes[k] {
                k = usize::from(fail[k - 1]);
            }
            if bytes[i] == bytes[k] {
                k += 1;
            }
            // Markers are at most 4096 bytes (checked by `Markers`), so this fits.
            fail[i] = k as u16;
        }
        Needle {
            finder: memmem::Finder::new(bytes).into_owned(),
            fail: fail.into_boxed_slice(),
            utf16_len: utf16_len(bytes),
            probe: Probe::new(bytes),
        }
    }

    fn bytes(&self) -> &[u8] {
        self.finder.needle()
    }

    /// Advances the KMP automaton from `p` matched bytes (`p < len`) over byte `b`.
    fn step(&self, mut p: usize, b: u8) -> usize {
        let n = self.bytes();
        while p > 0 && n[p] != b {
            p = usize::from(self.fail[p - 1]);
        }
        if n[p] == b { p + 1 } else { 0 }
    }

    /// Length of the longest suffix of `data` that is a proper prefix of the needle, given
    /// that the needle does not occur in `data`.
    fn tail_prefix(&self, data: &[u8]) -> usize {
        let from = data.len().saturating_sub(self.bytes().len() - 1);
        data[from..].iter().fold(0, |p, &b| self.step(p, b))
    }
}

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
///     scanner.feed(chunk, &mut found).unwrap(); // cuts characters and markers
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
    /// The vector instructions the ASCII fast path uses on this CPU.
    simd: Simd,
    /// Whether the ASCII path's search for a needle of two bytes or more ([`find_with`],
    /// [`skip_pairs`]) and the UTF-8 walk ([`Walk::seek`]) ask for data ahead (see
    /// [`streams_without_hints`]).
    hints: bool,
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
            simd: Simd::detect(),
            hints: !streams_without_hints(),
        }
    }

    /// The same scanner, but its ASCII fast path uses the baseline instructions (SSE2 on
    /// x86-64) even where the CPU has AVX2: for tests and fuzzing, which check both paths
    /// on one machine.
    ///
    /// ```
    /// use extract_between::{Collect, Markers, Scanner};
    /// let text = "x".repeat(200) + "[a]";
    /// let mut s = Scanner::new(&Markers::new("[", "]").unwrap()).baseline_simd();
    /// let mut found = Collect::default();
    /// s.feed(text.as_bytes(), &mut found).unwrap();
    /// assert_eq!(found.matches[0].text, "a");
    /// ```
    #[doc(hidden)]
    pub fn baseline_simd(mut self) -> Scanner {
        self.simd = Simd::Baseline;
        self
    }

    /// The same scanner, but using AVX2 at most (not AVX-512) where the CPU has it: for
    /// tests and fuzzing, which check every instruction set the CPU has.
    ///
    /// ```
    /// use extract_between::{Collect, Markers, Scanner};
    /// let text = "字".repeat(100) + "「a」";
    /// let mut s = Scanner::new(&Markers::new("「", "」").unwrap()).avx2_simd();
    /// let mut found = Collect::default();
    /// s.feed(text.as_bytes(), &mut found).unwrap();
    /// assert_eq!(found.matches[0].text, "a");
    /// ```
    #[doc(hidden)]
    pub fn avx2_simd(self) -> Scanner {
        #[cfg(target_arch = "x86_64")]
        return self.below_avx512(Simd::Avx2);
        #[cfg(not(target_arch = "x86_64"))]
        self
    }

    /// The same scanner as a CPU with AVX-512 BW but without VBMI runs it (the AVX-512 ASCII
    /// path, the AVX2 UTF-8 path) where this CPU has both: for tests and fuzzing, which check
    /// that combination on one machine.
    ///
    /// ```
    /// use extract_between::{Collect, Markers, Scanner};
    /// let text = "x".repeat(100) + &"字".repeat(100) + "「a」";
    /// let mut s = Scanner::new(&Markers::new("「", "」").unwrap()).without_vbmi();
    /// let mut found = Collect::default();
    /// s.feed(text.as_bytes(), &mut found).unwrap();
    /// assert_eq!(found.matches[0].text, "a");
    /// ```
    #[doc(hidden)]
    pub fn without_vbmi(self) -> Scanner {
        #[cfg(target_arch = "x86_64")]
        return self.below_avx512(Simd::Avx512 { vbmi: false });
        #[cfg(not(target_arch = "x86_64"))]
        self
    }

    /// The same scanner, asking for data ahead in the walks that do so on this CPU's vendor
    /// only (`on`: as on Intel; off: as on AMD) or not: for tests and fuzzing, which check
    /// both ways on one machine. (A hint reads nothing the program sees; the results never
    /// differ.)
    ///
    /// ```
    /// use extract_between::{Collect, Markers, Scanner};
    /// let text = "x".repeat(300) + "<b>a</b>";
    /// for on in [false, true] {
    ///     let mut s = Scanner::new(&Markers::new("<b>", "</b>").unwrap()).prefetch_hints(on);
    ///     let mut found = Collect::default();
    ///     s.feed(text.as_bytes(), &mut found).unwrap();
    ///     assert_eq!(found.matches[0].text, "a");
    /// }
    /// ```
    #[doc(hidden)]
    pub fn prefetch_hints(mut self, on: bool) -> Scanner {
        self.hints = on;
        self
    }

    /// The same scanner with `simd` where the CPU has AVX-512 (and so everything `simd`
    /// asks for); otherwise unchanged.
    #[cfg(target_arch = "x86_64")]
    fn below_avx512(self, simd: Simd) -> Scanner {
        if matches!(self.simd, Simd::Avx512 { .. }) {
            return Scanner { simd, ..self };
        }
        self
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
        if self.held == 0 && chunk.first().is_some_and(u8::is_ascii) {
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
        if self.held == 0 && chunk.len() >= UTF8_MIN_CHUNK {
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
            let inside = self.state == State::Inside;
            let first = if inside { &self.end } else { &self.start }.bytes()[0];
            let n = ascii_run_without(chunk, first);
            if n > 0 {
                let (run, rest) = chunk.split_at(n);
                if inside && sink.content(run).is_break() {
                    self.state = State::Stopped;
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

    /// Takes what the ASCII path leaves at the end of a chunk when it is ASCII and shorter
    /// than the marker sought: no occurrence can end in it, so it only decides how much of a
    /// prefix of the marker to hold, as the general path would after a search that fails.
    /// `None` when `data` is not such a tail. (The general path's set-up — an ASCII check
    /// of the whole slice, a `memmem` call, a position counter — was ~300 instructions a
    /// chunk for these few bytes.)
    fn hold_ascii_tail<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> Option<ControlFlow<()>> {
        let inside = self.state == State::Inside;
        let needle = if inside { &self.end } else { &self.start };
        if self.held != 0 || data.len() >= needle.bytes().len() || !data.is_ascii() {
            return None;
        }
        if self.hold_tail(data, sink).is_break() {
            self.state = State::Stopped;
            return Some(ControlFlow::Break(()));
        }
        self.scanned = Counter::new(self.scanned, Units::of(sink, true)).pos(data, data.len());
        Some(ControlFlow::Continue(()))
    }

    /// After a search for the marker sought found nothing in `data`: holds the longest
    /// suffix of `data` that begins the marker and delivers the rest as content inside a
    /// match (the general path's end of a slice, and [`Scanner::hold_ascii_tail`]'s).
    fn hold_tail<S: Sink + ?Sized>(&mut self, data: &[u8], sink: &mut S) -> ControlFlow<()> {
        let inside = self.state == State::Inside;
        let needle = if inside { &self.end } else { &self.start };
        let held = needle.tail_prefix(data);
        let decided = &data[..data.len() - held];
        if inside && !decided.is_empty() {
            sink.content(decided)?;
        }
        self.held = held;
        ControlFlow::Continue(())
    }

    /// Scans one whole character, cut by the last chunk boundary. With nothing held, it can
    /// only matter to the needle sought if that needle begins with it; otherwise it is passed
    /// (as content, inside a match) without the general path's setup (a `memmem` search, a
    /// count of units), which cost more than the character.
    fn pass_character<S: Sink + ?Sized>(
        &mut self,
        character: &[u8],
        sink: &mut S,
    ) -> ControlFlow<()> {
        let inside = self.state == State::Inside;
        let needle = if inside { &self.end } else { &self.start };
        if self.held > 0 || needle.bytes().starts_with(character) {
            return self.scan(character, false, sink);
        }
        if inside && sink.content(character).is_break() {
            self.state = State::Stopped;
            return ControlFlow::Break(());
        }
        self.scanned =
            Counter::new(self.scanned, Units::of(sink, false)).pos(character, character.len());
        ControlFlow::Continue(())
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
                let _ = sink.content(&self.end.bytes()[..held]);
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

    /// The fast path for all-ASCII needles over ASCII text: validates and finds candidates
    /// in one pass over 64-byte blocks ([`stops64_pair`]), reporting events as
    /// [`Scanner::scan`] would. It stops at the first non-ASCII byte, where less than a block
    /// and a needle are left, or when the needle sought next is not ASCII, and returns how
    /// much of `data` it decided: the caller scans the rest. It holds no needle prefix: a
    /// candidate near the end is left to the general path, which can hold one.
    fn scan_ascii<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        match self.simd {
            // The quiet walk's test is not used with `FOLD` (see [`Blocks::next`]).
            Simd::Baseline => {
                self.scan_ascii_with::<S, true>(data, sink, stops64, |_, _| false, find_baseline)
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Simd::Avx2` is only chosen when the CPU was found to have AVX2.
            #[allow(unsafe_code)]
            Simd::Avx2 => unsafe { self.scan_ascii_avx2(data, sink) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Simd::Avx512` is only chosen when the CPU has AVX-512 BW and AVX2.
            #[allow(unsafe_code)]
            Simd::Avx512 { .. } => unsafe { self.scan_ascii_avx512(data, sink) },
        }
    }

    /// [`Scanner::scan_ascii`] compiled with AVX2, its search inlined into the event loop.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn scan_ascii_avx2<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        use crate::utf8::avx2;
        let one = |b: &[u8; 64], x| avx2::stops64(b, x);
        let quiet = |b: &[u8; 128], x| avx2::quiet128(b, x);
        let hint = self.hints;
        self.scan_ascii_with::<S, false>(data, sink, one, quiet, |data, i, needle, probe| {
            find_with::<false>(
                data,
                i,
                needle,
                probe,
                hint,
                (one, |b, at, bytes| avx2::stops64_pair(b, at, bytes)),
                (quiet, |d, i, r, p| {
                    if hint {
                        skip_pairs_avx2::<true>(d, i, r, p)
                    } else {
                        skip_pairs_avx2::<false>(d, i, r, p)
                    }
                }),
            )
        })
    }

    /// [`Scanner::scan_ascii`] compiled with AVX-512 BW: a block is one vector.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw,avx2")]
    fn scan_ascii_avx512<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        let one = |b: &[u8; 64], x| avx512::stops64(b, x);
        let quiet = |b: &[u8; 128], x| avx512::quiet128(b, x);
        let hint = self.hints;
        self.scan_ascii_with::<S, false>(data, sink, one, quiet, |data, i, needle, probe| {
            find_with::<false>(
                data,
                i,
                needle,
                probe,
                hint,
                (one, |b, at, bytes| avx512::stops64_pair(b, at, bytes)),
                (quiet, |d, i, r, p| {
                    if hint {
                        skip_pairs_avx512::<true>(d, i, r, p)
                    } else {
                        skip_pairs_avx512::<false>(d, i, r, p)
                    }
                }),
            )
        })
    }

    /// The fast path for any text, on CPUs with AVX2: validates UTF-8, counts UTF-16 units
    /// and finds candidates of the needle sought (of up to [`Probe::MAX_LEN`] bytes, ASCII or
    /// not) in one pass over 64-byte blocks (`utf8::avx2::utf8_block`), reporting events as
    /// [`Scanner::scan`] would. Like [`Scanner::scan_ascii`] it holds nothing and returns how
    /// much of `data` it decided, always up to a character boundary: it stops at a block
    /// that breaks UTF-8 (the general path then finds the exact byte) and where less than a
    /// block and a needle are left. Elsewhere it decides nothing.
    fn scan_utf8<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        match self.simd {
            Simd::Baseline => {
                let _ = (data, sink);
                (0, ControlFlow::Continue(()))
            }
            // SAFETY: `Simd::Avx2` and `Simd::Avx512` are only chosen when the CPU has AVX2
            // and POPCNT.
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            Simd::Avx2 | Simd::Avx512 { vbmi: false } => unsafe {
                match (sink.utf16_offsets(), self.hints) {
                    (true, true) => self.scan_utf8_avx2::<S, true, true>(data, sink),
                    (true, false) => self.scan_utf8_avx2::<S, true, false>(data, sink),
                    (false, true) => self.scan_utf8_avx2::<S, false, true>(data, sink),
                    (false, false) => self.scan_utf8_avx2::<S, false, false>(data, sink),
                }
            },
            // SAFETY: `Simd::Avx512 { vbmi: true }` is only chosen when the CPU has AVX-512
            // BW and VBMI, AVX2 and POPCNT.
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            Simd::Avx512 { vbmi: true } => unsafe {
                match (sink.utf16_offsets(), self.hints) {
                    (true, true) => self.scan_utf8_avx512::<S, true, true>(data, sink),
                    (true, false) => self.scan_utf8_avx512::<S, true, false>(data, sink),
                    (false, true) => self.scan_utf8_avx512::<S, false, true>(data, sink),
                    (false, false) => self.scan_utf8_avx512::<S, false, false>(data, sink),
                }
            },
        }
    }

    /// [`Scanner::scan_utf8`] compiled with AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    fn scan_utf8_avx2<S: Sink + ?Sized, const UTF16: bool, const HINT: bool>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        let consts = avx2::Consts::new();
        self.scan_utf8_with::<S, _, UTF16, HINT>(
            data,
            sink,
            |w, p| avx2::utf8_block(&consts, w, p),
            |w, p| avx2::candidates(w, p),
            |n, len| avx2::Prefix::new(n, len),
            |n, here| n.starts(here),
        )
    }

    /// [`Scanner::scan_utf8`] with the block tests compiled with AVX-512 BW.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw,avx512vbmi,avx2,popcnt")]
    fn scan_utf8_avx512<S: Sink + ?Sized, const UTF16: bool, const HINT: bool>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        self.scan_utf8_with::<S, _, UTF16, HINT>(
            data,
            sink,
            |w, p| avx512::utf8_block(w, p),
            |w, p| avx512::candidates(w, p),
            |n, len| avx2::Prefix::new(n, len),
            |n, here| n.starts(here),
        )
    }

    /// The body of [`Scanner::scan_utf8`], given the block tests of one instruction set:
    /// `block` validates a block, counts its units and finds a needle's candidates in it
    /// (`None`: invalid), `candidates` finds another needle's, and `prefix` and `starts`
    /// prepare a needle and compare it with the bytes at a candidate. `UTF16`: whether the
    /// sink wants UTF-16 offsets (if not, the walk does not count units); `HINT`: whether the
    /// quiet walk asks for data ahead (a constant: read from the scanner in the loop, it cost
    /// the Unicode corpus 7 %).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn scan_utf8_with<S: Sink + ?Sized, U: BlockUnits, const UTF16: bool, const HINT: bool>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        block: impl Fn(&[u8; 98], [(usize, u8); 2]) -> Option<(U, u64)>,
        candidates: impl Fn(&[u8; 98], [(usize, u8); 2]) -> u64,
        prefix: impl Fn(&[u8; 32], usize) -> avx2::Prefix,
        starts: impl Fn(&avx2::Prefix, &[u8; 32]) -> bool,
    ) -> (usize, ControlFlow<()>) {
        // A needle without a probe is never sought here.
        let side = |needle: &Needle| {
            needle.probe.map(|p| Side {
                pair: [p.first, p.second],
                exact: p.exact,
                third: p.third,
                prefix: prefix(&p.bytes, p.len),
                len: p.len,
                units: needle.utf16_len,
            })
        };
        let sides = [side(&self.start), side(&self.end)];
        // For a sink that declines UTF-16 offsets the walk counts one unit a byte, and the
        // compiler drops the blocks' unit work from the loop.
        let block = |w: &[u8; 98], p| block(w, p).map(|(u, c)| (Counted::<_, UTF16>(u), c));
        let tests = Tests {
            block,
            candidates,
            starts,
            hint: HINT,
        };
        let start = self.scanned;
        let pos = |x: usize, units: u64| Pos {
            byte: start.byte + x as u64,
            utf16: if UTF16 { units } else { 0 },
        };
        let mut run = Run::new(self.state == State::Inside);
        // The chunk's first block, tested here for both needles: its window needs zeros
        // before it (see [`padded_window`]), the others are read straight from `data`.
        let mut padding = [0; 98];
        let first = padded_window(data, &mut padding).and_then(|w| {
            let pair = |k: usize| sides[k].as_ref().map(|s| s.pair);
            // The block test finds the first needle with a probe; the other, if it has one,
            // takes a second test.
            match (pair(0), pair(1)) {
                (Some(p0), p1) => {
                    let (block, start) = (tests.block)(w, p0)?;
                    Some((block, [start, p1.map_or(0, |p| (tests.candidates)(w, p))]))
                }
                (None, Some(p1)) => {
                    let (block, end) = (tests.block)(w, p1)?;
                    Some((block, [0, end]))
                }
                (None, None) => None,
            }
        });
        if first.is_none() {
            // Nothing testable: all of it is the general path's.
            return self.hand_over(
                data,
                sink,
                (0, pos(0, start.utf16)),
                ControlFlow::Continue(()),
                run,
            );
        }
        let mut walk = Walk {
            base: 0,
            units: start.utf16,
            sum: Counted::<U, UTF16>::zero(),
            block: first,
            i: 0,
            units_i: start.utf16,
        };
        let flow = loop {
            // Each state has its own copy of the search, reading its own needle's fields
            // (chosen per event, they were selected by `inside` again at every use).
            let found = if run.inside {
                walk.seek::<1, _, _, _>(data, &sides, &tests)
            } else {
                walk.seek::<0, _, _, _>(data, &sides, &tests)
            };
            let Some([(q, units_q), (i, units_i)]) = found else {
                break ControlFlow::Continue(());
            };
            let (begin, end) = (pos(q, units_q), pos(i, units_i));
            let flow = self.report(data, sink, [q, i], [begin, end], &mut run);
            if flow.is_break() {
                break flow;
            }
        };
        // Hand over after the last event, or at the block that could not be tested (after
        // stepping back over a character it cuts, but not before `i`: what precedes it is
        // decided).
        let Walk {
            base,
            units,
            sum,
            i,
            units_i,
            ..
        } = walk;
        let (x, units_x) = match flow {
            ControlFlow::Break(()) => (i, units_i),
            ControlFlow::Continue(()) => {
                let x = boundary(data, i, base).max(i);
                if x == i {
                    (i, units_i)
                } else {
                    // Units are only counted back for a sink that takes them (the units
                    // before `base` are `units` and the blocks summed since).
                    (
                        x,
                        if UTF16 {
                            units + Counted::<U, UTF16>::total(sum) - utf16_len(&data[x..base])
                        } else {
                            0
                        },
                    )
                }
            }
        };
        self.hand_over(data, sink, (x, pos(x, units_x)), flow, run)
    }

    /// The body of [`Scanner::scan_ascii`], given the block test and the search of one
    /// instruction set (`FOLD`: skip quiet stretches with [`ascii_run_without`]).
    #[inline(always)]
    fn scan_ascii_with<S: Sink + ?Sized, const FOLD: bool>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        one: impl Fn(&[u8; 64], u8) -> u64,
        quiet: impl Fn(&[u8; 128], u8) -> bool,
        find: impl Fn(&[u8], usize, &[u8], Probe) -> Result<usize, usize>,
    ) -> (usize, ControlFlow<()>) {
        // Two one-byte markers are read without copying their probes first: that copy was
        // about a quarter of the per-chunk work outside the walk on text without markers.
        let byte = |n: &Needle| match &n.probe {
            Some(p) if p.ascii && p.len == 1 => Some(p.bytes[0]),
            _ => None,
        };
        if let (Some(s), Some(e)) = (byte(&self.start), byte(&self.end)) {
            // Two one-byte markers: each block is tested once per marker, however many
            // events it holds, instead of once per event.
            let mut blocks = Blocks::<FOLD>::default();
            return self.ascii_events(data, sink, |data, i, inside| {
                blocks.next(
                    data,
                    i,
                    usize::from(inside),
                    if inside { e } else { s },
                    (&one, &quiet),
                )
            });
        }
        // The needle sought in each state, read once (`None`: the general path's job).
        let ascii = |p: Option<Probe>| p.filter(|p| p.ascii);
        let (seek, close) = (ascii(self.start.probe), ascii(self.end.probe));
        self.ascii_events(data, sink, |data, i, inside| {
            match if inside { &close } else { &seek } {
                Some(probe) => find(data, i, probe.needle(), *probe),
                None => Err(i),
            }
        })
    }

    /// The event loop of the ASCII fast path: [`Scanner::events`], one UTF-16 unit per byte.
    #[inline(always)]
    fn ascii_events<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        next: impl FnMut(&[u8], usize, bool) -> Result<usize, usize>,
    ) -> (usize, ControlFlow<()>) {
        let mut at = Counter::new(self.scanned, Units::of(sink, true));
        self.events(data, sink, next, move |data, x| at.pos(data, x))
    }

    /// The event loop of the fast paths. `next(data, i, inside)` finds the needle sought in
    /// that state from `data[i]`: `Ok(q)` where it occurs, `Err(x)` to hand over at `x`;
    /// `pos(data, x)` is the position of `data[x]`, asked for `x` never decreasing.
    #[inline(always)]
    fn events<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        mut next: impl FnMut(&[u8], usize, bool) -> Result<usize, usize>,
        mut pos: impl FnMut(&[u8], usize) -> Pos,
    ) -> (usize, ControlFlow<()>) {
        let lens = [self.start.bytes().len(), self.end.bytes().len()];
        let mut run = Run::new(self.state == State::Inside);
        // `i`: where the search resumes.
        let mut i = 0;
        let flow = loop {
            let q = match next(data, i, run.inside) {
                Ok(q) => q,
                Err(x) => {
                    i = x;
                    break ControlFlow::Continue(());
                }
            };
            i = q + lens[usize::from(run.inside)];
            let (begin, end) = (pos(data, q), pos(data, i));
            let flow = self.report(data, sink, [q, i], [begin, end], &mut run);
            if flow.is_break() {
                break flow;
            }
        };
        let at = pos(data, i);
        self.hand_over(data, sink, (i, at), flow, run)
    }

    /// Reports the needle sought found at `data[q..i]` (`[q, i]`, at positions `[begin,
    /// end]`): a match opened (its `open` held back in `run`), or closed: as one
    /// [`Sink::matched`] call when it opened in this run, else the content from `run.from`
    /// and `close`.
    #[inline(always)]
    fn report<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        [q, i]: [usize; 2],
        [begin, end]: [Pos; 2],
        run: &mut Run,
    ) -> ControlFlow<()> {
        run.inside = !run.inside;
        if run.inside {
            self.open_marker = begin;
            run.from = i;
            // Held back: where the content begins (the marker's start is `open_marker`).
            (run.held, run.content) = (true, end);
            ControlFlow::Continue(())
        } else if run.held {
            run.held = false;
            let open = [self.open_marker, run.content];
            sink.matched(open, &data[run.from..q], [begin, end])
        } else if q > run.from && sink.content(&data[run.from..q]).is_break() {
            ControlFlow::Break(())
        } else {
            sink.close(begin, end)
        }
    }

    /// Ends a fast path's run at `data[x]` (`(x, at)`, at position `at`) after `flow`:
    /// delivers the open match's held-back `open` and its content from `run.from` up to it,
    /// and records where the scan stands. Returns how much of `data` was decided and the flow.
    #[inline(always)]
    fn hand_over<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        (x, at): (usize, Pos),
        mut flow: ControlFlow<()>,
        run: Run,
    ) -> (usize, ControlFlow<()>) {
        let Run {
            inside,
            from,
            held,
            content,
        } = run;
        // Only a sink call breaks, and none is made while an `open` is held back.
        if held && flow.is_continue() {
            flow = sink.open(self.open_marker, content);
        }
        if flow.is_continue() && inside && x > from {
            flow = sink.content(&data[from..x]);
        }
        self.scanned = at;
        self.state = match (flow, inside) {
            (ControlFlow::Break(()), _) => State::Stopped,
            (_, true) => State::Inside,
            (_, false) => State::Seek,
        };
        (x, flow)
    }

    /// Scans `data`, which is valid UTF-8 made of whole characters (`ascii`: known to be
    /// ASCII only).
    fn scan<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        ascii: bool,
        sink: &mut S,
    ) -> ControlFlow<()> {
        let mut at = Counter::new(self.scanned, Units::of(sink, ascii));
        let flow = self.scan_inner(data, sink, &mut at);
        self.scanned = at.pos(data, data.len());
        if flow.is_break() {
            self.state = State::Stopped;
        }
        flow
    }

    fn scan_inner<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        at: &mut Counter,
    ) -> ControlFlow<()> {
        // `i`: where the search for the current needle resumes in `data`; inside a match it
        // is also where the undelivered content in `data` begins.
        let mut i = 0;
        loop {
            let inside = self.state == State::Inside;
            let needle = if inside { &self.end } else { &self.start };
            let bytes = needle.bytes();
            // Where an occurrence of the needle ends (`data[..x]`).
            let x = if self.held > 0 {
                // The input so far ends with `bytes[..held]`. Think of the virtual text
                // V = bytes[..held] ++ data[i..] and run KMP on it from that state until
                // the candidate occurrence starts inside `data` or completes.
                let held = self.held;
                let (mut p, mut j) = (held, i);
                let mut complete = false;
                while j < data.len() {
                    p = needle.step(p, data[j]);
                    j += 1;
                    if p == bytes.len() {
                        complete = true;
                        break;
                    }
                    if p <= j - i {
                        break;
                    }
                }
                // Held bytes before the candidate's start are decided: not an occurrence.
                let candidate = held + (j - i) - p;
                let decided = candidate.min(held);
                if inside && decided > 0 {
                    sink.content(&bytes[..decided])?;
                }
                if complete {
                    // An occurrence completing here started within the held bytes.
                    self.held = 0;
                    j
                } else if p <= j - i {
                    // The candidate starts in `data`; what precedes it is decided too.
                    if inside && j - p > i {
                        sink.content(&data[i..j - p])?;
                    }
                    self.held = 0;
                    i = j - p;
                    continue;
                } else {
                    // `data` ran out while the candidate still starts in the held bytes: it
                    // is now `bytes[..p]`, all of `data[i..]` included.
                    self.held = p;
                    return ControlFlow::Continue(());
                }
            } else {
                match needle.finder.find(&data[i..]) {
                    Some(k) => {
                        if inside && k > 0 {
                            sink.content(&data[i..i + k])?;
                        }
                        i + k + bytes.len()
                    }
                    None => return self.hold_tail(&data[i..], sink),
                }
            };
            let end = at.pos(data, x);
            let begin = Pos {
                byte: end.byte - bytes.len() as u64,
                // 0 stays 0 when the sink declined UTF-16 offsets.
                utf16: end.utf16.saturating_sub(needle.utf16_len),
            };
            i = x;
            if inside {
                self.state = State::Seek;
                sink.close(begin, end)?;
            } else {
                self.state = State::Inside;
                self.open_marker = begin;
                sink.open(begin, end)?;
            }
        }
    }
}

/// Where a fast path's run over one slice stands between events.
struct Run {
    /// Inside a match.
    inside: bool,
    /// Inside: where the open match's undelivered content begins in the slice.
    from: usize,
    /// Whether the open match's `open` is held back: a match that also closes in this run
    /// goes to the sink as one [`Sink::matched`] call. Its content begins at `content`.
    held: bool,
    content: Pos,
}

impl Run {
    #[inline(always)]
    fn new(inside: bool) -> Run {
        Run {
            inside,
            from: 0,
            held: false,
            content: Pos::default(),
        }
    }
}

/// Which vector instructions the ASCII fast path uses: AVX2 where the CPU has it (found at
/// run time, as memchr does), else SSE2, which every x86-64 CPU has (or the portable
/// definitions elsewhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Simd {
    Baseline,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX2 and AVX-512 BW: the ASCII fast path uses the wider vectors, and so does the UTF-8
    /// one where the CPU also has VBMI (its nibble lookups are `vpermb`; without it, that
    /// path is AVX2's).
    #[cfg(target_arch = "x86_64")]
    Avx512 {
        vbmi: bool,
    },
}

impl Simd {
    fn detect() -> Simd {
        // POPCNT counts UTF-16 units in the UTF-8 fast path; every AVX2 CPU has it.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            if std::arch::is_x86_feature_detected!("avx512bw") {
                return Simd::Avx512 {
                    vbmi: std::arch::is_x86_feature_detected!("avx512vbmi"),
                };
            }
            return Simd::Avx2;
        }
        Simd::Baseline
    }
}

/// A walk over 64-byte blocks for two one-byte needles: the block's test for each needle
/// is computed once, when first needed, and reused for every event in the block.
#[derive(Default)]
struct Blocks<const FOLD: bool> {
    /// Where the current block begins.
    base: usize,
    /// Its test for each needle (start, end), once computed.
    tests: [Option<u64>; 2],
}

impl<const FOLD: bool> Blocks<FOLD> {
    /// The next `byte` (needle `k`: 0 start, 1 end) or non-ASCII byte at or after
    /// `data[i]`: `Ok(q)` for the byte, `Err(x)` to hand over at `x` (not ASCII, or less than
    /// a block left). Calls come with `i` never decreasing.
    #[inline(always)]
    fn next(
        &mut self,
        data: &[u8],
        i: usize,
        k: usize,
        byte: u8,
        (one, quiet): (
            &impl Fn(&[u8; 64], u8) -> u64,
            &impl Fn(&[u8; 128], u8) -> bool,
        ),
    ) -> Result<usize, usize> {
        if i >= self.base + 64 {
            // Past the block (an event at its last byte): the next one starts here.
            self.base = i;
            self.tests = [None, None];
            prefetch(data, i + PREFETCH_AHEAD);
        }
        let block = |base: usize| -> Option<&[u8; 64]> {
            data.get(base..base + 64)
                .map(|b| b.try_into().unwrap_or(&[0; 64]))
        };
        // The current block, from `i` on.
        let Some(current) = block(self.base) else {
            return last_block(data, i.max(self.base), byte, one);
        };
        let stops = *self.tests[k].get_or_insert_with(|| one(current, byte));
        // Bits for the bytes before `i` are decided already (`i` is in this block).
        let mut ahead = stops & (!0u64 << (i - self.base));
        // Nothing there: the following blocks, for this byte only, in a tight loop.
        while ahead == 0 {
            self.base += 64;
            self.tests = [None, None];
            prefetch(data, self.base + PREFETCH_AHEAD);
            let Some(next) = block(self.base) else {
                return last_block(data, self.base, byte, one);
            };
            ahead = one(next, byte);
            if ahead == 0 && FOLD {
                // A quiet block: maybe a long quiet stretch. With SSE2, the vectorised fold
                // skips it faster than block tests do; with AVX2, it is the other way round.
                self.base += ascii_run_without(&data[self.base + 64..], byte);
            } else if ahead == 0 {
                // A quiet block: maybe a long quiet stretch, skipped two blocks per branch.
                // (Not before one quiet block: on dense text the second block would mostly
                // be tested in vain.) The pairs start on a 64-byte boundary of memory, a
                // little back into the quiet block, so that no load straddles cache lines.
                let back = (data.as_ptr() as usize + self.base) % 64;
                let mut next = self.base + 64 - back;
                while let Some(two) = data.get(next..next + 128) {
                    if !quiet(two.try_into().unwrap_or(&[0; 128]), byte) {
                        break;
                    }
                    next += 128;
                }
                // The loop above resumes at `next`.
                self.base = next - 64;
            }
        }
        // A new block's test is its whole mask: keep it for the other needle's turn too.
        self.tests[k].get_or_insert(ahead);
        let q = self.base + ahead.trailing_zeros() as usize;
        if data[q] == byte { Ok(q) } else { Err(q) }
    }
}

/// [`find_with`] with SSE2 (or the portable tests). Not inlined into the event loop: with
/// SSE2 that measured faster (dense text 0.64x -> 0.73x of `extract`, before the block walk
/// took over pairs of one-byte markers).
#[inline(never)]
fn find_baseline(data: &[u8], i: usize, needle: &[u8], probe: Probe) -> Result<usize, usize> {
    // The quiet walk's tests are not used with `FOLD`.
    find_with::<true>(
        data,
        i,
        needle,
        probe,
        true,
        (stops64, |b, [f, s], [x, y]| {
            stops64_pair(b, [(f, x), (s, y)])
        }),
        (|_, _| false, |_, i, _, _| i),
    )
}

/// The ASCII fast path's search for `needle` (all ASCII, `probe` its probe) from `data[i]`,
/// given the block tests of one instruction set: `Ok(q)` where it occurs, `Err(x)` to hand
/// over at `x` (a non-ASCII byte, or less than a block and a needle left). Every byte before
/// either is ASCII and no occurrence starts before it. The tests come in pairs: per block
/// ([`stops64`], [`stops64_pair`]) and whether 128 bytes are quiet (for the walk over quiet
/// stretches, without `FOLD`).
#[inline(always)]
fn find_with<const FOLD: bool>(
    data: &[u8],
    mut i: usize,
    needle: &[u8],
    probe: Probe,
    // Whether the block walk asks for data ahead (see [`streams_without_hints`]).
    hint: bool,
    // The probe's blocks and bytes apart: as one array of (block, byte) pairs, LLVM packed
    // them into vectors on the stack every block and unpacked the bytes again to broadcast
    // them, a chain through memory in the quiet loop.
    (one, pair): (
        impl Fn(&[u8; 64], u8) -> u64,
        impl Fn(&[u8; 64], [&[u8; 64]; 2], [u8; 2]) -> u64,
    ),
    (quiet, skip_pairs): (
        impl Fn(&[u8; 128], u8) -> bool,
        impl Fn(&[u8], usize, usize, [(usize, u8); 2]) -> usize,
    ),
) -> Result<usize, usize> {
    let ((i1, b1), (i2, b2)) = (probe.first, probe.second);
    if needle.len() == 1 {
        // The block walk, starting afresh at `i`, for this one needle.
        let mut blocks = Blocks::<FOLD> {
            base: i,
            tests: [None, None],
        };
        return blocks.next(data, i, 0, b1, (&one, &quiet));
    }
    // A block is only tested when a needle starting in it lies wholly in `data`.
    while let Some(window) = data.get(i..i + 64 + needle.len() - 1) {
        if hint {
            prefetch(data, i + PREFETCH_AHEAD);
        }
        let block = |at: usize| -> &[u8; 64] { window[at..at + 64].try_into().unwrap_or(&[0; 64]) };
        let stops = pair(block(0), [block(i1), block(i2)], [b1, b2]);
        if stops == 0 && !FOLD {
            // A quiet block: maybe a long quiet stretch, skipped two blocks per branch,
            // from a 64-byte boundary of memory a little back into the quiet block (so that
            // the blocks' own loads do not straddle cache lines).
            i += 64 - (data.as_ptr() as usize + i) % 64;
            i = skip_pairs(data, i, needle.len() - 1, [probe.first, probe.second]);
            continue;
        }
        if let Some(found) = resolve(data, needle, i, stops) {
            return found;
        }
        i += 64;
    }
    // Less than a window left: the window that ends with `data` instead, its bits before
    // `i` (decided) masked off, so that the general path is left only the bytes where a
    // needle would not fit (see [`last_block`]).
    let reach = 64 + needle.len() - 1;
    match data.len().checked_sub(reach) {
        Some(w) if i > w && i < w + 64 => {
            let window = &data[w..];
            let block =
                |at: usize| -> &[u8; 64] { window[at..at + 64].try_into().unwrap_or(&[0; 64]) };
            let stops = pair(block(0), [block(i1), block(i2)], [b1, b2]) & (!0u64 << (i - w));
            resolve(data, needle, w, stops).unwrap_or(Err(w + 64))
        }
        _ => Err(i),
    }
}

/// The quiet walk of [`find_with`]: from `i`, the first multiple of 128 bytes on whose 128
/// bytes (and the `reach` after them) `quiet` finds a stop, or that is not wholly in `data`.
/// Out of line, per instruction set: inlined into the search, the loop reloaded its
/// constant vectors from the stack at every step. `HINT`: whether it asks for data ahead.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn skip_pairs<const HINT: bool>(
    data: &[u8],
    mut i: usize,
    reach: usize,
    [(i1, b1), (i2, b2)]: [(usize, u8); 2],
    quiet: impl Fn(&[u8; 128], [&[u8; 128]; 2], [u8; 2]) -> bool,
) -> usize {
    while let Some(window) = data.get(i..i + 128 + reach) {
        if HINT {
            prefetch(data, i + PREFETCH_AHEAD);
            prefetch(data, i + PREFETCH_AHEAD + 64);
        }
        let two =
            |at: usize| -> &[u8; 128] { window[at..at + 128].try_into().unwrap_or(&[0; 128]) };
        if !quiet(two(0), [two(i1), two(i2)], [b1, b2]) {
            break;
        }
        i += 128;
    }
    i
}

/// [`skip_pairs`] with AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
#[target_feature(enable = "avx2")]
fn skip_pairs_avx2<const HINT: bool>(
    data: &[u8],
    i: usize,
    reach: usize,
    probe: [(usize, u8); 2],
) -> usize {
    skip_pairs::<HINT>(data, i, reach, probe, |b, at, bytes| {
        avx2::quiet128_pair(b, at, bytes)
    })
}

/// [`skip_pairs`] with AVX-512 BW.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
#[target_feature(enable = "avx512bw,avx2")]
fn skip_pairs_avx512<const HINT: bool>(
    data: &[u8],
    i: usize,
    reach: usize,
    probe: [(usize, u8); 2],
) -> usize {
    skip_pairs::<HINT>(data, i, reach, probe, |b, at, bytes| {
        avx512::quiet128_pair(b, at, bytes)
    })
}

/// The first stop of a block at `data[base]` that decides [`find_with`]: a byte that is not
/// ASCII (`Err`) or an occurrence of `needle` (`Ok`); `None` when every stop was a
/// candidate that did not match.
#[inline(always)]
fn resolve(
    data: &[u8],
    needle: &[u8],
    base: usize,
    mut stops: u64,
) -> Option<Result<usize, usize>> {
    while stops != 0 {
        let q = base + stops.trailing_zeros() as usize;
        if data[q] >= 0x80 {
            return Some(Err(q));
        }
        if data.get(q..q + needle.len()) == Some(needle) {
            return Some(Ok(q));
        }
        stops &= stops - 1;
    }
    None
}

/// [`Blocks::next`] where less than a block is left after `i`: tests the block that ends
/// with `data` instead, its bits before `i` (decided) masked off. Without it the last bytes
/// of every chunk went to the general path, whose set-up (a `memmem` search, a separate
/// validation) cost more than a block test.
#[inline(always)]
fn last_block(
    data: &[u8],
    i: usize,
    byte: u8,
    one: &impl Fn(&[u8; 64], u8) -> u64,
) -> Result<usize, usize> {
    let Some(w) = data.len().checked_sub(64) else {
        return Err(i);
    };
    if i <= w || i >= data.len() {
        // (`i <= w` does not happen: there would be a whole block after `i`.)
        return Err(i);
    }
    let stops = one(data[w..].try_into().unwrap_or(&[0; 64]), byte) & (!0u64 << (i - w));
    if stops == 0 {
        return Err(data.len());
    }
    let q = w + stops.trailing_zeros() as usize;
    if data[q] == byte { Ok(q) } else { Err(q) }
}

/// A needle as the UTF-8 fast path seeks it.
#[cfg(target_arch = "x86_64")]
struct Side {
    /// The probed bytes: (offset in the needle, byte).
    pair: [(usize, u8); 2],
    /// Whether the probed bytes are the whole needle (a candidate is then an occurrence).
    exact: bool,
    /// A three-byte needle's third byte (see [`Probe`]).
    third: Option<(usize, u8)>,
    prefix: avx2::Prefix,
    len: usize,
    /// Its length in UTF-16 units.
    units: u64,
}

/// The block tests of one instruction set (see [`Scanner::scan_utf8_with`]).
#[cfg(target_arch = "x86_64")]
struct Tests<B, C, T> {
    block: B,
    candidates: C,
    starts: T,
    /// Whether the quiet walk asks for data ahead.
    hint: bool,
}

/// The UTF-16 units of a block the UTF-8 fast path tested, as one instruction set keeps
/// them: [`Utf8Block`]'s bit masks (AVX2) or [`avx512::Units`]' vector.
#[cfg(target_arch = "x86_64")]
pub(crate) trait BlockUnits: Copy {
    /// A running sum of whole blocks' units.
    type Sum: Copy;
    fn zero() -> Self::Sum;
    /// `sum` plus this block's units.
    fn add(&self, sum: Self::Sum) -> Self::Sum;
    fn total(sum: Self::Sum) -> u64;
    /// [`BlockUnits::total`] of `sum` plus the units of the block's bytes below `k`.
    fn total_below(&self, k: u32, sum: Self::Sum) -> u64;
}

#[cfg(target_arch = "x86_64")]
impl BlockUnits for Utf8Block {
    type Sum = u64;
    #[inline(always)]
    fn zero() -> u64 {
        0
    }
    #[inline(always)]
    fn add(&self, sum: u64) -> u64 {
        sum + self.units_below(64)
    }
    #[inline(always)]
    fn total(sum: u64) -> u64 {
        sum
    }
    #[inline(always)]
    fn total_below(&self, k: u32, sum: u64) -> u64 {
        sum + self.units_below(k)
    }
}

/// A value of [`avx512::Units`] is only made by [`avx512::utf8_block`], which runs only on
/// a CPU with AVX-512 BW: its methods' requirement.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
impl BlockUnits for avx512::Units {
    type Sum = core::arch::x86_64::__m512i;
    #[inline(always)]
    fn zero() -> Self::Sum {
        // SAFETY: see the impl (AVX-512 F, part of BW).
        unsafe { core::arch::x86_64::_mm512_setzero_si512() }
    }
    #[inline(always)]
    fn add(&self, sum: Self::Sum) -> Self::Sum {
        // SAFETY: see the impl.
        unsafe { avx512::Units::add(self, sum) }
    }
    #[inline(always)]
    fn total(sum: Self::Sum) -> u64 {
        // SAFETY: see the impl.
        unsafe { avx512::Units::total(sum) }
    }
    #[inline(always)]
    fn total_below(&self, k: u32, sum: Self::Sum) -> u64 {
        // SAFETY: see the impl.
        unsafe { avx512::Units::total_below(self, k, sum) }
    }
}

/// A block's units, counted for a sink that takes UTF-16 offsets (`UTF16`), or one unit a
/// byte (unused) for one that declines them.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Counted<U, const UTF16: bool>(U);

#[cfg(target_arch = "x86_64")]
impl<U: BlockUnits, const UTF16: bool> Counted<U, UTF16> {
    #[inline(always)]
    fn zero() -> Option<U::Sum> {
        UTF16.then(U::zero)
    }
    #[inline(always)]
    fn add(&self, sum: Option<U::Sum>) -> Option<U::Sum> {
        sum.map(|s| self.0.add(s))
    }
    #[inline(always)]
    fn total(sum: Option<U::Sum>) -> u64 {
        sum.map_or(0, U::total)
    }
    #[inline(always)]
    fn total_below(&self, k: u32, sum: Option<U::Sum>) -> u64 {
        match sum {
            Some(sum) => self.0.total_below(k, sum),
            None => u64::from(k),
        }
    }
}

/// Where the UTF-8 fast path stands (`U`: how its blocks' units are kept).
#[cfg(target_arch = "x86_64")]
struct Walk<U: BlockUnits, const UTF16: bool> {
    /// The current block, and the UTF-16 units before it: `units` plus the blocks' units
    /// summed since (`sum`, as the instruction set keeps them; read at events).
    base: usize,
    units: u64,
    sum: Option<U::Sum>,
    /// Its test once made, with each needle's candidates in it.
    block: Option<(Counted<U, UTF16>, [u64; 2])>,
    /// Where the search resumes, a character boundary, and the units before it.
    i: usize,
    units_i: u64,
}

#[cfg(target_arch = "x86_64")]
impl<U: BlockUnits, const UTF16: bool> Walk<U, UTF16> {
    /// Finds needle `K` (0: start, 1: end) at or after `i`: its position and the one after
    /// it, with their units, and resumes after it. `None`: the needle has no probe, or a
    /// block could not be tested (invalid, or not wholly in `data` with the bytes a needle
    /// starting in it may reach); `base` is then that block.
    #[inline(always)]
    fn seek<const K: usize, B, C, T>(
        &mut self,
        data: &[u8],
        sides: &[Option<Side>; 2],
        tests: &Tests<B, C, T>,
    ) -> Option<[(usize, u64); 2]>
    where
        B: Fn(&[u8; 98], [(usize, u8); 2]) -> Option<(Counted<U, UTF16>, u64)>,
        C: Fn(&[u8; 98], [(usize, u8); 2]) -> u64,
        T: Fn(&avx2::Prefix, &[u8; 32]) -> bool,
    {
        let side = sides[K].as_ref()?;
        loop {
            let (block, found) = match self.block {
                // The last needle found ends past its block: move on.
                Some((block, _)) if self.i >= self.base + 64 => {
                    self.next_block(block);
                    continue;
                }
                Some((block, found)) => (block, found[K]),
                None => {
                    // Most blocks are reached here, in quiet stretches: one fused test per
                    // block until one holds a candidate at or after `i`.
                    // In locals: a field of `self` lives in memory, a store per block.
                    let (mut base, mut sum) = (self.base, self.sum);
                    let mut skip = self.i.saturating_sub(base);
                    // From the window of the block at `base` (see [`padded_window`]) on: the first
                    // block was tested before the walk, so `base` is past it. A step of the
                    // loop is then one length test.
                    let mut rest = base.checked_sub(3).and_then(|b| data.get(b..))?;
                    let tested = loop {
                        if tests.hint {
                            prefetch(rest, PREFETCH_AHEAD);
                        }
                        let Some(w) = rest.first_chunk::<98>() else {
                            break None;
                        };
                        let Some((block, c)) = (tests.block)(w, side.pair) else {
                            break None;
                        };
                        if c >> skip != 0 {
                            // The other needle is sought next, and mostly found here too.
                            let other = sides[1 - K]
                                .as_ref()
                                .map_or(0, |o| (tests.candidates)(w, o.pair));
                            break Some((block, c, other));
                        }
                        sum = block.add(sum);
                        base += 64;
                        rest = &rest[64..];
                        skip = 0;
                    };
                    (self.base, self.sum) = (base, sum);
                    let (block, c, other) = tested?;
                    let mut found = [other; 2];
                    found[K] = c;
                    self.block = Some((block, found));
                    (block, c)
                }
            };
            // Starts before `i` are decided (`i` is before this block's end: the arm above
            // moved on otherwise, so the shift is below 64).
            let mut found = found & (!0u64 << (self.i.saturating_sub(self.base) & 63));
            while found != 0 {
                let bit = found.trailing_zeros();
                let q = self.base + bit as usize;
                // A block is only tested when 32 bytes follow any start in it.
                let occurs = side.exact
                    || match side.third {
                        Some((at, byte)) => data.get(q + at) == Some(&byte),
                        None => {
                            let here = data.get(q..).and_then(<[u8]>::first_chunk::<32>);
                            (tests.starts)(&side.prefix, here.unwrap_or(&[0; 32]))
                        }
                    };
                if occurs {
                    let units_q = self.units + block.total_below(bit, self.sum);
                    (self.i, self.units_i) = (q + side.len, units_q + side.units);
                    return Some([(q, units_q), (self.i, self.units_i)]);
                }
                found &= found - 1;
            }
            self.next_block(block);
        }
    }

    /// Leaves the current block (tested) for the next.
    #[inline(always)]
    fn next_block(&mut self, block: Counted<U, UTF16>) {
        self.sum = block.add(self.sum);
        self.base += 64;
        self.block = None;
    }
}

/// The bytes the UTF-8 fast path tests for a block (its window): the three before it
/// (validation's context), the block, and the 31 after it (where a needle starting in it may
/// reach). For the chunk's first block, which has none before it, they are zeros: a
/// character boundary, nothing before it asks for a continuation byte, and zeros do not.
/// `None` when the chunk is shorter than the rest of the window.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn padded_window<'a>(data: &[u8], padding: &'a mut [u8; 98]) -> Option<&'a [u8; 98]> {
    padding[3..].copy_from_slice(data.get(..95)?);
    Some(padding)
}

/// The character boundary at or before `i`, not before `start` (a boundary), where the bytes
/// before `i` were validated except for a character cut at `i`, whose lead is then the
/// boundary (as is a lead that cannot begin a character, left for the general path to judge).
#[cfg(target_arch = "x86_64")]
fn boundary(data: &[u8], start: usize, i: usize) -> usize {
    for l in (i.saturating_sub(3).max(start)..i).rev() {
        if (data[l] as i8) >= -0x40 {
            return match sequence_len(data[l]) {
                Some(n) if l + n <= i => i,
                _ => l,
            };
        }
    }
    i
}

/// The shortest chunk the UTF-8 fast path can decide anything in: a block, the three bytes
/// before it (for the first, zeros) and the 31 after it. Shorter remainders (the end of every
/// chunk the ASCII path scanned) skip the path's setup.
const UTF8_MIN_CHUNK: usize = 95;

/// How UTF-16 units are known within one slice.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Units {
    /// ASCII: one unit per byte, nothing to count.
    Ascii,
    /// Counted from the bytes, lazily, as positions are asked for.
    Count,
    /// The sink does not want them: always 0.
    Off,
}

impl Units {
    /// How units are known for `sink` over a slice that is `ascii` (known all ASCII) or not.
    fn of<S: Sink + ?Sized>(sink: &S, ascii: bool) -> Units {
        if !sink.utf16_offsets() {
            Units::Off
        } else if ascii {
            Units::Ascii
        } else {
            Units::Count
        }
    }
}

/// Positions within one slice, asked for in increasing order.
struct Counter {
    base: Pos,
    counted: usize,
    utf16: u64,
    units: Units,
}

impl Counter {
    #[inline]
    fn new(base: Pos, units: Units) -> Counter {
        Counter {
            base,
            counted: 0,
            utf16: base.utf16,
            units,
        }
    }

    /// Position of `data[x]`; `x` never decreases between calls.
    #[inline]
    fn pos(&mut self, data: &[u8], x: usize) -> Pos {
        match self.units {
            Units::Ascii => {
                return Pos {
                    byte: self.base.byte + x as u64,
                    utf16: self.base.utf16 + x as u64,
                };
            }
            Units::Off => {
                return Pos {
                    byte: self.base.byte + x as u64,
                    utf16: 0,
                };
            }
            Units::Count => {}
        }
        self.utf16 += utf16_len_from(&data[..x], self.counted);
        self.counted = x;
        Pos {
            byte: self.base.byte + x as u64,
            utf16: self.utf16,
        }
    }
}
