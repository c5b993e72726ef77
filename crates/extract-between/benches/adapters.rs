//! The Stream adapter and the codec over the core corpora in 8 KiB chunks, against one-shot
//! `extract` in the same run. `cargo bench --bench adapters` prints the ratio table.

#[path = "support/corpus.rs"]
mod corpus;

use bytes::Bytes;
use criterion::Throughput;
use extract_between::codec::ExtractCodec;
use extract_between::stream::{Options, matches};
use extract_between::{Extractor, Markers};
use futures::StreamExt;
use std::hint::black_box;
use tokio_util::codec::FramedRead;

const CHUNK: usize = 8 << 10;

fn stream_count(markers: &Markers, text: &Bytes) -> usize {
    let chunks = (0..text.len())
        .step_by(CHUNK)
        .map(|at| Ok::<_, std::io::Error>(text.slice(at..(at + CHUNK).min(text.len()))));
    let mut s = matches(futures::stream::iter(chunks), markers, Options::default());
    futures::executor::block_on(async {
        let mut n = 0;
        while let Some(m) = s.next().await {
            n += usize::from(m.is_ok());
        }
        n
    })
}

/// Consumed like the Stream adapter, with `while let` as users write it: through `fold`, which
/// moves each item into a new future, the same codec ran measurably slower.
fn codec_count(markers: &Markers, text: &[u8]) -> usize {
    let mut framed =
        FramedRead::with_capacity(text, ExtractCodec::new(markers, Options::default()), CHUNK);
    futures::executor::block_on(async {
        let mut n = 0;
        while let Some(m) = framed.next().await {
            n += usize::from(m.is_ok());
        }
        n
    })
}

/// The corpus as `Bytes` for the Stream adapter, and as text for `extract` and the codec
/// ([`as_str`]): every pass reads this one buffer, so none gains from finding its input in
/// cache after another pass read it.
fn as_str(bytes: &Bytes) -> &str {
    std::str::from_utf8(bytes).expect("copied from a str")
}

fn main() {
    let mut c = corpus::criterion();
    let corpora = corpus::all();
    for (name, (text, start, end)) in &corpora {
        let markers = Markers::new(*start, *end).unwrap();
        let ex = Extractor::new(&markers).unlimited();
        let bytes = Bytes::copy_from_slice(text.as_bytes());
        let text = as_str(&bytes);
        let expected = ex.extract(text).unwrap().matches.len();
        assert_eq!(stream_count(&markers, &bytes), expected);
        assert_eq!(codec_count(&markers, text.as_bytes()), expected);
        let group = format!("adapters-{name}");
        let mut g = c.benchmark_group(&group);
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function("extract", |b| {
            b.iter(|| ex.extract(black_box(text)).map(|o| o.matches.len()))
        });
        g.bench_function("stream_8k", |b| {
            b.iter(|| stream_count(&markers, black_box(&bytes)))
        });
        g.bench_function("codec_8k", |b| {
            b.iter(|| codec_count(&markers, black_box(text.as_bytes())))
        });
        g.finish();
    }
    c.final_summary();
    let sizes: Vec<(String, usize)> = corpora
        .iter()
        .map(|(n, (t, _, _))| (format!("adapters-{n}"), t.len()))
        .collect();
    let bytes = |g: &str| sizes.iter().find(|(n, _)| n == g).map_or(1, |(_, s)| *s);
    let groups = [
        "adapters-dense",
        "adapters-sparse",
        "adapters-unicode",
        "adapters-none",
    ];
    corpus::report(
        "adapters",
        &groups,
        &["extract", "stream_8k", "codec_8k"],
        "extract",
        &bytes,
    );
    // Criterion's groups drift apart on this machine: the same ratios in paired rounds.
    let prepared: Vec<_> = corpora
        .iter()
        .map(|(name, (text, start, end))| {
            let markers = Markers::new(*start, *end).unwrap();
            let ex = Extractor::new(&markers).unlimited();
            (*name, Bytes::copy_from_slice(text.as_bytes()), markers, ex)
        })
        .collect();
    let rows = prepared
        .iter()
        .map(|(name, bytes, markers, ex)| {
            let text = as_str(bytes);
            let passes: Vec<corpus::Pass<'_>> = vec![
                Box::new(move || ex.extract(black_box(text)).map_or(0, |o| o.matches.len())),
                Box::new(move || stream_count(markers, black_box(bytes))),
                Box::new(move || codec_count(markers, black_box(text.as_bytes()))),
            ];
            (*name, passes)
        })
        .collect();
    corpus::paired(
        "adapters",
        &[
            (0, 1, "extract time / stream_8k time"),
            (0, 2, "extract time / codec_8k time"),
        ],
        rows,
    );
}
