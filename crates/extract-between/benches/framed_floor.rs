//! What `FramedRead` alone costs, against one-shot `extract` in the same run: a decoder that
//! takes every 8 KiB read and finds nothing, so the time is `FramedRead`'s copy of each read
//! into its buffer. Any codec pays it before scanning a byte, so `extract` time / this time
//! bounds the codec's ratio in `benches/adapters.rs` from above. (A separate binary: added to
//! the adapters bench, the extra code moved the codec's own figure there by 20 %.)
//!
//! `cargo bench --bench framed_floor` prints the paired table.

#[path = "support/corpus.rs"]
mod corpus;

use bytes::BytesMut;
use extract_between::{Extractor, Markers};
use futures::StreamExt;
use std::hint::black_box;
use tokio_util::codec::{Decoder, FramedRead};

const CHUNK: usize = 8 << 10;

/// Takes each read whole and yields nothing.
struct Discard;

impl Decoder for Discard {
    type Item = ();
    type Error = std::io::Error;
    fn decode(&mut self, src: &mut BytesMut) -> std::io::Result<Option<()>> {
        black_box(src.split());
        Ok(None)
    }
}

fn framed_floor(text: &[u8]) -> usize {
    let framed = FramedRead::with_capacity(text, Discard, CHUNK);
    futures::executor::block_on(framed.fold(0, |n, _| async move { n + 1 }))
}

fn main() {
    let corpora = corpus::all();
    let prepared: Vec<_> = corpora
        .iter()
        .map(|(name, (text, start, end))| {
            let markers = Markers::new(*start, *end).unwrap();
            (*name, text.as_str(), Extractor::new(&markers).unlimited())
        })
        .collect();
    let rows = prepared
        .iter()
        .map(|(name, text, ex)| {
            let passes: Vec<corpus::Pass<'_>> = vec![
                Box::new(move || ex.extract(black_box(text)).map_or(0, |o| o.matches.len())),
                Box::new(move || framed_floor(black_box(text.as_bytes()))),
            ];
            (*name, passes)
        })
        .collect();
    corpus::paired(
        "framed_floor",
        &[(0, 1, "extract time / FramedRead-copy-alone time")],
        rows,
    );
}
