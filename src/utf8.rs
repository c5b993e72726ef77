//! UTF-8 facts the scanner relies on: UTF-16 lengths counted from UTF-8 bytes, and the
//! length of an incomplete sequence's character.
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
    // Blocks of 64 bytes keep the per-lane accumulators (at most 2 per byte) inside a u8 and
    // let the compiler vectorise the inner loop; an ASCII block is the common fast case.
    let mut total = 0u64;
    let mut blocks = bytes.chunks_exact(64);
    for block in &mut blocks {
        if block.is_ascii() {
            total += 64;
            continue;
        }
        total += u64::from(count_block(block));
    }
    total + u64::from(count_block(blocks.remainder()))
}

fn count_block(block: &[u8]) -> u32 {
    let mut n = 0u32;
    for &b in block {
        // Not a continuation byte: starts a character (one unit). A four-byte lead: one more.
        n += u32::from((b as i8) >= -0x40) + u32::from(b >= 0xF0);
    }
    n
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
