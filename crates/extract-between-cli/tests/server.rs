//! The HTTP service, started as a real process on a real socket and driven over HTTP.

mod common;

use common::http::{
    Server, TOOL, enc, get, post_json, read_chunk, read_chunked_body, read_head, read_response,
    request, start_upload, write_chunk,
};
use serde_json::{Value, json};
use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

fn execute_url() -> String {
    format!("{TOOL}/execute")
}

/// Starts a chunked upload to the stream endpoint with `[`/`]` markers, sends `first`, and
/// waits for the 200 head: the upload stays open for the caller.
fn open_bracket_stream(server: &Server, first: &[u8]) -> (TcpStream, BufReader<TcpStream>) {
    let mut s = start_upload(server, "POST", &format!("{TOOL}/stream?start=%5B&end=%5D"));
    write_chunk(&mut s, first).unwrap();
    let mut reader = BufReader::new(s.try_clone().unwrap());
    assert_eq!(read_head(&mut reader).0, 200);
    (s, reader)
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
        assert_eq!(r.status, reply.outcome.http_status());
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

fn ndjson(body: &[u8]) -> Vec<Value> {
    body.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

#[test]
fn stream_endpoint_lines_and_summary() {
    let server = Server::start(&[]);
    let path = format!("{TOOL}/stream?start={}&end={}", enc("「"), enc("」"));
    let r = request(&server, "POST", &path, &[], "😀「a」b「cd」".as_bytes());
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/x-ndjson"));
    assert_eq!(
        ndjson(&r.body),
        vec![
            json!({"match": "a", "byte_start": 7, "byte_end": 8, "utf16_start": 3, "utf16_end": 4}),
            json!({"match": "cd", "byte_start": 15, "byte_end": 17, "utf16_start": 7, "utf16_end": 9}),
            json!({"done": true, "matches": 2, "truncated": false}),
        ]
    );
}

#[test]
fn stream_endpoint_errors_come_after_earlier_matches() {
    let server = Server::start(&[]);
    let path = format!("{TOOL}/stream?start=%5B&end=%5D");
    let lines = ndjson(&request(&server, "POST", &path, &[], b"[a] [b").body);
    assert_eq!(lines[0]["match"], "a");
    assert_eq!(lines[1]["error"]["code"], "unclosed_start_marker");
    assert_eq!(lines[1]["error"]["offset"], 4);
    let lines = ndjson(&request(&server, "POST", &path, &[], b"[a] \xff [b]").body);
    assert_eq!(lines[0]["match"], "a");
    assert_eq!(lines[1]["error"]["code"], "invalid_utf8");
    assert_eq!(lines[1]["error"]["byte_offset"], 4);
    let path = format!("{TOOL}/stream?start=%5B&end=%5D&max_match_bytes=3");
    let lines = ndjson(&request(&server, "POST", &path, &[], b"[abc][abcd]").body);
    assert_eq!(lines[0]["match"], "abc");
    assert_eq!(lines[1]["error"]["code"], "match_too_large");
}

#[test]
fn stream_endpoint_validates_its_query_before_streaming() {
    let server = Server::start(&[]);
    for (query, field) in [
        ("end=%5D", "start"),
        ("start=%5B", "end"),
        ("start=&end=%5D", "start"),
        ("start=%5B&end=%5D&max_matches=0", "max_matches"),
        ("start=%5B&end=%5D&max_matches=x", "max_matches"),
        ("start=%5B&end=%5D&max_match_bytes=0", "max_match_bytes"),
        ("start=%5B&end=%5D&bogus=1", "bogus"),
        // Not decodable: a bad escape, bytes that are not UTF-8 (a cut or a lone byte).
        ("start=%ZZ&end=%5D", "start"),
        ("start=%5B&end=x%", "end"),
        ("start=%E3%80&end=%5D", "start"),
        ("start=%5B&end=%FF", "end"),
    ] {
        let r = request(
            &server,
            "POST",
            &format!("{TOOL}/stream?{query}"),
            &[],
            b"[a]",
        );
        assert_eq!(r.status, 400, "{query}");
        assert_eq!(r.json()["error"]["field"], field, "{query}");
    }
    // max_matches above the card's 1000 is fine here: the stream has no such bound.
    let r = request(
        &server,
        "POST",
        &format!("{TOOL}/stream?start=%5B&end=%5D&max_matches=5000"),
        &[],
        b"[a]",
    );
    assert_eq!(r.status, 200);
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

/// The query is form-decoded: `%XX` escapes of UTF-8 (multi-byte markers included), `+` a
/// space, `%2B` a plus; a bad escape names its parameter and byte.
#[test]
fn stream_query_markers_are_percent_decoded_exactly() {
    let server = Server::start(&[]);
    let lines = |query: &str, body: &[u8]| {
        let r = request(
            &server,
            "POST",
            &format!("{TOOL}/stream?{query}"),
            &[],
            body,
        );
        assert_eq!(r.status, 200, "{query}");
        String::from_utf8(r.body).unwrap()
    };
    let cjk = lines("start=%E3%80%8C&end=%E3%80%8D", "a「b」".as_bytes());
    assert!(cjk.starts_with(r#"{"match":"b","#), "{cjk}");
    let plus = lines("start=%2B&end=+", b"x+y z+w ");
    assert!(plus.starts_with(r#"{"match":"y","#), "{plus}");
    let r = request(
        &server,
        "POST",
        &format!("{TOOL}/stream?start=ab%E3%80&end=x"),
        &[],
        b"",
    );
    let message = r.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("start") && message.contains("UTF-8") && message.contains("byte 2"),
        "{message}"
    );
}

/// The answer (matches, then the summary) comes while the upload is still open; the server
/// then reads the rest of the upload unscanned and ends the response when it ends, so a
/// client that keeps sending gets no reset (curl reported "Send failure: Broken pipe" when
/// the server closed early).
#[test]
fn stream_answers_before_the_upload_ends_and_lets_it_finish() {
    let server = Server::start(&[]);
    let mut s = start_upload(
        &server,
        "POST",
        &format!("{TOOL}/stream?start=%5B&end=%5D&max_matches=2"),
    );
    let mut reader = BufReader::new(s.try_clone().unwrap());
    write_chunk(&mut s, b"[a][b]").unwrap();
    write_chunk(&mut s, b"[c] and the body goes on").unwrap();
    let (status, _) = read_head(&mut reader);
    assert_eq!(status, 200);
    let mut body = Vec::new();
    // Up to the summary line, with the upload still open.
    while !(String::from_utf8_lossy(&body).contains("\"done\"") && body.ends_with(b"\n")) {
        body.extend_from_slice(&read_chunk(&mut reader).expect("the summary before the end"));
    }
    let lines = ndjson(&body);
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[2],
        json!({"done": true, "matches": 2, "truncated": true})
    );
    // 8 MiB more, not scanned (an unclosed `[` and invalid UTF-8 change nothing): every
    // write goes through, and the response then ends cleanly with nothing more in it.
    let more = [b"x[\xff".repeat(1 << 10), vec![b'y'; 61 << 10]].concat();
    for _ in 0..128 {
        write_chunk(&mut s, &more).expect("the server reads the rest of the upload");
    }
    write_chunk(&mut s, b"").unwrap();
    assert_eq!(read_chunk(&mut reader), None);
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
fn stream_idle_upload_times_out() {
    let server = Server::start(&["--idle-timeout", "1"]);
    let (_s, mut reader) = open_bracket_stream(&server, b"[a] [b");
    let body = read_chunked_body(&mut reader);
    let lines = ndjson(&body);
    assert_eq!(lines[0]["match"], "a");
    assert_eq!(lines[1]["error"]["code"], "request_timeout");
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
fn too_many_streams_get_503() {
    let server = Server::start(&["--max-streams", "1"]);
    let (mut first, mut reader) = open_bracket_stream(&server, b"[a]");
    let r = request(
        &server,
        "POST",
        &format!("{TOOL}/stream?start=%5B&end=%5D"),
        &[],
        b"[b]",
    );
    assert_eq!(r.status, 503);
    assert_eq!(r.json()["error"]["code"], "overloaded");
    // Finishing the first frees its place.
    write_chunk(&mut first, b"").unwrap();
    while read_chunk(&mut reader).is_some() {}
    let r = request(
        &server,
        "POST",
        &format!("{TOOL}/stream?start=%5B&end=%5D"),
        &[],
        b"[b]",
    );
    assert_eq!(r.status, 200);
}

#[test]
fn sigterm_lets_in_flight_requests_finish() {
    let mut server = Server::start(&["--drain-seconds", "0"]);
    let (mut s, mut reader) = open_bracket_stream(&server, b"[a]");
    server.sigterm();
    std::thread::sleep(Duration::from_millis(300));
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

/// ≥ 256 MiB uploaded in small chunks while the NDJSON lines are checked; the server's
/// peak RSS stays bounded.
#[test]
fn large_chunked_upload_in_bounded_memory() {
    let server = Server::start(&[]);
    let mut s = start_upload(&server, "POST", &format!("{TOOL}/stream?start=%5B&end=%5D"));
    let mut reader = BufReader::new(s.try_clone().unwrap());
    const TOTAL: usize = 256 << 20;
    // A 4 KiB block with one match in it; chunks of 1000 bytes split it everywhere.
    let mut block = vec![b'.'; 4096];
    block[100..110].copy_from_slice(b"[match-01]");
    let expected_matches = TOTAL / block.len();
    let writer = std::thread::spawn(move || {
        let mut sent = 0;
        let stream: Vec<u8> = block.repeat(64);
        while sent < TOTAL {
            for piece in stream.chunks(1000) {
                write_chunk(&mut s, piece).unwrap();
            }
            sent += stream.len();
        }
        write_chunk(&mut s, b"").unwrap();
    });
    assert_eq!(read_head(&mut reader).0, 200);
    let mut count = 0usize;
    let mut carry = Vec::new();
    let mut summary = Value::Null;
    let mut peak = 0;
    while let Some(chunk) = read_chunk(&mut reader) {
        carry.extend_from_slice(&chunk);
        let mut start = 0;
        while let Some(nl) = carry[start..].iter().position(|&b| b == b'\n') {
            let line: Value = serde_json::from_slice(&carry[start..start + nl]).unwrap();
            if line.get("match").is_some() {
                assert_eq!(line["match"], "match-01");
                assert_eq!(line["byte_start"], (count * 4096 + 101) as u64);
                count += 1;
            } else {
                summary = line;
            }
            start += nl + 1;
        }
        carry.drain(..start);
        if count.is_multiple_of(8192) {
            peak = peak.max(server.peak_rss_kib());
        }
    }
    writer.join().unwrap();
    peak = peak.max(server.peak_rss_kib());
    assert_eq!(count, expected_matches);
    assert_eq!(
        summary,
        json!({"done": true, "matches": expected_matches, "truncated": false})
    );
    eprintln!("server peak RSS {peak} KiB after {} MiB", TOTAL >> 20);
    assert!(peak < 64 * 1024, "server peak RSS {peak} KiB");
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
    let r = common::http::read_response(&mut BufReader::new(s));
    assert_eq!(r.status, 408);
    assert_eq!(r.json()["error"]["code"], "request_timeout");
}

#[test]
fn a_client_that_disconnects_mid_stream_frees_its_place() {
    let server = Server::start(&["--max-streams", "1"]);
    {
        let _open = open_bracket_stream(&server, b"[a] [b");
        // Dropped here: the connection closes mid-upload.
    }
    // The server notices the closed connection and drops the stream with its permit.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let r = request(
            &server,
            "POST",
            &format!("{TOOL}/stream?start=%5B&end=%5D"),
            &[],
            b"[c]",
        );
        if r.status == 200 {
            assert_eq!(ndjson(&r.body)[0]["match"], "c");
            break;
        }
        assert_eq!(r.status, 503);
        assert!(
            std::time::Instant::now() < deadline,
            "the disconnected stream still holds its place"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
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
    std::thread::sleep(Duration::from_millis(300));
    // A second body that outgrows what is left is refused as soon as it does.
    let mut second = server.connect();
    second.write_all(head(1_000_000).as_bytes()).unwrap();
    second.write_all(&vec![b' '; 400_000]).unwrap();
    let r = common::http::read_response(&mut BufReader::new(second));
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

/// The stream endpoint against the card's reference loop over UTF-16 code units: random
/// texts and markers (matches common, long runs so the vector paths engage), each uploaded
/// chunked in the case's random piece sizes while the answer is read. The match lines must be
/// the reference's matches, each slicing the text at its UTF-16 offsets; the summary must
/// give their count and `truncated`; an unclosed start marker must come at the reference's
/// offset, after the matches the reference finds before it.
#[test]
fn stream_endpoint_equals_the_reference_under_chunked_uploads() {
    use extract_between::testing::{Case, reference};
    use quickcheck::{Arbitrary, Gen};

    fn check(server: &Server, c: &Case) -> Result<(), String> {
        let path = format!(
            "{TOOL}/stream?start={}&end={}&max_matches={}",
            enc(&c.start),
            enc(&c.end),
            c.max_matches
        );
        let mut upload = start_upload(server, "POST", &path);
        let reader = upload.try_clone().unwrap();
        let (text, plan) = (c.text.clone(), c.chunks.clone());
        // Sent from a thread: the server answers as it reads, and stops reading once the cap
        // and `truncated` are known, while the upload may still be going on.
        let sender = std::thread::spawn(move || {
            let (mut rest, mut k) = (text.as_bytes(), 0);
            while !rest.is_empty() {
                let (piece, tail) = rest.split_at(plan[k % plan.len()].min(rest.len()));
                if write_chunk(&mut upload, piece).is_err() {
                    return;
                }
                (rest, k) = (tail, k + 1);
            }
            let _ = write_chunk(&mut upload, b"");
        });
        let response = common::http::read_response(&mut BufReader::new(reader));
        sender.join().unwrap();
        let lines = ndjson(&response.body);
        let Some((last, lines)) = lines.split_last() else {
            return Err("no lines".into());
        };
        let units: Vec<u16> = c.text.encode_utf16().collect();
        // Each line's content, checked against the text at its UTF-16 offsets.
        let mut got = Vec::new();
        let mut after = 0;
        for line in lines {
            let (Some(m), Some(a), Some(b)) = (
                line["match"].as_str(),
                line["utf16_start"].as_u64().map(|n| n as usize),
                line["utf16_end"].as_u64().map(|n| n as usize),
            ) else {
                return Err(format!("not a match line: {line}"));
            };
            if a < after
                || b < a
                || b > units.len()
                || units[a..b] != *m.encode_utf16().collect::<Vec<_>>()
            {
                return Err(format!("{m:?} is not at {a}..{b}"));
            }
            after = b;
            got.push(m.encode_utf16().collect::<Vec<u16>>());
        }
        let ok = match reference::extract(&c.text, &c.start, &c.end, c.max_matches) {
            Ok((found, truncated)) => {
                got == found
                    && last["done"] == true
                    && last["truncated"] == truncated
                    && last["matches"] == found.len()
            }
            Err(offset) => {
                // The matches before an unclosed start are the reference's on the text before it.
                let before = String::from_utf16(&units[..offset]).unwrap();
                let found = reference::extract(&before, &c.start, &c.end, c.max_matches);
                last["error"]["code"] == "unclosed_start_marker"
                    && last["error"]["offset"] == offset
                    && found.is_ok_and(|(found, _)| got == found)
            }
        };
        if response.status == 200 && ok {
            Ok(())
        } else {
            Err(format!(
                "status {}, lines {lines:?}, last {last}",
                response.status
            ))
        }
    }
    // Cases drawn as the scanner's properties draw them; one server for all of them (a
    // quickcheck `fn` property would need it in a static, which is never dropped, and the
    // server process would outlive the test).
    let server = Server::start(&[]);
    let mut g = Gen::new(100);
    for _ in 0..300 {
        let c = Case::arbitrary(&mut g);
        if let Err(e) = check(&server, &c) {
            panic!("{e}\n{c:?}");
        }
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
