//! One-shot extraction from a `&str`, with the card's semantics and limits.
//!
//! This is the card's reference loop run over UTF-8 bytes with two [`memmem::Finder`]s: find
//! the start from the current position; find the end from just after that start (so
//! `"<!-->"` with `<!--`/`-->` is unclosed); with no end, fail "unclosed start marker"; at the
//! cap, report `truncated` instead of adding the match; otherwise take the content and go on
//! after the end marker. Matches borrow from the text: nothing is copied.

use crate::card::{DEFAULT_MAX_MATCHES, MAX_MATCHES, MAX_TEXT_BYTES};
use crate::markers::{MarkerError, Markers};
use crate::scanner::Pos;
use crate::utf8::utf16_len;
use core::fmt;
use memchr::memmem;

/// The result of a successful extraction.
///
/// ```
/// let out = extract_between::extract("[a][b]", "[", "]").unwrap();
/// assert_eq!(out, extract_between::Extracted { matches: vec!["a", "b"], truncated: false });
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extracted<'t> {
    /// The contents between the markers, in order, borrowed from the text.
    pub matches: Vec<&'t str>,
    /// Whether at least one further complete match exists after `max_matches` were taken.
    pub truncated: bool,
}

/// Why an extraction failed.
///
/// ```
/// use extract_between::{ExtractError, Pos};
/// let err = extract_between::extract("[a] [b", "[", "]").unwrap_err();
/// assert_eq!(err, ExtractError::Unclosed { marker: Pos { byte: 4, utf16: 4 }, matches: vec!["a"] });
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtractError<'t> {
    /// A marker broke the card's limits.
    Marker(MarkerError),
    /// `max_matches` is outside `1..=1000`.
    MaxMatches(usize),
    /// The text is longer than the limit in force (the card's 256000 bytes by default).
    TextTooLong {
        /// The text's length in UTF-8 bytes.
        len: usize,
        /// The limit it broke.
        limit: usize,
    },
    /// A start marker has no end marker after it (the card's "unclosed start marker").
    Unclosed {
        /// Where that start marker begins.
        marker: Pos,
        /// The matches found before it, which the card's tool would discard.
        matches: Vec<&'t str>,
    },
}

impl fmt::Display for ExtractError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtractError::Marker(e) => e.fmt(f),
            ExtractError::MaxMatches(n) => write!(
                f,
                "max_matches must be an integer from 1 to {MAX_MATCHES} (it is {n})"
            ),
            ExtractError::TextTooLong { len, limit } => write!(
                f,
                "text must be at most {limit} UTF-8 bytes long (it is {len} bytes)"
            ),
            ExtractError::Unclosed { marker, .. } => write!(
                f,
                "unclosed start marker at byte offset {} (UTF-16 offset {})",
                marker.byte, marker.utf16
            ),
        }
    }
}

impl std::error::Error for ExtractError<'_> {}

impl From<MarkerError> for ExtractError<'_> {
    fn from(e: MarkerError) -> Self {
        ExtractError::Marker(e)
    }
}

/// Extracts with the card's defaults: `max_matches` 100, text at most 256000 bytes.
///
/// # Errors
///
/// See [`ExtractError`].
///
/// # Examples
///
/// ```
/// let out = extract_between::extract("pre[one]mid[two]post", "[", "]").unwrap();
/// assert_eq!(out.matches, ["one", "two"]);
/// assert!(!out.truncated);
///
/// let err = extract_between::extract("a<!-->b", "<!--", "-->").unwrap_err();
/// assert!(err.to_string().starts_with("unclosed start marker"));
/// ```
pub fn extract<'t>(
    text: &'t str,
    start: &str,
    end: &str,
) -> Result<Extracted<'t>, ExtractError<'t>> {
    Extractor::new(&Markers::new(start, end)?).extract(text)
}

/// A reusable extractor: markers prepared once, options set by builder methods.
///
/// # Examples
///
/// ```
/// use extract_between::{Extractor, Markers};
///
/// let ex = Extractor::new(&Markers::new("|", "|").unwrap()).max_matches(2).unwrap();
/// let out = ex.extract("|a||b||c|").unwrap();
/// assert_eq!(out.matches, ["a", "b"]);
/// assert!(out.truncated);
///
/// // A library caller may lift the card's 256000-byte text limit.
/// let big = "x".repeat(300_000) + "|y|";
/// assert!(ex.extract(&big).is_err());
/// assert_eq!(ex.clone().max_text_bytes(None).extract(&big).unwrap().matches, ["y"]);
/// ```
#[derive(Clone, Debug)]
pub struct Extractor {
    start: memmem::Finder<'static>,
    end: memmem::Finder<'static>,
    max_matches: usize,
    max_text_bytes: Option<usize>,
}

impl Extractor {
    /// An extractor for `markers` with the card's defaults.
    ///
    /// ```
    /// let ex = extract_between::Extractor::new(&extract_between::Markers::new("[", "]").unwrap());
    /// assert_eq!(ex.extract("[x]").unwrap().matches, ["x"]);
    /// ```
    pub fn new(markers: &Markers) -> Extractor {
        Extractor {
            start: memmem::Finder::new(markers.start()).into_owned(),
            end: memmem::Finder::new(markers.end()).into_owned(),
            max_matches: DEFAULT_MAX_MATCHES,
            max_text_bytes: Some(MAX_TEXT_BYTES),
        }
    }

    /// Sets the cap, which the card bounds to `1..=1000`.
    ///
    /// # Errors
    ///
    /// [`ExtractError::MaxMatches`] outside that range.
    ///
    /// ```
    /// let ex = extract_between::Extractor::new(&extract_between::Markers::new("[", "]").unwrap());
    /// assert!(ex.clone().max_matches(1000).is_ok());
    /// assert!(ex.max_matches(0).is_err());
    /// ```
    pub fn max_matches(mut self, max_matches: usize) -> Result<Extractor, ExtractError<'static>> {
        if !(1..=MAX_MATCHES).contains(&max_matches) {
            return Err(ExtractError::MaxMatches(max_matches));
        }
        self.max_matches = max_matches;
        Ok(self)
    }

    /// Sets the text limit in bytes, or lifts it with `None` (the scan itself has no limit).
    ///
    /// ```
    /// let ex = extract_between::Extractor::new(&extract_between::Markers::new("[", "]").unwrap());
    /// assert!(ex.max_text_bytes(Some(2)).extract("[x]").is_err());
    /// ```
    pub fn max_text_bytes(mut self, limit: Option<usize>) -> Extractor {
        self.max_text_bytes = limit;
        self
    }

    /// Lifts the card's limits for library use: no text limit and no cap on matches.
    /// The JSON contract never does this.
    ///
    /// ```
    /// let ex = extract_between::Extractor::new(&extract_between::Markers::new("[", "]").unwrap());
    /// let text = "[x]".repeat(200_000);
    /// let out = ex.unlimited().extract(&text).unwrap();
    /// assert_eq!((out.matches.len(), out.truncated), (200_000, false));
    /// ```
    pub fn unlimited(mut self) -> Extractor {
        self.max_matches = usize::MAX;
        self.max_text_bytes = None;
        self
    }

    /// Extracts from `text`.
    ///
    /// # Errors
    ///
    /// [`ExtractError::TextTooLong`] past the limit; [`ExtractError::Unclosed`] for a start
    /// marker with no end after it, including one met while looking for the single extra match
    /// that decides `truncated`.
    ///
    /// ```
    /// let ex = extract_between::Extractor::new(&extract_between::Markers::new("[", "]").unwrap());
    /// assert_eq!(ex.extract("").unwrap().matches, Vec::<&str>::new());
    /// ```
    pub fn extract<'t>(&self, text: &'t str) -> Result<Extracted<'t>, ExtractError<'t>> {
        if let Some(limit) = self.max_text_bytes
            && text.len() > limit
        {
            return Err(ExtractError::TextTooLong {
                len: text.len(),
                limit,
            });
        }
        let bytes = text.as_bytes();
        let (start_len, end_len) = (self.start.needle().len(), self.end.needle().len());
        let mut matches = Vec::new();
        let mut pos = 0;
        while let Some(s) = self.start.find(&bytes[pos..]) {
            let s = pos + s;
            let content = s + start_len;
            let Some(e) = self.end.find(&bytes[content..]) else {
                let marker = Pos {
                    byte: s as u64,
                    utf16: utf16_len(&bytes[..s]),
                };
                return Err(ExtractError::Unclosed { marker, matches });
            };
            if matches.len() == self.max_matches {
                return Ok(Extracted {
                    matches,
                    truncated: true,
                });
            }
            let e = content + e;
            // Occurrences of whole-character needles in valid UTF-8 start and end on character
            // boundaries, so `get` never fails; it keeps the code panic-free regardless.
            matches.push(text.get(content..e).unwrap_or_default());
            pos = e + end_len;
        }
        Ok(Extracted {
            matches,
            truncated: false,
        })
    }
}
