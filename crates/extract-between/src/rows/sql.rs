//! The two SQL functions, described once: their names, arguments, types, what a NULL argument
//! means and their doc line. DuckDB's extension registers its overloads from this, the Python
//! package's DuckDB fallback builds its macros from it, and Spark's registry and
//! docs/SCALING.md are checked against it by tests.
//!
//! ```
//! use extract_between::rows::sql::{FUNCTIONS, SqlType};
//!
//! let all = &FUNCTIONS[0];
//! assert_eq!(all.signature(), "extract_between_all(text, start, end[, max_matches[, on_unclosed]])");
//! assert_eq!(all.arities(), 3..=5);
//! assert_eq!(all.arguments[3].ty, SqlType::Bigint);
//! ```

use core::fmt;
use core::ops::RangeInclusive;

/// A SQL type the functions take or answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqlType {
    /// A string.
    Varchar,
    /// A 64-bit integer.
    Bigint,
    /// A list of strings.
    VarcharList,
}

impl SqlType {
    /// The type as DuckDB writes it.
    pub fn duckdb(self) -> &'static str {
        match self {
            SqlType::Varchar => "VARCHAR",
            SqlType::Bigint => "BIGINT",
            SqlType::VarcharList => "VARCHAR[]",
        }
    }

    /// The type as Spark writes it.
    pub fn spark(self) -> &'static str {
        match self {
            SqlType::Varchar => "string",
            SqlType::Bigint => "bigint",
            SqlType::VarcharList => "array<string>",
        }
    }
}

/// What a NULL argument means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenNull {
    /// The row answers NULL (the text, a marker).
    AnswersNull,
    /// The option's default, as the library reads a null option ([`RowOptions`](super::RowOptions)).
    Default,
}

/// One argument of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SqlArgument {
    /// Its name in the docs and in error messages.
    pub name: &'static str,
    /// Its type.
    pub ty: SqlType,
    /// What NULL means for it; an argument left out means what NULL does.
    pub null: WhenNull,
    /// Whether the call may leave it out (then every argument after it too).
    pub optional: bool,
}

/// One SQL function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SqlFunction {
    /// Its SQL name.
    pub name: &'static str,
    /// Its arguments, in order.
    pub arguments: &'static [SqlArgument],
    /// What it answers.
    pub returns: SqlType,
    /// What it does, in one line.
    pub doc: &'static str,
}

impl SqlFunction {
    /// How many arguments a call may give: the required ones up to all of them.
    pub fn arities(&self) -> RangeInclusive<usize> {
        let required = self.arguments.iter().filter(|a| !a.optional).count();
        required..=self.arguments.len()
    }

    /// Each overload's arguments, fewest first (one per arity).
    pub fn overloads(&self) -> impl Iterator<Item = &'static [SqlArgument]> + '_ {
        let arguments = self.arguments;
        self.arities().map(move |n| &arguments[..n])
    }

    /// `name(text, start, end[, max_matches[, on_unclosed]])`.
    pub fn signature(&self) -> String {
        let mut out = format!("{}(", self.name);
        let mut open = 0;
        for (i, argument) in self.arguments.iter().enumerate() {
            let comma = if i == 0 { "" } else { ", " };
            if argument.optional {
                out.push('[');
                open += 1;
            }
            out.push_str(comma);
            out.push_str(argument.name);
        }
        out.push_str(&"]".repeat(open));
        out.push(')');
        out
    }
}

impl fmt::Display for SqlFunction {
    /// The signature and the doc line: `name(…) - doc`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} - {}", self.signature(), self.doc)
    }
}

const TEXT: SqlArgument = SqlArgument {
    name: "text",
    ty: SqlType::Varchar,
    null: WhenNull::AnswersNull,
    optional: false,
};
const START: SqlArgument = SqlArgument {
    name: "start",
    ..TEXT
};
const END: SqlArgument = SqlArgument {
    name: "end",
    ..TEXT
};
const MAX_MATCHES: SqlArgument = SqlArgument {
    name: "max_matches",
    ty: SqlType::Bigint,
    null: WhenNull::Default,
    optional: true,
};
const ON_UNCLOSED: SqlArgument = SqlArgument {
    name: "on_unclosed",
    ty: SqlType::Varchar,
    null: WhenNull::Default,
    optional: true,
};

/// `extract_between_all`, then `extract_between_first`.
pub const FUNCTIONS: [SqlFunction; 2] = [
    SqlFunction {
        name: "extract_between_all",
        arguments: &[TEXT, START, END, MAX_MATCHES, ON_UNCLOSED],
        returns: SqlType::VarcharList,
        doc: "Every text between a literal start and end marker, left to right (tool card \
              text-extract-between 1.0.0): at most max_matches (NULL: no cap); on_unclosed \
              'raise', 'null' or 'partial' (NULL: 'raise').",
    },
    SqlFunction {
        name: "extract_between_first",
        arguments: &[TEXT, START, END, ON_UNCLOSED],
        returns: SqlType::Varchar,
        doc: "The first text between a literal start and end marker, or NULL where there is \
              none; on_unclosed as for extract_between_all.",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::OnUnclosed;

    #[test]
    fn each_function_has_an_overload_an_arity_and_optional_arguments_last() {
        for function in FUNCTIONS {
            let overloads: Vec<_> = function.overloads().map(<[_]>::len).collect();
            assert_eq!(overloads, function.arities().collect::<Vec<_>>());
            let first_optional = function.arguments.iter().position(|a| a.optional);
            let required = first_optional.unwrap_or(function.arguments.len());
            assert!(function.arguments[required..].iter().all(|a| a.optional));
        }
        assert_eq!(
            FUNCTIONS[1].signature(),
            "extract_between_first(text, start, end[, on_unclosed])"
        );
    }

    #[test]
    fn the_doc_line_names_every_policy_and_the_default() {
        for name in OnUnclosed::NAMES {
            assert!(FUNCTIONS[0].doc.contains(&format!("'{name}'")), "{name}");
        }
        let default = OnUnclosed::default().name();
        assert!(FUNCTIONS[0].doc.contains(&format!("(NULL: '{default}')")));
    }
}
