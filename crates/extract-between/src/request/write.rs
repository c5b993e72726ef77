//! Writing JSON by hand on the per-match paths: string literals escaped as `serde_json`
//! escapes them, decimal numbers, a match's offsets, and the error envelope — without
//! allocating or going through `fmt`.

use crate::scanner::Pos;

/// Appends `s` as a JSON string literal, escaped exactly as `serde_json` does (`\"`, `\\`,
/// the short escapes `\b \f \n \r \t`, `\u00XX` for other control characters, everything else
/// as is), without allocating.
///
/// ```
/// let mut out = String::new();
/// extract_between::__private::push_json_string(&mut out, "a\"b\n\u{1}é");
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
/// extract_between::__private::push_json_bytes(&mut out, "a\"b\n\u{1}é".as_bytes());
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
///
/// ```
/// let mut out = Vec::new();
/// extract_between::__private::push_json_escaped(&mut out, b"a\"b");
/// extract_between::__private::push_json_escaped(&mut out, b"\n");
/// assert_eq!(out, br#"a\"b\n"#);
/// ```
pub fn push_json_escaped(out: &mut Vec<u8>, s: &[u8]) {
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
/// extract_between::__private::push_offsets(&mut out, Pos { byte: 7, utf16: 3 }, Pos { byte: 9, utf16: 4 });
/// assert_eq!(out, br#","byte_start":7,"byte_end":9,"utf16_start":3,"utf16_end":4"#);
/// ```
pub fn push_offsets(out: &mut Vec<u8>, start: Pos, end: Pos) {
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
