//! Every error the service answers is what `/openapi.json` declares: each key of the error
//! object is a declared property of the `Error` schema, of the declared type, and the required
//! keys are there. The errors come from the random cases the library's properties draw (the
//! unclosed ones), every kind of bad request, a body past the limit, and the stream route's
//! error lines.

use crate::common::http::{Server, TOOL, get, ndjson, request};
use extract_between::testing::Case;
use quickcheck::{Arbitrary, Gen};
use serde_json::{Value, json};

/// The keys of `error` the schema does not declare, or declares with another type.
fn undeclared(schema: &Value, answer: &Value) -> Vec<String> {
    let error = &schema["properties"]["error"];
    let mut wrong = Vec::new();
    for key in error["required"].as_array().unwrap() {
        if answer["error"].get(key.as_str().unwrap()).is_none() {
            wrong.push(format!("required {key} missing"));
        }
    }
    for (key, value) in answer["error"].as_object().unwrap() {
        let kind = match value {
            Value::String(_) => "string",
            Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
            _ => "other",
        };
        match error["properties"][key]["type"].as_str() {
            Some(declared) if declared == kind => {}
            Some(declared) => wrong.push(format!("{key} is {kind}, declared {declared}")),
            None => wrong.push(format!("{key} is not declared")),
        }
    }
    wrong
}

#[test]
fn every_error_the_service_answers_is_declared_by_the_openapi_error_schema() {
    let server = Server::start(&[]);
    let schema = get(&server, "/openapi.json").json()["components"]["schemas"]["Error"].clone();
    let execute = format!("{TOOL}/execute");
    let mut bodies: Vec<Vec<u8>> = Vec::new();
    let mut g = Gen::new(40);
    for _ in 0..300 {
        let case = Case::arbitrary(&mut g);
        let body = json!({"text": case.text, "start": case.start, "end": case.end});
        bodies.push(body.to_string().into_bytes());
    }
    for bad in [
        "not json",
        "{}",
        r#"{"text":"x","start":"[","end":"]","extra":1}"#,
        r#"{"text":"x","start":"","end":"]"}"#,
        r#"{"text":"x","start":"[","end":"]","max_matches":0}"#,
        r#"{"text":"x","start":"[","end":"]","max_matches":"5"}"#,
        r#"{"text":"\ud800","start":"[","end":"]"}"#,
        r#"{"text":"a [b","start":"[","end":"]"}"#,
    ] {
        bodies.push(bad.as_bytes().to_vec());
    }
    bodies.push(vec![b' '; 4 * 1024 * 1024 + 1]);
    let mut errors = 0;
    for body in &bodies {
        let r = request(&server, "POST", &execute, &[], body);
        if r.status == 200 {
            continue;
        }
        errors += 1;
        let answer = r.json();
        let wrong = undeclared(&schema, &answer);
        assert!(wrong.is_empty(), "{answer}: {wrong:?}");
    }
    let stream = |query: &str, body: &[u8]| {
        let lines = ndjson(
            &request(
                &server,
                "POST",
                &format!("{TOOL}/stream?{query}"),
                &[],
                body,
            )
            .body,
        );
        lines.last().cloned().unwrap()
    };
    for answer in [
        stream("start=%5B&end=%5D", b"[a] [b"),
        stream("start=%5B&end=%5D", b"[a] \xff"),
        stream("start=%5B&end=%5D&max_match_bytes=3", b"[abcd]"),
    ] {
        errors += 1;
        let wrong = undeclared(&schema, &answer);
        assert!(wrong.is_empty(), "{answer}: {wrong:?}");
    }
    assert!(errors > 20, "only {errors} errors were checked");
}
