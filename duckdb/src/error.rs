//! Why a call fails, worded once: DuckDB shows the message as the query's error.

use core::fmt;

use extract_between::MarkerError;
use extract_between::rows::{OptionError, RowError, RowPlace, Spelling};

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
    /// `max_matches` or `on_unclosed` refused by the library.
    Option(OptionError),
    /// The row's text stops the column (an unclosed start marker under `'raise'`).
    Row(RowError),
}

impl CallError {
    /// The error's class, as every host names the same failure.
    fn class(&self) -> &'static str {
        match &self.why {
            Why::Row(e) => e.class(),
            _ => "InvalidInput",
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = RowPlace::Piece {
            row: self.row,
            rows: self.rows,
            piece: "vector",
            host: "DuckDB",
            function: self.function.name(),
            whole: "table",
        };
        write!(f, "{}: ", self.class())?;
        match &self.why {
            Why::Markers(e) => write!(f, "{}", place.around(e)),
            Why::NotUtf8(field) => write!(
                f,
                "{}",
                place.around(format_args!("{field} must be UTF-8 text"))
            ),
            Why::Option(e) => write!(f, "{}", place.around(e.spelled(Spelling::SQL))),
            Why::Row(e) => write!(f, "{}", e.at(place)),
        }
    }
}

impl std::error::Error for CallError {}

#[cfg(test)]
mod tests {
    use super::*;
    use extract_between::Markers;
    use extract_between::rows::{RowOptions, RowScanner};

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
        let mut rows = RowScanner::new(&Markers::new("[", "]").unwrap(), RowOptions::default());
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
        let mut rows = RowScanner::new(&Markers::new("[", "]").unwrap(), RowOptions::default());
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
        let cap = RowOptions::max_matches(Some(0)).unwrap_err();
        assert!(error(Why::Option(cap)).starts_with(
            "InvalidInput: row 2: max_matches must be an integer from 1 to 9223372036854775807 or NULL (it is 0)"
        ));
        // The library's sentence in SQL's spelling, whatever the policies are.
        let policy = RowOptions::on_unclosed(Some(b"skip")).unwrap_err();
        let words = policy.spelled(Spelling::SQL).to_string();
        assert!(
            words.starts_with("on_unclosed must be 'raise', ") && words.ends_with(", not 'skip'")
        );
        let shown = error(Why::Option(policy));
        assert!(
            shown.starts_with(&format!("InvalidInput: row 2: {words} (row 2 counts")),
            "{shown}"
        );
        let empty = Markers::new("", "]").unwrap_err();
        assert!(
            error(Why::Markers(empty))
                .starts_with("InvalidInput: row 2: start must be a non-empty string")
        );
    }
}
