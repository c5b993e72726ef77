//! The validated pair of markers.
//!
//! Both markers are literal strings, non-empty and at most
//! [`MAX_MARKER_BYTES`](crate::card::MAX_MARKER_BYTES) UTF-8 bytes long. The byte limit is the
//! binding one: 1366 three-byte characters are only 1366 characters but 4098 bytes, and are
//! rejected. The two markers may be equal.

use crate::card::MAX_MARKER_BYTES;
use core::fmt;

/// Which of the two markers an error is about.
///
/// ```
/// use extract_between::{Markers, Which};
/// assert_eq!(Markers::new("", "]").unwrap_err().which(), Which::Start);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Which {
    /// The start marker (`start` in the card).
    Start,
    /// The end marker (`end` in the card).
    End,
}

impl Which {
    /// The card's field name for this marker.
    ///
    /// ```
    /// assert_eq!(extract_between::Which::End.field(), "end");
    /// ```
    pub fn field(self) -> &'static str {
        match self {
            Which::Start => "start",
            Which::End => "end",
        }
    }
}

/// Why a marker was rejected.
///
/// ```
/// use extract_between::{MarkerError, Markers, Which};
/// let err = Markers::new("[", "x".repeat(4097)).unwrap_err();
/// assert_eq!(err, MarkerError::TooLong { which: Which::End, len: 4097 });
/// assert_eq!(err.to_string(), "end must be at most 4096 UTF-8 bytes long (it is 4097 bytes)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarkerError {
    /// The marker is the empty string.
    Empty(Which),
    /// The marker is longer than the card allows; `len` is its length in UTF-8 bytes.
    TooLong {
        /// Which marker.
        which: Which,
        /// Its length in UTF-8 bytes.
        len: usize,
    },
}

impl MarkerError {
    /// The marker the error is about.
    ///
    /// ```
    /// use extract_between::{Markers, Which};
    /// assert_eq!(Markers::new("[", "").unwrap_err().which(), Which::End);
    /// ```
    pub fn which(&self) -> Which {
        match self {
            MarkerError::Empty(which) | MarkerError::TooLong { which, .. } => *which,
        }
    }
}

impl fmt::Display for MarkerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MarkerError::Empty(which) => write!(f, "{} must be a non-empty string", which.field()),
            MarkerError::TooLong { which, len } => write!(
                f,
                "{} must be at most {MAX_MARKER_BYTES} UTF-8 bytes long (it is {len} bytes)",
                which.field()
            ),
        }
    }
}

impl std::error::Error for MarkerError {}

/// A start and an end marker that satisfy the card's limits.
///
/// # Examples
///
/// ```
/// use extract_between::Markers;
/// let m = Markers::new("<b>", "</b>").unwrap();
/// assert_eq!((m.start(), m.end()), ("<b>", "</b>"));
/// assert!(Markers::new("", "]").is_err());
/// assert!(Markers::new("€".repeat(1366), "]").is_err()); // 4098 bytes
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Markers {
    start: String,
    end: String,
}

impl Markers {
    /// Validates the two markers.
    ///
    /// # Errors
    ///
    /// [`MarkerError`] naming the first marker (start before end) that is empty or longer
    /// than [`MAX_MARKER_BYTES`](crate::card::MAX_MARKER_BYTES) bytes.
    pub fn new(start: impl Into<String>, end: impl Into<String>) -> Result<Self, MarkerError> {
        let (start, end) = (start.into(), end.into());
        check(&start, Which::Start)?;
        check(&end, Which::End)?;
        Ok(Markers { start, end })
    }

    /// The start marker.
    ///
    /// ```
    /// assert_eq!(extract_between::Markers::new("[", "]").unwrap().start(), "[");
    /// ```
    pub fn start(&self) -> &str {
        &self.start
    }

    /// The end marker.
    ///
    /// ```
    /// assert_eq!(extract_between::Markers::new("[", "]").unwrap().end(), "]");
    /// ```
    pub fn end(&self) -> &str {
        &self.end
    }

    /// The longer marker's length in bytes; the scanner never carries more than this minus
    /// one byte of marker prefix between chunks.
    ///
    /// ```
    /// assert_eq!(extract_between::Markers::new("<!--", "-->").unwrap().max_len(), 4);
    /// ```
    pub fn max_len(&self) -> usize {
        self.start.len().max(self.end.len())
    }
}

fn check(marker: &str, which: Which) -> Result<(), MarkerError> {
    if marker.is_empty() {
        Err(MarkerError::Empty(which))
    } else if marker.len() > MAX_MARKER_BYTES {
        Err(MarkerError::TooLong {
            which,
            len: marker.len(),
        })
    } else {
        Ok(())
    }
}
