//! A [`tokio_util::codec::Decoder`] (feature `codec`) that turns a byte stream into
//! [`Match`]es, for `FramedRead` pipelines.
//!
//! Each call to `decode` scans every byte the read buffer holds and consumes them all: the
//! scanner keeps its own carry-over (a marker prefix, recorded by length), so no byte is ever
//! scanned twice and the read buffer never holds more than one read. A match that lies inside
//! one read is a zero-copy slice of it (which keeps that read's memory alive while the match
//! lives: [`Match::into_owned`] lets it go); a match spanning reads is copied, bounded by
//! `max_match_bytes`.
//!
//! Errors are terminal, as with tokio-util's own codecs: `FramedRead` yields the error and
//! then ends. After `max_matches` and `truncated` are known the codec discards further input
//! (a decoder cannot stop its reader; end the stream yourself when
//! [`ExtractCodec::is_done`] says so, e.g. with `take_while`).

use crate::markers::Markers;
use crate::scanner::Scanner;
use crate::stream::{Assembly, Error, Match, Options, Stop};
use bytes::BytesMut;
use core::ops::ControlFlow;
use std::io;
use tokio_util::codec::Decoder;

impl From<io::Error> for Error<io::Error> {
    fn from(e: io::Error) -> Self {
        Error::Upstream(e)
    }
}

/// The decoder. See the [module documentation](self).
///
/// # Examples
///
/// ```
/// use extract_between::{Markers, codec::ExtractCodec, stream::Options};
/// use futures::StreamExt;
/// use tokio_util::codec::FramedRead;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let input: &[u8] = b"key=[alpha] key=[beta]";
/// let codec = ExtractCodec::new(&Markers::new("[", "]").unwrap(), Options::default());
/// let found: Vec<String> = FramedRead::new(input, codec)
///     .map(|m| m.unwrap().as_str().to_owned())
///     .collect()
///     .await;
/// assert_eq!(found, ["alpha", "beta"]);
/// # });
/// ```
#[derive(Debug)]
pub struct ExtractCodec {
    scanner: Scanner,
    assembly: Assembly,
    /// A terminal error, handed out after the matches completed before it.
    pending: Option<Error<io::Error>>,
    /// Nothing more will be scanned: the cap is known, or an error happened.
    done: bool,
}

impl ExtractCodec {
    /// A codec for `markers` with `options`.
    ///
    /// ```
    /// use extract_between::{Markers, codec::ExtractCodec, stream::Options};
    /// let codec = ExtractCodec::new(&Markers::new("[", "]").unwrap(), Options::default().max_matches(5));
    /// assert!(!codec.is_done());
    /// ```
    pub fn new(markers: &Markers, options: Options) -> ExtractCodec {
        ExtractCodec {
            scanner: Scanner::new(markers),
            assembly: Assembly::new(options),
            pending: None,
            done: false,
        }
    }

    /// Whether the cap and `truncated` are known (or an error happened): nothing more will
    /// be decoded.
    ///
    /// ```
    /// # let codec = extract_between::codec::ExtractCodec::new(&extract_between::Markers::new("[", "]").unwrap(), Default::default());
    /// assert!(!codec.is_done());
    /// ```
    pub fn is_done(&self) -> bool {
        self.done && self.pending.is_none() && self.assembly.is_empty()
    }

    /// Whether a complete match was found after `max_matches` were decoded.
    ///
    /// ```
    /// # let codec = extract_between::codec::ExtractCodec::new(&extract_between::Markers::new("[", "]").unwrap(), Default::default());
    /// assert!(!codec.truncated());
    /// ```
    pub fn truncated(&self) -> bool {
        self.assembly.truncated()
    }

    /// Bytes the codec holds between reads: the scanner's carry-over plus the open match's
    /// content so far.
    ///
    /// ```
    /// # let codec = extract_between::codec::ExtractCodec::new(&extract_between::Markers::new("[", "]").unwrap(), Default::default());
    /// assert_eq!(codec.buffered_bytes(), 0);
    /// ```
    pub fn buffered_bytes(&self) -> usize {
        self.scanner.buffered() + self.assembly.held()
    }

    /// The next match, else the pending error.
    fn next_item(&mut self) -> Result<Option<Match>, Error<io::Error>> {
        if let Some(m) = self.assembly.pop() {
            return Ok(Some(m));
        }
        self.pending.take().map_or(Ok(None), Err)
    }
}

impl Decoder for ExtractCodec {
    type Item = Match;
    type Error = Error<io::Error>;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Match>, Self::Error> {
        if self.done || src.is_empty() {
            // Once the cap is known the rest of the input is not judged: drop it.
            if self.done {
                src.clear();
            }
            return self.next_item();
        }
        // Every byte is decided or carried by the scanner, so take them all. Freezing them lets
        // a match inside this read be a zero-copy slice; `FramedRead`'s buffer then
        // allocates its next read (reclaiming this one when no match still refers to it).
        let fed = self.assembly.feed(&mut self.scanner, &src.split().freeze());
        if !matches!(fed, Ok(ControlFlow::Continue(()))) {
            self.done = true;
            self.pending = fed.err().map(Stop::into_error);
        }
        self.next_item()
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Match>, Self::Error> {
        if let Some(m) = self.decode(src)? {
            return Ok(Some(m));
        }
        if self.done {
            return Ok(None);
        }
        // The input ended: an open match is the card's "unclosed start marker" (rather than
        // tokio-util's generic "bytes remaining on stream").
        self.done = true;
        match self.assembly.finish(&mut self.scanner) {
            Ok(()) => Ok(None),
            Err(e) => Err(Error::Scan(e)),
        }
    }
}
