//! The JSON contract: every kind of bad input gets `invalid_input` naming its field, valid
//! requests answer the card's output, unclosed markers answer the envelope with an offset.

use extract_between::request::{Outcome, execute};
use serde_json::{Value, json};

fn answer(body: &str) -> (Outcome, Value) {
    let reply = execute(body.as_bytes());
    let value: Value = serde_json::from_str(&reply.body).expect("reply is JSON");
    (reply.outcome, value)
}

fn field_error(body: &str) -> (Option<String>, String) {
    let (outcome, v) = answer(body);
    assert_eq!(outcome, Outcome::InvalidInput, "{body} -> {v}");
    assert_eq!(v["error"]["code"], "invalid_input", "{v}");
    (
        v["error"]["field"].as_str().map(str::to_owned),
        v["error"]["message"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn card_example_answers_the_cards_output() {
    let (outcome, v) = answer(r#"{"text": "pre[one]mid[two]post", "start": "[", "end": "]"}"#);
    assert_eq!(outcome, Outcome::Output);
    assert_eq!(v, json!({"matches": ["one", "two"], "truncated": false}));
}

#[test]
fn output_has_exactly_matches_and_truncated_in_order() {
    let reply = execute(br#"{"text":"[a]","start":"[","end":"]"}"#);
    assert_eq!(reply.body, r#"{"matches":["a"],"truncated":false}"#);
}

#[test]
fn integer_valued_numbers_are_integers() {
    for n in ["2", "2.0", "2e0", "0.2e1", "2.000"] {
        let body = format!(r#"{{"text":"[a][b][c]","start":"[","end":"]","max_matches":{n}}}"#);
        let (outcome, v) = answer(&body);
        assert_eq!(outcome, Outcome::Output, "{n}");
        assert_eq!(v, json!({"matches": ["a", "b"], "truncated": true}), "{n}");
    }
}

#[test]
fn max_matches_bounds_are_inclusive() {
    for n in [1, 1000] {
        let body = format!(r#"{{"text":"","start":"[","end":"]","max_matches":{n}}}"#);
        assert_eq!(answer(&body).0, Outcome::Output);
    }
}

#[test]
fn bad_max_matches_names_the_field() {
    for bad in [
        "0",
        "1001",
        "-1",
        "1.5",
        "\"5\"",
        "true",
        "null",
        "[]",
        "{}",
        "1e400",
        "-0",
        "0.5",
        "1000.5",
        "99999999999999999999999",
    ] {
        let body = format!(r#"{{"text":"a","start":"[","end":"]","max_matches":{bad}}}"#);
        let (field, message) = field_error(&body);
        assert_eq!(field.as_deref(), Some("max_matches"), "{bad}");
        assert!(
            message.contains("integer from 1 to 1000"),
            "{bad}: {message}"
        );
    }
}

#[test]
fn missing_required_fields_are_named() {
    assert_eq!(
        field_error(r#"{"start":"[","end":"]"}"#).0.as_deref(),
        Some("text")
    );
    assert_eq!(
        field_error(r#"{"text":"","end":"]"}"#).0.as_deref(),
        Some("start")
    );
    assert_eq!(
        field_error(r#"{"text":"","start":"["}"#).0.as_deref(),
        Some("end")
    );
    let (_, message) = field_error(r#"{"text":"","start":"["}"#);
    assert_eq!(message, "end is required");
}

#[test]
fn wrong_types_are_named() {
    for (field, bad) in [
        ("text", "1"),
        ("text", "null"),
        ("start", "[\"[\"]"),
        ("end", "true"),
        ("end", "{}"),
    ] {
        let mut v = json!({"text": "a", "start": "[", "end": "]"});
        v[field] = serde_json::from_str(bad).unwrap();
        let (got, message) = field_error(&v.to_string());
        assert_eq!(got.as_deref(), Some(field));
        assert!(
            message.starts_with(&format!("{field} must be a string")),
            "{message}"
        );
    }
}

#[test]
fn unknown_field_is_rejected_by_name() {
    let (field, message) = field_error(r#"{"text":"a","start":"[","end":"]","Text":"b"}"#);
    assert_eq!(field.as_deref(), Some("Text"));
    assert!(message.contains("unknown field"));
}

#[test]
fn repeated_field_is_rejected() {
    let (field, _) = field_error(r#"{"text":"a","start":"[","end":"]","end":")"}"#);
    assert_eq!(field.as_deref(), Some("end"));
}

#[test]
fn lone_surrogates_are_invalid_text() {
    for field in ["text", "start", "end"] {
        for bad in [r#""\ud800""#, r#""a\udc00b""#, r#""\ud83d""#] {
            let mut v = json!({"text": "a", "start": "[", "end": "]"});
            v[field] = json!("PLACEHOLDER");
            let body = v.to_string().replace("\"PLACEHOLDER\"", bad);
            let (got, message) = field_error(&body);
            assert_eq!(got.as_deref(), Some(field), "{body}");
            assert!(message.contains("lone surrogate"), "{message}");
        }
    }
    // A proper pair is fine: U+1F600.
    let (outcome, v) = answer(r#"{"text":"[\ud83d\ude00]","start":"[","end":"]"}"#);
    assert_eq!(outcome, Outcome::Output);
    assert_eq!(v["matches"][0], "😀");
}

#[test]
fn empty_markers_are_rejected() {
    assert_eq!(
        field_error(r#"{"text":"a","start":"","end":"]"}"#)
            .0
            .as_deref(),
        Some("start")
    );
    assert_eq!(
        field_error(r#"{"text":"a","start":"[","end":""}"#)
            .0
            .as_deref(),
        Some("end")
    );
}

#[test]
fn marker_byte_limit_binds() {
    let ok = json!({"text": "a", "start": "a".repeat(4096), "end": "]"});
    assert_eq!(answer(&ok.to_string()).0, Outcome::Output);
    let bad = json!({"text": "a", "start": "[", "end": "€".repeat(1366)});
    let (field, message) = field_error(&bad.to_string());
    assert_eq!(field.as_deref(), Some("end"));
    assert!(
        message.contains("4096") && message.contains("4098"),
        "{message}"
    );
}

#[test]
fn text_byte_limit_binds() {
    let ok = json!({"text": "\u{0}".repeat(256_000), "start": "[", "end": "]"});
    assert_eq!(answer(&ok.to_string()).0, Outcome::Output);
    let bad = json!({"text": "é".repeat(128_001), "start": "[", "end": "]"});
    let (field, message) = field_error(&bad.to_string());
    assert_eq!(field.as_deref(), Some("text"));
    assert!(
        message.contains("256000") && message.contains("256002"),
        "{message}"
    );
}

#[test]
fn malformed_bodies_are_invalid_input_without_field() {
    for body in [
        "",
        "   ",
        "{",
        "{\"text\": \"a\",}",
        "nope",
        "{\"text\":\"a\"} x",
        "\u{feff}{}",
    ] {
        let (field, message) = field_error(body);
        assert_eq!(field, None, "{body:?}");
        assert!(message.starts_with("request body"), "{message}");
    }
}

#[test]
fn a_byte_order_mark_is_named() {
    let (field, message) =
        field_error("\u{feff}{\"text\": \"[a]\", \"start\": \"[\", \"end\": \"]\"}");
    assert_eq!(field, None);
    assert!(message.contains("byte order mark"), "{message}");
}

#[test]
fn non_object_bodies_are_rejected() {
    for body in ["[]", "1", "\"text\"", "null", "true"] {
        let (field, message) = field_error(body);
        assert_eq!(field, None);
        assert!(message.contains("must be a JSON object"), "{message}");
    }
}

#[test]
fn invalid_utf8_body_is_invalid_input() {
    let reply = execute(b"{\"text\":\"\xff\",\"start\":\"[\",\"end\":\"]\"}");
    assert_eq!(reply.outcome, Outcome::InvalidInput);
    assert!(
        reply
            .body
            .contains("not valid UTF-8: invalid byte at offset 9"),
        "{}",
        reply.body
    );
}

#[test]
fn unclosed_start_marker_envelope_has_utf16_offset() {
    let (outcome, v) = answer(r#"{"text":"😀ab[c","start":"[","end":"]"}"#);
    assert_eq!(outcome, Outcome::Unclosed);
    assert_eq!(v["error"]["code"], "unclosed_start_marker");
    assert_eq!(v["error"]["message"], "unclosed start marker");
    assert_eq!(v["error"]["offset"], 4);
    assert_eq!(v["error"]["byte_offset"], 6);
}

#[test]
fn escapes_round_trip_through_the_output() {
    let text = "[\"\\\n\t\u{1}\u{7f}\u{2028}😀]";
    let body = json!({"text": text, "start": "[", "end": "]"}).to_string();
    let (_, v) = answer(&body);
    assert_eq!(v["matches"][0], &text[1..text.len() - 1]);
}

#[test]
fn truncated_with_default_cap() {
    let body = json!({"text": "[x]".repeat(101), "start": "[", "end": "]"}).to_string();
    let (_, v) = answer(&body);
    assert_eq!(v["matches"].as_array().unwrap().len(), 100);
    assert_eq!(v["truncated"], true);
}

#[test]
fn whitespace_around_members_is_fine() {
    let (outcome, v) = answer(
        "  { \"text\" :  \"[a]\" ,\n \"start\":\t\"[\" , \"end\" : \"]\", \"max_matches\" :  1E+2  }\n",
    );
    assert_eq!(outcome, Outcome::Output);
    assert_eq!(v, json!({"matches": ["a"], "truncated": false}));
}

/// The hand-written escaper is byte-for-byte serde_json's, for any string, in both its
/// forms (a `String` from a `&str`, bytes from bytes).
#[test]
fn json_escaping_matches_serde_json() {
    fn prop(s: String, controls: Vec<u8>) -> bool {
        let mut text = s;
        for c in controls {
            text.push(char::from(c % 0x20));
            text.push_str("\"\\\u{7f}\u{2028}😀");
        }
        let serde = serde_json::to_string(&text).unwrap();
        let mut ours = String::new();
        extract_between::__private::push_json_string(&mut ours, &text);
        let mut bytes = b"x".to_vec();
        extract_between::__private::push_json_bytes(&mut bytes, text.as_bytes());
        ours == serde && bytes[1..] == *serde.as_bytes()
    }
    quickcheck::QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(String, Vec<u8>) -> bool);
}

/// The offsets line reads like `format!` for numbers of every length (1 to 20 digits,
/// either side of 10^16, where the formatter changes method).
#[test]
fn push_offsets_formats_like_display() {
    fn prop(n: [u64; 4], shift: [u8; 4]) -> bool {
        let v: Vec<u64> = n
            .iter()
            .zip(shift)
            .map(|(&n, s)| match s % 70 {
                64 => 10_u64.pow(16) - 1,
                65 => 10_u64.pow(16),
                66 => 10_u64.pow(15),
                67 => 9,
                68 => 10,
                69 => 0,
                s => n >> s,
            })
            .collect();
        let (start, end) = (
            extract_between::Pos {
                byte: v[0],
                utf16: v[2],
            },
            extract_between::Pos {
                byte: v[1],
                utf16: v[3],
            },
        );
        let mut line = b"x".to_vec();
        extract_between::__private::push_offsets(&mut line, start, end);
        line == format!(
            "x,\"byte_start\":{},\"byte_end\":{},\"utf16_start\":{},\"utf16_end\":{}",
            v[0], v[1], v[2], v[3]
        )
        .into_bytes()
    }
    quickcheck::QuickCheck::new()
        .tests(5000)
        .quickcheck(prop as fn([u64; 4], [u8; 4]) -> bool);
    // Every digit count's edges, either side of the split into halves of eight digits.
    for k in 0..20 {
        let p = 10_u64.pow(k);
        for n in [p - 1, p, p + 1, p.saturating_mul(10) - 1] {
            let at = extract_between::Pos { byte: n, utf16: n };
            let mut line = Vec::new();
            extract_between::__private::push_offsets(&mut line, at, at);
            assert_eq!(
                String::from_utf8(line).unwrap(),
                format!(
                    ",\"byte_start\":{n},\"byte_end\":{n},\"utf16_start\":{n},\"utf16_end\":{n}"
                )
            );
        }
    }
}

/// The widest offsets line (every offset at its largest) fits and reads right.
#[test]
fn push_offsets_takes_the_largest_offsets() {
    let max = extract_between::Pos {
        byte: u64::MAX,
        utf16: u64::MAX,
    };
    let mut line = Vec::new();
    extract_between::__private::push_offsets(&mut line, max, max);
    let m = u64::MAX;
    assert_eq!(
        String::from_utf8(line).unwrap(),
        format!(",\"byte_start\":{m},\"byte_end\":{m},\"utf16_start\":{m},\"utf16_end\":{m}")
    );
}
