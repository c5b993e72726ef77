//! Why a row stops a column, worded once: the reason and place, the row's first characters,
//! the class every host raises, and where the row lies as the host knows it.

use crate::Pos;
use core::fmt;

/// Why a row stops the column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowErrorKind {
    /// A start marker with no end marker after it, at this position of the row.
    Unclosed(Pos),
    /// Bytes that are not UTF-8, from this byte offset of the row.
    InvalidUtf8(u64),
}

/// A row that stops the column, and how the row begins. Its `Display` is the one wording
/// every host shows; the host adds where the row is.
///
/// ```
/// use extract_between::Markers;
/// use extract_between::rows::{RowErrorKind, RowOptions, RowScanner};
///
/// let mut rows = RowScanner::new(&Markers::new("[", "]").unwrap(), RowOptions::default());
/// let e = rows.scan("😀 [x".as_bytes(), &mut Vec::new()).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "unclosed start marker at UTF-16 offset 3 (byte offset 5); the row begins \"😀 [x\""
/// );
/// assert!(matches!(e.kind(), RowErrorKind::Unclosed(p) if p.byte == 5 && p.utf16 == 3));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowError {
    kind: RowErrorKind,
    excerpt: String,
}

impl RowError {
    /// Characters of the row an error shows (then `…` when the row goes on).
    pub const EXCERPT_CHARS: usize = 60;

    /// The error of `kind` in `row`.
    #[cold]
    pub(super) fn new(kind: RowErrorKind, row: &[u8]) -> RowError {
        let valid = match core::str::from_utf8(row) {
            Ok(s) => s,
            Err(e) => core::str::from_utf8(&row[..e.valid_up_to()]).unwrap_or_default(),
        };
        let mut chars = valid.chars();
        let mut excerpt: String = chars.by_ref().take(Self::EXCERPT_CHARS).collect();
        if chars.next().is_some() {
            excerpt.push('…');
        }
        RowError { kind, excerpt }
    }

    /// Why the row stops the column, and where.
    pub fn kind(&self) -> RowErrorKind {
        self.kind
    }

    /// The row's first characters (its valid UTF-8 prefix), `…` when it goes on.
    pub fn excerpt(&self) -> &str {
        &self.excerpt
    }

    /// The byte offset the error names.
    pub fn byte_offset(&self) -> u64 {
        match self.kind {
            RowErrorKind::Unclosed(p) => p.byte,
            RowErrorKind::InvalidUtf8(offset) => offset,
        }
    }

    /// The class every host raises for the error: `UnclosedStartMarker` or `InvalidUtf8`
    /// (Python's exception classes, the prefix of DuckDB's, polars' and Spark's messages).
    pub fn class(&self) -> &'static str {
        match self.kind {
            RowErrorKind::Unclosed(_) => "UnclosedStartMarker",
            RowErrorKind::InvalidUtf8(_) => "InvalidUtf8",
        }
    }

    /// The error with where its row lies: `row N: ` before the sentence, and for a row
    /// counted within a piece of the column, what it counts from.
    ///
    /// ```
    /// use extract_between::Markers;
    /// use extract_between::rows::{RowOptions, RowPlace, RowScanner};
    ///
    /// let mut rows = RowScanner::new(&Markers::new("[", "]").unwrap(), RowOptions::default());
    /// let e = rows.scan(b"[x", &mut Vec::new()).unwrap_err();
    /// assert_eq!(e.at(RowPlace::Column(4)).to_string(), "row 4: unclosed start marker at UTF-16 offset 0 (byte offset 0); the row begins \"[x\"");
    /// let piece = RowPlace::Piece {
    ///     row: 2, rows: 3, piece: "batch", host: "polars", function: "extract_between_all", whole: "frame",
    /// };
    /// assert!(e.at(piece).to_string().ends_with(
    ///     "(row 2 counts from the start of the batch of 3 rows that polars handed to \
    ///      extract_between_all, not from the start of the frame)"
    /// ));
    /// ```
    pub fn at<'a>(&'a self, place: RowPlace<'a>) -> impl fmt::Display + 'a {
        place.around(self)
    }

    /// The card's name of the error: `unclosed_start_marker` or `invalid_utf8`.
    pub fn code(&self) -> &'static str {
        match self.kind {
            RowErrorKind::Unclosed(_) => "unclosed_start_marker",
            RowErrorKind::InvalidUtf8(_) => "invalid_utf8",
        }
    }
}

/// The reason and place alone, for a host that shows no row (a string of its own caller's).
///
/// ```
/// use extract_between::{Pos, rows::RowErrorKind};
/// let unclosed = RowErrorKind::Unclosed(Pos { byte: 5, utf16: 3 });
/// assert_eq!(unclosed.to_string(), "unclosed start marker at UTF-16 offset 3 (byte offset 5)");
/// ```
impl fmt::Display for RowErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RowErrorKind::Unclosed(Pos { byte, utf16 }) => write!(
                f,
                "unclosed start marker at UTF-16 offset {utf16} (byte offset {byte})"
            ),
            RowErrorKind::InvalidUtf8(offset) => write!(f, "invalid UTF-8 at byte offset {offset}"),
        }
    }
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}; the row begins \"{}\"",
            self.kind,
            self.excerpt.escape_debug()
        )
    }
}

impl std::error::Error for RowError {}

/// Where a row that stopped a column lies, as the host knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowPlace<'a> {
    /// The host does not number rows (Spark hands them over one by one).
    Unknown,
    /// Row `N` of the whole column the user passed.
    Column(usize),
    /// Row `row` of a `piece` (a batch, a vector) of `rows` rows that `host` handed to the
    /// function, which is not the row's number in the `whole` (the frame, the table). A piece
    /// of one row (a constant argument, say) has no row to count, and the error names none.
    Piece {
        /// The row's index within the piece.
        row: usize,
        /// The rows in the piece.
        rows: usize,
        /// What the host calls the piece: `batch`, `vector`.
        piece: &'a str,
        /// The engine that handed it over: `polars`, `DuckDB`.
        host: &'a str,
        /// The function it was handed to, as the user called it.
        function: &'a str,
        /// What the user sees whole: `frame`, `table`.
        whole: &'a str,
    },
}

impl<'a> RowPlace<'a> {
    /// `error`'s words with the place around them, as [`RowError::at`] words a row's error:
    /// for a host that words a refused option of the row, or that kept the library's words
    /// and learns the place later (Python's engine wrappers).
    ///
    /// ```
    /// use extract_between::rows::RowPlace;
    /// assert_eq!(RowPlace::Column(3).around("bad").to_string(), "row 3: bad");
    /// assert_eq!(RowPlace::Unknown.around("bad").to_string(), "bad");
    /// ```
    pub fn around<E: fmt::Display + 'a>(self, error: E) -> impl fmt::Display + 'a {
        Around { error, place: self }
    }
}

/// [`RowPlace::around`]'s sentence.
struct Around<'a, E> {
    error: E,
    place: RowPlace<'a>,
}

impl<E: fmt::Display> fmt::Display for Around<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.place {
            RowPlace::Unknown | RowPlace::Piece { rows: ..=1, .. } => write!(f, "{}", self.error),
            RowPlace::Column(row) => write!(f, "row {row}: {}", self.error),
            RowPlace::Piece {
                row,
                rows,
                piece,
                host,
                function,
                whole,
            } => write!(
                f,
                "row {row}: {} (row {row} counts from the start of the {piece} of {rows} rows \
                 that {host} handed to {function}, not from the start of the {whole})",
                self.error
            ),
        }
    }
}
