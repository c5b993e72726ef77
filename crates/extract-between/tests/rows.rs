//! The row API against the row contract's shared vectors (`testdata/rows.json`, written from
//! the card's loop by `testdata/rows.py`; every host's suite runs the same file): each case's
//! options parsed by `RowOptions`, each row scanned by `RowScanner`, the answers, classes,
//! words and matches before an error compared.

use extract_between::Markers;
use extract_between::rows::{RowAnswer, RowOptions, RowPlace, RowScanner, Spelling};
use serde_json::{Value, json};

fn cases() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rows.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let file: Value = serde_json::from_str(&text).unwrap();
    file["cases"].as_array().unwrap().clone()
}

/// A row's bytes: a string, or `{"utf8_hex": …}` for bytes that are not UTF-8.
fn row_bytes(row: &Value) -> Option<Vec<u8>> {
    match row {
        Value::Null => None,
        Value::String(s) => Some(s.as_bytes().to_vec()),
        other => {
            let hex = other["utf8_hex"].as_str().unwrap();
            let byte = |i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
            Some((0..hex.len()).step_by(2).map(byte).collect())
        }
    }
}

/// A cap as the JSON holds it (any integer a host may hand over fits an `i128`).
fn cap(case: &Value) -> Option<i128> {
    let value = case.get("max_matches")?;
    Some(match value.as_i64() {
        Some(n) => i128::from(n),
        None => i128::from(value.as_u64().expect("an integer")),
    })
}

/// A column function's answer to `rows`, in the vectors' form.
fn column(scanner: &mut RowScanner, rows: &[Value]) -> Value {
    let mut answers = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let Some(bytes) = row_bytes(row) else {
            answers.push(Value::Null);
            continue;
        };
        let mut spans = Vec::new();
        let text = |spans: &[std::ops::Range<usize>]| -> Vec<String> {
            let cut = |s: &std::ops::Range<usize>| String::from_utf8(bytes[s.clone()].to_vec());
            spans.iter().map(|s| cut(s).unwrap()).collect()
        };
        match scanner.scan(&bytes, &mut spans) {
            Ok(RowAnswer::Matches { truncated }) => {
                answers.push(json!({"matches": text(&spans), "truncated": truncated}));
            }
            Ok(RowAnswer::Null) => answers.push(Value::Null),
            Err(e) => {
                // The row's place is the host's; the words without one are the library's.
                assert_eq!(
                    e.at(RowPlace::Column(i)).to_string(),
                    format!("row {i}: {e}")
                );
                return json!({"error": {
                    "class": e.class(), "message": e.to_string(), "matches": text(&spans), "row": i,
                }});
            }
        }
    }
    json!({ "rows": answers })
}

/// `extract_between_first`'s answer from the one-match scan's.
fn first_of(all: Value) -> Value {
    let Some(rows) = all.get("rows") else {
        return all;
    };
    let firsts = rows.as_array().unwrap().iter().map(|r| match r {
        Value::Null => Value::Null,
        r => r["matches"].get(0).cloned().unwrap_or(Value::Null),
    });
    json!({ "rows": firsts.collect::<Vec<_>>() })
}

#[test]
fn every_case_of_the_shared_row_vectors_answers_as_the_card_says() {
    let cases = cases();
    assert!(cases.len() > 100, "the vectors are there");
    for case in cases {
        let name = &case["name"];
        let markers = Markers::new(
            case["start"].as_str().unwrap(),
            case["end"].as_str().unwrap(),
        )
        .unwrap();
        let policy = case
            .get("on_unclosed")
            .map(|p| p.as_str().unwrap().as_bytes());
        let options = match RowOptions::parse(cap(&case), policy) {
            Ok(options) => options,
            Err(e) => {
                let expected = &case["all"]["error"];
                assert_eq!(expected["class"], "InvalidInput", "{name}: {e}");
                let messages = &expected["messages"];
                assert_eq!(messages["python"], e.spelled(Spelling::PYTHON).to_string());
                assert_eq!(messages["sql"], e.spelled(Spelling::SQL).to_string());
                let js = e.spelled(Spelling::JAVASCRIPT).to_string();
                assert_eq!(messages["javascript"], js, "{name}");
                continue;
            }
        };
        let rows = case["rows"].as_array().unwrap();
        let mut scanner = RowScanner::new(&markers, options);
        assert_eq!(column(&mut scanner, rows), case["all"], "{case}");
        let one = RowOptions {
            max_matches: core::num::NonZeroU64::new(1),
            ..options
        };
        let mut first = RowScanner::new(&markers, one);
        assert_eq!(first_of(column(&mut first, rows)), case["first"], "{case}");
    }
}

#[test]
fn the_sql_functions_are_documented_as_described() {
    use extract_between::rows::sql::FUNCTIONS;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/SCALING.md");
    let doc = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    for function in FUNCTIONS {
        let row = format!(
            "| `{}` | `{}` / `{}` | {} |",
            function.signature(),
            function.returns.duckdb(),
            function.returns.spark(),
            function.doc
        );
        assert!(doc.contains(&row), "docs/SCALING.md lacks the row\n{row}");
    }
}
