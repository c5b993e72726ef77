//! The scanner's equivalent of collecting slices, shared by the benches that time it.

use core::ops::ControlFlow;
use extract_between::{Pos, Scanner, Sink};

/// Records each match's content span. The flag says whether it asks for UTF-16 offsets too
/// (`extract` computes none).
pub struct Spans(pub Vec<(u64, u64)>, pub u64, pub bool);

impl Sink for Spans {
    fn open(&mut self, _: Pos, content: Pos) -> ControlFlow<()> {
        self.1 = content.byte;
        ControlFlow::Continue(())
    }
    fn content(&mut self, _: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    fn close(&mut self, end: Pos, _: Pos) -> ControlFlow<()> {
        self.0.push((self.1, end.byte));
        ControlFlow::Continue(())
    }
    fn utf16_offsets(&self) -> bool {
        self.2
    }
}

/// Feeds `text` to `scanner` in chunks of `chunk` bytes and returns how many matches it
/// collected.
pub fn collect(mut scanner: Scanner, text: &[u8], chunk: usize, utf16: bool) -> usize {
    let mut spans = Spans(Vec::new(), 0, utf16);
    for piece in text.chunks(chunk) {
        let _ = scanner.feed(piece, &mut spans);
    }
    let _ = scanner.finish(&mut spans);
    spans.0.len()
}
