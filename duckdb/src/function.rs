//! Which of the two SQL functions a call is; what each is (name, arguments, types) is the
//! library's description, [`extract_between::rows::sql::FUNCTIONS`].

use extract_between::rows::sql::{FUNCTIONS, SqlFunction};

/// Which SQL function is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    /// `extract_between_all(text, start, end[, max_matches[, on_unclosed]])` → `VARCHAR[]`.
    All,
    /// `extract_between_first(text, start, end[, on_unclosed])` → `VARCHAR`.
    First,
}

impl Function {
    /// Both, in the order of the library's description.
    pub const BOTH: [Function; 2] = [Function::All, Function::First];

    /// The function as the library describes it.
    pub fn sql(self) -> &'static SqlFunction {
        &FUNCTIONS[self as usize]
    }

    /// The function's SQL name.
    pub fn name(self) -> &'static str {
        self.sql().name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_variant_is_the_described_function_of_its_name() {
        assert_eq!(Function::All.name(), "extract_between_all");
        assert_eq!(Function::First.name(), "extract_between_first");
        assert_eq!(Function::BOTH.len(), FUNCTIONS.len());
    }

    #[test]
    fn the_columns_a_vector_is_read_from_are_the_described_arguments() {
        // capi::answer_vector reads text, start, end, then max_matches (all) and on_unclosed.
        let names = |f: Function| f.sql().arguments.iter().map(|a| a.name).collect::<Vec<_>>();
        let rows = ["text", "start", "end"];
        assert_eq!(
            names(Function::All),
            [&rows[..], &["max_matches", "on_unclosed"]].concat()
        );
        assert_eq!(
            names(Function::First),
            [&rows[..], &["on_unclosed"]].concat()
        );
    }
}
