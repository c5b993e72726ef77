//! The core against a plain baseline, in the same run: a two-`memmem::Finder` loop collecting
//! slices (written here), one-shot `extract`, and the scanner fed 8 KiB and 64 KiB chunks.
//!
//! `cargo bench --bench core` prints the ratio tables at the end, then a paired measurement
//! (alternating `extract` and scanner passes, median of the per-round ratios), which this
//! noisy machine's drift disturbs less. The `validate_8k` column is
//! UTF-8 validation alone, which a scanner of untrusted bytes adds to what `extract` does on
//! an already valid `&str`; the last table is the time of both one after the other.

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/spans.rs"]
mod spans;

use criterion::Throughput;
use extract_between::{Extractor, Markers, Scanner};
use memchr::memmem;
use std::hint::black_box;

/// The bar: two finders in a loop, collecting borrowed slices.
fn baseline<'t>(
    text: &'t str,
    start: &memmem::Finder<'_>,
    end: &memmem::Finder<'_>,
) -> Vec<&'t str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(s) = start.find(&b[pos..]) {
        let cs = pos + s + start.needle().len();
        let Some(e) = end.find(&b[cs..]) else { break };
        out.push(&text[cs..cs + e]);
        pos = cs + e + end.needle().len();
    }
    out
}

fn scan_chunks(markers: &Markers, text: &[u8], chunk: usize, utf16: bool) -> usize {
    spans::collect(Scanner::new(markers), text, chunk, utf16)
}

/// UTF-8 validation alone, chunk by chunk: what a scanner of untrusted bytes must do beyond
/// `extract`'s work on an already valid `&str`.
fn validate_chunks(text: &[u8], chunk: usize) -> usize {
    text.chunks(chunk)
        .map(|c| extract_between::utf8::check(c).complete)
        .sum()
}

fn main() {
    let mut c = corpus::criterion();
    let corpora = corpus::all();
    for (name, (text, start, end)) in &corpora {
        let markers = Markers::new(*start, *end).unwrap();
        let ex = Extractor::new(&markers).unlimited();
        let (fs, fe) = (memmem::Finder::new(start), memmem::Finder::new(end));
        let expected = baseline(text, &fs, &fe).len();
        assert_eq!(ex.extract(text).unwrap().matches.len(), expected);
        assert_eq!(scan_chunks(&markers, text.as_bytes(), 8192, true), expected);
        let mut g = c.benchmark_group(*name);
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function("baseline", |b| {
            b.iter(|| baseline(black_box(text), &fs, &fe).len())
        });
        g.bench_function("extract", |b| {
            b.iter(|| ex.extract(black_box(text)).map(|o| o.matches.len()))
        });
        g.bench_function("scanner_8k", |b| {
            b.iter(|| scan_chunks(&markers, black_box(text.as_bytes()), 8 << 10, true))
        });
        g.bench_function("scanner_8k_bytes", |b| {
            b.iter(|| scan_chunks(&markers, black_box(text.as_bytes()), 8 << 10, false))
        });
        // Not a contender: the UTF-8 validation alone, which any scanner of untrusted bytes
        // must add to what `extract` (on an already valid `&str`) does.
        g.bench_function("validate_8k", |b| {
            b.iter(|| validate_chunks(black_box(text.as_bytes()), 8 << 10))
        });
        g.bench_function("scanner_64k", |b| {
            b.iter(|| scan_chunks(&markers, black_box(text.as_bytes()), 64 << 10, true))
        });
        g.finish();
    }
    c.final_summary();
    paired(&corpora);
    let sizes: Vec<(&str, usize)> = corpora.iter().map(|(n, (t, _, _))| (*n, t.len())).collect();
    let bytes = |g: &str| sizes.iter().find(|(n, _)| *n == g).map_or(1, |(_, s)| *s);
    let groups = ["dense", "sparse", "unicode", "none"];
    corpus::report(
        "core",
        &groups,
        &["baseline", "extract", "scanner_8k", "scanner_64k"],
        "baseline",
        &bytes,
    );
    corpus::report(
        "core",
        &groups,
        &[
            "scanner_8k",
            "scanner_64k",
            "scanner_8k_bytes",
            "validate_8k",
        ],
        "extract",
        &bytes,
    );
    // A model, not a measurement: where validation is compute-bound (CJK text) it bounds a
    // scanner that validates and then searches; where both passes are memory-bound, running
    // the second from cache beats it.
    println!("\ncore: extract + validate_8k one after the other, as a ratio to extract");
    for g in groups {
        if let (Some(x), Some(v)) = (
            corpus::median_ns(g, "extract"),
            corpus::median_ns(g, "validate_8k"),
        ) {
            println!("{g:<10} {:>5.2}x", x / (x + v));
        }
    }
}

/// Alternates one baseline pass, one `extract` pass, one scanner pass (8 KiB chunks, UTF-16
/// offsets on) and one pass of validation alone per round (see [`corpus::paired`]). The last
/// ratio is the share of `extract`'s time that validation alone would add to it: the room
/// the scanner's search and events have left under a target ratio.
fn paired(corpora: &[(&str, (String, &str, &str))]) {
    let prepared: Vec<_> = corpora
        .iter()
        .map(|(name, (text, start, end))| {
            let markers = Markers::new(*start, *end).unwrap();
            let ex = Extractor::new(&markers).unlimited();
            let finders = (memmem::Finder::new(start), memmem::Finder::new(end));
            (*name, text, markers, ex, finders)
        })
        .collect();
    let rows = prepared
        .iter()
        .map(|(name, text, markers, ex, (fs, fe))| {
            let passes: Vec<corpus::Pass<'_>> = vec![
                Box::new(move || baseline(black_box(text), fs, fe).len()),
                Box::new(move || ex.extract(black_box(text)).map_or(0, |o| o.matches.len())),
                Box::new(move || scan_chunks(markers, black_box(text.as_bytes()), 8 << 10, true)),
                Box::new(move || validate_chunks(black_box(text.as_bytes()), 8 << 10)),
            ];
            (*name, passes)
        })
        .collect();
    corpus::paired(
        "core",
        &[
            (0, 1, "baseline time / extract time"),
            (1, 2, "extract time / scanner_8k time"),
            (3, 1, "validate_8k time / extract time"),
        ],
        rows,
    );
}
