//! UTF-8 facts the scanner relies on: UTF-16 lengths counted from UTF-8 bytes, validation of
//! chunks that may cut a character, and the length of a character from its lead byte.
//!
//! A UTF-16 offset is what a JavaScript client slices with, and the card's semantics are
//! stated in UTF-16 code units. Valid UTF-8 gives one code unit per character, two for a
//! character outside the Basic Multilingual Plane, which is exactly the characters encoded in
//! four bytes. So the count is: one per byte that is not a continuation byte (`10xxxxxx`),
//! plus one per four-byte lead (`11110xxx`). The count is additive over any split of the
//! bytes, even a split inside a character, which lets the scanner count chunk by chunk.

/// Number of UTF-16 code units of the UTF-8 bytes `bytes`, counted per byte as above.
///
/// The sum is over bytes, so it is meaningful for any slice of valid UTF-8, even one that cuts
/// a character: the counts of the pieces add up to the count of the whole.
///
/// ```
/// use extract_between::utf8::utf16_len;
/// assert_eq!(utf16_len("a€😀".as_bytes()), "a€😀".encode_utf16().count() as u64);
/// // Additive across a split inside the emoji.
/// let b = "😀".as_bytes();
/// assert_eq!(utf16_len(&b[..1]) + utf16_len(&b[1..]), 2);
/// ```
pub fn utf16_len(bytes: &[u8]) -> u64 {
    utf16_len_from(bytes, 0)
}

/// Number of UTF-16 code units of `data[from..]`, counted as [`utf16_len`] does. The bytes
/// before `from` are not counted; they may be read, which lets a short tail be counted as one
/// masked 32-byte window instead of byte by byte (the scanner counts many short spans between
/// events, and the tails were most of its counting time).
///
/// ```
/// use extract_between::utf8::utf16_len_from;
/// let text = "ab😀c".as_bytes();
/// assert_eq!(utf16_len_from(text, 2), "😀c".encode_utf16().count() as u64);
/// assert_eq!(utf16_len_from(text, text.len()), 0);
/// ```
///
/// # Panics
///
/// When `from > data.len()`, like slicing.
pub fn utf16_len_from(data: &[u8], from: usize) -> u64 {
    // Units = bytes − continuation bytes + four-byte leads. Each byte contributes −1, 0 or +1
    // to that correction; 32 independent i8 lanes, flushed before they can overflow, let the
    // compiler vectorise the loop.
    let body = &data[from..];
    let mut chunks = body.chunks_exact(32);
    let mut correction = lanes_correction(&mut chunks);
    let tail = chunks.remainder();
    if let Some(window) = data.last_chunk::<32>() {
        // The last 32 bytes of `data` end with the tail: count only the tail's lanes.
        correction += masked_correction(window, 32 - tail.len());
    } else {
        for &b in tail {
            correction += i64::from(byte_correction(b));
        }
    }
    // Never negative for a span that starts on a character boundary.
    (body.len() as i64 + correction).max(0) as u64
}

/// The correction of `window[skip..]`, computed over all 32 lanes with the first `skip`
/// masked out, so it vectorises. At most 32 in magnitude: an i8 holds it.
fn masked_correction(window: &[u8; 32], skip: usize) -> i64 {
    const LANE: [u8; 32] = {
        let mut lane = [0u8; 32];
        let mut i = 0;
        while i < 32 {
            lane[i] = i as u8;
            i += 1;
        }
        lane
    };
    let skip = skip as u8;
    let mut acc = [0i8; 32];
    for ((a, &b), &lane) in acc.iter_mut().zip(window).zip(&LANE) {
        // All ones for lanes at or after `skip`, so the AND keeps their correction.
        let keep = i8::from(lane >= skip).wrapping_neg();
        *a = byte_correction(b) & keep;
    }
    i64::from(acc.iter().fold(0i8, |s, &a| s.wrapping_add(a)))
}

fn lanes_correction(chunks: &mut core::slice::ChunksExact<'_, u8>) -> i64 {
    if chunks.len() == 0 {
        return 0;
    }
    let mut acc = [0i8; 32];
    let mut rounds = 0;
    let mut total = 0i64;
    for chunk in chunks {
        for (a, &b) in acc.iter_mut().zip(chunk) {
            *a += byte_correction(b);
        }
        rounds += 1;
        if rounds == 127 {
            total += reduce_lanes(&acc);
            acc = [0; 32];
            rounds = 0;
        }
    }
    total + reduce_lanes(&acc)
}

fn reduce_lanes(acc: &[i8; 32]) -> i64 {
    // At most 127 per lane in magnitude: an i16 sum of 32 lanes cannot overflow.
    i64::from(acc.iter().map(|&a| i16::from(a)).sum::<i16>())
}

#[inline(always)]
fn byte_correction(b: u8) -> i8 {
    // +1 for a four-byte lead (11110xxx), −1 for a continuation byte (10xxxxxx).
    i8::from(b >= 0xF0) - i8::from((b as i8) < -0x40)
}

/// Whether `bytes` is all ASCII. Unlike `<[u8]>::is_ascii`, which stops at the first
/// non-ASCII byte, this ORs whole blocks together, which the compiler vectorises; for the
/// chunk sizes the scanner sees, that is several times faster on ASCII text.
///
/// ```
/// assert!(extract_between::utf8::all_ascii(b"plain"));
/// assert!(!extract_between::utf8::all_ascii("é".as_bytes()));
/// ```
pub fn all_ascii(bytes: &[u8]) -> bool {
    // Text that is not ASCII usually shows it at once: don't OR a whole block to learn that.
    if !bytes[..bytes.len().min(16)].is_ascii() {
        return false;
    }
    bytes
        .chunks(4096)
        .all(|block| block.iter().fold(0u8, |acc, &b| acc | b) < 0x80)
}

/// The result of [`check`]: how much of a chunk is whole, valid characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Length of the prefix made of whole, valid characters.
    pub complete: usize,
    /// Whether the bytes after `complete` are invalid (rather than the start of a character
    /// cut by the end of the chunk, at most 3 bytes).
    pub invalid: bool,
}

/// Validates a chunk of UTF-8 that may end inside a character.
///
/// Fast path: validation (SIMD, with the `simdutf8` feature) of everything up to the last
/// character boundary; the precise error position is only computed (with `std`) when the
/// chunk is invalid.
///
/// ```
/// use extract_between::utf8::{check, Checked};
/// let b = "a€".as_bytes();
/// assert_eq!(check(b), Checked { complete: 4, invalid: false });
/// assert_eq!(check(&b[..3]), Checked { complete: 1, invalid: false }); // "€" cut
/// assert_eq!(check(b"ab\xffc"), Checked { complete: 2, invalid: true });
/// ```
pub fn check(bytes: &[u8]) -> Checked {
    let cut = cut_at(bytes);
    if valid(&bytes[..cut]) {
        return match std::str::from_utf8(&bytes[cut..]) {
            Ok(_) => Checked {
                complete: bytes.len(),
                invalid: false,
            },
            Err(e) => Checked {
                complete: cut + e.valid_up_to(),
                invalid: e.error_len().is_some(),
            },
        };
    }
    match std::str::from_utf8(bytes) {
        Ok(_) => Checked {
            complete: bytes.len(),
            invalid: false,
        },
        Err(e) => Checked {
            complete: e.valid_up_to(),
            invalid: e.error_len().is_some(),
        },
    }
}

/// Where a character cut by the end of `bytes` would begin (its length when none is).
fn cut_at(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let b = bytes[bytes.len() - back];
        if (b as i8) >= -0x40 {
            // A lead or ASCII byte: cut before it if its sequence runs past the end.
            if sequence_len(b).is_some_and(|n| n > back) {
                return bytes.len() - back;
            }
            break;
        }
    }
    bytes.len()
}

/// The longest prefix of `bytes` made of whole, valid characters, as text, and whether the
/// bytes after it are invalid (rather than a character cut by the end, at most 3 bytes).
/// One validation pass when the chunk is valid, as [`check`]'s.
///
/// ```
/// use extract_between::utf8::valid_prefix;
/// assert_eq!(valid_prefix("a€".as_bytes()), ("a€", false));
/// assert_eq!(valid_prefix(&"a€".as_bytes()[..3]), ("a", false)); // "€" cut
/// assert_eq!(valid_prefix(b"ab\xffc"), ("ab", true));
/// ```
#[cfg(any(feature = "tags", feature = "testing"))]
pub fn valid_prefix(bytes: &[u8]) -> (&str, bool) {
    let cut = cut_at(bytes);
    if let Ok(text) = to_str(&bytes[..cut]) {
        return match std::str::from_utf8(&bytes[cut..]) {
            Ok(_) => (text, false),
            Err(e) => (text, e.error_len().is_some()),
        };
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(e) => {
            let (valid, _) = bytes.split_at(e.valid_up_to());
            (
                std::str::from_utf8(valid).unwrap_or_default(),
                e.error_len().is_some(),
            )
        }
    }
}

#[cfg(all(feature = "simdutf8", any(feature = "tags", feature = "testing")))]
fn to_str(bytes: &[u8]) -> Result<&str, ()> {
    simdutf8::basic::from_utf8(bytes).map_err(|_| ())
}

#[cfg(all(not(feature = "simdutf8"), any(feature = "tags", feature = "testing")))]
fn to_str(bytes: &[u8]) -> Result<&str, ()> {
    std::str::from_utf8(bytes).map_err(|_| ())
}

/// Whether `bytes` is valid UTF-8. simdutf8 leaves inputs shorter than its 64-byte block to
/// `std`, which walks non-ASCII text a character at a time; the scanner's chunk tails are
/// that short, so they are validated as one zero-padded block (zeros after whole characters
/// are valid; after a character cut short they are not, as `std` would judge the cut).
#[cfg(feature = "simdutf8")]
fn valid(bytes: &[u8]) -> bool {
    if bytes.len() >= 64 {
        return simdutf8::basic::from_utf8(bytes).is_ok();
    }
    if all_ascii(bytes) {
        return true;
    }
    let mut block = [0u8; 64];
    block[..bytes.len()].copy_from_slice(bytes);
    simdutf8::basic::from_utf8(&block).is_ok()
}

/// Whether `bytes` is valid UTF-8 (without the `simdutf8` feature: `std`'s validation, which
/// skips ASCII a word at a time).
#[cfg(not(feature = "simdutf8"))]
fn valid(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok()
}

/// Total length in bytes of the UTF-8 sequence that begins with the lead byte `lead`, or
/// `None` when `lead` cannot begin a sequence.
///
/// ```
/// use extract_between::utf8::sequence_len;
/// assert_eq!(sequence_len(b'a'), Some(1));
/// assert_eq!(sequence_len(0xE2), Some(3));
/// assert_eq!(sequence_len(0x80), None);
/// ```
pub fn sequence_len(lead: u8) -> Option<usize> {
    match lead {
        0x00..=0x7F => Some(1),
        0xC2..=0xDF => Some(2),
        0xE0..=0xEF => Some(3),
        0xF0..=0xF4 => Some(4),
        _ => None,
    }
}
