//! One-shot: a tag set's matches in a `&str`, as slices of it.

use super::TagSet;
use crate::scanner::Pos;
use crate::utf8::utf16_len;
use core::fmt;

/// A match of a tag set: its pair, its text (a slice of the input) and where the text begins.
///
/// ```
/// use extract_between::tags::TagSet;
/// let tags = TagSet::new([("<b>", "</b>"), ("<i>", "</i>")]).unwrap();
/// let found = tags.find_all("<i>x</i> <b>y</b>").unwrap();
/// assert_eq!((found[1].tag, found[1].text, found[1].start), (0, "y", 12));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagMatch<'t> {
    /// The pair's index in the set.
    pub tag: usize,
    /// The text between the pair's markers.
    pub text: &'t str,
    /// Where the text begins in the input, in bytes.
    pub start: usize,
}

/// A start marker with no end marker after it, and every match before it.
///
/// ```
/// use extract_between::tags::TagSet;
/// let tags = TagSet::new([("[", "]"), ("é(", ")")]).unwrap();
/// let err = tags.find_all("[a] é(b").unwrap_err();
/// assert_eq!((err.tag, err.marker.byte, err.marker.utf16), (1, 4, 4));
/// assert_eq!(err.matches[0].text, "a");
/// assert_eq!(err.to_string(), "unclosed start marker of pair 1 at byte offset 4 (UTF-16 offset 4)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagUnclosed<'t> {
    /// The pair left open.
    pub tag: usize,
    /// Where its start marker begins.
    pub marker: Pos,
    /// The matches before it.
    pub matches: Vec<TagMatch<'t>>,
}

impl fmt::Display for TagUnclosed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unclosed start marker of pair {} at byte offset {} (UTF-16 offset {})",
            self.tag, self.marker.byte, self.marker.utf16
        )
    }
}

impl std::error::Error for TagUnclosed<'_> {}

impl TagSet {
    /// Every match in `text`, left to right.
    ///
    /// # Errors
    ///
    /// [`TagUnclosed`] for a start marker with no end after it, with the matches before it.
    ///
    /// ```
    /// use extract_between::tags::TagSet;
    /// let tags = TagSet::new([("<think>", "</think>"), ("<tool_call>", "</tool_call>")]).unwrap();
    /// let reply = "<think>sum</think>It is 4.<tool_call>{}</tool_call>";
    /// let found: Vec<_> = tags.find_all(reply).unwrap().iter().map(|m| (m.tag, m.text)).collect();
    /// assert_eq!(found, [(0, "sum"), (1, "{}")]);
    /// ```
    pub fn find_all<'t>(&self, text: &'t str) -> Result<Vec<TagMatch<'t>>, TagUnclosed<'t>> {
        let (starts, ends) = (&self.inner.starts, &self.inner.ends);
        let bytes = text.as_bytes();
        let mut matches = Vec::new();
        let mut i = 0;
        while let Some((tag, s, e)) = starts.find(&bytes[i..]) {
            let content = i + e;
            match ends.find(tag, &bytes[content..]) {
                (Some(at), len) => {
                    matches.push(TagMatch {
                        tag,
                        text: &text[content..content + at],
                        start: content,
                    });
                    i = content + at + len;
                }
                (None, _) => {
                    let byte = i + s;
                    return Err(TagUnclosed {
                        tag,
                        marker: Pos {
                            byte: byte as u64,
                            utf16: utf16_len(&bytes[..byte]),
                        },
                        matches,
                    });
                }
            }
        }
        Ok(matches)
    }
}
