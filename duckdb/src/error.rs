//! Why a call fails, worded once: DuckDB shows the message as the query's error.

use core::fmt;

use extract_between::MarkerError;
use extract_between::rows::{OnUnclosed, RowError, RowErrorKind};

use crate::function::Function;

/// A vector the function cannot answer, and the row that stopped it.
#[derive(Debug)]
pub struct CallError {
    pub(crate) function: Function,
    /// The row within the vector DuckDB handed over.
    pub(crate) row: usize,
    /// The rows in that vector.
    pub(crate) rows: usize,
    pub(crate) why: Why,
}

/// What was wrong with the row.
#[derive(Debug)]
pub enum Why {
    /// `start` or `end` is empty or too long.
    Markers(MarkerError),
    /// The marker (`start` or `end`) is not UTF-8.
    NotUtf8(&'static str),
    /// `max_matches` is below 1.
    MaxMatches(i64),
    /// `on_unclosed` names no policy.
    OnUnclosed(String),
    /// The row's text stops the column (an unclosed start marker under `'raise'`).
    Row(RowError),
}

impl CallError {
    /// The error's class, as the Python package names the same failure.
    fn class(&self) -> &'static str {
        match &self.why {
            Why::Row(e) if matches!(e.kind(), RowErrorKind::Unclosed(_)) => "UnclosedStartMarker",
            Why::Row(_) => "InvalidUtf8",
            _ => "InvalidInput",
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let CallError {
            function,
            row,
            rows,
            ..
        } = self;
        // A vector of one row (constant arguments, say) has no row to count.
        let counted = *rows > 1;
        write!(f, "{}: ", self.class())?;
        if counted {
            write!(f, "row {row}: ")?;
        }
        match &self.why {
            Why::Markers(e) => write!(f, "{e}")?,
            Why::NotUtf8(field) => write!(f, "{field} must be UTF-8 text")?,
            Why::MaxMatches(n) => write!(
                f,
                "max_matches must be an integer from 1 to {} or NULL (it is {n})",
                i64::MAX
            )?,
            Why::OnUnclosed(name) => {
                let [raise, null, partial] = OnUnclosed::NAMES;
                write!(
                    f,
                    "on_unclosed must be '{raise}', '{null}' or '{partial}' (NULL: '{raise}'), not {name:?}"
                )?
            }
            Why::Row(e) => write!(f, "{e}")?,
        }
        if !counted {
            return Ok(());
        }
        write!(
            f,
            " (row {row} counts from the start of the vector of {rows} rows that DuckDB \
             handed to {}, not from the start of the table)",
            function.name()
        )
    }
}

impl std::error::Error for CallError {}

#[cfg(test)]
mod tests {
    use super::*;
    use extract_between::Markers;
    use extract_between::rows::RowScanner;

    fn error(why: Why) -> String {
        CallError {
            function: Function::All,
            row: 2,
            rows: 3,
            why,
        }
        .to_string()
    }

    #[test]
    fn an_unclosed_row_is_worded_as_every_host_words_it_with_the_row_of_the_vector() {
        let mut rows = RowScanner::new(&Markers::new("[", "]").unwrap(), None, OnUnclosed::Raise);
        let row_error = rows.scan(b"x [oops", &mut Vec::new()).unwrap_err();
        assert_eq!(
            error(Why::Row(row_error)),
            "UnclosedStartMarker: row 2: unclosed start marker at UTF-16 offset 2 (byte offset 2); \
             the row begins \"x [oops\" (row 2 counts from the start of the vector of 3 rows that \
             DuckDB handed to extract_between_all, not from the start of the table)"
        );
    }

    #[test]
    fn a_vector_of_one_row_names_no_row() {
        let mut rows = RowScanner::new(&Markers::new("[", "]").unwrap(), None, OnUnclosed::Raise);
        let row_error = rows.scan(b"x [open", &mut Vec::new()).unwrap_err();
        let one = CallError {
            function: Function::All,
            row: 0,
            rows: 1,
            why: Why::Row(row_error),
        }
        .to_string();
        assert_eq!(
            one,
            "UnclosedStartMarker: unclosed start marker at UTF-16 offset 2 (byte offset 2); \
             the row begins \"x [open\""
        );
    }

    #[test]
    fn bad_arguments_name_the_argument_and_the_value() {
        assert!(error(Why::MaxMatches(0)).starts_with(
            "InvalidInput: row 2: max_matches must be an integer from 1 to 9223372036854775807 or NULL (it is 0)"
        ));
        assert!(error(Why::OnUnclosed("skip".into())).starts_with(
            "InvalidInput: row 2: on_unclosed must be 'raise', 'null' or 'partial' (NULL: 'raise'), not \"skip\""
        ));
        let empty = Markers::new("", "]").unwrap_err();
        assert!(
            error(Why::Markers(empty))
                .starts_with("InvalidInput: row 2: start must be a non-empty string")
        );
    }
}
