//! Tag sets against what they replace, in one process, rounds interleaved, medians:
//!
//! - one pair through a tag set (`TagSet::find_all`) beside `extract` of the same pair and a
//!   two-`memmem` loop, on a 64 MiB text where it matches densely;
//! - eight pairs in one pass over a 64 MiB text where every pair matches, beside one pair's
//!   pass over a text with as many matches of that pair alone, and beside eight single-pair
//!   passes (what a user without tags runs);
//! - the resumable scanner with outside text over the eight-pair text in 64 KiB chunks.
//!
//! `cargo bench --bench tags` (`ROUNDS=n` to change the 7 rounds). Figures with their run in
//! `benches/README.md` (its section `tags`).

use extract_between::tags::{TagScanner, TagSet, TagSink};
use extract_between::{Extractor, Markers, Pos};
use memchr::memmem;
use std::hint::black_box;
use std::ops::ControlFlow;
use std::time::Instant;

const SIZE: usize = 64 << 20;

fn pairs(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| (format!("<f{i}>"), format!("</f{i}>")))
        .collect()
}

/// Records of `n` fields, each field one pair's match, with text between, to `SIZE` bytes.
fn corpus(n: usize, fields: usize) -> String {
    let mut text = String::with_capacity(SIZE + 256);
    let mut k = 0usize;
    while text.len() < SIZE {
        for f in 0..fields {
            let tag = f % n;
            text.push_str(&format!("<f{tag}>value {k} of field {f}</f{tag}> | "));
            k += 1;
        }
        text.push('\n');
    }
    text
}

fn two_finders(text: &str, start: &str, end: &str) -> usize {
    let (s, e) = (memmem::Finder::new(start), memmem::Finder::new(end));
    let b = text.as_bytes();
    let (mut pos, mut n) = (0, 0);
    while let Some(i) = s.find(&b[pos..]) {
        let from = pos + i + start.len();
        let Some(j) = e.find(&b[from..]) else { break };
        black_box(&text[from..from + j]);
        n += 1;
        pos = from + j + end.len();
    }
    n
}

struct Count(usize, usize);
impl TagSink for Count {
    fn outside(&mut self, text: &str, _: [Pos; 2]) -> ControlFlow<()> {
        self.1 += text.len();
        ControlFlow::Continue(())
    }
    fn open(&mut self, _: usize, _: [Pos; 2]) -> ControlFlow<()> {
        self.0 += 1;
        ControlFlow::Continue(())
    }
    fn text(&mut self, _: usize, text: &str, _: [Pos; 2]) -> ControlFlow<()> {
        black_box(text);
        ControlFlow::Continue(())
    }
    fn close(&mut self, _: usize, _: [Pos; 2]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

/// One contender: its name's run, answering how many matches it found.
type Run<'a> = Box<dyn Fn() -> usize + 'a>;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return; // `cargo test --benches` builds this; the figures need a quiet machine
    }
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(7);
    let eight_pairs = pairs(8);
    let eight = TagSet::new(eight_pairs.clone()).unwrap();
    let one = TagSet::new(pairs(1)).unwrap();
    let text8 = corpus(8, 8);
    let text1 = corpus(1, 8);
    let extractor = Extractor::new(&Markers::new("<f0>", "</f0>").unwrap()).unlimited();
    let mut runs: Vec<(&str, Run<'_>)> = vec![
        (
            "1 pair: two memmem loop",
            Box::new(|| two_finders(&text1, "<f0>", "</f0>")),
        ),
        (
            "1 pair: extract",
            Box::new(|| extractor.extract(&text1).map_or(0, |o| o.matches.len())),
        ),
        (
            "1 pair: extract, then (pair, text, offset)s",
            Box::new(|| {
                let base = text1.as_ptr() as usize;
                extractor.extract(&text1).map_or(0, |o| {
                    let triples: Vec<(usize, &str, usize)> = o
                        .matches
                        .iter()
                        .map(|m| (0, *m, m.as_ptr() as usize - base))
                        .collect();
                    black_box(&triples).len()
                })
            }),
        ),
        (
            "1 pair: TagSet::find_all",
            Box::new(|| one.find_all(&text1).map_or(0, |m| m.len())),
        ),
        (
            "8 pairs: TagSet::find_all",
            Box::new(|| eight.find_all(&text8).map_or(0, |m| m.len())),
        ),
        (
            "8 pairs: 8 single-pair extracts",
            Box::new(|| {
                eight_pairs
                    .iter()
                    .map(|(s, e)| {
                        let ex = Extractor::new(&Markers::new(s.as_str(), e.as_str()).unwrap())
                            .unlimited();
                        ex.extract(&text8).map_or(0, |o| o.matches.len())
                    })
                    .sum()
            }),
        ),
        (
            "8 pairs: TagScanner, outside, 64 KiB chunks",
            Box::new(|| {
                let mut scanner = TagScanner::new(&eight);
                let mut sink = Count(0, 0);
                for chunk in text8.as_bytes().chunks(64 << 10) {
                    let _ = scanner.feed(chunk, &mut sink);
                }
                let _ = scanner.finish(&mut sink);
                sink.0
            }),
        ),
    ];
    let mut times = vec![Vec::new(); runs.len()];
    let mut found = vec![0; runs.len()];
    for _ in 0..rounds {
        for (k, (_, run)) in runs.iter_mut().enumerate() {
            let t = Instant::now();
            found[k] = black_box(run());
            times[k].push(t.elapsed().as_secs_f64());
        }
    }
    let base = median(times[1].clone());
    println!(
        "{:<46} {:>10} {:>9} {:>12}",
        "64 MiB, median of rounds", "matches", "ms", "÷ extract"
    );
    for (k, (name, _)) in runs.iter().enumerate() {
        let t = median(times[k].clone());
        println!(
            "{name:<46} {:>10} {:>9.1} {:>12.2}",
            found[k],
            t * 1e3,
            t / base
        );
    }
}
