//! What each fast path buys, in one binary: the scanner with the general path alone
//! (validation, then `memmem`, counting UTF-16 units), with the ASCII walk, with the UTF-8
//! walk, with both (what `Scanner::new` takes), and the ASCII walk with SSE2's kernels.
//! 8 KiB chunks, UTF-16 offsets on, paired rounds.
//!
//! `cargo bench --bench paths`. A piece stays only where it wins at least 1.15x on some
//! corpus; `docs/ARCHITECTURE.md` quotes these figures.

#[path = "support/corpus.rs"]
mod corpus;

use core::ops::ControlFlow;
use extract_between::testing::{Isa, Paths, scanner};
use extract_between::{Markers, Pos, Sink};
use std::hint::black_box;

/// Counts matches and sums their content offsets: a sink that costs next to nothing.
struct Count(usize, u64);

impl Sink for Count {
    fn open(&mut self, _: Pos, content: Pos) -> ControlFlow<()> {
        self.1 = self.1.wrapping_add(content.utf16);
        ControlFlow::Continue(())
    }
    fn content(&mut self, _: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    fn close(&mut self, end: Pos, _: Pos) -> ControlFlow<()> {
        self.0 += 1;
        self.1 = self.1.wrapping_add(end.utf16);
        ControlFlow::Continue(())
    }
}

fn scan(markers: &Markers, text: &[u8], paths: Paths) -> usize {
    let mut s = scanner(markers, paths);
    let mut sink = Count(0, 0);
    for chunk in text.chunks(8 << 10) {
        let _ = s.feed(chunk, &mut sink);
    }
    let _ = s.finish(&mut sink);
    sink.0 + (sink.1 & 1) as usize
}

fn main() {
    let best = Paths::detect();
    let general = Paths::general();
    let ascii = Paths {
        utf8: false,
        ..best
    };
    let utf8 = Paths {
        ascii: false,
        ..best
    };
    let sse2 = Isa::available().into_iter().find(|i| i.name() == "sse2");
    let ascii_sse2 = Paths {
        isa: sse2.unwrap_or(best.isa),
        utf8: false,
        ..best
    };
    println!("kernels {} on this CPU", best.isa.name());
    let corpora = corpus::all();
    let rows = corpora
        .iter()
        .map(|(name, (text, start, end))| {
            let markers = Markers::new(*start, *end).unwrap();
            let count = scan(&markers, text.as_bytes(), general);
            for paths in [ascii, utf8, best, ascii_sse2] {
                assert_eq!(scan(&markers, text.as_bytes(), paths), count, "{name}");
            }
            let passes: Vec<corpus::Pass<'_>> = [general, ascii, utf8, best, ascii_sse2]
                .into_iter()
                .map(|paths| {
                    let markers = markers.clone();
                    Box::new(move || scan(&markers, black_box(text.as_bytes()), paths))
                        as corpus::Pass<'_>
                })
                .collect();
            (*name, passes)
        })
        .collect();
    corpus::paired(
        "paths",
        &[
            (0, 1, "general path alone / with the ASCII walk (time)"),
            (0, 4, "general path alone / with the ASCII walk on SSE2"),
            (0, 2, "general path alone / with the UTF-8 walk"),
            (0, 3, "general path alone / with both walks (the default)"),
        ],
        rows,
    );
}
