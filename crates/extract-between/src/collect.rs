//! Two ready-made [`Sink`]s: [`Capped`] applies the card's `max_matches` rule to any sink, and
//! [`Collect`] gathers owned matches with their positions.

use crate::scanner::{Pos, Sink};
use core::ops::ControlFlow;

/// Applies the card's cap to the sink it wraps.
///
/// The first `max_matches` matches pass through. After that the scan goes on, unseen by the
/// inner sink, looking for one more *complete* match: when its end marker is found,
/// [`truncated`](Capped::truncated) becomes true and the scan is stopped, so nothing further
/// is read. An unclosed start marker met while looking for it is still an error, reported by
/// [`Scanner::finish`](crate::Scanner::finish), exactly as the card's reference loop does.
///
/// # Examples
///
/// ```
/// use extract_between::{Capped, Collect, Markers, Scanner};
///
/// let mut scanner = Scanner::new(&Markers::new("[", "]").unwrap());
/// let mut sink = Capped::new(Collect::default(), 2);
/// scanner.feed(b"[a][b][c][d", &mut sink).unwrap();
/// scanner.finish(&mut sink).unwrap(); // stopped after [c]: the unclosed [d is never judged
/// assert!(sink.truncated());
/// assert_eq!(sink.into_inner().matches.len(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct Capped<S> {
    inner: S,
    max_matches: u64,
    delivered: u64,
    probing: bool,
    truncated: bool,
}

impl<S> Capped<S> {
    /// Wraps `inner`, letting at most `max_matches` matches through. A cap of 0 delivers
    /// nothing and only finds out whether a match exists.
    ///
    /// ```
    /// let capped = extract_between::Capped::new(extract_between::Collect::default(), 5);
    /// assert!(!capped.truncated());
    /// ```
    pub fn new(inner: S, max_matches: u64) -> Capped<S> {
        Capped {
            inner,
            max_matches,
            delivered: 0,
            probing: false,
            truncated: false,
        }
    }

    /// Whether a complete match was found after the cap was reached.
    ///
    /// ```
    /// use extract_between::{Capped, Collect};
    /// assert!(!Capped::new(Collect::default(), 1).truncated());
    /// ```
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// How many matches reached the inner sink.
    ///
    /// ```
    /// use extract_between::{Capped, Collect};
    /// assert_eq!(Capped::new(Collect::default(), 1).delivered(), 0);
    /// ```
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// The inner sink.
    ///
    /// ```
    /// use extract_between::{Capped, Collect};
    /// assert!(Capped::new(Collect::default(), 1).get_ref().matches.is_empty());
    /// ```
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The inner sink, mutably.
    ///
    /// ```
    /// use extract_between::{Capped, Collect};
    /// Capped::new(Collect::default(), 1).get_mut().matches.clear();
    /// ```
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// The same cap, with its counts so far, around another sink: the adapters put it
    /// around their assembler anew for each chunk ([`Capped::take_counts`] brings the counts
    /// back).
    #[cfg(feature = "stream")]
    pub(crate) fn lend<T>(&self, inner: T) -> Capped<T> {
        Capped {
            inner,
            max_matches: self.max_matches,
            delivered: self.delivered,
            probing: self.probing,
            truncated: self.truncated,
        }
    }

    /// Takes over the counts of a cap made by [`Capped::lend`].
    #[cfg(feature = "stream")]
    pub(crate) fn take_counts<T>(&mut self, from: &Capped<T>) {
        (self.delivered, self.probing, self.truncated) =
            (from.delivered, from.probing, from.truncated);
    }

    /// Unwraps the inner sink.
    ///
    /// ```
    /// use extract_between::{Capped, Collect};
    /// let inner: Collect = Capped::new(Collect::default(), 1).into_inner();
    /// assert!(inner.matches.is_empty());
    /// ```
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S: Sink> Sink for Capped<S> {
    fn open(&mut self, marker: Pos, content: Pos) -> ControlFlow<()> {
        if self.delivered >= self.max_matches {
            self.probing = true;
            return ControlFlow::Continue(());
        }
        self.inner.open(marker, content)
    }

    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
        if self.probing {
            return ControlFlow::Continue(());
        }
        self.inner.content(fragment)
    }

    fn close(&mut self, content_end: Pos, marker_end: Pos) -> ControlFlow<()> {
        if self.probing {
            // One more complete match exists: that is all the cap needs to know.
            self.truncated = true;
            return ControlFlow::Break(());
        }
        self.delivered += 1;
        self.inner.close(content_end, marker_end)
    }

    fn matched(&mut self, open: [Pos; 2], content: &[u8], close: [Pos; 2]) -> ControlFlow<()> {
        if self.delivered >= self.max_matches {
            // The one more complete match the cap looks for.
            self.truncated = true;
            return ControlFlow::Break(());
        }
        self.delivered += 1;
        self.inner.matched(open, content, close)
    }

    fn utf16_offsets(&self) -> bool {
        self.inner.utf16_offsets()
    }
}

/// One match gathered by [`Collect`]: its content and where it lies in the input.
///
/// ```
/// use extract_between::{Collect, Markers, Scanner};
/// let mut s = Scanner::new(&Markers::new("<", ">").unwrap());
/// let mut all = Collect::default();
/// s.feed("é<x>".as_bytes(), &mut all).unwrap();
/// let m = &all.matches[0];
/// assert_eq!((m.marker_start.byte, m.content_start.byte, m.content_end.byte, m.marker_end.byte), (2, 3, 4, 5));
/// assert_eq!(m.content_start.utf16, 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Collected {
    /// The content between the markers.
    pub text: String,
    /// Where the start marker begins.
    pub marker_start: Pos,
    /// Where the content begins (just after the start marker).
    pub content_start: Pos,
    /// Where the content ends (where the end marker begins).
    pub content_end: Pos,
    /// Just after the end marker.
    pub marker_end: Pos,
}

/// A sink that gathers every match as an owned [`Collected`] value.
///
/// Convenient for tests and small inputs; it allocates per match and holds everything, so
/// stream large inputs to a sink of your own instead.
///
/// ```
/// use extract_between::{Collect, Markers, Scanner};
/// let mut scanner = Scanner::new(&Markers::new("(", ")").unwrap());
/// let mut all = Collect::default();
/// scanner.feed(b"f(x) g(y)", &mut all).unwrap();
/// scanner.finish(&mut all).unwrap();
/// assert_eq!(all.matches[1].text, "y");
/// assert_eq!(all.matches[1].content_start.byte, 7);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Collect {
    /// The matches closed so far, in input order.
    pub matches: Vec<Collected>,
    /// Content of the match still open, if any.
    pub open: Option<Collected>,
    bytes: Vec<u8>,
}

impl Sink for Collect {
    fn open(&mut self, marker: Pos, content: Pos) -> ControlFlow<()> {
        self.bytes.clear();
        self.open = Some(Collected {
            marker_start: marker,
            content_start: content,
            ..Collected::default()
        });
        ControlFlow::Continue(())
    }

    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
        self.bytes.extend_from_slice(fragment);
        ControlFlow::Continue(())
    }

    fn close(&mut self, content_end: Pos, marker_end: Pos) -> ControlFlow<()> {
        let mut m = self.open.take().unwrap_or_default();
        // The scanner only hands out valid UTF-8 split into fragments; the lossy form is
        // never exercised but keeps this sink panic-free whatever drives it.
        m.text = String::from_utf8_lossy(&self.bytes).into_owned();
        m.content_end = content_end;
        m.marker_end = marker_end;
        self.matches.push(m);
        ControlFlow::Continue(())
    }
}
