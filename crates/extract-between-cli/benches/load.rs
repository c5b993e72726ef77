//! Load check: 10 000 requests at 64 concurrency against the real service (the release
//! binary, started here as its own process), small and 250 KiB texts, with a real HTTP
//! client (hyper). In the same run, the same load against a baseline: a trivial axum JSON
//! echo server, also its own process (this program re-run with `--echo-server`).
//!
//! The same texts also go as MCP `tools/call` requests (protocol 2026-07-28) to the
//! service's `/mcp`, from 64 concurrent clients, and are compared with its execute URL.
//!
//! `cargo build --release && cargo bench --bench load` prints requests/s, p50/p99 latency,
//! errors and each server's peak RSS, the ratio of the service to the baseline, and of MCP
//! to execute.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const REQUESTS: usize = 10_000;
const CONCURRENCY: usize = 64;
/// Alternating rounds per server and body; the median round is reported.
const ROUNDS: usize = 7;
const EXECUTE: &str = "/v1/tools/text-extract-between/versions/1.0.0/execute";

struct Proc(Child, String);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Proc {
    fn start(cmd: &mut Command) -> Proc {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .trim_start_matches("listening on http://")
            .to_owned();
        Proc(child, addr)
    }

    fn peak_rss_kib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.0.id()))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmHWM:"))
                    .map(str::to_owned)
            })
            .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
            .unwrap_or(0)
    }
}

struct Outcome {
    rps: f64,
    p50: Duration,
    p99: Duration,
    errors: usize,
}

/// What a request sends: its body, extra headers, and a piece every good answer holds.
#[derive(Clone)]
struct Shot {
    body: Bytes,
    headers: &'static [(&'static str, &'static str)],
    expect: &'static str,
}

async fn load(url: String, shot: Shot) -> Outcome {
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(CONCURRENCY)
        .build_http();
    let next = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..CONCURRENCY {
        let (client, url, shot, next, errors) = (
            client.clone(),
            url.clone(),
            shot.clone(),
            next.clone(),
            errors.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            while next.fetch_add(1, Ordering::Relaxed) < REQUESTS {
                let mut req =
                    hyper::Request::post(url.as_str()).header("content-type", "application/json");
                for (k, v) in shot.headers {
                    req = req.header(*k, *v);
                }
                let req = req.body(Full::new(shot.body.clone())).unwrap();
                let t = Instant::now();
                let ok = match client.request(req).await {
                    Ok(resp) => {
                        let status = resp.status();
                        match resp.into_body().collect().await {
                            Ok(body) => {
                                let body = body.to_bytes();
                                status.is_success()
                                    && memchr::memmem::find(&body, shot.expect.as_bytes()).is_some()
                            }
                            Err(_) => false,
                        }
                    }
                    Err(_) => false,
                };
                latencies.push(t.elapsed());
                if !ok {
                    errors.fetch_add(1, Ordering::Relaxed);
                }
            }
            latencies
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let elapsed = started.elapsed();
    all.sort();
    Outcome {
        rps: all.len() as f64 / elapsed.as_secs_f64(),
        p50: all[all.len() / 2],
        p99: all[all.len() * 99 / 100],
        errors: errors.load(Ordering::Relaxed),
    }
}

fn echo_server() {
    use axum::{Json, Router, routing::post};
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let app = Router::new()
            .route(
                "/echo",
                post(|Json(v): Json<serde_json::Value>| async move { Json(v) }),
            )
            .layer(axum::extract::DefaultBodyLimit::max(8 << 20));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("listening on http://{}", listener.local_addr().unwrap());
        axum::serve(listener, app).await.unwrap();
    });
}

fn main() {
    if std::env::args().any(|a| a == "--echo-server") {
        return echo_server();
    }
    // Beside this bench's own directory: target/release/deps/load-… → target/release/.
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("extract-between")))
        .unwrap_or_else(|| "target/release/extract-between".into());
    let bin = std::env::var("EXTRACT_BETWEEN_BIN")
        .unwrap_or_else(|_| beside.to_string_lossy().into_owned());
    if !std::path::Path::new(&bin).exists() {
        eprintln!("build the release binary first: cargo build --release ({bin} is missing)");
        std::process::exit(2);
    }
    let small = Bytes::from(r#"{"text":"pre[one]mid[two]post","start":"[","end":"]"}"#);
    let mut text = String::new();
    while text.len() < 250 * 1024 - 200 {
        text.push_str(
            "lorem ipsum dolor sit amet, consectetur [adipiscing] elit, sed do eiusmod tempor. ",
        );
    }
    let large = Bytes::from(
        serde_json::json!({"text": text, "start": "[", "end": "]", "max_matches": 1000})
            .to_string(),
    );
    let me = std::env::current_exe().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "{REQUESTS} requests at concurrency {CONCURRENCY} a round; median of {ROUNDS} alternating rounds (errors summed)"
    );
    println!(
        "{:<30} {:>10} {:>10} {:>10} {:>7} {:>14}",
        "server / body", "req/s", "p50 ms", "p99 ms", "errors", "peak RSS KiB"
    );
    let mut rates = Vec::new();
    let mut mcp_rates = Vec::new();
    for (name, body) in [("small", &small), ("250KiB", &large)] {
        let execute = Shot {
            body: body.clone(),
            headers: &[],
            expect: "\"matches\"",
        };
        let echo = Shot {
            body: body.clone(),
            headers: &[],
            expect: "",
        };
        // The same arguments as a 2026-07-28 tools/call, with the headers it requires.
        let arguments: serde_json::Value = serde_json::from_slice(body).unwrap();
        let mcp = Shot {
            body: Bytes::from(
                serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                    "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                              "io.modelcontextprotocol/clientCapabilities": {}},
                    "name": "text-extract-between", "arguments": arguments}})
                .to_string(),
            ),
            headers: &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "text-extract-between"),
            ],
            expect: "\"isError\":false",
        };
        let ours = Proc::start(
            Command::new(&bin)
                .args(["serve", "--listen", "127.0.0.1:0"])
                .env("RUST_LOG", "warn"),
        );
        let base = Proc::start(Command::new(&me).arg("--echo-server"));
        let servers = [
            ("extract-between", &ours, EXECUTE, &execute),
            ("axum echo", &base, "/echo", &echo),
            ("extract-between MCP", &ours, "/mcp", &mcp),
        ];
        // A 10 000-request round lasts a fraction of a second and this 2-core machine is
        // noisy: warm the servers up, then alternate ROUNDS rounds and keep the median.
        for (_, proc_, path, shot) in servers {
            rt.block_on(load(format!("http://{}{path}", proc_.1), shot.clone()));
        }
        let mut rounds: [Vec<Outcome>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        for _ in 0..ROUNDS {
            for (i, (_, proc_, path, shot)) in servers.iter().enumerate() {
                let url = format!("http://{}{path}", proc_.1);
                rounds[i].push(rt.block_on(load(url, (*shot).clone())));
            }
        }
        for (i, (label, proc_, _, _)) in servers.iter().enumerate() {
            let runs = &mut rounds[i];
            runs.sort_by(|a, b| a.rps.total_cmp(&b.rps));
            let errors: usize = runs.iter().map(|o| o.errors).sum();
            let out = &runs[runs.len() / 2];
            println!(
                "{:<30} {:>10.0} {:>10.2} {:>10.2} {:>7} {:>14}",
                format!("{label} / {name}"),
                out.rps,
                out.p50.as_secs_f64() * 1e3,
                out.p99.as_secs_f64() * 1e3,
                errors,
                proc_.peak_rss_kib()
            );
            if i == 2 {
                mcp_rates.push(out.rps);
            } else {
                rates.push(out.rps);
            }
        }
    }
    println!(
        "ratio to baseline: small {:.2}x, 250KiB {:.2}x",
        rates[0] / rates[1],
        rates[2] / rates[3]
    );
    println!(
        "MCP tools/call to the execute URL (same process): small {:.2}x, 250KiB {:.2}x",
        mcp_rates[0] / rates[0],
        mcp_rates[1] / rates[2]
    );
}
