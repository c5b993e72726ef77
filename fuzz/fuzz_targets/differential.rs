//! Arbitrary input decides text, markers, cap and chunk plan; the scanner (chunked and
//! whole), one-shot `extract` and the naive UTF-16 reference must agree on matches,
//! `truncated`, error kind and offset.
#![no_main]

use extract_between::reference;
use extract_between::{Capped, Collect, ExtractError, Extractor, Markers, ScanError, Scanner};
use libfuzzer_sys::fuzz_target;

/// The decoded case; its Debug output is a pasteable reproducer.
#[derive(Debug)]
struct Case {
    text: Vec<u8>,
    start: String,
    end: String,
    max_matches: usize,
    plan: Vec<usize>,
}

fn decode(data: &[u8]) -> Option<Case> {
    let (&head, data) = data.split_first()?;
    let (&lens, data) = data.split_first()?;
    let (&plan_len, data) = data.split_first()?;
    let max_matches = [1, 2, 3, 100, 1000][usize::from(head % 5)];
    let start_len = 1 + usize::from(lens & 0x7);
    let end_len = 1 + usize::from((lens >> 3) & 0x7);
    let plan_len = usize::from(plan_len % 8);
    if data.len() < start_len + end_len + plan_len {
        return None;
    }
    let (start, data) = data.split_at(start_len);
    let (end, data) = data.split_at(end_len);
    let (plan, text) = data.split_at(plan_len);
    // Equal markers are interesting; a flag bit makes them common.
    let start = String::from_utf8_lossy(start).into_owned();
    let end = if lens & 0x80 != 0 {
        start.clone()
    } else {
        String::from_utf8_lossy(end).into_owned()
    };
    Some(Case {
        text: text.to_vec(),
        start,
        end,
        max_matches,
        plan: plan.iter().map(|&b| 1 + usize::from(b)).collect(),
    })
}

#[derive(Debug, PartialEq)]
struct Seen {
    matches: Vec<(String, u64, u64)>,
    truncated: bool,
    error: Option<ScanError>,
}

fn scan(markers: &Markers, text: &[u8], cap: usize, plan: &[usize]) -> Seen {
    // Odd plans take the baseline (SSE2) fast paths even on a CPU with more, plans of 2 or 6
    // pieces AVX2 even on a CPU with AVX-512, and the others, for texts of odd length,
    // AVX-512 without VBMI: each instruction set the CPU has is checked.
    let mut scanner = match plan.len() % 4 {
        0 if text.len() % 2 == 1 => Scanner::new(markers).without_vbmi(),
        0 => Scanner::new(markers),
        2 => Scanner::new(markers).avx2_simd(),
        _ => Scanner::new(markers).baseline_simd(),
    };
    let mut sink = Capped::new(Collect::default(), cap as u64);
    let mut rest = text;
    let mut k = 0;
    let mut error = None;
    while !rest.is_empty() {
        let n = if plan.is_empty() {
            rest.len()
        } else {
            plan[k % plan.len()].min(rest.len())
        };
        k += 1;
        let (chunk, tail) = rest.split_at(n);
        rest = tail;
        match scanner.feed(chunk, &mut sink) {
            Ok(flow) if flow.is_break() => break,
            Ok(_) => assert!(scanner.buffered() < markers.max_len() + 3),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    if error.is_none() {
        error = scanner.finish(&mut sink).err();
    }
    Seen {
        truncated: sink.truncated(),
        matches: sink
            .into_inner()
            .matches
            .into_iter()
            .map(|m| (m.text, m.content_start.byte, m.content_start.utf16))
            .collect(),
        error,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(case) = decode(data) else { return };
    let markers = Markers::new(case.start.as_str(), case.end.as_str()).unwrap();
    let whole = scan(&markers, &case.text, case.max_matches, &[]);
    let chunked = scan(&markers, &case.text, case.max_matches, &case.plan);
    assert_eq!(whole, chunked, "{case:?}");
    let Ok(text) = std::str::from_utf8(&case.text) else {
        if let Some(ScanError::InvalidUtf8 { offset, .. }) = whole.error {
            let valid = std::str::from_utf8(&case.text).unwrap_err().valid_up_to();
            assert_eq!(offset, valid as u64, "{case:?}");
        }
        return;
    };
    let ex = Extractor::new(&markers)
        .max_matches(case.max_matches)
        .unwrap()
        .max_text_bytes(None);
    let reference = reference::extract(text, &case.start, &case.end, case.max_matches);
    match ex.extract(text) {
        Ok(out) => {
            let base = text.as_ptr() as usize;
            let expected: Vec<(String, u64, u64)> = out
                .matches
                .iter()
                .map(|m| {
                    let at = m.as_ptr() as usize - base;
                    (
                        m.to_string(),
                        at as u64,
                        text[..at].encode_utf16().count() as u64,
                    )
                })
                .collect();
            assert_eq!(whole.matches, expected, "{case:?}");
            assert_eq!(whole.truncated, out.truncated, "{case:?}");
            assert_eq!(whole.error, None, "{case:?}");
            let theirs = reference.expect("reference agrees it is closed");
            let ours: Vec<Vec<u16>> = out
                .matches
                .iter()
                .map(|m| m.encode_utf16().collect())
                .collect();
            assert_eq!((ours, out.truncated), theirs, "{case:?}");
        }
        Err(ExtractError::Unclosed { marker, .. }) => {
            assert_eq!(
                whole.error,
                Some(ScanError::Unclosed { marker }),
                "{case:?}"
            );
            assert_eq!(reference, Err(marker.utf16 as usize), "{case:?}");
        }
        Err(e) => panic!("unexpected {e} for {case:?}"),
    }
});
