//! Operating the service, from outside, on a real socket: `/metrics`, the probes and the
//! drain on SIGTERM, configuration from the environment, JSON logs, request ids, and an
//! OpenAPI document that matches what the router serves. Tokens are `auth.rs`'s.

use crate::common::http::{
    EXAMPLE, Response, Server, TOOL, get, metric, metrics_of, open_upload, post_json,
    read_response, request, start_logged, temp_file, with_token, write_chunk,
};
use std::io::{BufReader, Read, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

const EXECUTE: &str = "/v1/tools/text-extract-between/versions/1.0.0/execute";
const STREAM: &str = "/v1/tools/text-extract-between/versions/1.0.0/stream";

/// With one upload holding the server's only stream place, another upload gets 503; the
/// holding upload is returned, still open.
fn assert_one_stream_place(
    server: &Server,
) -> (std::net::TcpStream, BufReader<std::net::TcpStream>) {
    let held = open_upload(server, &format!("{STREAM}?start=a&end=b"), b"x");
    let r = request(server, "POST", &format!("{STREAM}?start=a&end=b"), &[], b"");
    assert_eq!(r.status, 503);
    held
}

#[test]
fn metrics_count_requests_bytes_matches_and_rejections_by_route_template() {
    let server = Server::start(&["--max-streams", "1"]);
    for _ in 0..3 {
        let r = post_json(&server, r#"{"text":"a[bb]c[dd]","start":"[","end":"]"}"#);
        assert_eq!(r.status, 200);
    }
    assert_eq!(
        post_json(&server, r#"{"text":"[x","start":"[","end":"]"}"#).status,
        422
    );
    let r = request(
        &server,
        "POST",
        &format!("{STREAM}?start=%5B&end=%5D"),
        &[],
        b"[1][22][333]",
    );
    assert_eq!(r.status, 200);
    // A raw path never becomes a label: unknown paths share one.
    assert_eq!(get(&server, "/secret/user-42").status, 404);
    let big = vec![b' '; 5 << 20];
    assert_eq!(request(&server, "POST", EXECUTE, &[], &big).status, 413);
    // Taking the only stream place, then asking for another: 503.
    let _held = assert_one_stream_place(&server);

    let text = metrics_of(&server, None);
    let ex = format!("route=\"{EXECUTE}\"");
    let st = format!("route=\"{STREAM}\"");
    assert_eq!(
        metric(
            &text,
            &format!("extract_between_http_requests_total{{{ex},method=\"POST\",status=\"200\"}}")
        ),
        3.0,
        "{text}"
    );
    assert_eq!(
        metric(
            &text,
            &format!("extract_between_http_requests_total{{{ex},method=\"POST\",status=\"422\"}}")
        ),
        1.0
    );
    assert_eq!(
        metric(
            &text,
            "extract_between_http_requests_total{route=\"unmatched\",method=\"GET\",status=\"404\"}"
        ),
        1.0
    );
    assert!(!text.contains("user-42"), "{text}");
    assert_eq!(
        metric(
            &text,
            &format!("extract_between_http_request_duration_seconds_count{{{ex}}}")
        ),
        5.0
    );
    // Three texts of 10 bytes and the 2-byte unclosed one; 6 matches.
    assert_eq!(
        metric(
            &text,
            &format!("extract_between_scanned_bytes_total{{{ex}}}")
        ),
        32.0
    );
    assert_eq!(
        metric(&text, &format!("extract_between_matches_total{{{ex}}}")),
        6.0
    );
    // The finished upload and the held one's first byte.
    assert_eq!(
        metric(
            &text,
            &format!("extract_between_scanned_bytes_total{{{st}}}")
        ),
        13.0
    );
    assert_eq!(
        metric(&text, &format!("extract_between_matches_total{{{st}}}")),
        3.0
    );
    assert_eq!(
        metric(
            &text,
            "extract_between_rejected_total{reason=\"too_large\"}"
        ),
        1.0
    );
    assert_eq!(
        metric(
            &text,
            "extract_between_rejected_total{reason=\"overloaded\"}"
        ),
        1.0
    );
    assert_eq!(metric(&text, "extract_between_stream_slots_in_use"), 1.0);
    // The /metrics request itself is in flight.
    assert_eq!(
        metric(&text, "extract_between_http_requests_in_flight"),
        1.0
    );
    assert!(
        metric(&text, "process_resident_memory_bytes") > 1e6,
        "{text}"
    );
    assert!(metric(&text, "process_open_fds") >= 3.0);
    assert!(text.contains("process_cpu_seconds_total "), "{text}");
}

#[test]
fn timeouts_are_counted_as_rejections() {
    let server = Server::start(&["--header-timeout", "1", "--idle-timeout", "1"]);
    // A connection that never sends its head.
    let mut silent = server.connect();
    // An upload that stops sending.
    let (_upload, _reader) = open_upload(&server, &format!("{STREAM}?start=a&end=b"), b"x");
    let mut buf = [0u8; 1];
    let _ = silent.read(&mut buf);
    let timeouts = || {
        let text = metrics_of(&server, None);
        metric(&text, "extract_between_rejected_total{reason=\"timeout\"}")
    };
    let counted = crate::common::process::poll_until(Duration::from_secs(10), || {
        (timeouts() >= 2.0).then_some(())
    });
    assert!(counted.is_some(), "{}", metrics_of(&server, None));
    // Each is counted once.
    assert_eq!(timeouts(), 2.0, "{}", metrics_of(&server, None));
}

fn has_close(r: &Response) -> bool {
    r.header("connection")
        .is_some_and(|v| v.eq_ignore_ascii_case("close"))
}

/// One keep-alive request on `s`, read whole.
fn keepalive_request(s: &mut BufReader<std::net::TcpStream>, path: &str) -> Response {
    s.get_mut()
        .write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
        .unwrap();
    read_response(s)
}

#[test]
fn sigterm_fails_readiness_at_once_and_drain_answers_close_their_connections() {
    let mut server = Server::start(&["--drain-seconds", "2"]);
    let mut kept = BufReader::new(server.connect());
    let before = keepalive_request(&mut kept, "/readyz");
    assert_eq!(before.status, 200);
    assert!(!has_close(&before), "{before:?}");
    let signalled = Instant::now();
    server.sigterm();
    let draining = crate::common::process::poll_until(Duration::from_secs(5), || {
        (get(&server, "/readyz").status == 503).then_some(())
    });
    assert!(draining.is_some(), "/readyz never failed after SIGTERM");
    // Still serving, on the old connection and on new ones; every answer closes.
    let during = keepalive_request(&mut kept, "/readyz");
    assert_eq!(during.status, 503);
    assert_eq!(during.json()["error"]["code"], "shutting_down");
    assert!(has_close(&during), "{during:?}");
    let r = post_json(&server, r#"{"text":"[a]","start":"[","end":"]"}"#);
    assert_eq!(r.status, 200);
    assert_eq!(get(&server, "/livez").status, 200);
    let status = server
        .exited_within(Duration::from_secs(6))
        .expect("exits after the drain");
    assert!(status.success(), "{status:?}");
    let took = signalled.elapsed();
    assert!(took >= Duration::from_millis(1900), "left after {took:?}");
    assert!(std::net::TcpStream::connect(server.addr).is_err());
}

#[test]
fn after_the_drain_in_flight_uploads_finish_before_the_exit() {
    let mut server = Server::start(&["--drain-seconds", "1", "--shutdown-timeout", "20"]);
    let (mut s, mut reader) = open_upload(&server, &format!("{STREAM}?start=%5B&end=%5D"), b"[a]");
    server.sigterm();
    // Past the drain: the listener is closed, the upload goes on.
    let closed = crate::common::process::poll_until(Duration::from_secs(10), || {
        std::net::TcpStream::connect(server.addr)
            .is_err()
            .then_some(())
    });
    assert!(closed.is_some(), "the listener stayed open past the drain");
    assert!(server.child.try_wait().unwrap().is_none());
    write_chunk(&mut s, b"[b]").unwrap();
    write_chunk(&mut s, b"").unwrap();
    let body = crate::common::http::read_chunked_body(&mut reader);
    assert!(
        String::from_utf8_lossy(&body)
            .ends_with("{\"done\":true,\"matches\":2,\"truncated\":false}\n"),
        "{}",
        String::from_utf8_lossy(&body)
    );
    // The client goes; the server's lingering close (which waits for it) ends.
    drop((s, reader));
    let status = server.exited_within(Duration::from_secs(3)).unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn shutdown_timeout_ends_requests_still_running() {
    let mut server = Server::start(&[
        "--drain-seconds",
        "0",
        "--shutdown-timeout",
        "1",
        "--idle-timeout",
        "60",
    ]);
    let (_s, mut reader) = open_upload(&server, &format!("{STREAM}?start=a&end=b"), b"xa[");
    let signalled = Instant::now();
    server.sigterm();
    let status = server
        .exited_within(Duration::from_secs(5))
        .expect("exits once the shutdown timeout passes");
    assert!(status.success(), "{status:?}");
    assert!(signalled.elapsed() >= Duration::from_millis(900));
    // The upload's answer ends with a last line that says why, and its chunked body ends
    // properly (a cut body would fail to parse here).
    let body = crate::common::http::read_chunked_body(&mut reader);
    let last = String::from_utf8_lossy(&body)
        .lines()
        .last()
        .map(str::to_owned);
    let last: serde_json::Value = serde_json::from_str(&last.unwrap_or_default()).unwrap();
    assert_eq!(last["error"]["code"], "shutting_down", "{last}");
}

#[test]
fn a_second_signal_exits_at_once() {
    let mut server = Server::start(&["--drain-seconds", "30"]);
    server.sigterm();
    crate::common::http::wait_until_not_ready(&server, Duration::from_secs(5));
    assert!(server.child.try_wait().unwrap().is_none(), "draining");
    let second = Instant::now();
    server.sigterm();
    let status = server
        .exited_within(Duration::from_secs(10))
        .expect("the second signal exits at once");
    assert_eq!(status.code(), Some(1));
    // Long before the 30 s drain would have ended, however busy the machine.
    assert!(second.elapsed() < Duration::from_secs(10));
}

#[test]
fn every_serve_option_has_an_environment_variable() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_extract-between"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    // Each option's block: from the line naming it to the next such line.
    let mut blocks: Vec<String> = Vec::new();
    for line in help.lines() {
        let t = line.trim_start();
        if line.starts_with("  ") && (t.starts_with("--") || t.starts_with("-h")) {
            blocks.push(String::new());
        }
        if let Some(b) = blocks.last_mut() {
            b.push_str(line);
            b.push('\n');
        }
    }
    let options: Vec<&String> = blocks.iter().filter(|b| !b.contains("--help")).collect();
    assert!(options.len() >= 14, "{help}");
    for block in options {
        let name = block.trim_start().trim_start_matches('-');
        let name = name.split([' ', '\n']).next().unwrap();
        let var = format!(
            "[env: EXTRACT_BETWEEN_{}=",
            name.to_uppercase().replace('-', "_")
        );
        assert!(block.contains(&var), "--{name} has no {var}]: {block}");
    }
}

#[test]
fn options_come_from_the_environment() {
    let server = Server::start_with(
        &[],
        &[
            ("EXTRACT_BETWEEN_LISTEN", "127.0.0.1:0"),
            ("EXTRACT_BETWEEN_MAX_MATCH_BYTES", "777"),
            ("EXTRACT_BETWEEN_MAX_STREAMS", "1"),
        ],
        Stdio::inherit(),
    );
    let doc = get(&server, "/openapi.json").json();
    let params = &doc["paths"][STREAM]["post"]["parameters"];
    let max = params
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "max_match_bytes")
        .unwrap();
    assert_eq!(max["schema"]["maximum"], 777);
    let r = request(
        &server,
        "POST",
        &format!("{STREAM}?start=a&end=b&max_match_bytes=778"),
        &[],
        b"",
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["field"], "max_match_bytes");
    let _held = assert_one_stream_place(&server);
}

#[test]
fn json_logs_carry_the_request_id() {
    let (mut server, logs) = start_logged(
        &[
            "--listen",
            "127.0.0.1:0",
            "--log-format",
            "json",
            "--drain-seconds",
            "0",
        ],
        &[("RUST_LOG", "debug")],
    );
    let r = post_json(&server, EXAMPLE);
    let id = r.header("x-request-id").unwrap().to_owned();
    server.sigterm();
    server.exited_within(Duration::from_secs(5)).unwrap();
    let logs = logs.join().unwrap();
    let parsed: Vec<serde_json::Value> = logs
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let answered = parsed
        .iter()
        .find(|v| v["fields"]["message"] == "answered")
        .unwrap_or_else(|| panic!("{logs:#?}"));
    assert_eq!(answered["span"]["id"], id.as_str(), "{answered}");
    assert_eq!(answered["fields"]["status"], 200);
    assert!(
        parsed
            .iter()
            .all(|v| v["level"].is_string() && v["timestamp"].is_string())
    );
}

#[test]
fn the_openapi_document_declares_what_the_router_serves() {
    let server = Server::start(&[]);
    let doc = get(&server, "/openapi.json").json();
    let paths = doc["paths"].as_object().unwrap();
    for path in [
        EXECUTE,
        STREAM,
        TOOL,
        "/v1/tools",
        "/openapi.json",
        "/metrics",
        "/livez",
        "/healthz",
        "/readyz",
    ] {
        assert!(paths.contains_key(path), "{path} missing");
    }
    // Every documented GET answers as documented, not 404.
    for (path, ops) in paths {
        if let Some(op) = ops.get("get") {
            let r = get(&server, path);
            assert!(
                op["responses"].get(r.status.to_string()).is_some(),
                "{path}: {}",
                r.status
            );
        }
    }
    let stream = &doc["paths"][STREAM]["post"];
    assert_eq!(stream["requestBody"]["required"], false);
    let param = |name: &str| {
        stream["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap()["schema"]
            .clone()
    };
    assert_eq!(param("max_match_bytes")["maximum"], 1024 * 1024);
    assert_eq!(param("max_matches")["maximum"], u64::MAX);
    // The maximum is the real bound: one more is refused, the maximum itself is not.
    let q = |n: &str| format!("{STREAM}?start=a&end=b&max_match_bytes={n}");
    assert_eq!(
        request(&server, "POST", &q("1048577"), &[], b"").status,
        400
    );
    assert_eq!(
        request(&server, "POST", &q("1048576"), &[], b"").status,
        200
    );
    // An absent body is an empty text.
    let r = request(
        &server,
        "POST",
        &format!("{STREAM}?start=a&end=b"),
        &[],
        b"",
    );
    assert_eq!(r.status, 200);
    // Without tokens, no security is declared; with them, 401 and the scheme.
    assert!(doc["components"].get("securitySchemes").is_none());
    assert!(
        doc["paths"][EXECUTE]["post"]["responses"]
            .get("401")
            .is_none()
    );
    let file = temp_file("tokens-doc", "doc-token\n");
    let guarded = Server::start(&["--auth-token-file", file.to_str().unwrap()]);
    let doc = with_token(&guarded, "GET", "/openapi.json", "doc-token", b"").json();
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    assert!(
        doc["paths"][EXECUTE]["post"]["responses"]
            .get("401")
            .is_some()
    );
    assert_eq!(
        doc["paths"]["/readyz"]["get"]["security"],
        serde_json::json!([])
    );
}

#[test]
fn the_service_returns_freed_memory_from_a_background_thread() {
    let server = Server::start(&[]);
    let pid = server.child.id();
    let purger = crate::common::process::poll_until(Duration::from_secs(10), || {
        crate::common::process::thread_names(pid)
            .into_iter()
            .find(|name| name.starts_with("jemalloc_bg"))
    });
    assert!(
        purger.is_some(),
        "{:?}",
        crate::common::process::thread_names(pid)
    );
}

#[test]
fn request_ids_follow_an_incoming_id_and_are_unique_across_instances() {
    let (a, b) = (Server::start(&[]), Server::start(&[]));
    let given = request(
        &a,
        "GET",
        "/livez",
        &[("X-Request-Id", "lb-4f2a-0001")],
        b"",
    );
    assert_eq!(given.header("x-request-id"), Some("lb-4f2a-0001"));
    // An id a log line could be confused by (a space, or too long) is replaced.
    let long = "x".repeat(200);
    for bad in ["two words", long.as_str()] {
        let r = request(&a, "GET", "/livez", &[("X-Request-Id", bad)], b"");
        let id = r.header("x-request-id").unwrap();
        assert!(id != bad && !id.contains(' ') && id.len() <= 128, "{id}");
    }
    let ids: Vec<String> = [&a, &a, &b, &b]
        .iter()
        .map(|s| get(s, "/livez").header("x-request-id").unwrap().to_owned())
        .collect();
    let unique: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
}

/// The exposition read by the Prometheus project's own Python parser for the content type
/// it is served as (OpenMetrics): every family parses, counters are counters.
#[test]
fn metrics_parse_with_the_official_openmetrics_parser() {
    let python = std::env::var("EXTRACT_BETWEEN_MCP_PYTHON").unwrap_or_else(|_| "python3".into());
    if !crate::common::process::tool_available(
        std::process::Command::new(&python).args(["-c", "import prometheus_client"]),
        "EXTRACT_BETWEEN_REQUIRE_PROM_PARSER",
        &format!("the Prometheus client's OpenMetrics parser (in {python})"),
        "pip install prometheus-client, or point EXTRACT_BETWEEN_MCP_PYTHON at a Python that has it",
    ) {
        return;
    }
    let server = Server::start(&[]);
    post_json(&server, r#"{"text":"[a]","start":"[","end":"]"}"#);
    let r = get(&server, "/metrics");
    assert_eq!(
        r.header("content-type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8")
    );
    let script = "import sys, json\n\
        from prometheus_client.openmetrics.parser import text_string_to_metric_families\n\
        families = {f.name: f.type for f in text_string_to_metric_families(sys.stdin.read())}\n\
        print(json.dumps(families))";
    let mut child = std::process::Command::new(&python)
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&r.body).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let families: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        families["extract_between_http_requests"], "counter",
        "{families}"
    );
    assert_eq!(
        families["extract_between_rejected"], "counter",
        "{families}"
    );
    assert_eq!(
        families["extract_between_http_request_duration_seconds"], "histogram",
        "{families}"
    );
}
