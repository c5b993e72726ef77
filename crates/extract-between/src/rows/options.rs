//! A row scan's options as every host hands them over — a cap (absent, null or an integer of
//! any sign and size) and an `on_unclosed` policy (absent, null or a name) — parsed once into
//! [`RowOptions`], and the refusals worded once in each host's spelling ([`Spelling`]).
//!
//! ```
//! use extract_between::rows::{OnUnclosed, RowOptions, Spelling};
//!
//! let options = RowOptions::parse(Some(2_i64), Some(b"null".as_slice())).unwrap();
//! assert_eq!(options.max_matches.map(|n| n.get()), Some(2));
//! assert_eq!(options.on_unclosed, OnUnclosed::Null);
//! assert_eq!(RowOptions::parse(None::<i64>, None).unwrap(), RowOptions::default());
//!
//! let e = RowOptions::parse(Some(0_i64), None).unwrap_err();
//! assert_eq!(
//!     e.spelled(Spelling::SQL).to_string(),
//!     "max_matches must be an integer from 1 to 9223372036854775807 or NULL (it is 0)"
//! );
//! ```

use core::fmt;
use core::num::NonZeroU64;

/// What a row with an unclosed start marker becomes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnUnclosed {
    /// The row stops the column with [`RowError`](super::RowError) (the card's
    /// `unclosed_start_marker`).
    #[default]
    Raise,
    /// The row answers null.
    Null,
    /// The row answers the matches before the unclosed start marker.
    Partial,
}

impl OnUnclosed {
    /// Every policy, in the order of [`NAMES`](Self::NAMES).
    pub const ALL: [OnUnclosed; 3] = [OnUnclosed::Raise, OnUnclosed::Null, OnUnclosed::Partial];

    /// The names a host's users write, in the order of the variants.
    pub const NAMES: [&'static str; 3] = ["raise", "null", "partial"];

    /// The policy a name stands for (`"raise"`, `"null"`, `"partial"`).
    ///
    /// ```
    /// use extract_between::rows::OnUnclosed;
    /// assert_eq!(OnUnclosed::from_name("partial"), Some(OnUnclosed::Partial));
    /// assert_eq!(OnUnclosed::from_name("skip"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<OnUnclosed> {
        let at = Self::NAMES.iter().position(|n| *n == name)?;
        Some(Self::ALL[at])
    }

    /// The policy's name.
    ///
    /// ```
    /// use extract_between::rows::OnUnclosed;
    /// assert_eq!(OnUnclosed::Null.name(), "null");
    /// ```
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The policy as a small integer, for a host that passes it through a typed boundary
    /// (Spark's generated code); [`from_code`](Self::from_code) reads it back. A host stores
    /// the code it was given and never decides one itself.
    ///
    /// ```
    /// use extract_between::rows::OnUnclosed;
    /// for policy in OnUnclosed::ALL {
    ///     assert_eq!(OnUnclosed::from_code(policy.code()), Some(policy));
    /// }
    /// assert_eq!(OnUnclosed::from_code(99), None);
    /// ```
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The policy whose [`code`](Self::code) is `code`.
    pub fn from_code(code: i32) -> Option<OnUnclosed> {
        usize::try_from(code)
            .ok()
            .and_then(|at| Self::ALL.get(at).copied())
    }
}

/// A row scan's options, parsed: no sentinel stands for "no cap".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RowOptions {
    /// At most this many matches a row; `None`: every match.
    pub max_matches: Option<NonZeroU64>,
    /// What a row with an unclosed start marker becomes.
    pub on_unclosed: OnUnclosed,
}

impl RowOptions {
    /// The largest cap: SQL's `BIGINT` bounds it in every door, so that a cap one door takes
    /// every door takes.
    pub const MAX_CAP: u64 = i64::MAX as u64;

    /// The options from a cap and a policy as a host hands them over (`None`: absent or null).
    ///
    /// # Errors
    ///
    /// [`OptionError`] naming the first option refused.
    pub fn parse<N>(max_matches: Option<N>, on_unclosed: Option<&[u8]>) -> Result<Self, OptionError>
    where
        N: TryInto<u64> + fmt::Display + Copy,
    {
        Ok(RowOptions {
            max_matches: Self::max_matches(max_matches)?,
            on_unclosed: Self::on_unclosed(on_unclosed)?,
        })
    }

    /// A cap: `None` (absent or null) for no cap, else an integer from 1 to
    /// [`MAX_CAP`](Self::MAX_CAP). `N` is whatever integer the host has (`i64`, `i128`, or a
    /// type of its own for integers of any size), shown as it displays when refused.
    ///
    /// ```
    /// use extract_between::rows::RowOptions;
    /// assert_eq!(RowOptions::max_matches(Some(7_u64)).unwrap().unwrap().get(), 7);
    /// assert!(RowOptions::max_matches(Some(-1_i64)).is_err());
    /// assert!(RowOptions::max_matches(Some(u64::MAX)).is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// [`OptionError::MaxMatches`] for a value out of range.
    pub fn max_matches<N>(value: Option<N>) -> Result<Option<NonZeroU64>, OptionError>
    where
        N: TryInto<u64> + fmt::Display + Copy,
    {
        let Some(value) = value else {
            return Ok(None);
        };
        match value.try_into().ok().filter(|n| *n <= Self::MAX_CAP) {
            Some(n) => NonZeroU64::new(n).map(Some),
            None => None,
        }
        .ok_or_else(|| OptionError::MaxMatches(value.to_string()))
    }

    /// A policy: `None` (absent or null) for [`OnUnclosed::Raise`], else one of
    /// [`OnUnclosed::NAMES`] (bytes, as SQL engines hand strings over).
    ///
    /// # Errors
    ///
    /// [`OptionError::OnUnclosed`] for another name.
    pub fn on_unclosed(value: Option<&[u8]>) -> Result<OnUnclosed, OptionError> {
        let Some(value) = value else {
            return Ok(OnUnclosed::Raise);
        };
        core::str::from_utf8(value)
            .ok()
            .and_then(OnUnclosed::from_name)
            .ok_or_else(|| OptionError::OnUnclosed(String::from_utf8_lossy(value).into_owned()))
    }
}

/// Which option was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOption {
    /// The cap.
    MaxMatches,
    /// The policy.
    OnUnclosed,
}

/// An option refused: its value out of range or unknown, or of a type that cannot be one (a
/// host that has types, such as Python or Spark, reports those through
/// [`OptionError::WrongType`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// A cap below 1 or past [`RowOptions::MAX_CAP`], as the host displays it.
    MaxMatches(String),
    /// A name that is no policy.
    OnUnclosed(String),
    /// A value of a type the option cannot be (the host's name of the type).
    WrongType(RowOption, String),
}

impl OptionError {
    /// The option refused.
    pub fn option(&self) -> RowOption {
        match self {
            OptionError::MaxMatches(_) => RowOption::MaxMatches,
            OptionError::OnUnclosed(_) => RowOption::OnUnclosed,
            OptionError::WrongType(option, _) => *option,
        }
    }

    /// The sentence in a host's spelling. Every door words a refusal with it.
    ///
    /// ```
    /// use extract_between::rows::{OptionError, RowOption, Spelling};
    /// let bad = OptionError::OnUnclosed("skip".into());
    /// assert_eq!(
    ///     bad.spelled(Spelling::PYTHON).to_string(),
    ///     r#"on_unclosed must be "raise", "null" or "partial" (None: "raise"), not "skip""#
    /// );
    /// let float = OptionError::WrongType(RowOption::MaxMatches, "float".into());
    /// assert_eq!(
    ///     float.spelled(Spelling::JAVASCRIPT).to_string(),
    ///     "maxMatches must be an integer from 1 to 9223372036854775807 or null, not float"
    /// );
    /// ```
    pub fn spelled(&self, spelling: Spelling) -> impl fmt::Display + '_ {
        Spelled {
            error: self,
            spelling,
        }
    }
}

/// The default spelling is Python's (the option names as the card's JSON writes them).
impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.spelled(Spelling::PYTHON).fmt(f)
    }
}

impl std::error::Error for OptionError {}

/// How a host writes the options' names, its null and a quoted string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spelling {
    /// The cap's name.
    pub max_matches: &'static str,
    /// The policy's name.
    pub on_unclosed: &'static str,
    /// The host's null.
    pub null: &'static str,
    /// The quote around a string.
    pub quote: char,
}

impl Spelling {
    /// Python's: `max_matches`, `None`, `"raise"`.
    pub const PYTHON: Spelling = Spelling {
        max_matches: "max_matches",
        on_unclosed: "on_unclosed",
        null: "None",
        quote: '"',
    };
    /// SQL's (DuckDB, Spark): `max_matches`, `NULL`, `'raise'`.
    pub const SQL: Spelling = Spelling {
        max_matches: "max_matches",
        on_unclosed: "on_unclosed",
        null: "NULL",
        quote: '\'',
    };
    /// JavaScript's: `maxMatches`, `null`, `"raise"`.
    pub const JAVASCRIPT: Spelling = Spelling {
        max_matches: "maxMatches",
        on_unclosed: "onUnclosed",
        null: "null",
        quote: '"',
    };

    /// The option's name in this spelling.
    pub fn name(self, option: RowOption) -> &'static str {
        match option {
            RowOption::MaxMatches => self.max_matches,
            RowOption::OnUnclosed => self.on_unclosed,
        }
    }

    /// `text` quoted, escaped as Rust escapes a string's characters.
    fn quoted(self, f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
        let q = self.quote;
        write!(f, "{q}")?;
        for c in text.chars() {
            if c == q || c == '\\' {
                write!(f, "\\{c}")?;
            } else if c == '\'' || c == '"' {
                write!(f, "{c}")?;
            } else {
                write!(f, "{}", c.escape_debug())?;
            }
        }
        write!(f, "{q}")
    }
}

/// [`OptionError::spelled`]'s sentence.
struct Spelled<'a> {
    error: &'a OptionError,
    spelling: Spelling,
}

impl fmt::Display for Spelled<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.spelling;
        let option = self.error.option();
        write!(f, "{} must be ", s.name(option))?;
        match option {
            RowOption::MaxMatches => write!(
                f,
                "an integer from 1 to {} or {}",
                RowOptions::MAX_CAP,
                s.null
            )?,
            RowOption::OnUnclosed => {
                let last = OnUnclosed::NAMES.len() - 1;
                for (i, name) in OnUnclosed::NAMES.iter().enumerate() {
                    let sep = match i {
                        0 => "",
                        _ if i == last => " or ",
                        _ => ", ",
                    };
                    write!(f, "{sep}")?;
                    s.quoted(f, name)?;
                }
                write!(f, " ({}: ", s.null)?;
                s.quoted(f, OnUnclosed::default().name())?;
                write!(f, ")")?;
            }
        }
        match self.error {
            OptionError::MaxMatches(value) => write!(f, " (it is {value})"),
            OptionError::OnUnclosed(value) => {
                write!(f, ", not ")?;
                s.quoted(f, value)
            }
            OptionError::WrongType(_, type_name) => write!(f, ", not {type_name}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_from_one_to_bigint_max_and_none_are_taken_and_nothing_else() {
        let max = RowOptions::MAX_CAP;
        assert_eq!(RowOptions::max_matches(None::<i64>), Ok(None));
        assert_eq!(RowOptions::max_matches(Some(1_i64)), Ok(NonZeroU64::new(1)));
        assert_eq!(RowOptions::max_matches(Some(max)), Ok(NonZeroU64::new(max)));
        for bad in [0_i128, -1, i128::from(max) + 1, i128::MIN, i128::MAX] {
            assert_eq!(
                RowOptions::max_matches(Some(bad)),
                Err(OptionError::MaxMatches(bad.to_string()))
            );
        }
    }

    #[test]
    fn policies_are_read_by_name_and_null_is_raise() {
        for policy in OnUnclosed::ALL {
            let name = policy.name().as_bytes();
            assert_eq!(RowOptions::on_unclosed(Some(name)), Ok(policy));
        }
        assert_eq!(RowOptions::on_unclosed(None), Ok(OnUnclosed::Raise));
        for bad in [&b"RAISE"[..], b"", b"\xff", b"null "] {
            assert!(RowOptions::on_unclosed(Some(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn each_spelling_words_each_refusal() {
        let skip = OptionError::OnUnclosed("it's".into());
        assert_eq!(
            skip.spelled(Spelling::SQL).to_string(),
            r"on_unclosed must be 'raise', 'null' or 'partial' (NULL: 'raise'), not 'it\'s'"
        );
        assert_eq!(
            skip.spelled(Spelling::JAVASCRIPT).to_string(),
            r#"onUnclosed must be "raise", "null" or "partial" (null: "raise"), not "it's""#
        );
        let cap = OptionError::MaxMatches("-3".into());
        assert_eq!(
            cap.to_string(),
            "max_matches must be an integer from 1 to 9223372036854775807 or None (it is -3)"
        );
        let typed = OptionError::WrongType(RowOption::OnUnclosed, "INT".into());
        assert_eq!(
            typed.spelled(Spelling::SQL).to_string(),
            "on_unclosed must be 'raise', 'null' or 'partial' (NULL: 'raise'), not INT"
        );
    }
}
