//! One named test per sentence of the card's `semantics`, per consequence in DESIGN.md §2,
//! and the card's example. Each runs one-shot `extract`, the scanner (whole and in 1-byte
//! chunks) and the naive UTF-16 reference, which must all agree.

use crate::common::scan;
use extract_between::card::{self, CARD_JSON};
use extract_between::{
    ExtractError, Extractor, MarkerError, Markers, Pos, ScanError, Which, extract,
    testing::reference,
};

/// Runs all three implementations; returns extract's answer after checking the others agree.
fn run(text: &str, start: &str, end: &str, max: usize) -> Result<(Vec<String>, bool), u64> {
    let markers = Markers::new(start, end).unwrap();
    let ours = match Extractor::new(&markers)
        .max_matches(max)
        .unwrap()
        .extract(text)
    {
        Ok(out) => Ok((
            out.matches
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>(),
            out.truncated,
        )),
        Err(ExtractError::Unclosed { marker, .. }) => Err(marker.utf16),
        Err(e) => panic!("unexpected error {e}"),
    };
    let reference = reference::extract(text, start, end, max)
        .map(|(m, t)| {
            (
                m.iter()
                    .map(|u| String::from_utf16(u).unwrap())
                    .collect::<Vec<_>>(),
                t,
            )
        })
        .map_err(|o| o as u64);
    assert_eq!(ours, reference, "extract vs reference");
    for plan in [&[][..], &[1][..], &[2, 3][..]] {
        let s = scan(&markers, text.as_bytes(), max as u64, plan);
        let got = match s.error {
            None => Ok((
                s.matches.iter().map(|m| m.text.clone()).collect::<Vec<_>>(),
                s.truncated,
            )),
            Some(ScanError::Unclosed { marker }) => Err(marker.utf16),
            Some(e) => panic!("unexpected scan error {e}"),
        };
        assert_eq!(got, ours, "scanner with plan {plan:?}");
    }
    ours
}

fn ok(matches: &[&str], truncated: bool) -> Result<(Vec<String>, bool), u64> {
    Ok((matches.iter().map(|s| s.to_string()).collect(), truncated))
}

#[test]
fn card_example() {
    assert_eq!(
        run("pre[one]mid[two]post", "[", "]", 100),
        ok(&["one", "two"], false)
    );
}

#[test]
fn limits_equal_the_card() {
    let card: serde_json::Value = serde_json::from_str(CARD_JSON).unwrap();
    let limits = &card["limits"];
    assert_eq!(limits["max_text_bytes"], card::MAX_TEXT_BYTES);
    assert_eq!(limits["max_marker_bytes"], card::MAX_MARKER_BYTES);
    assert_eq!(limits["default_max_matches"], card::DEFAULT_MAX_MATCHES);
    assert_eq!(limits["max_matches"], card::MAX_MATCHES);
    assert_eq!(card["id"], card::TOOL_ID);
    assert_eq!(card["version"], card::TOOL_VERSION);
    assert_eq!(card["execute_url"], card::EXECUTE_URL);
    let props = &card["input_schema"]["properties"];
    assert_eq!(props["max_matches"]["maximum"], card::MAX_MATCHES);
    assert_eq!(props["start"]["maxLength"], card::MAX_MARKER_BYTES);
    assert_eq!(props["text"]["maxLength"], card::MAX_TEXT_BYTES);
}

// "text is a UTF-8 bounded string of at most 250 KiB."
#[test]
fn text_of_exactly_256000_bytes_is_accepted_and_one_more_rejected() {
    let text = "x".repeat(card::MAX_TEXT_BYTES - 3) + "[y]";
    assert_eq!(extract(&text, "[", "]").unwrap().matches, ["y"]);
    let longer = text.clone() + "z";
    assert_eq!(
        extract(&longer, "[", "]").unwrap_err(),
        ExtractError::TextTooLong {
            len: 256_001,
            limit: 256_000
        }
    );
    // Bytes bind, not characters: 85334 three-byte characters are 256002 bytes.
    assert!(extract(&"€".repeat(85_334), "[", "]").is_err());
}

// "Empty text yields matches [] and truncated false."
#[test]
fn empty_text_yields_no_matches_and_not_truncated() {
    assert_eq!(run("", "[", "]", 100), ok(&[], false));
    assert_eq!(run("", "x", "x", 1), ok(&[], false));
}

// "start and end are non-empty literal strings of at most 4096 UTF-8 bytes."
#[test]
fn markers_must_be_non_empty() {
    assert_eq!(Markers::new("", "]"), Err(MarkerError::Empty(Which::Start)));
    assert_eq!(Markers::new("[", ""), Err(MarkerError::Empty(Which::End)));
}

#[test]
fn markers_limit_is_4096_bytes_not_characters() {
    assert!(Markers::new("a".repeat(4096), "]").is_ok());
    assert_eq!(
        Markers::new("a".repeat(4097), "]"),
        Err(MarkerError::TooLong {
            which: Which::Start,
            len: 4097
        })
    );
    // 1366 three-byte characters: within a 4096-character limit, but 4098 bytes.
    assert_eq!(
        Markers::new("[", "€".repeat(1366)),
        Err(MarkerError::TooLong {
            which: Which::End,
            len: 4098
        })
    );
    let long = "€".repeat(1365); // 4095 bytes
    let text = format!("a{long}x{long}b");
    assert_eq!(run(&text, &long, &long, 100), ok(&["x"], false));
}

#[test]
fn markers_are_literal_not_regex() {
    assert_eq!(run("a.*b(.*)c", "(", ")", 100), ok(&[".*"], false));
    assert_eq!(run("x.y", ".", ".", 100), Err(1));
}

// "They may be equal." / "If start equals end, each pair of consecutive occurrences yields
// the contents between them, which may be empty."
#[test]
fn equal_markers_pair_consecutive_occurrences() {
    assert_eq!(run("|a|b|c|", "|", "|", 100), ok(&["a", "c"], false));
    assert_eq!(run("||x||", "|", "|", 100), ok(&["", ""], false));
    assert_eq!(
        run("\"q\" and \"r\"", "\"", "\"", 100),
        ok(&["q", "r"], false)
    );
}

#[test]
fn equal_markers_with_odd_count_are_unclosed() {
    assert_eq!(run("|a|b|c", "|", "|", 100), Err(4));
    assert_eq!(run("|", "|", "|", 100), Err(0));
}

// "Search is exact UTF-16 code-unit equality, left to right, without regex, case folding, or
// Unicode normalization."
#[test]
fn no_case_folding() {
    assert_eq!(
        run("<B>x</B><b>y</b>", "<b>", "</b>", 100),
        ok(&["y"], false)
    );
}

#[test]
fn no_unicode_normalization() {
    // "é" precomposed (U+00E9) is not "e" + combining acute (U+0065 U+0301).
    let text = "[\u{e9}]x[e\u{301}]";
    assert_eq!(run(text, "\u{e9}", "]", 100), ok(&[""], false));
    assert_eq!(run(text, "e\u{301}", "]", 100), ok(&[""], false));
    assert_eq!(run("ae\u{301}b", "e", "b", 100), ok(&["\u{301}"], false));
}

#[test]
fn astral_characters_count_as_two_code_units() {
    // The unclosed offset is in UTF-16 code units: the emoji before it counts two.
    assert_eq!(run("😀[x", "[", "]", 100), Err(2));
    assert_eq!(run("😀「😀」😀", "「", "」", 100), ok(&["😀"], false));
    let text = "a😀[b";
    let err = extract(text, "[", "]").unwrap_err();
    assert_eq!(
        err,
        ExtractError::Unclosed {
            marker: Pos { byte: 5, utf16: 3 },
            matches: vec![]
        }
    );
}

#[test]
fn leftmost_occurrence_wins() {
    assert_eq!(run("aaab", "aa", "b", 100), ok(&["a"], false));
    assert_eq!(run("xxx]]", "x", "]", 100), ok(&["xx"], false));
}

// "After a complete match, search continues after the end marker so matches never overlap."
#[test]
fn search_continues_after_the_end_marker() {
    assert_eq!(run("[a]b][c]", "[", "]", 100), ok(&["a", "c"], false));
    assert_eq!(run("<a><b>", "<", ">", 100), ok(&["a", "b"], false));
    // The end marker's bytes cannot begin the next start.
    assert_eq!(run("ab-ba-b", "a", "a", 100), ok(&["b-b"], false));
}

// "Nested markers inside a match are not treated as new starts."
#[test]
fn nested_starts_are_content() {
    assert_eq!(run("[a[b]c]", "[", "]", 100), ok(&["a[b"], false));
    assert_eq!(run("((x))", "(", ")", 100), ok(&["(x"], false));
}

// DESIGN §2: the end marker is searched from just after the start marker.
#[test]
fn end_marker_is_searched_after_the_start_marker() {
    assert_eq!(run("<!-->", "<!--", "-->", 100), Err(0));
    assert_eq!(run("<!---->", "<!--", "-->", 100), ok(&[""], false));
    assert_eq!(run("abc", "ab", "bc", 100), Err(0));
    assert_eq!(run("x]y[z]", "[", "]", 100), ok(&["z"], false));
}

// "If a start marker is found and no end marker follows it, the tool throws unclosed start
// marker."
#[test]
fn start_without_end_is_unclosed() {
    assert_eq!(run("ab[cd", "[", "]", 100), Err(2));
    assert_eq!(run("[a] [b", "[", "]", 100), Err(4));
}

#[test]
fn end_without_start_is_ignored() {
    assert_eq!(run("a]b]c", "[", "]", 100), ok(&[], false));
}

#[test]
fn unclosed_error_still_delivers_earlier_matches() {
    let err = extract("[a][b][c", "[", "]").unwrap_err();
    assert_eq!(
        err,
        ExtractError::Unclosed {
            marker: Pos { byte: 6, utf16: 6 },
            matches: vec!["a", "b"]
        }
    );
}

// "max_matches is a JSON integer 1..1000 and defaults to 100. At most that many matches are
// returned."
#[test]
fn max_matches_defaults_to_100() {
    let text = "[x]".repeat(150);
    let out = extract(&text, "[", "]").unwrap();
    assert_eq!(out.matches.len(), 100);
    assert!(out.truncated);
}

#[test]
fn max_matches_range_is_1_to_1000() {
    let ex = Extractor::new(&Markers::new("[", "]").unwrap());
    assert_eq!(
        ex.clone().max_matches(0).unwrap_err(),
        ExtractError::MaxMatches(0)
    );
    assert_eq!(
        ex.clone().max_matches(1001).unwrap_err(),
        ExtractError::MaxMatches(1001)
    );
    let text = "[x]".repeat(1001);
    let out = ex.max_matches(1000).unwrap().extract(&text).unwrap();
    assert_eq!((out.matches.len(), out.truncated), (1000, true));
}

#[test]
fn max_matches_one_returns_one() {
    assert_eq!(run("[a][b]", "[", "]", 1), ok(&["a"], true));
}

// "truncated is true when at least one further complete match exists after max_matches were
// collected; exceeding the cap does not throw."
#[test]
fn exactly_max_matches_is_not_truncated() {
    assert_eq!(run("[a][b]", "[", "]", 2), ok(&["a", "b"], false));
    assert_eq!(
        run("[a][b] trailing ] text", "[", "]", 2),
        ok(&["a", "b"], false)
    );
}

#[test]
fn one_more_complete_match_sets_truncated() {
    assert_eq!(run("[a][b][c]", "[", "]", 2), ok(&["a", "b"], true));
    assert_eq!(run("[a][b][c][d][e]", "[", "]", 2), ok(&["a", "b"], true));
}

// DESIGN §2: an unclosed start found while looking for the one extra match still fails.
#[test]
fn unclosed_start_after_the_cap_still_fails() {
    assert_eq!(run("[a][b][c", "[", "]", 2), Err(6));
}

// DESIGN §2: after the cap and one more complete match, nothing further is read.
#[test]
fn nothing_is_judged_after_the_extra_match() {
    assert_eq!(
        run("[a][b][c] [unclosed", "[", "]", 2),
        ok(&["a", "b"], true)
    );
    // The scanner is stopped and reads nothing more: not even invalid UTF-8 is seen.
    let markers = Markers::new("[", "]").unwrap();
    let mut bytes = b"[a][b][c]".to_vec();
    bytes.extend_from_slice(&[0xFF, b'[']);
    let s = scan(&markers, &bytes, 2, &[1]);
    assert_eq!((s.matches.len(), s.truncated, s.error), (2, true, None));
}

#[test]
fn empty_content_is_a_match() {
    assert_eq!(run("[][]", "[", "]", 100), ok(&["", ""], false));
}

#[test]
fn multi_byte_markers_and_content() {
    assert_eq!(
        run("前「一」中「二」後", "「", "」", 100),
        ok(&["一", "二"], false)
    );
    assert_eq!(run("😀a😀b😀c😀", "😀", "😀", 100), ok(&["a", "c"], false));
}

/// Markers of up to 32 ASCII bytes are probed in blocks, longer ones searched with `memmem`;
/// both find the same matches, in text full of near misses of the markers.
#[test]
fn ascii_markers_either_side_of_the_probe_limit() {
    for k in [14, 15, 16, 31] {
        let body = "xy".repeat(k);
        let (start, end) = (format!("<{body}>"), format!("</{body}>"));
        // One byte short, and one byte changed in the middle.
        let mut changed = body.clone().into_bytes();
        changed[k] = b'z';
        let changed = String::from_utf8(changed).unwrap();
        let near_miss = format!("<{}><{changed}></{changed}>", &body[1..]);
        let mut text = String::new();
        for i in 0..20 {
            text += &"xy".repeat(40 + i);
            text += &near_miss;
            text += &format!("{start}content {i}{end}");
        }
        let expected: Vec<String> = (0..20).map(|i| format!("content {i}")).collect();
        assert_eq!(
            run(&text, &start, &end, 1000),
            Ok((expected, false)),
            "markers of {} bytes",
            start.len()
        );
    }
}
