//! Which of the two SQL functions a call is.

/// Which SQL function is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    /// `extract_between_all(text, start, end[, max_matches[, on_unclosed]])` → `VARCHAR[]`.
    All,
    /// `extract_between_first(text, start, end[, on_unclosed])` → `VARCHAR`.
    First,
}

impl Function {
    /// The function's SQL name.
    pub fn name(self) -> &'static str {
        match self {
            Function::All => "extract_between_all",
            Function::First => "extract_between_first",
        }
    }
}
