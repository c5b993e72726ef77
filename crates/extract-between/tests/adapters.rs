//! The async adapters on a real tokio runtime: the Stream adapter and the FramedRead codec
//! agree with the scanner under random chunkings, share memory when they can, stop reading
//! early, and stay bounded.

use crate::common::scan;
use bytes::Bytes;
use extract_between::codec::ExtractCodec;
use extract_between::stream::{Error, Match, Options, matches};
use extract_between::testing::{Case, Trickle};
use extract_between::{Markers, ScanError};
use futures::StreamExt;
use futures::stream::FusedStream;
use quickcheck::{QuickCheck, TestResult};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;
use tokio_util::codec::FramedRead;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn chunks(bytes: &[u8], plan: &[usize]) -> Vec<Bytes> {
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut k = 0;
    while !rest.is_empty() {
        let n = plan[k % plan.len()].min(rest.len());
        k += 1;
        out.push(Bytes::copy_from_slice(&rest[..n]));
        rest = &rest[n..];
    }
    out
}

/// What an adapter produced: (content, byte start, utf16 start) per match, then the error.
type Seen = (Vec<(String, u64, u64)>, Option<ScanError>);

fn seen_from(matches: Vec<Match>, error: Option<ScanError>) -> Seen {
    (
        matches
            .iter()
            .map(|m| {
                (
                    m.as_str().to_owned(),
                    m.byte_range().start,
                    m.utf16_range().start,
                )
            })
            .collect(),
        error,
    )
}

fn expected(c: &Case, markers: &Markers) -> (Seen, bool) {
    let s = scan(markers, c.text.as_bytes(), c.max_matches as u64, &[]);
    let seen = (
        s.matches
            .iter()
            .map(|m| (m.text.clone(), m.content_start.byte, m.content_start.utf16))
            .collect(),
        s.error,
    );
    (seen, s.truncated)
}

async fn via_stream(c: &Case, markers: &Markers) -> (Seen, Option<bool>) {
    let source = futures::stream::iter(
        chunks(c.text.as_bytes(), &c.chunks)
            .into_iter()
            .map(Ok::<_, io::Error>),
    );
    let mut s = matches(
        source,
        markers,
        Options::default().max_matches(c.max_matches as u64),
    );
    let mut found = Vec::new();
    let mut error = None;
    loop {
        let terminated = s.is_terminated();
        let Some(item) = s.next().await else {
            break;
        };
        assert!(!terminated, "is_terminated before its last item");
        match item {
            Ok(m) => found.push(m),
            Err(Error::Scan(e)) => error = Some(e),
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert!(s.is_terminated(), "not terminated after None");
    assert!(s.next().await.is_none(), "fused");
    (seen_from(found, error), s.truncated())
}

async fn via_codec(c: &Case, markers: &Markers) -> (Seen, bool) {
    let reader = Trickle::new(c.text.clone().into_bytes(), c.chunks.clone());
    let codec = ExtractCodec::new(
        markers,
        Options::default().max_matches(c.max_matches as u64),
    );
    let mut framed = FramedRead::new(reader, codec);
    let mut found = Vec::new();
    let mut error = None;
    while let Some(item) = framed.next().await {
        match item {
            Ok(m) => found.push(m),
            Err(Error::Scan(e)) => error = Some(e),
            Err(e) => panic!("unexpected {e}"),
        }
    }
    let truncated = framed.decoder().truncated();
    (seen_from(found, error), truncated)
}

#[test]
fn stream_adapter_equals_scanner_under_any_chunking() {
    fn prop(c: Case) -> TestResult {
        let markers = Markers::new(c.start.as_str(), c.end.as_str()).unwrap();
        let (want, truncated) = expected(&c, &markers);
        let (got, got_truncated) = runtime().block_on(via_stream(&c, &markers));
        let truncated_ok = if want.1.is_none() {
            got_truncated == Some(truncated)
        } else {
            got_truncated.is_none()
        };
        TestResult::from_bool(got == want && truncated_ok)
    }
    QuickCheck::new()
        .tests(1000)
        .quickcheck(prop as fn(Case) -> TestResult);
}

#[test]
fn codec_equals_scanner_with_a_trickling_reader() {
    fn prop(c: Case) -> TestResult {
        let markers = Markers::new(c.start.as_str(), c.end.as_str()).unwrap();
        let (want, truncated) = expected(&c, &markers);
        let (got, got_truncated) = runtime().block_on(via_codec(&c, &markers));
        TestResult::from_bool(got == want && (want.1.is_some() || got_truncated == truncated))
    }
    QuickCheck::new()
        .tests(1000)
        .quickcheck(prop as fn(Case) -> TestResult);
}

#[test]
fn match_inside_one_chunk_shares_its_memory() {
    let chunk = Bytes::from_static(b"xx[inside]yy[spl");
    let next = Bytes::from_static(b"it]");
    let range = chunk.as_ptr() as usize..chunk.as_ptr() as usize + chunk.len();
    let source = futures::stream::iter([Ok::<_, io::Error>(chunk.clone()), Ok(next)]);
    let found: Vec<Match> = runtime().block_on(
        matches(source, &Markers::new("[", "]").unwrap(), Options::default())
            .map(|m| m.unwrap())
            .collect(),
    );
    assert_eq!(found[0].as_str(), "inside");
    assert_eq!(
        found[0].bytes().as_ptr() as usize,
        range.start + 3,
        "zero-copy slice of the chunk"
    );
    assert_eq!(found[1].as_str(), "split");
    assert!(
        !range.contains(&(found[1].bytes().as_ptr() as usize)),
        "spanning match is a copy"
    );
    let owned = found[0].clone().into_owned();
    assert_ne!(owned.bytes().as_ptr(), found[0].bytes().as_ptr());
    assert_eq!(owned, found[0]);
}

#[test]
fn source_is_not_polled_after_the_cap_and_one_more_match() {
    let polls = Arc::new(AtomicUsize::new(0));
    let counter = polls.clone();
    let source = futures::stream::iter(["[a]", "[b]", "[c]", "[d]", "[e]", "[f]"]).map(move |s| {
        counter.fetch_add(1, Ordering::SeqCst);
        Ok::<_, io::Error>(Bytes::from(s))
    });
    let mut s = matches(
        source,
        &Markers::new("[", "]").unwrap(),
        Options::default().max_matches(2),
    );
    let got: Vec<String> = runtime().block_on(async {
        let mut v = Vec::new();
        while let Some(m) = s.next().await {
            v.push(m.unwrap().as_str().to_owned());
        }
        v
    });
    assert_eq!(got, ["a", "b"]);
    assert_eq!(s.truncated(), Some(true));
    assert_eq!(
        polls.load(Ordering::SeqCst),
        3,
        "read [a], [b], [c] and nothing more"
    );
}

#[test]
fn upstream_error_comes_after_earlier_matches_then_the_stream_ends() {
    let source = futures::stream::iter([
        Ok(Bytes::from_static(b"[a][b")),
        Ok(Bytes::from_static(b"]")),
        Err(io::Error::other("disk on fire")),
        Ok(Bytes::from_static(b"[never]")),
    ]);
    let items: Vec<Result<Match, Error<io::Error>>> = runtime()
        .block_on(matches(source, &Markers::new("[", "]").unwrap(), Options::default()).collect());
    assert_eq!(items.len(), 3);
    assert_eq!(items[0].as_ref().unwrap().as_str(), "a");
    assert_eq!(items[1].as_ref().unwrap().as_str(), "b");
    assert!(matches!(&items[2], Err(Error::Upstream(e)) if e.to_string() == "disk on fire"));
}

#[test]
fn codec_reports_unclosed_at_eof() {
    let input: &[u8] = b"[a] [b";
    let codec = ExtractCodec::new(&Markers::new("[", "]").unwrap(), Options::default());
    let items: Vec<_> = runtime().block_on(FramedRead::new(input, codec).collect::<Vec<_>>());
    assert_eq!(items[0].as_ref().unwrap().as_str(), "a");
    assert!(
        matches!(&items[1], Err(Error::Scan(ScanError::Unclosed { marker })) if marker.byte == 4)
    );
    assert_eq!(items.len(), 2);
}

/// A source generating `total` bytes of `block` repeated, in `chunk`-byte pieces.
fn generated(
    block: &'static [u8],
    total: usize,
    chunk: usize,
) -> impl futures::Stream<Item = Result<Bytes, io::Error>> + Unpin {
    let data = Bytes::from(block.repeat(chunk / block.len() + 1));
    let mut sent = 0;
    futures::stream::poll_fn(move |_| {
        if sent >= total {
            return Poll::Ready(None);
        }
        let n = chunk.min(total - sent);
        let off = sent % block.len();
        sent += n;
        Poll::Ready(Some(Ok(data.slice(off..off + n))))
    })
}

#[test]
fn a_100_mib_match_under_a_1_mib_limit_fails_in_bounded_memory() {
    let mut s = matches(
        generated(b"[xxxxxxxxxxxxxxx", 100 << 20, 64 * 1024).map(|r| r.map(|b: Bytes| b)),
        &Markers::new("[", "]").unwrap(),
        Options::default().max_match_bytes(1 << 20),
    );
    // "[" opens a match; every further "[" is content; no "]" ever comes.
    let mut peak = 0;
    let result = runtime().block_on(async {
        loop {
            let next = s.next().await;
            peak = peak.max(s.buffered_bytes());
            match next {
                Some(Ok(_)) => continue,
                other => return other,
            }
        }
    });
    assert!(matches!(result, Some(Err(Error::MatchTooLarge { limit, .. })) if limit == 1 << 20));
    assert!(peak <= (1 << 20) + 1, "held {peak} bytes");
}

/// ≥ 1 GiB with a match every 64 bytes: buffers never exceed the bound.
/// Slow in debug builds: `cargo test --release --test tests -- --ignored adapters::`.
#[test]
#[ignore]
fn one_gib_with_many_matches_stays_bounded() {
    const BLOCK: &[u8] = b"lorem ipsum dolor sit amet, [consectetur adipiscing] elit, sed.\n";
    let total = 1usize << 30;
    let markers = Markers::new("[", "]").unwrap();
    let mut s = matches(generated(BLOCK, total, 8192), &markers, Options::default());
    let mut count = 0u64;
    let mut peak = 0;
    runtime().block_on(async {
        while let Some(m) = s.next().await {
            assert_eq!(m.unwrap().as_str(), "consectetur adipiscing");
            count += 1;
            peak = peak.max(s.buffered_bytes());
        }
    });
    assert_eq!(count, (total / BLOCK.len()) as u64);
    assert!(peak <= BLOCK.len(), "held {peak} bytes");
    let reader = tokio_util::io::StreamReader::new(generated(BLOCK, total, 8192));
    let mut framed = FramedRead::new(reader, ExtractCodec::new(&markers, Options::default()));
    let mut peak = 0;
    let mut count2 = 0u64;
    runtime().block_on(async {
        while let Some(m) = framed.next().await {
            m.unwrap();
            count2 += 1;
            // What the codec holds plus what the read buffer has allocated.
            peak = peak.max(framed.decoder().buffered_bytes() + framed.read_buffer().capacity());
        }
    });
    assert_eq!(count2, count);
    eprintln!("{count} matches; codec peak held {peak} bytes");
    assert!(peak <= 64 * 1024, "held {peak} bytes");
}
