//! Arbitrary input decides a tag set (1 to 4 pairs, starts often sharing a prefix), a text
//! (not always valid UTF-8) and a chunk plan; the tag scanner must agree with the naive
//! reference (steps, unclosed pair), give the input back, carry little, and find what the
//! one-shot `find_all` finds, whether a chunk joins the carry whole or is searched where it
//! lies.
#![no_main]

use extract_between::ScanError;
use extract_between::tags::{TagEvent, TagEvents, TagSet};
use extract_between::testing::{self, tags::{Step, reference, steps}};
use libfuzzer_sys::fuzz_target;

/// The decoded case; its Debug output is a pasteable reproducer.
#[derive(Debug)]
struct Case {
    pairs: Vec<(String, String)>,
    text: Vec<u8>,
    plan: Vec<usize>,
    /// Chunks up to this size join the carry whole; longer ones are searched where they lie.
    whole_chunk: usize,
}

fn decode(data: &[u8]) -> Option<Case> {
    let (&head, mut data) = data.split_first()?;
    let count = 1 + usize::from(head & 3);
    let whole_chunk = [0, 1, 3, 8, 64, 4096][usize::from(head >> 2) % 6];
    let mut pairs: Vec<(String, String)> = Vec::new();
    for _ in 0..count {
        let (&lens, rest) = data.split_first()?;
        let (start_len, end_len) = (1 + usize::from(lens & 7), 1 + usize::from((lens >> 3) & 7));
        if rest.len() < start_len + end_len {
            return None;
        }
        let (start, rest) = rest.split_at(start_len);
        let (end, rest) = rest.split_at(end_len);
        data = rest;
        let mut start = String::from_utf8_lossy(start).into_owned();
        // A flag bit makes a start that extends the previous one: shared prefixes.
        if lens & 0x40 != 0 {
            if let Some((previous, _)) = pairs.last() {
                start = format!("{previous}{start}");
            }
        }
        let end = if lens & 0x80 != 0 { start.clone() } else { String::from_utf8_lossy(end).into_owned() };
        if pairs.iter().all(|(s, _)| *s != start) {
            pairs.push((start, end));
        }
    }
    let (&plan_len, data) = data.split_first()?;
    let plan_len = usize::from(plan_len % 8);
    if data.len() < plan_len {
        return None;
    }
    let (plan, text) = data.split_at(plan_len);
    Some(Case {
        pairs,
        text: text.to_vec(),
        plan: plan.iter().map(|&b| 1 + usize::from(b)).collect(),
        whole_chunk,
    })
}

fuzz_target!(|data: &[u8]| {
    let Some(case) = decode(data) else { return };
    let tags = TagSet::new(case.pairs.iter().cloned()).unwrap();
    let mut scanner = testing::tags::scanner(&tags, case.whole_chunk);
    let mut sink = TagEvents::new();
    let (mut events, mut error, mut rest, mut k) = (Vec::new(), None, &case.text[..], 0);
    while !rest.is_empty() && error.is_none() {
        let size = if case.plan.is_empty() { rest.len() } else { case.plan[k % case.plan.len()].min(rest.len()) };
        let (chunk, tail) = rest.split_at(size);
        (rest, k) = (tail, k + 1);
        error = scanner.feed(chunk, &mut sink).err();
        assert!(scanner.buffered() < tags.max_len() + 3, "{case:?}");
        events.extend(sink.drain());
    }
    if error.is_none() {
        error = scanner.finish(&mut sink).err();
        events.extend(sink.drain());
    }
    // What the events say, markers included, is the input up to the error.
    let rebuilt: String = events
        .iter()
        .map(|e| match e {
            TagEvent::Open { tag, .. } => tags.pair(*tag).start(),
            TagEvent::Close { tag, .. } => tags.pair(*tag).end(),
            other => other.text().unwrap_or_default(),
        })
        .collect();
    match std::str::from_utf8(&case.text) {
        Ok(text) => {
            assert_eq!(rebuilt, text, "{case:?}");
            let (want, unclosed) = reference(text, &case.pairs);
            assert_eq!(steps(&events), want, "{case:?}");
            let got = match error {
                None => None,
                Some(ScanError::Unclosed { marker }) => Some((scanner.open_tag().unwrap(), marker.byte as usize)),
                Some(e) => panic!("{e} {case:?}"),
            };
            assert_eq!(got, unclosed, "{case:?}");
            let found = match tags.find_all(text) {
                Ok(found) => found,
                Err(e) => e.matches,
            };
            let texts: Vec<(usize, &str)> = found.iter().map(|m| (m.tag, m.text)).collect();
            let closed = want.iter().filter(|s| matches!(s, Step::Close(_))).count();
            assert_eq!(texts.len(), closed, "{case:?}");
        }
        Err(e) => {
            let offset = e.valid_up_to() as u64;
            match error {
                Some(ScanError::InvalidUtf8 { offset: at, .. }) => assert_eq!(at, offset, "{case:?}"),
                other => panic!("{other:?} for invalid input {case:?}"),
            }
            assert_eq!(rebuilt.as_bytes(), &case.text[..e.valid_up_to()], "{case:?}");
        }
    }
});
