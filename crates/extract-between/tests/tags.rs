//! The tag set against its naive reference under any chunking: the steps, the unclosed pair,
//! losslessness, the spans, the carry; and its refusals.

use core::ops::ControlFlow;
use extract_between::tags::{TagError, TagEvent, TagEvents, TagScanner, TagSet, TagSink};
use extract_between::testing::tags::{Step, TagCase, reference, steps};
use extract_between::{Markers, Pos, ScanError};
use quickcheck::{QuickCheck, TestResult};

fn qc() -> QuickCheck {
    QuickCheck::new().tests(3000).max_tests(30000)
}

/// Feeds `bytes` in chunks cycling through `plan`, then finishes: the events, the error, the
/// largest carry seen after a feed.
fn feed(tags: &TagSet, bytes: &[u8], plan: &[usize]) -> (Vec<TagEvent>, Option<ScanError>, usize) {
    feed_with(TagScanner::new(tags), bytes, plan)
}

fn feed_with(
    mut scanner: TagScanner,
    bytes: &[u8],
    plan: &[usize],
) -> (Vec<TagEvent>, Option<ScanError>, usize) {
    let mut sink = TagEvents::new();
    let (mut events, mut carried, mut k, mut rest) = (Vec::new(), 0, 0, bytes);
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(plan[k % plan.len()].min(rest.len()));
        (k, rest) = (k + 1, tail);
        if let Err(e) = scanner.feed(chunk, &mut sink) {
            events.extend(sink.drain());
            return (events, Some(e), carried);
        }
        carried = carried.max(scanner.buffered());
        events.extend(sink.drain());
    }
    let error = scanner.finish(&mut sink).err();
    events.extend(sink.drain());
    (events, error, carried)
}

fn set(case: &TagCase) -> TagSet {
    TagSet::new(case.pairs.iter().cloned()).unwrap()
}

#[test]
fn events_equal_the_reference_under_any_chunking() {
    fn prop(c: TagCase) -> TestResult {
        let tags = set(&c);
        let (want, unclosed) = reference(&c.text, &c.pairs);
        let scanner = extract_between::testing::tags::scanner(&tags, c.whole_chunk);
        let (events, error, _) = feed_with(scanner, c.text.as_bytes(), &c.chunks);
        let got_unclosed = match error {
            None => None,
            Some(ScanError::Unclosed { marker }) => {
                let tag = events.iter().rev().find_map(TagEvent::tag);
                Some((tag.unwrap_or(usize::MAX), marker.byte as usize))
            }
            Some(e) => return TestResult::error(e.to_string()),
        };
        if steps(&events) != want || got_unclosed != unclosed {
            return TestResult::error(format!(
                "got {:?} {got_unclosed:?}, want {want:?} {unclosed:?}",
                steps(&events)
            ));
        }
        TestResult::passed()
    }
    qc().quickcheck(prop as fn(TagCase) -> TestResult);
}

#[test]
fn events_give_back_the_input_with_exact_spans() {
    fn prop(c: TagCase) -> bool {
        let tags = set(&c);
        let scanner = extract_between::testing::tags::scanner(&tags, c.whole_chunk);
        let (events, _, _) = feed_with(scanner, c.text.as_bytes(), &c.chunks);
        let mut rebuilt = String::new();
        let mut at = Pos::default();
        for event in &events {
            let piece = match event {
                TagEvent::Outside { text, .. } | TagEvent::Text { text, .. } => text.as_str(),
                TagEvent::Open { tag, .. } => tags.pair(*tag).start(),
                TagEvent::Close { tag, .. } => tags.pair(*tag).end(),
            };
            let [begin, end] = event.span();
            let units = piece.encode_utf16().count() as u64;
            if begin != at
                || end.byte - begin.byte != piece.len() as u64
                || end.utf16 - begin.utf16 != units
            {
                return false;
            }
            if piece.is_empty() {
                return false;
            }
            at = end;
            rebuilt.push_str(piece);
        }
        rebuilt == c.text
    }
    qc().quickcheck(prop as fn(TagCase) -> bool);
}

#[test]
fn the_carry_never_exceeds_the_longest_marker_and_a_cut_character() {
    fn prop(c: TagCase) -> bool {
        let tags = set(&c);
        let scanner = extract_between::testing::tags::scanner(&tags, c.whole_chunk);
        let (_, _, carried) = feed_with(scanner, c.text.as_bytes(), &c.chunks);
        carried < tags.max_len() + 3
    }
    qc().quickcheck(prop as fn(TagCase) -> bool);
}

#[test]
fn find_all_equals_the_reference_matches() {
    fn prop(c: TagCase) -> bool {
        let tags = set(&c);
        let (want, unclosed) = reference(&c.text, &c.pairs);
        let mut expected: Vec<(usize, String)> = Vec::new();
        for step in &want {
            match step {
                Step::Open(tag) => expected.push((*tag, String::new())),
                Step::Text(_, text) => expected.last_mut().unwrap().1.push_str(text),
                _ => {}
            }
        }
        if unclosed.is_some() {
            expected.pop();
        }
        let (found, error) = match tags.find_all(&c.text) {
            Ok(found) => (found, None),
            Err(e) => (e.matches.clone(), Some((e.tag, e.marker.byte as usize))),
        };
        let found: Vec<(usize, String)> =
            found.iter().map(|m| (m.tag, m.text.to_owned())).collect();
        found == expected && error == unclosed
    }
    qc().quickcheck(prop as fn(TagCase) -> bool);
}

/// One pair is exactly the card's pair: the tag set finds what `extract` finds.
#[test]
fn one_pair_is_the_cards_pair() {
    fn prop(c: TagCase) -> bool {
        let (start, end) = c.pairs[0].clone();
        let tags = TagSet::new([(start.clone(), end.clone())]).unwrap();
        let markers = Markers::new(start, end).unwrap();
        let card = extract_between::Extractor::new(&markers)
            .max_matches(extract_between::card::MAX_MATCHES)
            .unwrap()
            .extract(&c.text);
        match (tags.find_all(&c.text), card) {
            (Ok(found), Ok(out)) => found.iter().map(|m| m.text).eq(out.matches.iter().copied()),
            (Err(e), Err(extract_between::ExtractError::Unclosed { marker, .. })) => {
                e.marker.byte == marker.byte
            }
            _ => false,
        }
    }
    qc().quickcheck(prop as fn(TagCase) -> bool);
}

#[test]
fn where_several_starts_begin_at_one_place_the_longest_wins() {
    let tags = TagSet::new([("<a", ">"), ("<ab", "|"), ("<abc", "!")]).unwrap();
    let found = tags.find_all("<abc!x <ab| <ax>").unwrap();
    let got: Vec<_> = found.iter().map(|m| (m.tag, m.text)).collect();
    assert_eq!(got, [(2, ""), (1, ""), (0, "x")]);
    // Cut after "<ab": the scanner waits for the byte that decides between pairs 1 and 2.
    let (events, error, _) = feed(&tags, b"<abc!", &[3, 1, 1]);
    assert!(error.is_none());
    assert_eq!(
        events[0],
        TagEvent::Open {
            tag: 2,
            span: [Pos { byte: 0, utf16: 0 }, Pos { byte: 4, utf16: 4 }]
        }
    );
}

#[test]
fn starts_inside_a_match_are_its_text_and_an_end_may_be_another_start() {
    let tags = TagSet::new([("<think>", "</think>"), ("</think>", "\n")]).unwrap();
    let found = tags
        .find_all("<think>a<think>b</think>c</think>d\n")
        .unwrap();
    let got: Vec<_> = found.iter().map(|m| (m.tag, m.text)).collect();
    assert_eq!(got, [(0, "a<think>b"), (1, "d")]);
}

#[test]
fn an_invalid_byte_is_an_error_after_everything_before_it() {
    let tags = TagSet::new([("[", "]")]).unwrap();
    let (events, error, _) = feed(&tags, b"x[a]y[b\xffc]", &[4]);
    assert_eq!(
        error,
        Some(ScanError::InvalidUtf8 {
            offset: 7,
            incomplete: false
        })
    );
    let kinds: Vec<_> = steps(&events);
    assert_eq!(
        kinds,
        [
            Step::Outside("x".into()),
            Step::Open(0),
            Step::Text(0, "a".into()),
            Step::Close(0),
            Step::Outside("y".into()),
            Step::Open(0),
            Step::Text(0, "b".into()),
        ]
    );
    let (_, error, _) = feed(&tags, "a€".as_bytes().split_last().unwrap().1, &[1]);
    assert_eq!(
        error,
        Some(ScanError::InvalidUtf8 {
            offset: 1,
            incomplete: true
        })
    );
}

#[test]
fn outside_text_is_not_held_longer_than_a_marker_prefix() {
    let tags = TagSet::new([("<think>", "</think>"), ("<tool_call>", "</tool_call>")]).unwrap();
    let mut scanner = TagScanner::new(&tags);
    let mut sink = TagEvents::new();
    assert!(scanner.feed(b"It is 4.", &mut sink).unwrap().is_continue());
    assert_eq!(scanner.buffered(), 0);
    assert_eq!(
        sink.drain()
            .map(|e| e.text().unwrap().to_owned())
            .collect::<String>(),
        "It is 4."
    );
    assert!(scanner.feed(b" <t", &mut sink).unwrap().is_continue());
    assert_eq!(scanner.buffered(), 2);
    assert!(scanner.feed(b"o", &mut sink).unwrap().is_continue());
    assert_eq!(scanner.buffered(), 3, "<to may begin <tool_call>");
    assert!(scanner.feed(b"p", &mut sink).unwrap().is_continue());
    assert_eq!(scanner.buffered(), 0, "<top begins no marker");
}

#[test]
fn a_sink_that_breaks_stops_the_scan() {
    struct FirstOpen(Vec<usize>);
    impl TagSink for FirstOpen {
        fn open(&mut self, tag: usize, _: [Pos; 2]) -> ControlFlow<()> {
            self.0.push(tag);
            ControlFlow::Break(())
        }
        fn text(&mut self, _: usize, _: &str, _: [Pos; 2]) -> ControlFlow<()> {
            ControlFlow::Continue(())
        }
        fn close(&mut self, _: usize, _: [Pos; 2]) -> ControlFlow<()> {
            ControlFlow::Continue(())
        }
    }
    let tags = TagSet::new([("[", "]"), ("(", ")")]).unwrap();
    let mut scanner = TagScanner::new(&tags);
    let mut sink = FirstOpen(Vec::new());
    assert!(scanner.feed(b"a(b)[c]", &mut sink).unwrap().is_break());
    assert!(scanner.feed(b"[d]", &mut sink).unwrap().is_break());
    assert_eq!(scanner.finish(&mut sink), Ok(()));
    assert_eq!(sink.0, [1]);
}

#[test]
fn bad_sets_name_the_pair_and_the_marker() {
    let none: [(&str, &str); 0] = [];
    assert_eq!(TagSet::new(none).unwrap_err(), TagError::NoPairs);
    let many: Vec<(String, &str)> = (0..65).map(|i| (format!("<{i}>"), "</>")).collect();
    let err = TagSet::new(many).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a tag set holds at most 64 pairs (it has 65)"
    );
    let err = TagSet::new([("[", "]"), ("(", "")]).unwrap_err();
    assert_eq!(err.to_string(), "pair 1's end must be a non-empty string");
    let long = "x".repeat(4097);
    let err = TagSet::new([("[", "]"), (long.as_str(), ")")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "pair 1's start must be at most 4096 UTF-8 bytes long (it is 4097 bytes)"
    );
    let err = TagSet::new([("[", "]"), ("(", ")"), ("[", ")")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "pair 2's start marker \"[\" is pair 0's: start markers must be distinct"
    );
    assert!(TagSet::new((0..64).map(|i| (format!("<{i}>"), "</>"))).is_ok());
}

/// Found by the fuzz target: an invalid byte in the chunk that decides a carried prefix.
#[test]
fn an_invalid_byte_after_a_carried_prefix_is_named_exactly() {
    let tags = TagSet::new([("\0\u{FFFD}", "P")]).unwrap();
    let (events, error, _) = feed(&tags, &[0, 0, 0, 1, 0, 0, 0, 154, 80], &[2]);
    assert_eq!(
        error,
        Some(ScanError::InvalidUtf8 {
            offset: 7,
            incomplete: false
        })
    );
    assert_eq!(steps(&events), [Step::Outside("\0\0\0\u{1}\0\0\0".into())]);
}

/// The shared vectors (`testdata/tags.json`, written by `testdata/tags.py` from the rule, and
/// read by Python's and JavaScript's suites too): each feed's exact events.
#[test]
fn the_shared_vectors_answer_feed_by_feed() {
    use serde_json::{Value, json};
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/tags.json");
    let doc = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: Value = serde_json::from_str(&doc).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 20);
    for case in cases {
        let pairs: Vec<(String, String)> = case["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p[0].as_str().unwrap().to_owned(),
                    p[1].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let tags = TagSet::new(pairs).unwrap();
        let mut scanner = TagScanner::new(&tags);
        let mut sink = if case["outside"].as_bool().unwrap() {
            TagEvents::new()
        } else {
            TagEvents::without_outside()
        };
        let as_json = |sink: &mut TagEvents| -> Value {
            sink.drain()
                .map(|e| {
                    let [a, b] = e.span();
                    let mut v = json!({"kind": e.kind(), "tag": e.tag(), "utf16": [a.utf16, b.utf16], "bytes": [a.byte, b.byte]});
                    if let Some(text) = e.text() {
                        v["text"] = json!(text);
                    }
                    v
                })
                .collect()
        };
        let mut answers = Vec::new();
        for chunk in case["chunks"].as_array().unwrap() {
            let flow = scanner.feed(chunk.as_str().unwrap().as_bytes(), &mut sink);
            assert!(flow.unwrap().is_continue());
            answers.push(as_json(&mut sink));
        }
        let error = match scanner.finish(&mut sink) {
            Ok(()) => Value::Null,
            Err(ScanError::Unclosed { marker }) => {
                json!({"tag": scanner.open_tag(), "utf16": marker.utf16, "bytes": marker.byte})
            }
            Err(e) => panic!("{}: {e}", case["name"]),
        };
        answers.push(as_json(&mut sink));
        assert_eq!(Value::Array(answers), case["answers"], "{}", case["name"]);
        assert_eq!(error, case["error"], "{}", case["name"]);
    }
}
