//! The HTTP service, started as a real process on a real socket and driven over HTTP.

use crate::common::http::{
    Server, TOOL, get, ndjson, open_bracket_stream, post_json, read_chunked_body, read_head,
    read_response, request, start_upload, write_chunk,
};
use serde_json::{Value, json};
use std::io::{BufReader, Write};
use std::time::Duration;

fn execute_url() -> String {
    format!("{TOOL}/execute")
}

#[test]
fn card_example_over_http() {
    let server = Server::start(&[]);
    let r = post_json(
        &server,
        r#"{"text":"pre[one]mid[two]post","start":"[","end":"]"}"#,
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.json(),
        json!({"matches": ["one", "two"], "truncated": false})
    );
    assert!(r.header("x-request-id").is_some());
}

#[test]
fn answers_are_byte_for_byte_the_tool_modes() {
    let server = Server::start(&[]);
    for body in [
        r#"{"text":"[a][b][c]","start":"[","end":"]","max_matches":2}"#,
        r#"{"text":"😀[x","start":"[","end":"]"}"#,
        r#"{"text":"x","start":"[","end":"]","extra":1}"#,
    ] {
        let r = post_json(&server, body);
        let reply = extract_between::request::execute(body.as_bytes());
        assert_eq!(r.text(), reply.body);
        use extract_between::request::Outcome;
        let status = match reply.outcome {
            Outcome::Output => 200,
            Outcome::Unclosed => 422,
            Outcome::InvalidInput => 400,
        };
        assert_eq!(r.status, status, "{body}");
    }
}

#[test]
fn works_without_a_json_content_type() {
    // `curl -d` sends application/x-www-form-urlencoded; the body is JSON all the same.
    let server = Server::start(&[]);
    let r = request(
        &server,
        "POST",
        &execute_url(),
        &[("Content-Type", "application/x-www-form-urlencoded")],
        br#"{"text":"[a]","start":"[","end":"]"}"#,
    );
    assert_eq!(r.status, 200);
    let r = request(
        &server,
        "POST",
        &execute_url(),
        &[],
        br#"{"text":"[a]","start":"[","end":"]"}"#,
    );
    assert_eq!(r.status, 200);
}

#[test]
fn unclosed_start_marker_is_422_with_offset() {
    let server = Server::start(&[]);
    let r = post_json(&server, r#"{"text":"€€[x","start":"[","end":"]"}"#);
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["error"]["code"], "unclosed_start_marker");
    assert_eq!(r.json()["error"]["offset"], 2);
}

#[test]
fn largest_text_escaped_to_a_much_larger_body_is_accepted() {
    let server = Server::start(&[]);
    // 256000 NUL bytes escape to "\u0000": a 1.5 MB body for a valid request.
    let body =
        json!({"text": "\u{0}".repeat(255_998) + "[]", "start": "[", "end": "]"}).to_string();
    assert!(body.len() > 1_500_000);
    let r = post_json(&server, &body);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json(), json!({"matches": [""], "truncated": false}));
}

#[test]
fn bodies_no_valid_request_could_have_are_413() {
    let server = Server::start(&[]);
    let big = vec![b' '; 5 * 1024 * 1024];
    let r = request(&server, "POST", &execute_url(), &[], &big);
    assert_eq!(r.status, 413);
    assert_eq!(r.json()["error"]["code"], "payload_too_large");
}

#[test]
fn chunked_execute_body_over_the_limit_is_413() {
    let server = Server::start(&[]);
    let mut s = start_upload(&server, "POST", &execute_url());
    let mut reader = BufReader::new(s.try_clone().unwrap());
    let piece = vec![b' '; 1 << 20];
    for _ in 0..5 {
        if write_chunk(&mut s, &piece).is_err() {
            break;
        }
    }
    let (status, _) = read_head(&mut reader);
    assert_eq!(status, 413);
}

/// 30+ bad requests, each with its exact code and field.
#[test]
fn bad_requests_get_invalid_input_naming_the_field() {
    let server = Server::start(&[]);
    let long_marker = "€".repeat(1366);
    let cases: Vec<(String, Option<&str>)> = vec![
        ("".into(), None),
        ("{".into(), None),
        ("[]".into(), None),
        ("\"text\"".into(), None),
        ("42".into(), None),
        ("null".into(), None),
        (
            "{\"text\":\"a\",\"start\":\"[\",\"end\":\"]\"} trailing".into(),
            None,
        ),
        (r#"{"start":"[","end":"]"}"#.into(), Some("text")),
        (r#"{"text":"a","end":"]"}"#.into(), Some("start")),
        (r#"{"text":"a","start":"["}"#.into(), Some("end")),
        (
            r#"{"text":null,"start":"[","end":"]"}"#.into(),
            Some("text"),
        ),
        (r#"{"text":5,"start":"[","end":"]"}"#.into(), Some("text")),
        (
            r#"{"text":["a"],"start":"[","end":"]"}"#.into(),
            Some("text"),
        ),
        (r#"{"text":"a","start":1,"end":"]"}"#.into(), Some("start")),
        (
            r#"{"text":"a","start":"[","end":false}"#.into(),
            Some("end"),
        ),
        (r#"{"text":"a","start":"","end":"]"}"#.into(), Some("start")),
        (r#"{"text":"a","start":"[","end":""}"#.into(), Some("end")),
        (
            json!({"text": "a", "start": long_marker, "end": "]"}).to_string(),
            Some("start"),
        ),
        (
            json!({"text": "a", "start": "[", "end": "x".repeat(4097)}).to_string(),
            Some("end"),
        ),
        (
            json!({"text": "x".repeat(256_001), "start": "[", "end": "]"}).to_string(),
            Some("text"),
        ),
        (
            r#"{"text":"\ud800","start":"[","end":"]"}"#.into(),
            Some("text"),
        ),
        (
            r#"{"text":"a","start":"\udfff","end":"]"}"#.into(),
            Some("start"),
        ),
        (
            r#"{"text":"a","start":"[","end":"x\ud83d"}"#.into(),
            Some("end"),
        ),
        (
            r#"{"text":"a","start":"[","end":"]","max_matches":0}"#.into(),
            Some("max_matches"),
        ),
        (
            r#"{"text":"a","start":"[","end":"]","max_matches":1001}"#.into(),
            Some("max_matches"),
        ),
        (
            r#"{"text":"a","start":"[","end":"]","max_matches":-5}"#.into(),
            Some("max_matches"),
        ),
        (
            r#"{"text":"a","start":"[","end":"]","max_matches":1.5}"#.into(),
            Some("max_matches"),
        ),
        (
            r#"{"text":"a","start":"[","end":"]","max_matches":"5"}"#.into(),
            Some("max_matches"),
        ),
        (
            r#"{"text":"a","start":"[","end":"]","max_matches":true}"#.into(),
            Some("max_matches"),
        ),
        (
            r#"{"text":"a","start":"[","end":"]","max_matches":null}"#.into(),
            Some("max_matches"),
        ),
        (
            r#"{"text":"a","start":"[","end":"]","max_matches":1e9}"#.into(),
            Some("max_matches"),
        ),
        (
            r#"{"text":"a","start":"[","end":"]","limit":5}"#.into(),
            Some("limit"),
        ),
        (
            r#"{"text":"a","start":"[","end":"]","text":"b"}"#.into(),
            Some("text"),
        ),
    ];
    assert!(cases.len() >= 30);
    for (body, field) in cases {
        let r = post_json(&server, &body);
        let shown = &body[..body.len().min(80)];
        assert_eq!(r.status, 400, "{shown}: {}", r.text());
        let v = r.json();
        assert_eq!(v["error"]["code"], "invalid_input", "{shown}");
        assert_eq!(v["error"]["field"].as_str(), field, "{shown}");
        assert!(!v["error"]["message"].as_str().unwrap().is_empty());
    }
}

#[test]
fn integer_valued_float_is_accepted() {
    let server = Server::start(&[]);
    let r = post_json(
        &server,
        r#"{"text":"[a][b]","start":"[","end":"]","max_matches":1.0}"#,
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), json!({"matches": ["a"], "truncated": true}));
}

#[test]
fn card_tools_health_and_openapi() {
    let server = Server::start(&[]);
    let card = get(&server, TOOL);
    assert_eq!(card.status, 200);
    assert_eq!(card.text(), extract_between::card::CARD_JSON);
    let tools = get(&server, "/v1/tools").json();
    assert_eq!(tools["tools"][0]["id"], "text-extract-between");
    assert_eq!(get(&server, "/healthz").json(), json!({"status": "ok"}));
    let doc = get(&server, "/openapi.json").json();
    assert_eq!(doc["openapi"], "3.1.0");
    let card: Value = serde_json::from_str(extract_between::card::CARD_JSON).unwrap();
    assert_eq!(doc["components"]["schemas"]["Input"], card["input_schema"]);
    assert_eq!(
        doc["components"]["schemas"]["Output"],
        card["output_schema"]
    );
    assert!(doc["paths"][format!("{TOOL}/execute")]["post"].is_object());
}

#[test]
fn unknown_routes_and_methods_get_the_envelope() {
    let server = Server::start(&[]);
    let r = get(&server, "/nope");
    assert_eq!(
        (r.status, r.json()["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    let r = get(&server, &execute_url());
    assert_eq!(
        (r.status, r.json()["error"]["code"].as_str()),
        (405, Some("method_not_allowed"))
    );
}

/// A compressed body is refused by name on both routes, not scanned as text.
#[test]
fn compressed_bodies_get_415_naming_the_encoding() {
    let server = Server::start(&[]);
    for path in [
        format!("{TOOL}/execute"),
        format!("{TOOL}/stream?start=%5B&end=%5D"),
    ] {
        let r = request(
            &server,
            "POST",
            &path,
            &[("Content-Encoding", "gzip")],
            b"\x1f\x8b\x08\x00",
        );
        assert_eq!(r.status, 415, "{path}");
        assert_eq!(r.json()["error"]["code"], "unsupported_encoding", "{path}");
        assert!(r.text().contains("gzip"), "{}", r.text());
    }
    // `identity` is no encoding at all.
    let r = request(
        &server,
        "POST",
        &format!("{TOOL}/execute"),
        &[("Content-Encoding", "identity")],
        br#"{"text":"[a]","start":"[","end":"]"}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

/// A client that asks `Expect: 100-continue` (curl does for bodies over 1 MiB) gets
/// `100 Continue` before the answer, on both routes that take a body, so it sends the body
/// at once. When the stream route's 200 went out first, curl held the body back for its
/// one-second wait: every large upload took a second longer.
#[test]
fn bodies_that_expect_100_continue_get_it_first() {
    let server = Server::start(&[]);
    let execute = (
        execute_url(),
        br#"{"text":"a[b]c","start":"[","end":"]"}"#.as_slice(),
    );
    let stream = (
        format!("{TOOL}/stream?start=%5B&end=%5D"),
        b"a[b]c[d".as_slice(),
    );
    for (path, body) in [execute, stream] {
        let mut s = server.connect();
        write!(
            s,
            "POST {path} HTTP/1.1\r\nHost: test\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
            body.len()
        )
        .unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut reader = BufReader::new(s.try_clone().unwrap());
        let (status, _) = read_head(&mut reader);
        assert_eq!(
            status, 100,
            "{path}: the interim answer comes before the body"
        );
        s.write_all(body).unwrap();
        let r = read_response(&mut reader);
        assert_eq!(r.status, 200, "{path}");
        if path.ends_with("/execute") {
            assert_eq!(r.json(), json!({"matches": ["b"], "truncated": false}));
        } else {
            let lines = ndjson(&r.body);
            assert_eq!(lines[0]["match"], "b");
            assert_eq!(lines[1]["error"]["code"], "unclosed_start_marker");
        }
    }
}

#[test]
fn slow_headers_are_cut_off() {
    let server = Server::start(&["--header-timeout", "1"]);
    let mut s = server.connect();
    s.write_all(b"POST / HTTP/1.1\r\nHost: x\r\n").unwrap();
    // The server must close the connection (possibly after a 408) well before this
    // read timeout; a read that times out instead fails the test.
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = Vec::new();
    let closed = std::io::Read::read_to_end(&mut s, &mut buf);
    assert!(closed.is_ok(), "connection still open: {closed:?}");
    assert!(
        buf.is_empty() || String::from_utf8_lossy(&buf).contains("408"),
        "{buf:?}"
    );
    let still_up = get(&server, "/healthz");
    assert_eq!(still_up.status, 200);
}

#[test]
fn sigterm_lets_in_flight_requests_finish() {
    let mut server = Server::start(&["--drain-seconds", "0"]);
    let (mut s, mut reader) = open_bracket_stream(&server, b"[a]");
    server.sigterm();
    crate::common::http::wait_until_not_ready(&server, Duration::from_secs(5));
    // Still running: the upload is in flight.
    assert!(server.child.try_wait().unwrap().is_none());
    write_chunk(&mut s, b"[b]").unwrap();
    write_chunk(&mut s, b"").unwrap();
    let body = read_chunked_body(&mut reader);
    assert_eq!(
        ndjson(&body).last().unwrap(),
        &json!({"done": true, "matches": 2, "truncated": false})
    );
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn slow_execute_body_gets_408() {
    let server = Server::start(&["--body-timeout", "1"]);
    let mut s = server.connect();
    s.write_all(
        format!(
            "POST {TOOL}/execute HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{{\"text\":"
        )
        .as_bytes(),
    )
    .unwrap();
    let r = crate::common::http::read_response(&mut BufReader::new(s));
    assert_eq!(r.status, 408);
    assert_eq!(r.json()["error"]["code"], "request_timeout");
}

#[test]
fn runs_past_the_concurrency_limit_get_503() {
    // One run at a time, and two runtime workers: of many large requests sent at once, some
    // arrive while another runs and are refused; every other one is answered in full.
    let server = Server::start(&["--max-concurrency", "1"]);
    let text = "[a] ".repeat(60_000);
    let body = json!({"text": text, "start": "[", "end": "]", "max_matches": 1000}).to_string();
    let statuses: Vec<u16> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    (0..40)
                        .map(|_| {
                            let r = post_json(&server, &body);
                            match r.status {
                                200 => {
                                    assert_eq!(r.json()["matches"].as_array().unwrap().len(), 1000)
                                }
                                503 => assert_eq!(r.json()["error"]["code"], "overloaded"),
                                other => panic!("status {other}: {}", r.text()),
                            }
                            r.status
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert!(statuses.contains(&503), "no request was refused");
    assert!(statuses.contains(&200), "no request was served");
}

#[test]
fn execute_bodies_past_the_memory_budget_get_503() {
    // The smallest budget: one largest body, 4 MiB.
    let server = Server::start(&["--max-body-memory-mib", "1"]);
    let head = |len: usize| {
        format!("POST {TOOL}/execute HTTP/1.1\r\nHost: x\r\nContent-Length: {len}\r\n\r\n")
    };
    // Hold most of it: a body whose first 4,000,000 bytes have arrived.
    let mut held = server.connect();
    held.write_all(head(4_100_000).as_bytes()).unwrap();
    held.write_all(&vec![b' '; 4_000_000]).unwrap();
    crate::common::http::wait_for_metric(
        &server,
        "extract_between_memory_budget_used_bytes",
        Duration::from_secs(10),
        |used| used >= 4_000_000.0,
    );
    // A second body that outgrows what is left is refused as soon as it does.
    let mut second = server.connect();
    second.write_all(head(1_000_000).as_bytes()).unwrap();
    second.write_all(&vec![b' '; 400_000]).unwrap();
    let r = crate::common::http::read_response(&mut BufReader::new(second));
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(r.json()["error"]["code"], "overloaded");
    // A small request still fits beside the held body.
    let example = r#"{"text":"pre[one]mid[two]post","start":"[","end":"]"}"#;
    assert_eq!(post_json(&server, example).status, 200);
    // Once the held body's client is gone, its bytes are released.
    drop(held);
    let big = json!({"text": "\u{1}".repeat(200_000), "start": "[", "end": "]"}).to_string();
    assert!(big.len() > 1_000_000);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let r = post_json(&server, &big);
        if r.status == 200 {
            assert_eq!(r.json(), json!({"matches": [], "truncated": false}));
            break;
        }
        assert_eq!(r.status, 503, "{}", r.text());
        assert!(
            std::time::Instant::now() < deadline,
            "the held bytes were never released"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Logs written to a pipe or a file carry no terminal colour codes.
#[test]
fn logs_to_a_pipe_have_no_escape_codes() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_extract-between"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("RUST_LOG", "info")
        .env_remove("NO_COLOR")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.contains("listening"), "{line:?}");
    assert!(!line.contains('\x1b'), "{line:?}");
}

/// SIGTERM at any moment after the address is announced is a clean shutdown (exit 0), not
/// the signal's default action: the handlers are installed before the announcement.
#[test]
fn sigterm_right_after_the_announcement_is_a_clean_exit() {
    for _ in 0..5 {
        let mut server = Server::start(&["--drain-seconds", "0"]);
        server.sigterm();
        let status = server.child.wait().unwrap();
        assert!(status.success(), "{status:?}");
    }
}
