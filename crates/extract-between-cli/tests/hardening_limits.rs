//! The service's limits where an attacker looked for a way around them: MCP batches whose
//! answers dwarf their requests, a flood of idle connections on the metrics port, and
//! uploads abandoned mid-body.
//!
//! The heaviest are `#[ignore]`d: `.ci/run` runs them alone with the other hardening tests.

use crate::common::http::{Server, TOOL, closed_within, parse_listening_line, serve_binary};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// POSTs `body` to `/mcp` on a connection of its own and answers the status code (0 for
/// none).
fn post_mcp_raw(addr: SocketAddr, body: &str) -> u16 {
    let headers =
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
    let status = crate::common::http::post_status_line(addr, "/mcp", headers, body.as_bytes());
    status
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// A batch (protocol 2025-03-26, the one without the version header) of `n` `tools/list`
/// requests: each answer is the tool's whole definition, twenty times the request.
fn tools_list_batch(n: usize) -> String {
    let messages: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/list"}}"#))
        .collect();
    format!("[{}]", messages.join(","))
}

/// A batch whose answers fit is answered whole; one whose answers would pass the memory
/// budget is refused with 503 and a JSON-RPC error, and the budget it took is given back.
#[test]
fn a_batch_answer_past_the_budget_is_refused_and_gives_its_budget_back() {
    let server = Server::start(&["--max-memory-mib", "1"]);
    let small = tools_list_batch(3);
    let r = crate::common::http::request(&server, "POST", "/mcp", &[], small.as_bytes());
    assert_eq!(r.status, 200, "{:?}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json().as_array().map(Vec::len), Some(3));
    // The budget is never below one largest body (4 MiB); each answer is about a
    // kilobyte, so ten thousand pass it.
    let big = tools_list_batch(10_000);
    let r = crate::common::http::request(&server, "POST", "/mcp", &[], big.as_bytes());
    assert_eq!(r.status, 503, "{:?}", String::from_utf8_lossy(&r.body));
    let v = r.json();
    assert_eq!(v["jsonrpc"], "2.0");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("--max-memory-mib")),
        "{v}"
    );
    // What the refused batch took was released: the small one still fits.
    let r = crate::common::http::request(&server, "POST", "/mcp", &[], small.as_bytes());
    assert_eq!(r.status, 200);
}

/// Four 4 MB batches of `tools/list` at once under `--max-memory-mib 64`: each would answer
/// about 80 MB, so each is refused as its answer reaches the budget, and the process's peak
/// stays within the budget and a bounded constant instead of building the arrays whole.
#[test]
#[ignore = "heavy: .ci/run runs it alone"]
fn mcp_batches_stay_within_the_memory_budget() {
    let server = Server::start(&["--max-memory-mib", "64", "--body-timeout", "60"]);
    let before = server.rss_kib();
    // As many messages as fit in one largest body (4 MiB).
    let mut n = 90_000;
    let mut batch = tools_list_batch(n);
    while batch.len() > 4 * 1024 * 1024 - 64 {
        n -= 1000;
        batch = tools_list_batch(n);
    }
    let batch = std::sync::Arc::new(batch);
    let senders: Vec<_> = (0..4)
        .map(|_| {
            let (addr, batch) = (server.addr, batch.clone());
            std::thread::spawn(move || post_mcp_raw(addr, &batch))
        })
        .collect();
    let statuses: Vec<u16> = senders.into_iter().map(|s| s.join().unwrap()).collect();
    let peak = server.peak_rss_kib();
    eprintln!("rss before {before} KiB, peak {peak} KiB; answers {statuses:?}");
    assert!(statuses.iter().all(|&s| s == 503), "{statuses:?}");
    // The budget, and what the parse and the allocator's arenas hold beside it.
    let bound = before + 64 * 1024 + 64 * 1024;
    assert!(peak < bound, "peak RSS {peak} KiB (bound {bound} KiB)");
    assert_eq!(crate::common::http::get(&server, TOOL).status, 200);
}

/// Uploads abandoned mid-body (closed after part of a declared length, closed inside a
/// chunk, `Expect: 100-continue` then nothing but a close) are counted as 499, apart from
/// the 200 of an upload that ended; none of them counts as a success.
#[test]
fn aborted_uploads_are_counted_apart_from_successes() {
    let server = Server::start(&[]);
    let stream = format!("{TOOL}/stream");
    let target = format!("{stream}?start=%5B&end=%5D");
    let heads = [
        format!("POST {target} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n[a][b"),
        format!(
            "POST {target} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n100\r\n[a]"
        ),
        format!(
            "POST {target} HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\nExpect: 100-continue\r\n\r\n"
        ),
    ];
    let rounds = 10;
    for _ in 0..rounds {
        for head in &heads {
            let mut s = server.connect();
            s.write_all(head.as_bytes()).unwrap();
            // The answer's head (or `100 Continue`) shows the upload reached the handler.
            let mut first = [0u8; 12];
            s.read_exact(&mut first).unwrap();
            drop(s);
        }
    }
    let r = crate::common::http::request(&server, "POST", &target, &[], b"[1][2]");
    assert_eq!(r.status, 200);
    let series = |status: u16| {
        format!(
            "extract_between_http_requests_total{{route=\"{stream}\",method=\"POST\",status=\"{status}\"}}"
        )
    };
    let aborted = (rounds * heads.len()) as f64;
    let counted = crate::common::process::eventually(std::time::Duration::from_secs(20), || {
        let text = crate::common::http::metrics_of(&server, None);
        crate::common::http::metric(&text, &series(499)) == aborted
    });
    let text = crate::common::http::metrics_of(&server, None);
    assert!(counted, "{text}");
    assert_eq!(
        crate::common::http::metric(&text, &series(200)),
        1.0,
        "{text}"
    );
}

/// `serve` with a metrics port, under an open-files limit of `files` (the shell's `ulimit`
/// sets it before the binary starts): the process, its main address and its metrics address.
fn serve_with_metrics_port(files: u32, extra: &[&str]) -> (Child, SocketAddr, SocketAddr) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -n {files} && exec \"$0\" \"$@\""))
        .arg(serve_binary())
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(["--metrics-listen", "127.0.0.1:0"])
        .args(extra)
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let main = parse_listening_line(&line).expect("listening line");
    line.clear();
    stdout.read_line(&mut line).unwrap();
    let metrics = line
        .strip_prefix("metrics on http://")
        .and_then(|l| l.trim().strip_suffix("/metrics"))
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("metrics line: {line:?}"));
    (child, main, metrics)
}

/// 300 idle connections to the metrics port of a process allowed 256 open files: the
/// metrics port keeps a few and closes the rest at once, so the main port still accepts and
/// `/livez` answers; and a connection to the metrics port that sends half a request is
/// closed at the header timeout, as on the main port.
#[test]
fn idle_metrics_connections_cannot_starve_the_main_port() {
    let (mut child, main, metrics) = serve_with_metrics_port(256, &["--header-timeout", "2"]);
    let mut half = TcpStream::connect(metrics).unwrap();
    half.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let idle: Vec<TcpStream> = (0..300)
        .filter_map(|_| TcpStream::connect(metrics).ok())
        .collect();
    let livez = crate::common::http::status_of_get(main, "/livez");
    let scraped = crate::common::process::eventually(Duration::from_secs(10), || {
        crate::common::http::status_of_get(metrics, "/metrics") == Some(200)
    });
    let closed = closed_within(&mut half, Duration::from_secs(10));
    drop(idle);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(livez, Some(200), "the main port did not answer /livez");
    assert!(
        closed,
        "half a request on the metrics port was kept past the header timeout"
    );
    assert!(scraped, "the metrics port never answered again");
}

/// In the text log format, a request id is written inside the span as it is: an incoming
/// id that could forge targets or fields there is replaced by one of the service's own, so
/// the `answered` line holds exactly one `request{id=…}` span and none of the caller's text.
#[test]
fn a_request_id_cannot_forge_the_text_logs_structure() {
    let (mut server, logs) = crate::common::http::start_logged(
        &["--log-format", "text", "--drain-seconds", "0"],
        &[("RUST_LOG", "debug"), ("NO_COLOR", "1")],
    );
    let forged = "x}:extract_between_cli::server::auth:token=leaked{";
    let r =
        crate::common::http::request(&server, "GET", "/livez", &[("X-Request-Id", forged)], b"");
    assert_eq!(r.status, 200);
    let id = r.header("x-request-id").unwrap().to_owned();
    assert_ne!(id, forged);
    server.sigterm();
    server.exited_within(Duration::from_secs(5)).unwrap();
    let logs = logs.join().unwrap();
    assert!(logs.iter().all(|l| !l.contains("leaked")), "{logs:#?}");
    let answered = logs
        .iter()
        .find(|l| l.contains("answered"))
        .unwrap_or_else(|| panic!("{logs:#?}"));
    assert!(
        answered.contains(&format!("request{{id={id}}}:")),
        "{answered}"
    );
    assert_eq!(answered.matches("request{").count(), 1, "{answered}");
}
