//! Line numbers (`-n`): the line a match's start marker is on, counted from the bytes the
//! scanner is fed, holding only the newlines near the chunk being scanned.

use extract_between::card::MAX_MARKER_BYTES;

/// The newlines of the chunk being scanned and of the bytes just before it (a start marker
/// may begin in the previous chunk, at most a marker's length back).
#[derive(Default)]
pub(super) struct Lines {
    /// Byte offsets of the newlines kept, ascending.
    newlines: Vec<u64>,
    /// Newlines before the first kept one.
    dropped: u64,
}

impl Lines {
    /// Takes the next chunk the scanner will be fed, which begins at byte `start`.
    pub(super) fn chunk(&mut self, start: u64, bytes: &[u8]) {
        let keep_from = start.saturating_sub(MAX_MARKER_BYTES as u64);
        let old = self.newlines.partition_point(|&at| at < keep_from);
        self.dropped += old as u64;
        self.newlines.drain(..old);
        self.newlines
            .extend(memchr::memchr_iter(b'\n', bytes).map(|i| start + i as u64));
    }

    /// The 1-based line of byte `at` (within the chunk or a marker's length before it).
    pub(super) fn line_of(&self, at: u64) -> u64 {
        1 + self.dropped + self.newlines.partition_point(|&nl| nl < at) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_across_chunks_and_just_before_one() {
        let text = b"a\nbb\n\nccc[x\ny]\n";
        for cut in 0..=text.len() {
            let mut lines = Lines::default();
            lines.chunk(0, &text[..cut]);
            let at_start = lines.line_of(0);
            lines.chunk(cut as u64, &text[cut..]);
            // `[` is on line 4 (after three newlines), whichever chunk it fell in.
            assert_eq!(lines.line_of(9), 4, "cut at {cut}");
            assert_eq!(lines.line_of(text.len() as u64), 6);
            assert_eq!(at_start, 1);
        }
    }
}
