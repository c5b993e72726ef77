//! The card's JSON contract: validate a request body, run it, shape the response or the
//! error envelope. The CLI's tool mode and the HTTP service both answer through [`execute`],
//! so they answer identically, byte for byte.
//!
//! Validation follows the card's input schema, with the two points a schema validator would
//! get wrong for this card handled in code: lengths are limits in UTF-8 *bytes* (the schema's
//! `maxLength` counts code points), and a number is an integer by value, as JSON Schema says
//! (`5.0` and `5e0` are the integer 5; `1.5`, `"5"`, `true` and `null` are not integers).
//! Each field is parsed on its own from the raw JSON so that every error names its field,
//! including a string holding a lone surrogate such as `"\ud800"`, which is not valid text.

use crate::card::{DEFAULT_MAX_MATCHES, MAX_MATCHES, MAX_TEXT_BYTES};
use crate::extract::{ExtractError, Extractor};
use crate::markers::{MarkerError, Markers};
use core::fmt;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

pub(crate) mod write;

pub use write::error_body;
use write::push_json_string;

/// A valid request.
///
/// ```
/// let req = extract_between::request::parse(br#"{"text":"t","start":"<","end":">"}"#).unwrap();
/// assert_eq!((req.text.as_str(), req.markers.start(), req.max_matches), ("t", "<", 100));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The text to search.
    pub text: String,
    /// The validated markers.
    pub markers: Markers,
    /// The cap, `1..=1000`; 100 when the request leaves it out.
    pub max_matches: usize,
}

/// Why a request is not valid: the `invalid_input` error.
///
/// ```
/// let err = extract_between::request::parse(br#"{"text":"t","start":"<"}"#).unwrap_err();
/// assert_eq!((err.field.as_deref(), err.message.as_str()), (Some("end"), "end is required"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidInput {
    /// The field at fault, when there is one (not for malformed JSON).
    pub field: Option<String>,
    /// What is wrong, for code that acts on it.
    pub problem: Problem,
    /// What is wrong, in a sentence that names the field.
    pub message: String,
}

/// What is wrong with a request, for code that acts on it (the message says it to people).
///
/// ```
/// use extract_between::request::{Problem, parse};
/// assert_eq!(parse(br#"{"text":"t","start":"<"}"#).unwrap_err().problem, Problem::Missing);
/// assert_eq!(parse(b"{").unwrap_err().problem, Problem::Malformed);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Problem {
    /// The body is empty, not UTF-8, not JSON, or not a JSON object.
    Malformed,
    /// A field the card does not have.
    UnknownField,
    /// A field given more than once.
    RepeatedField,
    /// A required field is missing.
    Missing,
    /// A field of the wrong JSON type.
    WrongType,
    /// A string that is not valid Unicode (a lone surrogate).
    InvalidText,
    /// A number that is not an integer, or outside its range.
    OutOfRange,
    /// A text or marker longer than the card allows.
    TooLong,
    /// An empty marker.
    Empty,
}

impl fmt::Display for InvalidInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InvalidInput {}

fn invalid(field: &str, problem: Problem, message: String) -> InvalidInput {
    InvalidInput {
        field: Some(field.to_owned()),
        problem,
        message,
    }
}

fn no_field(message: String) -> InvalidInput {
    InvalidInput {
        field: None,
        problem: Problem::Malformed,
        message,
    }
}

/// The top-level object's four fields, each value still raw JSON. Read member by member:
/// the first unknown or repeated name ends the read with its error, so a body of a million
/// members builds nothing for them (a `Vec` of them took 16 times the body's size).
struct Fields<'p> {
    problem: &'p mut Option<InvalidInput>,
}

impl<'de, 'p> DeserializeSeed<'de> for Fields<'p> {
    type Value = [Option<&'de RawValue>; 4];

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, 'p> Visitor<'de> for Fields<'p> {
    type Value = [Option<&'de RawValue>; 4];

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut values: [Option<&'de RawValue>; 4] = [None; 4];
        // A name is borrowed from the body unless it holds an escape.
        while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let Some(slot) = FIELDS.iter().position(|f| *f == name) else {
                *self.problem = Some(invalid(
                    &name,
                    Problem::UnknownField,
                    format!(
                        "unknown field {}: allowed fields are text, start, end and max_matches",
                        serde_json::Value::from(&*name)
                    ),
                ));
                return Err(serde::de::Error::custom("unknown field"));
            };
            let value = map.next_value::<&'de RawValue>()?;
            if values[slot].replace(value).is_some() {
                *self.problem = Some(invalid(
                    &name,
                    Problem::RepeatedField,
                    format!("field {name} appears more than once"),
                ));
                return Err(serde::de::Error::custom("repeated field"));
            }
        }
        Ok(values)
    }
}

/// The JSON type of a raw value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum JsonType {
    String,
    Object,
    Array,
    Boolean,
    Null,
    Number,
}

impl JsonType {
    fn of(raw: &RawValue) -> JsonType {
        match raw.get().as_bytes().first() {
            Some(b'"') => JsonType::String,
            Some(b'{') => JsonType::Object,
            Some(b'[') => JsonType::Array,
            Some(b't' | b'f') => JsonType::Boolean,
            Some(b'n') => JsonType::Null,
            _ => JsonType::Number,
        }
    }
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsonType::String => "a string",
            JsonType::Object => "an object",
            JsonType::Array => "an array",
            JsonType::Boolean => "a boolean",
            JsonType::Null => "null",
            JsonType::Number => "a number",
        })
    }
}

const FIELDS: [&str; 4] = ["text", "start", "end", "max_matches"];

/// The largest request body read in tool mode and by the HTTP service: every valid request
/// fits, even with every text byte escaped as `\u0000` (6 bytes) and generous whitespace.
///
/// ```
/// assert!(extract_between::request::MAX_REQUEST_BYTES > 6 * extract_between::card::MAX_TEXT_BYTES);
/// ```
pub const MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;

/// How a request body that is too large is answered, with `payload_too_large`.
///
/// ```
/// assert!(extract_between::request::payload_too_large_body().contains("payload_too_large"));
/// ```
pub fn payload_too_large_body() -> String {
    error_body("payload_too_large", &payload_too_large_message(), None)
}

/// The message of the `payload_too_large` error, for front ends that write the envelope
/// their own way (a JSON-RPC error, say).
///
/// ```
/// assert!(extract_between::request::payload_too_large_message().contains("4194304 bytes"));
/// ```
pub fn payload_too_large_message() -> String {
    format!(
        "request body is larger than {MAX_REQUEST_BYTES} bytes; no valid request is (text is at most {MAX_TEXT_BYTES} UTF-8 bytes)"
    )
}

/// Parses and validates a request body against the card's input schema and limits.
///
/// # Errors
///
/// [`InvalidInput`] for malformed JSON, a body that is not an object, an unknown, repeated or
/// missing field, a value of the wrong type, a lone surrogate, or a broken limit.
///
/// # Examples
///
/// ```
/// use extract_between::request::parse;
/// let req = parse(br#"{"text": "a[b]", "start": "[", "end": "]", "max_matches": 5.0}"#).unwrap();
/// assert_eq!(req.max_matches, 5);
/// let err = parse(br#"{"text": "a", "start": "[", "end": "]", "max_matches": 1.5}"#).unwrap_err();
/// assert_eq!(err.field.as_deref(), Some("max_matches"));
/// ```
pub fn parse(body: &[u8]) -> Result<Request, InvalidInput> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(no_field(
            "request body is empty: expected a JSON object with text, start and end".into(),
        ));
    }
    if body.starts_with("\u{FEFF}".as_bytes()) {
        // RFC 8259 forbids sending one; saying so beats serde's "expected value at column 1".
        return Err(no_field(
            "request body begins with a byte order mark (U+FEFF), which JSON text must not have: send it without".into(),
        ));
    }
    if let Err(e) = std::str::from_utf8(body) {
        return Err(no_field(format!(
            "request body is not valid UTF-8: invalid byte at offset {}",
            e.valid_up_to()
        )));
    }
    let raw: &RawValue = serde_json::from_slice(body)
        .map_err(|e| no_field(format!("request body is not valid JSON: {e}")))?;
    if !raw.get().starts_with('{') {
        return Err(no_field(format!(
            "request body must be a JSON object, not {}",
            JsonType::of(raw)
        )));
    }
    let mut problem = None;
    let mut de = serde_json::Deserializer::from_str(raw.get());
    let fields = Fields {
        problem: &mut problem,
    };
    let values = match fields.deserialize(&mut de) {
        Ok(values) => values,
        Err(e) => {
            return Err(
                problem.unwrap_or_else(|| no_field(format!("request body is not valid JSON: {e}")))
            );
        }
    };
    let [text, start, end, max_matches] = values;
    let text = string_field("text", text)?;
    let start = string_field("start", start)?;
    let end = string_field("end", end)?;
    let max_matches = match max_matches {
        None => DEFAULT_MAX_MATCHES,
        Some(raw) => integer_field("max_matches", raw, 1, MAX_MATCHES)?,
    };
    if text.len() > MAX_TEXT_BYTES {
        return Err(invalid(
            "text",
            Problem::TooLong,
            format!(
                "text must be at most {MAX_TEXT_BYTES} UTF-8 bytes long (it is {} bytes)",
                text.len()
            ),
        ));
    }
    let markers = Markers::new(start, end).map_err(|e: MarkerError| {
        let problem = match e {
            MarkerError::Empty(_) => Problem::Empty,
            MarkerError::TooLong { .. } => Problem::TooLong,
        };
        invalid(e.which().field(), problem, e.to_string())
    })?;
    Ok(Request {
        text,
        markers,
        max_matches,
    })
}

fn string_field(name: &str, raw: Option<&RawValue>) -> Result<String, InvalidInput> {
    let raw = raw.ok_or_else(|| invalid(name, Problem::Missing, format!("{name} is required")))?;
    if JsonType::of(raw) != JsonType::String {
        return Err(invalid(
            name,
            Problem::WrongType,
            format!("{name} must be a string, not {}", JsonType::of(raw)),
        ));
    }
    serde_json::from_str(raw.get()).map_err(|e| {
        invalid(
            name,
            Problem::InvalidText,
            format!("{name} must be valid Unicode text (lone surrogates are not allowed): {e}"),
        )
    })
}

fn integer_field(
    name: &str,
    raw: &RawValue,
    min: usize,
    max: usize,
) -> Result<usize, InvalidInput> {
    let range = format!("{name} must be an integer from {min} to {max}");
    if JsonType::of(raw) != JsonType::Number {
        return Err(invalid(
            name,
            Problem::WrongType,
            format!("{range}, not {}", JsonType::of(raw)),
        ));
    }
    // JSON's number grammar is a subset of Rust's float syntax; a huge exponent is infinite,
    // hence out of range. An integer-valued number such as 5.0 or 1e2 is an integer.
    let value: f64 = raw
        .get()
        .parse()
        .map_err(|_| invalid(name, Problem::OutOfRange, range.clone()))?;
    if value.fract() != 0.0 || !(min as f64..=max as f64).contains(&value) {
        return Err(invalid(
            name,
            Problem::OutOfRange,
            format!("{range} (it is {})", raw.get()),
        ));
    }
    Ok(value as usize)
}

/// The kind of answer [`execute`] gave, which each front end maps to its own status (the
/// CLI's exit code, HTTP's status code).
///
/// ```
/// use extract_between::request::{execute, Outcome};
/// assert_eq!(execute(b"[]").outcome, Outcome::InvalidInput);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The card's output object.
    Output,
    /// An `invalid_input` error envelope.
    InvalidInput,
    /// An `unclosed_start_marker` error envelope.
    Unclosed,
}

/// A complete answer: its kind and its JSON body.
///
/// ```
/// let reply = extract_between::request::execute(br#"{"text":"","start":"[","end":"]"}"#);
/// assert_eq!(reply.body, r#"{"matches":[],"truncated":false}"#);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// What kind of answer this is.
    pub outcome: Outcome,
    /// The JSON text: the card's output object or the error envelope.
    pub body: String,
    /// Matches in the output (0 for an error).
    pub matches: usize,
}

/// Validates and runs a request body, answering the card's output or the error envelope.
///
/// # Examples
///
/// ```
/// use extract_between::request::{execute, Outcome};
/// let reply = execute(br#"{"text": "pre[one]mid[two]post", "start": "[", "end": "]"}"#);
/// assert_eq!(reply.outcome, Outcome::Output);
/// assert_eq!(reply.body, r#"{"matches":["one","two"],"truncated":false}"#);
///
/// let reply = execute(br#"{"text": "ab[c", "start": "[", "end": "]"}"#);
/// assert_eq!(reply.outcome, Outcome::Unclosed);
/// assert!(reply.body.contains(r#""code":"unclosed_start_marker""#));
/// ```
pub fn execute(body: &[u8]) -> Reply {
    match parse(body) {
        Ok(request) => run(&request),
        Err(e) => Reply::from(&e),
    }
}

/// The `invalid_input` answer to a request [`parse`] refused, without parsing it again.
///
/// ```
/// use extract_between::request::{Outcome, Reply, parse};
/// let err = parse(br#"{"text":"t","start":"","end":"]"}"#).unwrap_err();
/// let reply = Reply::from(&err);
/// assert_eq!(reply.outcome, Outcome::InvalidInput);
/// assert!(reply.body.contains(r#""field":"start""#));
/// ```
impl From<&InvalidInput> for Reply {
    fn from(e: &InvalidInput) -> Reply {
        Reply {
            outcome: Outcome::InvalidInput,
            body: invalid_input_body(e),
            matches: 0,
        }
    }
}

/// Runs a request that is already valid.
///
/// ```
/// use extract_between::request::{parse, run};
/// let req = parse(br#"{"text": "[a][b]", "start": "[", "end": "]", "max_matches": 1}"#).unwrap();
/// assert_eq!(run(&req).body, r#"{"matches":["a"],"truncated":true}"#);
/// ```
pub fn run(request: &Request) -> Reply {
    // `Extractor::new` applies the card's text limit; `max_matches` was validated by `parse`.
    let result = Extractor::new(&request.markers)
        .max_matches(request.max_matches)
        .and_then(|ex| ex.extract(&request.text));
    match result {
        Ok(out) => {
            let mut body = String::with_capacity(request.text.len() / 2 + 32);
            body.push_str("{\"matches\":[");
            for (i, m) in out.matches.iter().enumerate() {
                if i > 0 {
                    body.push(',');
                }
                push_json_string(&mut body, m);
            }
            body.push_str("],\"truncated\":");
            body.push_str(if out.truncated { "true" } else { "false" });
            body.push('}');
            Reply {
                outcome: Outcome::Output,
                body,
                matches: out.matches.len(),
            }
        }
        Err(ExtractError::Unclosed { marker, .. }) => Reply {
            outcome: Outcome::Unclosed,
            body: format!(
                "{{\"error\":{{\"code\":\"unclosed_start_marker\",\"message\":\"unclosed start marker\",\"offset\":{},\"byte_offset\":{}}}}}",
                marker.utf16, marker.byte
            ),
            matches: 0,
        },
        // A parsed request never breaks a limit; answer as invalid input all the same.
        Err(e) => Reply {
            outcome: Outcome::InvalidInput,
            body: error_body("invalid_input", &e.to_string(), None),
            matches: 0,
        },
    }
}

fn invalid_input_body(e: &InvalidInput) -> String {
    error_body("invalid_input", &e.message, e.field.as_deref())
}
