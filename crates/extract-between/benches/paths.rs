//! What each fast path buys, in one binary: the scanner with the general path alone
//! (validation, then `memmem`, counting UTF-16 units), with the ASCII walk, with the UTF-8
//! walk, with both (what `Scanner::new` takes), with the ASCII walk on SSE2's kernels, and
//! with the prefetch hints of the ASCII search for longer markers the other way from what
//! this CPU's vendor gets, and with both walks on AVX2 (the estimate of what arm64 gains from
//! NEON: the general path is what it ran before). 8 KiB chunks, UTF-16 offsets on, paired
//! rounds.
//!
//! `cargo bench --bench paths`. A piece stays only where it wins at least 1.15x on some
//! corpus; `docs/ARCHITECTURE.md` quotes these figures.

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/spans.rs"]
mod spans;

use extract_between::Markers;
use extract_between::testing::{Isa, Paths, scanner};
use std::hint::black_box;

fn scan(markers: &Markers, text: &[u8], paths: Paths) -> usize {
    spans::collect(scanner(markers, paths), text, 8 << 10, true)
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
    let flipped = Paths {
        hints: !best.hints,
        ..best
    };
    let sse2 = Isa::available().into_iter().find(|i| i.name() == "sse2");
    let ascii_sse2 = Paths {
        isa: sse2.unwrap_or(best.isa),
        utf8: false,
        ..best
    };
    // AVX2, 32-byte vectors, both walks: the nearest this machine has to NEON's 16-byte ones
    // against the general path, which is what every arm64 CPU ran before its NEON kernels.
    let avx2 = Paths {
        isa: Isa::available()
            .into_iter()
            .find(|i| i.name() == "avx2")
            .unwrap_or(best.isa),
        ..best
    };
    println!(
        "kernels {}, prefetch hints {} on this CPU",
        best.isa.name(),
        if best.hints { "on" } else { "off" }
    );
    let corpora = corpus::all();
    let rows = corpora
        .iter()
        .map(|(name, (text, start, end))| {
            let markers = Markers::new(*start, *end).unwrap();
            let count = scan(&markers, text.as_bytes(), general);
            for paths in [ascii, utf8, best, flipped, ascii_sse2, avx2] {
                assert_eq!(scan(&markers, text.as_bytes(), paths), count, "{name}");
            }
            let passes: Vec<corpus::Pass<'_>> =
                [general, ascii, utf8, best, flipped, ascii_sse2, avx2]
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
            (0, 5, "general path alone / with the ASCII walk on SSE2"),
            (0, 2, "general path alone / with the UTF-8 walk"),
            (0, 3, "general path alone / with both walks (the default)"),
            (4, 3, "hints the other way / as this CPU's vendor gets them"),
            (0, 6, "general path alone / with both walks on AVX2"),
        ],
        rows,
    );
}
