//! A small blocking HTTP/1.1 client over a real socket, and a handle on a real server
//! process: enough to send exact bytes (chunked uploads, partial headers) and read answers.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const TOOL: &str = "/v1/tools/text-extract-between/versions/1.0.0";

/// The binary whose `serve` the tests start: `EXTRACT_BETWEEN_SERVE_BIN` where set (a release
/// build, say), else this build's.
pub fn serve_binary() -> std::ffi::OsString {
    std::env::var_os("EXTRACT_BETWEEN_SERVE_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_extract-between").into())
}

/// A `extract-between serve` process on a free port, killed on drop.
pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
    /// The rest of its standard output, after the listening line.
    pub stdout: BufReader<std::process::ChildStdout>,
}

impl Server {
    pub fn start(extra: &[&str]) -> Server {
        let mut args = vec!["--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        Server::start_with(&args, &[("RUST_LOG", "warn")], Stdio::inherit())
    }

    /// `serve` with `args`, the variables `env`, and stderr as given. Where neither names
    /// an address, the kernel picks a free port: a test never takes the service's default
    /// port, which a service the user started may hold.
    pub fn start_with(args: &[&str], env: &[(&str, &str)], stderr: Stdio) -> Server {
        let named =
            args.contains(&"--listen") || env.iter().any(|(k, _)| *k == "EXTRACT_BETWEEN_LISTEN");
        let free: &[&str] = if named {
            &[]
        } else {
            &["--listen", "127.0.0.1:0"]
        };
        let mut child = Command::new(serve_binary())
            .arg("serve")
            .args(free)
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let addr = parse_listening_line(&line).expect("listening line");
        Server {
            child,
            addr,
            stdout,
        }
    }

    /// Peak resident set size of the server process so far, in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        self.status_kib("VmHWM")
    }

    /// Resident set size of the server process now, in KiB.
    pub fn rss_kib(&self) -> u64 {
        self.status_kib("VmRSS")
    }

    fn status_kib(&self, field: &str) -> u64 {
        super::process::status_kib(self.child.id(), field).expect("the server runs")
    }

    /// Sends the server SIGTERM with the shell's builtin `kill`, so the tests need no procps.
    pub fn sigterm(&self) {
        self.signal("TERM");
    }

    /// Sends the signal named `name` (`TERM`, `HUP`…) to the server.
    pub fn signal(&self, name: &str) {
        let pid = self.child.id().to_string();
        let signalled = Command::new("sh")
            .args(["-c", &format!("kill -{name} {pid}")])
            .status()
            .unwrap();
        assert!(signalled.success());
    }

    /// Waits at most `wait` for the process to exit.
    pub fn exited_within(&mut self, wait: Duration) -> Option<std::process::ExitStatus> {
        let deadline = std::time::Instant::now() + wait;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            if std::time::Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        s
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends one request with a Content-Length body and reads the whole answer.
pub fn request(
    server: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let mut s = server.connect();
    // The Host a real client sends: the address it connects to.
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
        server.addr,
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) before reading everything; ignore a reset on write.
    let _ = s.write_all(body);
    read_response(&mut BufReader::new(s))
}

/// The status of `GET path` on a new connection to `addr`, or `None` when the server
/// closed it (or refused it) without an answer.
pub fn status_of_get(addr: SocketAddr, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(60))).ok()?;
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
        .ok()?;
    let mut answer = String::new();
    let _ = std::io::Read::read_to_string(&mut s, &mut answer);
    answer.split_whitespace().nth(1)?.parse().ok()
}

/// POSTs `body` to `path` on a connection of its own, with `headers` (each line ending in
/// CRLF) besides Host and Content-Length, and answers the status line's first 12 bytes
/// (`HTTP/1.1 200`), empty when the server closed without an answer. Hard to break: a reset
/// while writing is no failure.
pub fn post_status_line(addr: SocketAddr, path: &str, headers: &str, body: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = s
        .write_all(head.as_bytes())
        .and_then(|()| s.write_all(body));
    let mut answer = Vec::new();
    let _ = std::io::Read::read_to_end(&mut s, &mut answer);
    String::from_utf8_lossy(&answer[..answer.len().min(12)]).into_owned()
}

/// Sends `bytes` exactly as they are on a new connection to `addr`, and reads the answer.
pub fn raw_exchange(addr: SocketAddr, bytes: &[u8]) -> Response {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(bytes).unwrap();
    read_response(&mut BufReader::new(s))
}

pub fn post_json(server: &Server, body: &str) -> Response {
    request(
        server,
        "POST",
        &format!("{TOOL}/execute"),
        &[("Content-Type", "application/json")],
        body.as_bytes(),
    )
}

pub fn get(server: &Server, path: &str) -> Response {
    request(server, "GET", path, &[], b"")
}

/// Reads a status line, headers and the body (chunked, by length, or to EOF).
pub fn read_response<R: BufRead>(r: &mut R) -> Response {
    let (status, headers) = read_head(r);
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let length = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok());
    let mut body = Vec::new();
    if chunked {
        body = read_chunked_body(r);
    } else if let Some(n) = length {
        body.resize(n, 0);
        r.read_exact(&mut body).unwrap();
    } else {
        r.read_to_end(&mut body).unwrap();
    }
    Response {
        status,
        headers,
        body,
    }
}

pub fn read_head<R: BufRead>(r: &mut R) -> (u16, Vec<(String, String)>) {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let status = line
        .split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("bad status line {line:?}"))
        .parse()
        .unwrap();
    let mut headers = Vec::new();
    loop {
        line.clear();
        r.read_line(&mut line).unwrap();
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':').unwrap();
        headers.push((k.trim().to_owned(), v.trim().to_owned()));
    }
    (status, headers)
}

/// The rest of a chunked body, up to its last (empty) chunk.
pub fn read_chunked_body<R: BufRead>(r: &mut R) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(chunk) = read_chunk(r) {
        body.extend_from_slice(&chunk);
    }
    body
}

/// One chunk of a chunked body; `None` at the last (empty) chunk.
pub fn read_chunk<R: BufRead>(r: &mut R) -> Option<Vec<u8>> {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let size = usize::from_str_radix(line.trim().split(';').next().unwrap(), 16).unwrap();
    let mut data = vec![0; size];
    r.read_exact(&mut data).unwrap();
    let mut crlf = [0; 2];
    r.read_exact(&mut crlf).unwrap();
    (size > 0).then_some(data)
}

/// Writes one chunk of a chunked request body (an empty chunk ends it).
pub fn write_chunk<W: Write>(w: &mut W, data: &[u8]) -> std::io::Result<()> {
    write!(w, "{:x}\r\n", data.len())?;
    w.write_all(data)?;
    w.write_all(b"\r\n")
}

/// Starts a chunked upload; returns the socket for writing chunks.
pub fn start_upload(server: &Server, method: &str, path_and_query: &str) -> TcpStream {
    let mut s = server.connect();
    write!(
        s,
        "{method} {path_and_query} HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n"
    )
    .unwrap();
    s
}

/// Percent-encodes a query value.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Whether the server has closed `s` (end of stream or a reset), waiting at most `wait`.
/// Bytes that arrive first are read and dropped.
pub fn closed_within(s: &mut TcpStream, wait: Duration) -> bool {
    use std::io::Read;
    let deadline = std::time::Instant::now() + wait;
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return false;
        }
        s.set_read_timeout(Some(left)).unwrap();
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false;
            }
            Err(_) => return true,
        }
    }
}

/// Starts a chunked upload, sends `first` as its first chunk and reads the answer's head
/// (200); returns the socket for more chunks and a reader for the answer's body.
pub fn open_upload(
    server: &Server,
    path_and_query: &str,
    first: &[u8],
) -> (TcpStream, BufReader<TcpStream>) {
    let mut s = start_upload(server, "POST", path_and_query);
    write_chunk(&mut s, first).unwrap();
    let mut reader = BufReader::new(s.try_clone().unwrap());
    assert_eq!(read_head(&mut reader).0, 200);
    (s, reader)
}

/// The address in the line `serve` prints once it listens (`listening on http://ADDR`).
pub fn parse_listening_line(line: &str) -> Option<std::net::SocketAddr> {
    line.strip_prefix("listening on http://")?
        .trim()
        .parse()
        .ok()
}

/// A request body every test can send: the card's example, one match.
pub const EXAMPLE: &str = r#"{"text":"[a]","start":"[","end":"]"}"#;

/// A file in this test process's temporary folder, with `text`.
pub fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let path = super::scratch::path(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `method path` with `Authorization: Bearer token`.
pub fn with_token(server: &Server, method: &str, path: &str, token: &str, body: &[u8]) -> Response {
    let value = format!("Bearer {token}");
    request(server, method, path, &[("Authorization", &value)], body)
}

/// Starts a server with stderr captured; returns it and its log lines as they come.
pub fn start_logged(args: &[&str], env: &[(&str, &str)]) -> (Server, Logs) {
    let mut server = Server::start_with(args, env, Stdio::piped());
    let stderr = server.child.stderr.take().unwrap();
    let lines = Arc::new(Mutex::new(Vec::new()));
    let reader = {
        let lines = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        })
    };
    (server, Logs { lines, reader })
}

/// A server's log lines, collected by a thread while it runs.
pub struct Logs {
    lines: Arc<Mutex<Vec<String>>>,
    reader: std::thread::JoinHandle<()>,
}

impl Logs {
    /// Polls until a line holding `needle` was logged, for at most `within`.
    pub fn wait_for(&self, needle: &str, within: Duration) {
        let found = super::process::poll_until(within, || {
            self.lines
                .lock()
                .unwrap()
                .iter()
                .any(|l| l.contains(needle))
                .then_some(())
        });
        assert!(
            found.is_some(),
            "never logged {needle:?}: {:#?}",
            self.lines.lock().unwrap()
        );
    }

    /// Every line, once the server's stderr has closed.
    pub fn join(self) -> std::thread::Result<Vec<String>> {
        self.reader.join()?;
        Ok(std::mem::take(&mut *self.lines.lock().unwrap()))
    }
}

/// Polls the server's `/metrics` until the series `series` (name and labels) has a value
/// `ok` accepts, for at most `within`.
pub fn wait_for_metric(server: &Server, series: &str, within: Duration, ok: impl Fn(f64) -> bool) {
    let mut last = 0.0;
    let found = super::process::poll_until(within, || {
        last = metric(&metrics_of(server, None), series);
        ok(last).then_some(())
    });
    assert!(found.is_some(), "{series} stayed at {last}");
}

/// Polls until the server stops saying it is ready (`/readyz` answers another status, or
/// nothing): its drain has begun.
pub fn wait_until_not_ready(server: &Server, within: Duration) {
    let begun = super::process::eventually(within, || {
        status_of_get(server.addr, "/readyz") != Some(200)
    });
    assert!(begun, "the server never began to drain");
}

/// The value of the series whose line starts with `series` (name and labels), or 0.
pub fn metric(text: &str, series: &str) -> f64 {
    text.lines()
        .find(|l| l.starts_with(series) && l[series.len()..].starts_with(' '))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

pub fn metrics_of(server: &Server, token: Option<&str>) -> String {
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
    let r = request(server, "GET", "/metrics", &headers, b"");
    assert_eq!(r.status, 200, "{}", r.text());
    // The body is OpenMetrics and says so: labelled as the older Prometheus text format,
    // its counters (families named without `_total`) would be read as untyped.
    assert_eq!(
        r.header("content-type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8"),
        "{r:?}"
    );
    assert!(r.text().ends_with("# EOF\n"), "{}", r.text());
    r.text()
}

/// Starts a chunked upload to the stream endpoint with `[`/`]` markers, sends `first`, and
/// waits for the 200 head: the upload stays open for the caller.
pub fn open_bracket_stream(server: &Server, first: &[u8]) -> (TcpStream, BufReader<TcpStream>) {
    let mut s = start_upload(server, "POST", &format!("{TOOL}/stream?start=%5B&end=%5D"));
    write_chunk(&mut s, first).unwrap();
    let mut reader = BufReader::new(s.try_clone().unwrap());
    assert_eq!(read_head(&mut reader).0, 200);
    (s, reader)
}

/// The lines of an NDJSON answer, each parsed.
pub fn ndjson(body: &[u8]) -> Vec<serde_json::Value> {
    body.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

/// The HTTP/2 connection preface and an empty SETTINGS frame.
pub const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0";
