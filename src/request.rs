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
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

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
    /// What is wrong, in a sentence that names the field.
    pub message: String,
}

impl fmt::Display for InvalidInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InvalidInput {}

fn invalid(field: &str, message: String) -> InvalidInput {
    InvalidInput {
        field: Some(field.to_owned()),
        message,
    }
}

fn no_field(message: String) -> InvalidInput {
    InvalidInput {
        field: None,
        message,
    }
}

/// The top-level object's members, in order, each value still raw JSON.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    members.push(entry);
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(V)
    }
}

/// The JSON type of a raw value, named as an error message would.
fn json_type(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'"') => "a string",
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
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
    error_body(
        "payload_too_large",
        &format!(
            "request body is larger than {MAX_REQUEST_BYTES} bytes; no valid request is (text is at most {MAX_TEXT_BYTES} UTF-8 bytes)"
        ),
        None,
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
            json_type(raw)
        )));
    }
    let Members(members) = serde_json::from_str(raw.get())
        .map_err(|e| no_field(format!("request body is not valid JSON: {e}")))?;

    let mut values: [Option<&RawValue>; 4] = [None; 4];
    for (name, value) in &members {
        let Some(slot) = FIELDS.iter().position(|f| f == name) else {
            return Err(invalid(
                name,
                format!(
                    "unknown field {}: allowed fields are text, start, end and max_matches",
                    serde_json::Value::from(name.as_str())
                ),
            ));
        };
        if values[slot].replace(value).is_some() {
            return Err(invalid(
                name,
                format!("field {name} appears more than once"),
            ));
        }
    }
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
            format!(
                "text must be at most {MAX_TEXT_BYTES} UTF-8 bytes long (it is {} bytes)",
                text.len()
            ),
        ));
    }
    let markers = Markers::new(start, end)
        .map_err(|e: MarkerError| invalid(e.which().field(), e.to_string()))?;
    Ok(Request {
        text,
        markers,
        max_matches,
    })
}

fn string_field(name: &str, raw: Option<&RawValue>) -> Result<String, InvalidInput> {
    let raw = raw.ok_or_else(|| invalid(name, format!("{name} is required")))?;
    if !raw.get().starts_with('"') {
        return Err(invalid(
            name,
            format!("{name} must be a string, not {}", json_type(raw)),
        ));
    }
    serde_json::from_str(raw.get()).map_err(|e| {
        invalid(
            name,
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
    if json_type(raw) != "a number" {
        return Err(invalid(name, format!("{range}, not {}", json_type(raw))));
    }
    // JSON's number grammar is a subset of Rust's float syntax; a huge exponent is infinite,
    // hence out of range. An integer-valued number such as 5.0 or 1e2 is an integer.
    let value: f64 = raw
        .get()
        .parse()
        .map_err(|_| invalid(name, range.clone()))?;
    if value.fract() != 0.0 || !(min as f64..=max as f64).contains(&value) {
        return Err(invalid(name, format!("{range} (it is {})", raw.get())));
    }
    Ok(value as usize)
}

/// The kind of answer [`execute`] gave, which each front end maps to its own status.
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

impl Outcome {
    /// The CLI tool mode's exit code: 0 output, 1 unclosed start marker, 2 invalid input.
    ///
    /// ```
    /// assert_eq!(extract_between::request::Outcome::Unclosed.exit_code(), 1);
    /// ```
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Output => 0,
            Outcome::Unclosed => 1,
            Outcome::InvalidInput => 2,
        }
    }

    /// The HTTP status: 200 output, 422 unclosed start marker, 400 invalid input.
    ///
    /// ```
    /// assert_eq!(extract_between::request::Outcome::InvalidInput.http_status(), 400);
    /// ```
    pub fn http_status(self) -> u16 {
        match self {
            Outcome::Output => 200,
            Outcome::Unclosed => 422,
            Outcome::InvalidInput => 400,
        }
    }
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
        Err(e) => Reply {
            outcome: Outcome::InvalidInput,
            body: invalid_input_body(&e),
        },
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
            }
        }
        Err(ExtractError::Unclosed { marker, .. }) => Reply {
            outcome: Outcome::Unclosed,
            body: format!(
                "{{\"error\":{{\"code\":\"unclosed_start_marker\",\"message\":\"unclosed start marker\",\"offset\":{},\"byte_offset\":{}}}}}",
                marker.utf16, marker.byte
            ),
        },
        // A parsed request never breaks a limit; answer as invalid input all the same.
        Err(e) => Reply {
            outcome: Outcome::InvalidInput,
            body: error_body("invalid_input", &e.to_string(), None),
        },
    }
}

/// Appends `s` as a JSON string literal, escaped exactly as `serde_json` does (`\"`, `\\`,
/// the short escapes `\b \f \n \r \t`, `\u00XX` for other control characters, everything else
/// as is), without allocating.
///
/// ```
/// let mut out = String::new();
/// extract_between::request::push_json_string(&mut out, "a\"b\n\u{1}é");
/// assert_eq!(out, r#""a\"b\n\u0001é""#);
/// ```
pub fn push_json_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    escape_json(s.as_bytes(), |piece| match piece {
        // Escapable bytes are ASCII, so plain runs lie on character boundaries.
        Piece::Plain(run) => out.push_str(s.get(run).unwrap_or_default()),
        Piece::Escape(e) => out.push_str(core::str::from_utf8(e).unwrap_or_default()),
    });
    out.push('"');
}

/// [`push_json_string`] for text held as bytes that are known to be UTF-8 (a match's
/// content, which the scanner validated), into a byte buffer: the per-match path of
/// `--json-lines` and the stream endpoint, which then need not check the UTF-8 again. Bytes
/// that are not UTF-8 are copied as they are, so the output is only as valid as the input.
///
/// ```
/// let mut out = Vec::new();
/// extract_between::request::push_json_bytes(&mut out, "a\"b\n\u{1}é".as_bytes());
/// assert_eq!(String::from_utf8(out).unwrap(), r#""a\"b\n\u0001é""#);
/// ```
pub fn push_json_bytes(out: &mut Vec<u8>, s: &[u8]) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    push_json_escaped(out, s);
    out.push(b'"');
}

/// The body of [`push_json_bytes`] without its quotes. Escapes are per byte, so a text
/// escaped in pieces cut anywhere is the text escaped at once.
pub(crate) fn push_json_escaped(out: &mut Vec<u8>, s: &[u8]) {
    escape_json(s, |piece| match piece {
        Piece::Plain(run) => out.extend_from_slice(s.get(run).unwrap_or_default()),
        Piece::Escape(e) => out.extend_from_slice(e),
    });
}

/// A part of a JSON string literal's body: a run of input bytes that stand as they are, or
/// the escape of one byte.
enum Piece<'e> {
    Plain(core::ops::Range<usize>),
    Escape(&'e [u8]),
}

/// Splits `bytes` into the pieces of its JSON string literal (without the quotes), in order.
#[inline]
fn escape_json(bytes: &[u8], mut emit: impl FnMut(Piece<'_>)) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0C => b"\\f",
            0x00..=0x1F => b"",
            _ => continue,
        };
        if i > start {
            emit(Piece::Plain(start..i));
        }
        if short.is_empty() {
            let hex = |n: u8| HEX[usize::from(n & 0xF)];
            emit(Piece::Escape(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                hex(b >> 4),
                hex(b),
            ]));
        } else {
            emit(Piece::Escape(short));
        }
        start = i + 1;
    }
    if bytes.len() > start {
        emit(Piece::Plain(start..bytes.len()));
    }
}

/// Appends the decimal form of `n` (the per-match offsets of JSON output) without going
/// through `fmt`.
///
/// ```
/// let mut out = String::new();
/// extract_between::request::push_u64(&mut out, 1234567890);
/// assert_eq!(out, "1234567890");
/// ```
pub fn push_u64(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let at = decimal(n, &mut digits);
    // ASCII digits: the check cannot fail.
    out.push_str(core::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// Two decimal digits per entry: `00` to `99`.
const PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// The decimal digits of `n`, which is below 10^16, in a register: the first digit in the
/// lowest byte, as `to_le_bytes` lays them out; and how many there are. Built in a register
/// and stored once, the digits are not read back from the two-byte stores a buffer needs,
/// which stalled the copy of each number (store forwarding) in `--json-lines`.
fn decimal_small(mut n: u64) -> (u128, usize) {
    let pair = |p: u64| {
        let at = 2 * p as usize;
        u128::from(u16::from_le_bytes([PAIRS[at], PAIRS[at + 1]]))
    };
    let (mut digits, mut count) = (0u128, 0);
    while n >= 100 {
        digits = digits << 16 | pair(n % 100);
        n /= 100;
        count += 2;
    }
    if n >= 10 {
        (digits << 16 | pair(n), count + 2)
    } else {
        (digits << 8 | u128::from(b'0' + n as u8), count + 1)
    }
}

/// Writes the decimal digits of `n` at the end of `digits`; returns where they begin.
fn decimal(mut n: u64, digits: &mut [u8; 20]) -> usize {
    // Two digits per division, from a table: a match line has four numbers, and a digit
    // at a time (a division and a `push` each) was a third of `--json-lines`' time.
    let mut at = digits.len();
    while n >= 100 {
        let pair = 2 * (n % 100) as usize;
        n /= 100;
        at -= 2;
        digits[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        let pair = 2 * n as usize;
        at -= 2;
        digits[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        at -= 1;
        digits[at] = b'0' + n as u8;
    }
    at
}

/// Appends `,"byte_start":…,"byte_end":…,"utf16_start":…,"utf16_end":…`: the offsets of a
/// match line, shared by the CLI's `--json-lines` and the HTTP stream endpoint.
///
/// ```
/// use extract_between::Pos;
/// let mut out = Vec::new();
/// extract_between::request::push_offsets(&mut out, Pos { byte: 7, utf16: 3 }, Pos { byte: 9, utf16: 4 });
/// assert_eq!(out, br#","byte_start":7,"byte_end":9,"utf16_start":3,"utf16_end":4"#);
/// ```
pub fn push_offsets(out: &mut Vec<u8>, start: crate::Pos, end: crate::Pos) {
    // Keys and numbers gathered on the stack, then one append per line. Every copy into the
    // stack line has a fixed size (a key padded to 16 bytes, 20 digit bytes) and the line
    // moves on by the real length: variable-sized copies each became a call to `memmove`,
    // eight per line.
    const KEYS: [&str; 4] = [
        ",\"byte_start\":",
        ",\"byte_end\":",
        ",\"utf16_start\":",
        ",\"utf16_end\":",
    ];
    const PADDED: [[u8; 16]; 4] = {
        let mut padded = [[0u8; 16]; 4];
        let mut k = 0;
        while k < 4 {
            let key = KEYS[k].as_bytes();
            let mut i = 0;
            while i < key.len() {
                padded[k][i] = key[i];
                i += 1;
            }
            k += 1;
        }
        padded
    };
    // Room for the keys and four numbers of up to 20 digits (u64::MAX has 20), plus the
    // slack the last fixed-size copy may write past them.
    const ROOM: usize = {
        let (mut room, mut k) = (4 * 20 + 20, 0);
        while k < KEYS.len() {
            room += KEYS[k].len();
            k += 1;
        }
        room
    };
    let mut line = [0u8; ROOM];
    let mut len = 0;
    for (k, n) in [start.byte, end.byte, start.utf16, end.utf16]
        .into_iter()
        .enumerate()
    {
        line[len..len + 16].copy_from_slice(&PADDED[k]);
        len += KEYS[k].len();
        if n < 10_u64.pow(16) {
            let (digits, count) = decimal_small(n);
            line[len..len + 16].copy_from_slice(&digits.to_le_bytes());
            len += count;
        } else {
            // Offsets past 10 PB: the digits end at 20; the 20 bytes copied from where they
            // begin may take zeros after them, which what follows overwrites or leaves out.
            let mut digits = [0u8; 40];
            let at = digits
                .first_chunk_mut::<20>()
                .map_or(20, |head| decimal(n, head));
            line[len..len + 20].copy_from_slice(&digits[at..at + 20]);
            len += 20 - at;
        }
    }
    out.extend_from_slice(&line[..len]);
}

fn invalid_input_body(e: &InvalidInput) -> String {
    error_body("invalid_input", &e.message, e.field.as_deref())
}

/// The error envelope `{"error": {"code", "message"[, "field"]}}` as JSON text.
///
/// ```
/// let body = extract_between::request::error_body("payload_too_large", "too big", None);
/// assert_eq!(body, r#"{"error":{"code":"payload_too_large","message":"too big"}}"#);
/// ```
pub fn error_body(code: &str, message: &str, field: Option<&str>) -> String {
    let mut body = String::from("{\"error\":{\"code\":");
    push_json_string(&mut body, code);
    body.push_str(",\"message\":");
    push_json_string(&mut body, message);
    if let Some(field) = field {
        body.push_str(",\"field\":");
        push_json_string(&mut body, field);
    }
    body.push_str("}}");
    body
}
