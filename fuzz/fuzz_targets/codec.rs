//! Arbitrary bytes and read sizes through `FramedRead` + `ExtractCodec` versus the scanner
//! fed in one piece: same matches (content and offsets), same error.
#![no_main]

use extract_between::codec::ExtractCodec;
use extract_between::stream::{Error, Options};
use extract_between::testing::Trickle;
use extract_between::{Capped, Collect, Markers, ScanError, Scanner};
use futures::StreamExt;
use libfuzzer_sys::fuzz_target;
use tokio_util::codec::FramedRead;

#[derive(Debug)]
struct Case {
    text: Vec<u8>,
    start: String,
    end: String,
    max_matches: Option<u64>,
    plan: Vec<usize>,
}

fn decode(data: &[u8]) -> Option<Case> {
    let (&head, data) = data.split_first()?;
    let (&plan_len, data) = data.split_first()?;
    let start_len = 1 + usize::from(head & 0x3);
    let end_len = 1 + usize::from((head >> 2) & 0x3);
    let plan_len = usize::from(plan_len % 8);
    if data.len() < start_len + end_len + plan_len {
        return None;
    }
    let (start, data) = data.split_at(start_len);
    let (end, data) = data.split_at(end_len);
    let (plan, text) = data.split_at(plan_len);
    Some(Case {
        text: text.to_vec(),
        start: String::from_utf8_lossy(start).into_owned(),
        end: String::from_utf8_lossy(end).into_owned(),
        max_matches: (head & 0x70 != 0).then(|| u64::from((head >> 4) & 0x7)),
        plan: plan.iter().map(|&b| 1 + usize::from(b)).collect(),
    })
}

fuzz_target!(|data: &[u8]| {
    let Some(case) = decode(data) else { return };
    let markers = Markers::new(case.start.as_str(), case.end.as_str()).unwrap();
    let cap = case.max_matches.unwrap_or(u64::MAX);

    let mut scanner = Scanner::new(&markers);
    let mut sink = Capped::new(Collect::default(), cap);
    let mut want_error = scanner.feed(&case.text, &mut sink).err();
    if want_error.is_none() {
        want_error = scanner.finish(&mut sink).err();
    }
    let want: Vec<(String, u64, u64)> = sink
        .into_inner()
        .matches
        .into_iter()
        .map(|m| (m.text, m.content_start.byte, m.content_end.utf16))
        .collect();

    let mut options = Options::default();
    if let Some(n) = case.max_matches {
        options = options.max_matches(n);
    }
    let reader = Trickle::new(case.text.clone(), case.plan.clone());
    let mut framed = FramedRead::new(reader, ExtractCodec::new(&markers, options));
    let mut got = Vec::new();
    let mut got_error: Option<ScanError> = None;
    futures::executor::block_on(async {
        while let Some(item) = framed.next().await {
            match item {
                Ok(m) => got.push((
                    m.as_str().to_owned(),
                    m.byte_range().start,
                    m.utf16_range().end,
                )),
                Err(Error::Scan(e)) => got_error = Some(e),
                Err(e) => panic!("unexpected {e} for {case:?}"),
            }
        }
    });
    assert_eq!(got, want, "{case:?}");
    assert_eq!(got_error, want_error, "{case:?}");
});
