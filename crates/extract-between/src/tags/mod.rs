//! Tags: several marker pairs followed in one pass, and the text outside them — a model's
//! reply split into reasoning, tool calls and answer as it streams, or several fields out of
//! one document.
//!
//! A [`TagSet`] holds 1 to [`MAX_TAGS`] pairs `(start, end)`; the start markers are distinct,
//! an end marker may repeat or equal any start. From the current position the leftmost place
//! where any start marker begins opens a match (where several begin at the same place, the
//! longest wins); *that pair's* end marker, searched from just after the start, closes it.
//! Start markers inside a match are content, as the card's nested starts are. One pair is
//! exactly the card's pair.
//!
//! Everything not inside a start marker, a match or an end marker is *outside* text. In order,
//! the outside pieces, start markers, match texts and end markers give back the input exactly.
//!
//! - [`TagSet::find_all`]: one-shot over a `&str`, the matches as slices.
//! - [`TagScanner`]: resumable over bytes in chunks of any size, reporting to a [`TagSink`]
//!   as the text arrives; [`TagEvents`] is the sink that turns the calls into [`TagEvent`]s.
//!   It carries at most the longest marker's length of bytes between chunks (less: only the
//!   bytes that may begin the marker sought) and a character cut by a chunk boundary.
//!
//! ```
//! use extract_between::tags::{TagEvent, TagEvents, TagScanner, TagSet};
//!
//! let tags = TagSet::new([("<think>", "</think>"), ("<tool_call>", "</tool_call>")]).unwrap();
//! let mut scanner = TagScanner::new(&tags);
//! let mut sink = TagEvents::new();
//! let (mut answer, mut thought) = (String::new(), String::new());
//! for token in ["<thi", "nk>2+2</th", "ink>It is 4.", " <tool_call>{}</tool_call> Done."] {
//!     scanner.feed(token.as_bytes(), &mut sink).unwrap();
//!     for event in sink.drain() {
//!         match event {
//!             TagEvent::Outside { text, .. } => answer.push_str(&text),
//!             TagEvent::Text { tag: 0, text, .. } => thought.push_str(&text),
//!             _ => {}
//!         }
//!     }
//! }
//! scanner.finish(&mut sink).unwrap();
//! assert_eq!((thought.as_str(), answer.as_str()), ("2+2", "It is 4.  Done."));
//! ```

use crate::card::MAX_MARKER_BYTES;
use crate::markers::{MarkerError, Markers};
use core::fmt;
use std::sync::Arc;

mod events;
mod find;
mod scanner;
mod search;

pub use events::{TagEvent, TagEvents};
pub use find::{TagMatch, TagUnclosed};
pub use scanner::{TagScanner, TagSink};

use search::{Ends, Starts};

/// The most pairs a tag set holds.
pub const MAX_TAGS: usize = 64;

/// Why a tag set was refused: which pair, which marker.
///
/// ```
/// use extract_between::tags::{TagError, TagSet};
/// let err = TagSet::new([("<a>", "</a>"), ("<a>", "</b>")]).unwrap_err();
/// assert!(matches!(err, TagError::DuplicateStart { pair: 1, first: 0, .. }));
/// assert_eq!(err.to_string(), "pair 1's start marker \"<a>\" is pair 0's: start markers must be distinct");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagError {
    /// No pair was given.
    NoPairs,
    /// More than [`MAX_TAGS`] pairs were given.
    TooMany {
        /// How many were given.
        count: usize,
    },
    /// A marker of pair `pair` (counted from 0) is empty or too long.
    Marker {
        /// The pair's index.
        pair: usize,
        /// What is wrong with which of its markers.
        error: MarkerError,
    },
    /// Pair `pair`'s start marker is pair `first`'s too.
    DuplicateStart {
        /// The later pair's index.
        pair: usize,
        /// The earlier pair's index.
        first: usize,
        /// The marker.
        start: String,
    },
}

impl TagError {
    /// The index of the pair the error is about, if one.
    ///
    /// ```
    /// use extract_between::tags::TagSet;
    /// assert_eq!(TagSet::new([("[", "]"), ("(", "")]).unwrap_err().pair(), Some(1));
    /// ```
    pub fn pair(&self) -> Option<usize> {
        match self {
            TagError::NoPairs | TagError::TooMany { .. } => None,
            TagError::Marker { pair, .. } | TagError::DuplicateStart { pair, .. } => Some(*pair),
        }
    }
}

impl fmt::Display for TagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TagError::NoPairs => write!(f, "a tag set needs at least one (start, end) pair"),
            TagError::TooMany { count } => {
                write!(
                    f,
                    "a tag set holds at most {MAX_TAGS} pairs (it has {count})"
                )
            }
            TagError::Marker { pair, error } => write!(f, "pair {pair}'s {error}"),
            TagError::DuplicateStart { pair, first, start } => write!(
                f,
                "pair {pair}'s start marker {start:?} is pair {first}'s: start markers must be distinct"
            ),
        }
    }
}

impl std::error::Error for TagError {}

/// A validated set of marker pairs, with the searchers built once: cheap to clone (shared).
///
/// ```
/// use extract_between::tags::TagSet;
/// let tags = TagSet::new([("<b>", "</b>"), ("<i>", "</i>")]).unwrap();
/// assert_eq!(tags.len(), 2);
/// assert_eq!(tags.pair(1).start(), "<i>");
/// ```
#[derive(Clone, Debug)]
pub struct TagSet {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    pairs: Vec<Markers>,
    starts: Starts,
    ends: Ends,
    /// The longest marker, start or end, in bytes.
    max_len: usize,
}

impl TagSet {
    /// Validates the pairs (in order: each marker 1 to 4096 UTF-8 bytes, start markers
    /// distinct) and builds their searchers.
    ///
    /// # Errors
    ///
    /// [`TagError`] naming the first pair and marker at fault.
    pub fn new<S, E>(pairs: impl IntoIterator<Item = (S, E)>) -> Result<TagSet, TagError>
    where
        S: Into<String>,
        E: Into<String>,
    {
        let pairs: Vec<(S, E)> = pairs.into_iter().collect();
        if pairs.len() > MAX_TAGS {
            return Err(TagError::TooMany { count: pairs.len() });
        }
        let mut checked: Vec<Markers> = Vec::with_capacity(pairs.len());
        for (pair, (start, end)) in pairs.into_iter().enumerate() {
            let markers =
                Markers::new(start, end).map_err(|error| TagError::Marker { pair, error })?;
            if let Some(first) = checked.iter().position(|m| m.start() == markers.start()) {
                return Err(TagError::DuplicateStart {
                    pair,
                    first,
                    start: markers.start().to_owned(),
                });
            }
            checked.push(markers);
        }
        if checked.is_empty() {
            return Err(TagError::NoPairs);
        }
        let max_len = checked.iter().map(Markers::max_len).max().unwrap_or(1);
        debug_assert!(max_len <= MAX_MARKER_BYTES);
        Ok(TagSet {
            inner: Arc::new(Inner {
                starts: Starts::new(&checked),
                ends: Ends::new(&checked),
                pairs: checked,
                max_len,
            }),
        })
    }

    /// How many pairs the set holds.
    ///
    /// ```
    /// assert_eq!(extract_between::tags::TagSet::new([("[", "]")]).unwrap().len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.inner.pairs.len()
    }

    /// Always `false`: a tag set holds at least one pair.
    ///
    /// ```
    /// assert!(!extract_between::tags::TagSet::new([("[", "]")]).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.inner.pairs.is_empty()
    }

    /// Pair `tag`'s markers.
    ///
    /// # Panics
    ///
    /// When `tag >= self.len()`.
    ///
    /// ```
    /// let tags = extract_between::tags::TagSet::new([("[", "]")]).unwrap();
    /// assert_eq!(tags.pair(0).end(), "]");
    /// ```
    pub fn pair(&self, tag: usize) -> &Markers {
        &self.inner.pairs[tag]
    }

    /// The pairs, in order.
    ///
    /// ```
    /// let tags = extract_between::tags::TagSet::new([("[", "]"), ("(", ")")]).unwrap();
    /// assert_eq!(tags.pairs()[1].start(), "(");
    /// ```
    pub fn pairs(&self) -> &[Markers] {
        &self.inner.pairs
    }

    /// The longest marker of the set, in bytes: the scanner carries less than this between
    /// chunks, plus at most 3 bytes of a cut character.
    ///
    /// ```
    /// let tags = extract_between::tags::TagSet::new([("<think>", "</think>"), ("[", "]")]).unwrap();
    /// assert_eq!(tags.max_len(), 8);
    /// ```
    pub fn max_len(&self) -> usize {
        self.inner.max_len
    }
}
