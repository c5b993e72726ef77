//! The events form: the events stream over the shared test vectors (`testdata/events.json`,
//! which the Python and JavaScript suites read too), so every binding emits the same events
//! for the same chunks.

use bytes::Bytes;
use extract_between::events::Event;
use extract_between::stream::{Error, events};
use extract_between::{Markers, ScanError};
use futures::StreamExt;
use futures::executor::block_on;
use serde_json::{Value, json};

fn vectors() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/events.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str::<Vec<Value>>(&text).unwrap()
}

fn chunks(case: &Value) -> Vec<Bytes> {
    if let Some(hex) = case.get("byte_chunks") {
        let bytes = |s: &str| {
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
                .collect::<Vec<u8>>()
        };
        return hex
            .as_array()
            .unwrap()
            .iter()
            .map(|c| Bytes::from(bytes(c.as_str().unwrap())))
            .collect();
    }
    case["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Bytes::from(c.as_str().unwrap().to_owned()))
        .collect()
}

fn as_json(event: &Event) -> Value {
    let span = |a: extract_between::Pos, b: extract_between::Pos| {
        (json!([a.byte, b.byte]), json!([a.utf16, b.utf16]))
    };
    match event {
        Event::Open { marker, content } => {
            let (bytes, utf16) = span(*marker, *content);
            json!({"kind": "open", "bytes": bytes, "utf16": utf16})
        }
        Event::Text { text, start, end } => {
            let (bytes, utf16) = span(*start, *end);
            json!({"kind": "text", "text": text, "bytes": bytes, "utf16": utf16})
        }
        Event::Close {
            content_end,
            marker_end,
        } => {
            let (bytes, utf16) = span(*content_end, *marker_end);
            json!({"kind": "close", "bytes": bytes, "utf16": utf16})
        }
    }
}

#[test]
fn the_events_stream_gives_the_shared_vectors_events() {
    let all = vectors();
    assert!(all.len() >= 8);
    for case in all {
        let markers = Markers::new(
            case["start"].as_str().unwrap(),
            case["end"].as_str().unwrap(),
        )
        .unwrap();
        let source = futures::stream::iter(chunks(&case).into_iter().map(Ok::<_, std::io::Error>));
        let items: Vec<_> = block_on(events(source, &markers).collect());
        let mut got = Vec::new();
        let mut error = Value::Null;
        for item in items {
            match item {
                Ok(event) => got.push(as_json(&event)),
                Err(Error::Scan(ScanError::Unclosed { marker })) => {
                    error = json!({"unclosed": [marker.byte, marker.utf16]});
                }
                Err(e) => panic!("{}: {e}", case["name"]),
            }
        }
        assert_eq!(Value::Array(got), case["events"], "{}", case["name"]);
        assert_eq!(error, case["error"], "{}", case["name"]);
    }
}
