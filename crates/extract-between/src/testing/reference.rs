//! The naive reference: the card's semantics written to be obviously right, not fast.
//!
//! Text and markers are transcoded to UTF-16 and compared code unit by code unit, exactly
//! as the card states. Tests, quickcheck properties and the fuzz targets check the fast byte
//! search against it. Not part of the supported API.

/// The reference's answer: matches as UTF-16 code units and `truncated`, or the UTF-16 offset
/// of an unclosed start marker.
pub type Outcome = Result<(Vec<Vec<u16>>, bool), usize>;

/// JavaScript's `indexOf(needle, from)` over code units, as a plain loop.
fn index_of(hay: &[u16], needle: &[u16], from: usize) -> Option<usize> {
    let mut i = from;
    while i + needle.len() <= hay.len() {
        if hay[i..i + needle.len()] == *needle {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Runs the card's loop on UTF-16 code units.
///
/// ```
/// use extract_between::testing::reference::extract;
/// let (m, truncated) = extract("pre[one]mid[two]post", "[", "]", 100).unwrap();
/// assert_eq!(m, vec!["one".encode_utf16().collect::<Vec<_>>(), "two".encode_utf16().collect()]);
/// assert!(!truncated);
/// assert_eq!(extract("ab[c", "[", "]", 100), Err(2));
/// ```
pub fn extract(text: &str, start: &str, end: &str, max_matches: usize) -> Outcome {
    let text: Vec<u16> = text.encode_utf16().collect();
    let start: Vec<u16> = start.encode_utf16().collect();
    let end: Vec<u16> = end.encode_utf16().collect();
    let mut matches = Vec::new();
    let mut pos = 0;
    loop {
        let Some(s) = index_of(&text, &start, pos) else {
            return Ok((matches, false));
        };
        let cs = s + start.len();
        let Some(e) = index_of(&text, &end, cs) else {
            return Err(s);
        };
        if matches.len() == max_matches {
            return Ok((matches, true));
        }
        matches.push(text[cs..e].to_vec());
        pos = e + end.len();
    }
}
