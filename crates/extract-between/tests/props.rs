//! Properties: the fast paths agree with the naive UTF-16 reference under any chunking.

use crate::common::{scan, scan_with, utf16};
use extract_between::testing::{Case, Paths, reference};
use extract_between::{ExtractError, Extractor, Markers, ScanError};
use quickcheck::{QuickCheck, TestResult};

fn qc() -> QuickCheck {
    QuickCheck::new().tests(3000).max_tests(30000)
}

/// A scanner reset after any input (cut anywhere, stopped at an error or a cap) scans the
/// next input exactly as a new one does.
#[test]
fn a_reset_scanner_equals_a_new_one() {
    fn prop(before: Case, c: Case) -> TestResult {
        let Ok(markers) = Markers::new(c.start.as_str(), c.end.as_str()) else {
            return TestResult::discard();
        };
        let mut reused = extract_between::Scanner::new(&markers);
        let cut = before.text.len() / 2;
        let mut sink = extract_between::Capped::new(extract_between::Collect::default(), 1);
        let _ = reused.feed(&before.text.as_bytes()[..cut], &mut sink);
        reused.reset();
        let mut again = extract_between::Collect::default();
        let got = extract_between::testing::feed_planned(
            &mut reused,
            &mut again,
            c.text.as_bytes(),
            &c.chunks,
        )
        .0;
        let mut fresh = extract_between::Scanner::new(&markers);
        let mut want = extract_between::Collect::default();
        let expected = extract_between::testing::feed_planned(
            &mut fresh,
            &mut want,
            c.text.as_bytes(),
            &c.chunks,
        )
        .0;
        TestResult::from_bool(got == expected && again.matches == want.matches)
    }
    qc().tests(500)
        .quickcheck(prop as fn(Case, Case) -> TestResult);
}

/// `extract` gives exactly the reference's matches, `truncated` and unclosed offset.
#[test]
fn extract_equals_reference() {
    fn prop(c: Case) -> TestResult {
        let markers = Markers::new(c.start.as_str(), c.end.as_str()).unwrap();
        let ex = Extractor::new(&markers).max_matches(c.max_matches).unwrap();
        let ours = match ex.extract(&c.text) {
            Ok(out) => Ok((
                out.matches.iter().map(|m| utf16(m)).collect(),
                out.truncated,
            )),
            Err(ExtractError::Unclosed { marker, .. }) => Err(marker.utf16 as usize),
            Err(e) => return TestResult::error(e.to_string()),
        };
        let theirs = reference::extract(&c.text, &c.start, &c.end, c.max_matches);
        TestResult::from_bool(ours == theirs)
    }
    qc().quickcheck(prop as fn(Case) -> TestResult);
}

/// The scanner under any chunk plan gives what `extract` gives, offsets included, and
/// never carries more than the longer marker minus one byte plus a cut character.
#[test]
fn scanner_any_chunking_equals_extract() {
    fn prop(c: Case) -> TestResult {
        let markers = Markers::new(c.start.as_str(), c.end.as_str()).unwrap();
        let ex = Extractor::new(&markers).max_matches(c.max_matches).unwrap();
        let got = scan(&markers, c.text.as_bytes(), c.max_matches as u64, &c.chunks);
        if got.max_buffered > markers.max_len() - 1 + 3 {
            return TestResult::error(format!("carried {} bytes", got.max_buffered));
        }
        let base = c.text.as_ptr() as usize;
        match ex.extract(&c.text) {
            Ok(out) => {
                let expected: Vec<(String, u64, u64)> = out
                    .matches
                    .iter()
                    .map(|m| {
                        let at = m.as_ptr() as usize - base;
                        let u = c.text[..at].encode_utf16().count() as u64;
                        (m.to_string(), at as u64, u)
                    })
                    .collect();
                let actual: Vec<(String, u64, u64)> = got
                    .matches
                    .iter()
                    .map(|m| (m.text.clone(), m.content_start.byte, m.content_start.utf16))
                    .collect();
                let ends_ok = got.matches.iter().all(|m| {
                    m.content_end.byte - m.content_start.byte == m.text.len() as u64
                        && m.content_end.utf16 - m.content_start.utf16
                            == m.text.encode_utf16().count() as u64
                        && m.marker_start.byte + c.start.len() as u64 == m.content_start.byte
                        && m.content_end.byte + c.end.len() as u64 == m.marker_end.byte
                });
                TestResult::from_bool(
                    got.error.is_none()
                        && got.truncated == out.truncated
                        && actual == expected
                        && ends_ok,
                )
            }
            Err(ExtractError::Unclosed { marker, matches }) => {
                let texts: Vec<&str> = got.matches.iter().map(|m| m.text.as_str()).collect();
                TestResult::from_bool(
                    got.error == Some(ScanError::Unclosed { marker })
                        && texts == matches[..texts.len()]
                        && texts.len() == matches.len().min(c.max_matches),
                )
            }
            Err(e) => TestResult::error(e.to_string()),
        }
    }
    qc().quickcheck(prop as fn(Case) -> TestResult);
}

/// Invalid UTF-8 anywhere: matches completed before the bad byte are delivered, then the
/// error names the byte offset, whatever the chunking.
#[test]
fn invalid_utf8_reports_offset_after_earlier_matches() {
    fn prop(c: Case, cut: usize, bad: u8) -> TestResult {
        let markers = Markers::new(c.start.as_str(), c.end.as_str()).unwrap();
        let mut bytes = c.text.clone().into_bytes();
        let at = cut % (bytes.len() + 1);
        // 0xFF never appears in UTF-8; 0x80..0xBF are stray continuation bytes when inserted
        // at a character boundary, which the insertion point is made to be.
        let at = (0..=at)
            .rev()
            .find(|&i| c.text.is_char_boundary(i))
            .unwrap_or(0);
        let bad = if bad.is_multiple_of(2) {
            0xFF
        } else {
            0x80 | (bad & 0x3F)
        };
        bytes.insert(at, bad);
        let whole = scan(&markers, &bytes, 1000, &[]);
        let chunked = scan(&markers, &bytes, 1000, &c.chunks);
        let prefix = scan(&markers, &bytes[..at], 1000, &[]);
        let expected_error = ScanError::InvalidUtf8 {
            offset: at as u64,
            incomplete: false,
        };
        TestResult::from_bool(
            whole.error == Some(expected_error.clone())
                && chunked.error == Some(expected_error)
                && whole.matches == prefix.matches
                && chunked.matches == prefix.matches,
        )
    }
    qc().quickcheck(prop as fn(Case, usize, u8) -> TestResult);
}

/// The vectorised UTF-16 count equals `encode_utf16().count()` for any string, and is
/// additive over any byte split, whether the second part is counted on its own or with the
/// bytes before it in view (`utf16_len_from`, whose masked window reads them).
#[test]
fn utf16_len_equals_encode_utf16() {
    use extract_between::utf8::{utf16_len, utf16_len_from};
    fn prop(s: String, repeat: u8, cut: usize) -> bool {
        // Repeating makes strings longer than the 32-byte lanes and window.
        let s = s.repeat(1 + usize::from(repeat % 8));
        let b = s.as_bytes();
        let cut = cut % (b.len() + 1);
        let n = utf16_len(b);
        n == s.encode_utf16().count() as u64
            && utf16_len(&b[..cut]) + utf16_len(&b[cut..]) == n
            && utf16_len(&b[..cut]) + utf16_len_from(b, cut) == n
    }
    QuickCheck::new()
        .tests(5000)
        .quickcheck(prop as fn(String, u8, usize) -> bool);
}

/// `check` agrees with `std::str::from_utf8` on arbitrary bytes, including chunks cut inside
/// characters.
#[test]
fn check_agrees_with_std() {
    fn prop(bytes: Vec<u8>, s: String, cut: usize) -> bool {
        let mut all = s.into_bytes();
        all.extend_from_slice(&bytes);
        let cut = cut % (all.len() + 1);
        [&all[..], &all[..cut]].iter().all(|b| {
            let got = extract_between::utf8::check(b);
            match std::str::from_utf8(b) {
                Ok(_) => got.complete == b.len() && !got.invalid,
                Err(e) => got.complete == e.valid_up_to() && got.invalid == e.error_len().is_some(),
            }
        })
    }
    QuickCheck::new()
        .tests(5000)
        .quickcheck(prop as fn(Vec<u8>, String, usize) -> bool);
}

/// A sink that declines UTF-16 offsets gets the same matches and byte offsets, under any
/// chunking, with every UTF-16 field 0.
#[test]
fn bytes_only_sink_sees_the_same_matches() {
    use core::ops::ControlFlow;
    use extract_between::{Capped, Collect, Pos, Scanner, Sink};

    struct BytesOnly(Collect);
    impl Sink for BytesOnly {
        fn open(&mut self, m: Pos, c: Pos) -> ControlFlow<()> {
            self.0.open(m, c)
        }
        fn content(&mut self, f: &[u8]) -> ControlFlow<()> {
            self.0.content(f)
        }
        fn close(&mut self, c: Pos, m: Pos) -> ControlFlow<()> {
            self.0.close(c, m)
        }
        fn utf16_offsets(&self) -> bool {
            false
        }
    }

    fn prop(c: Case) -> TestResult {
        let markers = Markers::new(c.start.as_str(), c.end.as_str()).unwrap();
        let full = scan(&markers, c.text.as_bytes(), c.max_matches as u64, &c.chunks);
        let mut scanner = Scanner::new(&markers);
        let mut sink = Capped::new(BytesOnly(Collect::default()), c.max_matches as u64);
        let plan = &c.chunks[..1];
        let (error, _) = extract_between::testing::feed_planned(
            &mut scanner,
            &mut sink,
            c.text.as_bytes(),
            plan,
        );
        let truncated = sink.truncated();
        let got = sink.into_inner().0.matches;
        let bytes = |m: &extract_between::Collected| {
            (
                m.text.clone(),
                m.marker_start.byte,
                m.content_start.byte,
                m.content_end.byte,
                m.marker_end.byte,
            )
        };
        let zero = got.iter().all(|m| {
            [m.marker_start, m.content_start, m.content_end, m.marker_end]
                .iter()
                .all(|p| p.utf16 == 0)
        });
        let same_error = match (&error, &full.error) {
            (Some(ScanError::Unclosed { marker: a }), Some(ScanError::Unclosed { marker: b })) => {
                a.byte == b.byte && a.utf16 == 0
            }
            (a, b) => a == b,
        };
        TestResult::from_bool(
            zero && same_error
                && truncated == full.truncated
                && got.iter().map(bytes).eq(full.matches.iter().map(bytes)),
        )
    }
    qc().quickcheck(prop as fn(Case) -> TestResult);
}

/// The fast path walks 64-byte blocks and reuses a block's test for each marker across the
/// events in it. Sweep where a quiet stretch ends and where several matches fall in the next
/// blocks (start and end markers one byte each, equal or not), under chunkings that put block
/// and chunk edges everywhere, on both instruction sets: the scanner finds what `extract` finds.
#[test]
fn block_walk_finds_every_match_at_every_offset() {
    for (start, end) in [("[", "]"), ("|", "|"), ("<t>", "</t>"), ("[", "]]")] {
        let markers = Markers::new(start, end).unwrap();
        let ex = Extractor::new(&markers).unlimited();
        for quiet in [0, 1, 63, 64, 65, 127, 200] {
            for gap in [0, 1, 5, 20, 31, 40, 63] {
                let mut text = "q".repeat(quiet);
                for n in 0..6 {
                    text += &format!("{start}m{n}{end}");
                    text += &"g".repeat(gap * (n % 3));
                }
                text += &"t".repeat(70);
                let expected = ex.extract(&text).unwrap().matches;
                for plan in [vec![], vec![64], vec![100], vec![1], vec![65, 3]] {
                    for paths in Paths::every_set() {
                        let got = scan_with(paths, &markers, text.as_bytes(), u64::MAX, &plan);
                        let got: Vec<&str> = got.matches.iter().map(|m| m.text.as_str()).collect();
                        assert_eq!(
                            got, expected,
                            "{start}{end} quiet {quiet} gap {gap} plan {plan:?} {paths:?}"
                        );
                    }
                }
            }
        }
    }
}

/// The ASCII walks skip quiet stretches 128 bytes per test and test the last block of a
/// chunk over the one before it. Put a byte that is not ASCII at every offset of a long ASCII
/// stretch, with a match after it, on every instruction set and at chunk sizes that put the
/// chunk's end anywhere: an invalid byte is an error at its offset (with no match before it),
/// and a two-byte character shifts the match's UTF-16 offsets back by one. The invalid bytes
/// include near-misses of each marker, one of its bytes with the high bit set (a test that
/// compares bytes by XOR could take those for quiet).
#[test]
fn ascii_walks_stop_at_every_byte_that_is_not_ascii() {
    for (start, end) in [("[", "]"), ("<title>", "</title>")] {
        let markers = Markers::new(start, end).unwrap();
        let tail = format!("{start}m{end}..");
        // (Bytes put in, offset of the invalid byte among them.)
        let mut cases = vec![(vec![0xFF], 0)];
        for marker in [start, end] {
            for k in 0..marker.len() {
                let mut near = marker.as_bytes().to_vec();
                near[k] ^= 0x80;
                cases.push((near, k));
            }
        }
        let two_bytes = ("é".as_bytes().to_vec(), usize::MAX);
        for at in 0..690 {
            for (bytes, bad) in cases.iter().chain([&two_bytes]) {
                let mut text = vec![b'a'; 700];
                text.splice(at..at + 1, bytes.iter().copied());
                text.extend_from_slice(tail.as_bytes());
                // Each set of kernels with one of three plans.
                let plans = [vec![], vec![300, 4000], vec![129, 1000, 77]];
                for (k, paths) in Paths::every_set().into_iter().enumerate() {
                    let plan = &plans[(k + at) % 3];
                    let got = scan_with(paths, &markers, &text, 100, plan);
                    let what = format!("{start}{end}: {bytes:x?} at {at}, plan {plan:?} {paths:?}");
                    if *bad != usize::MAX {
                        let offset = (at + bad) as u64;
                        assert!(got.matches.is_empty(), "{what}");
                        assert!(
                            matches!(got.error, Some(ScanError::InvalidUtf8 { offset: o, .. }) if o == offset),
                            "{what}: {:?}",
                            got.error
                        );
                    } else {
                        assert_eq!(got.error, None, "{what}");
                        assert_eq!(got.matches.len(), 1, "{what}");
                        let m = &got.matches[0];
                        let content = (701 + start.len()) as u64;
                        assert_eq!(
                            (m.content_start.byte, m.content_start.utf16),
                            (content, content - 1),
                            "{what}"
                        );
                    }
                }
            }
        }
    }
}

/// The UTF-8 fast path validates 64-byte blocks with table lookups (AVX2 or AVX-512). Put every sequence of up
/// to three bytes drawn from the values where UTF-8's rules change (and four-byte ones after
/// each four-byte lead) just before, across and after a block edge, and at the start of a
/// chunk, inside valid text with matches on both sides: the scanner reports what the
/// baseline path (validated by simdutf8 and `std`) reports, matches and error, and the error
/// is at the offset `std` gives.
#[test]
fn utf8_fast_path_judges_bytes_as_std_does() {
    const EDGES: [u8; 24] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
        0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xFF,
    ];
    let mut sequences: Vec<Vec<u8>> = Vec::new();
    for &a in &EDGES {
        sequences.push(vec![a]);
        for &b in &EDGES {
            sequences.push(vec![a, b]);
            for &c in &EDGES {
                sequences.push(vec![a, b, c]);
                // Four bytes after the leads whose sequences are longest and a second byte
                // that may continue them: what a lead two or three bytes back allows.
                if a >= 0xE0 && (0x80..=0xBF).contains(&b) {
                    for &d in &EDGES {
                        sequences.push(vec![a, b, c, d]);
                    }
                }
            }
        }
    }
    // 63 bytes of non-ASCII text, so the fast path's blocks start at the chunk's start.
    let before = "「一」二三😀四「五」六七八九十一二三四五六".as_bytes();
    let after = "「後」ですよ😀「x」".repeat(8);
    for (start, end) in [("「", "」"), ("[", "]")] {
        let markers = Markers::new(start, end).unwrap();
        for sequence in &sequences {
            let leads: &[usize] = if sequence.len() < 4 {
                &[0, 58, 61, 63]
            } else {
                &[0, 62]
            };
            for &lead in leads {
                let mut bytes = before[..lead.min(before.len())].to_vec();
                // Keep the text before the sequence valid: cut at a character boundary.
                while std::str::from_utf8(&bytes).is_err() {
                    bytes.pop();
                }
                let at = bytes.len();
                bytes.extend_from_slice(sequence);
                bytes.extend_from_slice(after.as_bytes());
                // Every set of kernels against the general path alone.
                let general = scan_with(Paths::general(), &markers, &bytes, u64::MAX, &[]);
                let mut fast = None;
                for paths in Paths::every_set() {
                    let got = scan_with(paths, &markers, &bytes, u64::MAX, &[]);
                    assert_eq!(got, general, "{sequence:02X?} after {at} bytes, {paths:?}");
                    fast = Some(got);
                }
                let fast = fast.unwrap_or(general);
                match std::str::from_utf8(&bytes) {
                    Ok(_) => assert_eq!(fast.error, None, "{sequence:02X?}"),
                    Err(e) => assert_eq!(
                        fast.error,
                        Some(ScanError::InvalidUtf8 {
                            offset: e.valid_up_to() as u64,
                            incomplete: false
                        }),
                        "{sequence:02X?} after {at} bytes"
                    ),
                }
            }
        }
    }
}

/// A sink that takes whole matches through `Sink::matched` (as the adapters and the CLI do)
/// sees the same matches and positions as one that takes `open`, `content` and `close`,
/// under any chunking and cap; and the scanner does hand out whole matches.
#[test]
fn whole_matches_equal_the_three_calls() {
    use core::ops::ControlFlow;
    use extract_between::{Capped, Collect, Collected, Pos, Scanner, Sink};
    use std::sync::atomic::{AtomicUsize, Ordering};

    static WHOLE: AtomicUsize = AtomicUsize::new(0);

    /// Builds whole matches itself; the rest goes to `Collect`.
    struct Whole(Collect);
    impl Sink for Whole {
        fn open(&mut self, m: Pos, c: Pos) -> ControlFlow<()> {
            self.0.open(m, c)
        }
        fn content(&mut self, f: &[u8]) -> ControlFlow<()> {
            self.0.content(f)
        }
        fn close(&mut self, c: Pos, m: Pos) -> ControlFlow<()> {
            self.0.close(c, m)
        }
        fn matched(&mut self, open: [Pos; 2], content: &[u8], close: [Pos; 2]) -> ControlFlow<()> {
            WHOLE.fetch_add(1, Ordering::Relaxed);
            self.0.matches.push(Collected {
                text: String::from_utf8(content.to_vec()).unwrap(),
                marker_start: open[0],
                content_start: open[1],
                content_end: close[0],
                marker_end: close[1],
            });
            ControlFlow::Continue(())
        }
    }

    fn prop(c: Case) -> TestResult {
        let markers = Markers::new(c.start.as_str(), c.end.as_str()).unwrap();
        let three = scan(&markers, c.text.as_bytes(), c.max_matches as u64, &c.chunks);
        let mut scanner = Scanner::new(&markers);
        let mut sink = Capped::new(Whole(Collect::default()), c.max_matches as u64);
        let (error, _) = extract_between::testing::feed_planned(
            &mut scanner,
            &mut sink,
            c.text.as_bytes(),
            &c.chunks,
        );
        let truncated = sink.truncated();
        let got = sink.into_inner().0.matches;
        TestResult::from_bool(
            error == three.error && truncated == three.truncated && got == three.matches,
        )
    }
    qc().quickcheck(prop as fn(Case) -> TestResult);
    assert!(WHOLE.load(Ordering::Relaxed) > 0, "no match came whole");
}
