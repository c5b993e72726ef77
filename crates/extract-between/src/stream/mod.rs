//! Async adapters (feature `stream`): a [`futures_core::Stream`] of [`Match`]es over any
//! stream of `Bytes` chunks or any [`tokio::io::AsyncRead`], and one of the
//! [`Event`](crate::events::Event)s of a match's life as the chunks arrive ([`events()`]).
//!
//! The adapter drives the same [`Scanner`] as everything else. It polls its source only when
//! it has no match left to hand out, so it reads no further ahead than one chunk
//! (backpressure), and it stops polling the source altogether once `max_matches` and
//! `truncated` are known. A match that lies inside one chunk is a zero-copy
//! [`Bytes::slice`] of it — which keeps that whole chunk alive while the match lives; call
//! [`Match::into_owned`] to let it go. A match that spans chunks is copied, up to
//! `max_match_bytes`.

use crate::batch::TooLarge;
use crate::collect::Capped;
use crate::markers::Markers;
use crate::scanner::{Pos, ScanError, Scanner, Sink};
use bytes::{Bytes, BytesMut};
use core::fmt;
use core::ops::{ControlFlow, Range};
use core::pin::Pin;
use core::task::{Context, Poll};
use futures_core::Stream;
use futures_core::stream::FusedStream;
use std::collections::VecDeque;

mod assembly;
mod events;
mod queued;
#[cfg(feature = "tags")]
mod tags;

pub(crate) use assembly::Assembly;
pub use events::{EventStream, events};
#[cfg(feature = "tags")]
pub use tags::{TagEventStream, tag_events};

/// Default `max_match_bytes`: 16 MiB.
///
/// ```
/// assert_eq!(extract_between::stream::DEFAULT_MAX_MATCH_BYTES, 16 << 20);
/// ```
pub const DEFAULT_MAX_MATCH_BYTES: usize = 16 * 1024 * 1024;

/// One match: its content and where it lies in the whole input.
///
/// ```
/// use bytes::Bytes;
/// use extract_between::{Markers, stream::{matches, Options}};
/// use futures::{StreamExt, executor::block_on, stream};
///
/// let source = stream::iter([Ok::<_, std::io::Error>(Bytes::from("😀[é]"))]);
/// let m = block_on(matches(source, &Markers::new("[", "]").unwrap(), Options::default()).next())
///     .unwrap()
///     .unwrap();
/// assert_eq!(m.as_str(), "é");
/// assert_eq!((m.byte_range(), m.utf16_range()), (5..7, 3..4));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    content: Bytes,
    start: Pos,
    end: Pos,
}

impl Match {
    /// The content as text.
    ///
    /// ```
    /// # use extract_between::stream::Match;
    /// # fn show(m: &Match) { println!("{}", m.as_str()); }
    /// ```
    pub fn as_str(&self) -> &str {
        // Content is assembled from validated UTF-8 on character boundaries only.
        std::str::from_utf8(&self.content).unwrap_or_default()
    }

    /// The content's bytes (possibly a slice sharing the input chunk's memory).
    ///
    /// ```
    /// # use extract_between::stream::Match;
    /// # fn show(m: &Match) -> usize { m.bytes().len() }
    /// ```
    pub fn bytes(&self) -> &Bytes {
        &self.content
    }

    /// Byte offsets of the content in the whole input.
    ///
    /// ```
    /// # use extract_between::stream::Match;
    /// # fn show(m: &Match) -> u64 { m.byte_range().start }
    /// ```
    pub fn byte_range(&self) -> Range<u64> {
        self.start.byte..self.end.byte
    }

    /// UTF-16 code-unit offsets of the content in the whole input.
    ///
    /// ```
    /// # use extract_between::stream::Match;
    /// # fn show(m: &Match) -> u64 { m.utf16_range().end }
    /// ```
    pub fn utf16_range(&self) -> Range<u64> {
        self.start.utf16..self.end.utf16
    }

    /// Where the content starts and ends.
    ///
    /// ```
    /// # use extract_between::stream::Match;
    /// # fn show(m: &Match) -> bool { m.span().0 <= m.span().1 }
    /// ```
    pub fn span(&self) -> (Pos, Pos) {
        (self.start, self.end)
    }

    /// The same match with its own copy of the content, releasing the input chunk.
    ///
    /// ```
    /// # use extract_between::stream::Match;
    /// # fn own(m: Match) -> Match { m.into_owned() }
    /// ```
    pub fn into_owned(self) -> Match {
        Match {
            content: Bytes::copy_from_slice(&self.content),
            ..self
        }
    }
}

/// Why a stream of matches ended early. Errors are terminal: the stream yields every match
/// completed before the error, then the error, then ends.
///
/// ```
/// use bytes::Bytes;
/// use extract_between::{Markers, ScanError, stream::{matches, Error, Options}};
/// use futures::{StreamExt, executor::block_on, stream};
///
/// let source = stream::iter([Ok::<_, std::io::Error>(Bytes::from("[a] [b"))]);
/// let items: Vec<_> = block_on(matches(source, &Markers::new("[", "]").unwrap(), Options::default()).collect());
/// assert_eq!(items[0].as_ref().unwrap().as_str(), "a");
/// assert!(matches!(items[1], Err(Error::Scan(ScanError::Unclosed { .. }))));
/// ```
#[derive(Debug)]
pub enum Error<E> {
    /// The source failed.
    Upstream(E),
    /// Invalid UTF-8 or an unclosed start marker.
    Scan(ScanError),
    /// A match grew past `max_match_bytes`; `start` is where its content begins.
    MatchTooLarge {
        /// Where the too-long match's content begins.
        start: Pos,
        /// The limit it broke.
        limit: usize,
    },
}

impl<E: fmt::Display> fmt::Display for Error<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Upstream(e) => write!(f, "reading input: {e}"),
            Error::Scan(e) => e.fmt(f),
            Error::MatchTooLarge { start, limit } => TooLarge {
                start: *start,
                limit: *limit,
            }
            .fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for Error<E> {}

/// Options shared by the stream adapter and the codec.
///
/// ```
/// let opts = extract_between::stream::Options::default().max_matches(10).max_match_bytes(1 << 20);
/// assert_eq!(opts.get_max_matches(), Some(10));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    max_matches: Option<u64>,
    max_match_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_matches: None,
            max_match_bytes: DEFAULT_MAX_MATCH_BYTES,
        }
    }
}

impl Options {
    /// Cap the number of matches (the card's rule: one more complete match sets `truncated`,
    /// then reading stops). No cap by default.
    ///
    /// ```
    /// assert_eq!(extract_between::stream::Options::default().max_matches(3).get_max_matches(), Some(3));
    /// ```
    pub fn max_matches(mut self, n: u64) -> Options {
        self.max_matches = Some(n);
        self
    }

    /// The cap, if any.
    ///
    /// ```
    /// assert_eq!(extract_between::stream::Options::default().get_max_matches(), None);
    /// ```
    pub fn get_max_matches(&self) -> Option<u64> {
        self.max_matches
    }

    /// Largest match content held, in bytes (16 MiB by default); longer is an error.
    ///
    /// ```
    /// let o = extract_between::stream::Options::default().max_match_bytes(5);
    /// assert_eq!(o.get_max_match_bytes(), 5);
    /// ```
    pub fn max_match_bytes(mut self, n: usize) -> Options {
        self.max_match_bytes = n;
        self
    }

    /// The match size limit.
    ///
    /// ```
    /// assert_eq!(extract_between::stream::Options::default().get_max_match_bytes(), 16 << 20);
    /// ```
    pub fn get_max_match_bytes(&self) -> usize {
        self.max_match_bytes
    }
}

/// A stream of [`Match`]es over a stream of byte chunks. Build it with [`matches()`] or
/// [`matches_from_reader`].
///
/// `truncated` is known once the stream has ended: see [`MatchStream::truncated`].
///
/// ```
/// use bytes::Bytes;
/// use extract_between::{Markers, stream::{matches, Options}};
/// use futures::{StreamExt, executor::block_on, stream};
///
/// let chunks = ["[a][b", "][c]"].map(|s| Ok::<_, std::io::Error>(Bytes::from(s)));
/// let mut found = matches(stream::iter(chunks), &Markers::new("[", "]").unwrap(), Options::default().max_matches(1));
/// while let Some(m) = block_on(found.next()) {
///     assert_eq!(m.unwrap().as_str(), "a");
/// }
/// assert_eq!((found.delivered(), found.truncated()), (1, Some(true)));
/// ```
pub struct MatchStream<S> {
    source: Option<S>,
    scanner: Scanner,
    assembly: Assembly,
    /// A terminal error, yielded after the matches completed before it.
    pending: Option<Stop>,
    failed: bool,
    done: bool,
}

/// A terminal error found while scanning (the source's own errors are passed on as they
/// come).
#[derive(Debug)]
pub(crate) enum Stop {
    Scan(ScanError),
    TooLarge { start: Pos, limit: usize },
}

impl Stop {
    pub(crate) fn into_error<E>(self) -> Error<E> {
        match self {
            Stop::Scan(e) => Error::Scan(e),
            Stop::TooLarge { start, limit } => Error::MatchTooLarge { start, limit },
        }
    }
}

impl<S> fmt::Debug for MatchStream<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MatchStream")
            .field("scanner", &self.scanner)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// Matches over a stream of `Bytes` chunks (an HTTP body, a socket read loop, ...).
///
/// The source must be `Unpin`; pin other streams with `Box::pin`.
///
/// # Examples
///
/// ```
/// use bytes::Bytes;
/// use extract_between::{Markers, stream::{matches, Options}};
/// use futures::{StreamExt, executor::block_on, stream};
///
/// let chunks = stream::iter(["pre[o", "ne]mid[t", "wo]post"].map(|s| Ok::<_, std::io::Error>(Bytes::from(s))));
/// let mut found = matches(chunks, &Markers::new("[", "]").unwrap(), Options::default());
/// let texts: Vec<String> = block_on(async {
///     let mut v = Vec::new();
///     while let Some(m) = found.next().await { v.push(m.unwrap().as_str().to_owned()); }
///     v
/// });
/// assert_eq!(texts, ["one", "two"]);
/// assert_eq!(found.truncated(), Some(false));
/// ```
pub fn matches<S, E>(source: S, markers: &Markers, options: Options) -> MatchStream<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    MatchStream {
        source: Some(source),
        scanner: Scanner::new(markers),
        assembly: Assembly::new(options),
        pending: None,
        failed: false,
        done: false,
    }
}

/// Matches over any `AsyncRead` (a file, a socket, stdin), read in 64 KiB chunks.
///
/// # Examples
///
/// ```
/// use extract_between::{Markers, stream::{matches_from_reader, Options}};
/// use futures::StreamExt;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let reader: &[u8] = b"a <b>x</b> c <b>y</b>";
/// let mut found = matches_from_reader(reader, &Markers::new("<b>", "</b>").unwrap(), Options::default());
/// while let Some(m) = found.next().await {
///     println!("{}", m.unwrap().as_str());
/// }
/// # });
/// ```
pub fn matches_from_reader<R>(
    reader: R,
    markers: &Markers,
    options: Options,
) -> MatchStream<tokio_util::io::ReaderStream<R>>
where
    R: tokio::io::AsyncRead + Unpin,
{
    matches(
        tokio_util::io::ReaderStream::with_capacity(reader, 64 * 1024),
        markers,
        options,
    )
}

impl<S> MatchStream<S> {
    /// After the stream has ended without error: whether a complete match existed beyond
    /// `max_matches`. `None` while the stream is still running or after an error.
    ///
    /// ```
    /// # use extract_between::stream::MatchStream;
    /// # fn f<S>(s: &MatchStream<S>) -> Option<bool> { s.truncated() }
    /// ```
    pub fn truncated(&self) -> Option<bool> {
        (self.done && !self.failed && self.pending.is_none()).then(|| self.assembly.truncated())
    }

    /// Bytes held between chunks: the scanner's carry-over plus the copied part of an open
    /// match. Bounded by the markers and `max_match_bytes`.
    ///
    /// ```
    /// # use extract_between::stream::MatchStream;
    /// # fn f<S>(s: &MatchStream<S>) -> usize { s.buffered_bytes() }
    /// ```
    pub fn buffered_bytes(&self) -> usize {
        self.scanner.buffered() + self.assembly.held()
    }

    /// The source, if it has not ended or failed. The stream stops polling it once the cap
    /// and `truncated` are known or the scan failed, but keeps it, so that a caller can still
    /// drain it: an HTTP server, say, that answered early but lets the client finish its
    /// upload rather than cut the connection under it.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use extract_between::{Markers, stream::{matches, Options}};
    /// use futures::{StreamExt, executor::block_on, stream};
    ///
    /// let chunks = ["[a][b]", "[c]", "rest"].map(|s| Ok::<_, std::io::Error>(Bytes::from(s)));
    /// let mut found = matches(stream::iter(chunks), &Markers::new("[", "]").unwrap(), Options::default().max_matches(1));
    /// assert_eq!(block_on(found.by_ref().count()), 1);
    /// // Never read past the first chunk: two chunks are left to drain.
    /// let rest = found.source_mut().unwrap();
    /// assert_eq!(block_on(rest.count()), 2);
    /// ```
    pub fn source_mut(&mut self) -> Option<&mut S> {
        self.source.as_mut()
    }

    /// How many matches were handed out.
    ///
    /// ```
    /// # use extract_between::stream::MatchStream;
    /// # fn f<S>(s: &MatchStream<S>) -> u64 { s.delivered() }
    /// ```
    pub fn delivered(&self) -> u64 {
        self.assembly.delivered()
    }
}

/// The stream is fused: once it has yielded its last match and its error (if any), it yields
/// `None` forever and never polls its source again, so it can go straight into `select!`.
///
/// ```
/// use bytes::Bytes;
/// use extract_between::{Markers, stream::{matches, Options}};
/// use futures::{StreamExt, executor::block_on, stream::{self, FusedStream}};
///
/// let chunks = stream::iter([Ok::<_, std::io::Error>(Bytes::from("[a] [b"))]);
/// let mut found = matches(chunks, &Markers::new("[", "]").unwrap(), Options::default());
/// assert!(block_on(found.next()).unwrap().is_ok()); // a
/// assert!(!found.is_terminated());
/// assert!(block_on(found.next()).unwrap().is_err()); // unclosed start marker
/// assert!(found.is_terminated());
/// assert!(block_on(found.next()).is_none());
/// ```
impl<S, E> FusedStream for MatchStream<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    fn is_terminated(&self) -> bool {
        self.done && self.pending.is_none() && self.assembly.is_empty()
    }
}

impl<S, E> Stream for MatchStream<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    type Item = Result<Match, Error<E>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some(m) = this.assembly.pop() {
                return Poll::Ready(Some(Ok(m)));
            }
            if let Some(e) = this.pending.take() {
                this.failed = true;
                return Poll::Ready(Some(Err(e.into_error())));
            }
            if this.done {
                return Poll::Ready(None);
            }
            let Some(source) = this.source.as_mut() else {
                this.done = true;
                continue;
            };
            let chunk = match Pin::new(source).poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(chunk))) => chunk,
                Poll::Ready(Some(Err(e))) => {
                    // Terminal: drop the source so it is never polled again. Nothing is
                    // queued here (the queue is empty before every poll of the source).
                    this.source = None;
                    this.done = true;
                    this.failed = true;
                    return Poll::Ready(Some(Err(Error::Upstream(e))));
                }
                Poll::Ready(None) => {
                    this.source = None;
                    this.done = true;
                    if let Err(e) = this.assembly.finish(&mut this.scanner) {
                        this.pending = Some(Stop::Scan(e));
                    }
                    continue;
                }
            };
            let fed = this.assembly.feed(&mut this.scanner, &chunk);
            if !matches!(fed, Ok(ControlFlow::Continue(()))) {
                // The cap and truncation are known, or an error: read no further (`done`
                // keeps the source from being polled; it is kept for `source_mut`).
                this.done = true;
                this.pending = fed.err();
            }
        }
    }
}
