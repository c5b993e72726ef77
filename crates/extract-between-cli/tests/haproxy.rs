//! Two instances behind a real HAProxy (`option httpchk GET /readyz`), restarted in turn
//! under steady keep-alive load: no request may fail. The drain is what makes it so:
//! `/readyz` fails at once on SIGTERM so HAProxy takes the instance out, answers during
//! the drain close their connections, and only then does the listener close.
//!
//! HAProxy comes from Debian's `haproxy` package, which `.ci/run` installs; there
//! `EXTRACT_BETWEEN_REQUIRE_HAPROXY=1` makes its absence a failure instead of a skip.

use crate::common::http::{Server, TOOL};
use crate::common::process::poll_until;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const CLIENTS: usize = 8;
const BODY: &str = r#"{"text":"a[one]b[two]c","start":"[","end":"]"}"#;
const ANSWER: &str = r#"{"matches":["one","two"],"truncated":false}"#;

fn haproxy_available() -> bool {
    crate::common::process::tool_available(
        Command::new("haproxy").arg("-v"),
        "EXTRACT_BETWEEN_REQUIRE_HAPROXY",
        "HAProxy",
        "apt-get install haproxy",
    )
}

struct Haproxy(Child);

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn instance(port: u16) -> Server {
    let listen = format!("127.0.0.1:{port}");
    Server::start_with(
        &[
            "--listen",
            &listen,
            "--drain-seconds",
            "2",
            "--shutdown-timeout",
            "10",
        ],
        &[("RUST_LOG", "warn")],
        Stdio::inherit(),
    )
}

/// One keep-alive request; `Ok(true)` when the answer closes the connection.
fn exchange(r: &mut BufReader<TcpStream>) -> std::io::Result<bool> {
    // One write: a head and body in pieces would wait on delayed ACKs.
    let request = format!(
        "POST {TOOL}/execute HTTP/1.1\r\nHost: lb\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    r.get_mut().write_all(request.as_bytes())?;
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Err(std::io::Error::other("closed before an answer"));
    }
    let status = line.split_whitespace().nth(1).unwrap_or("").to_owned();
    let (mut length, mut close) = (0, false);
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            return Err(std::io::Error::other("closed inside the head"));
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
            if k == "content-length" {
                length = v.parse().unwrap_or(0);
            } else if k == "connection" && v.eq_ignore_ascii_case("close") {
                close = true;
            }
        }
    }
    let mut body = vec![0; length];
    r.read_exact(&mut body)?;
    if status != "200" || body != ANSWER.as_bytes() {
        return Err(std::io::Error::other(format!(
            "status {status}: {}",
            String::from_utf8_lossy(&body)
        )));
    }
    Ok(close)
}

fn connect(addr: SocketAddr) -> std::io::Result<BufReader<TcpStream>> {
    let s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    Ok(BufReader::new(s))
}

/// How many requests of one instance's route were answered 200, from its `/metrics`.
fn executed(server: &Server) -> u64 {
    let r = crate::common::http::get(server, "/metrics");
    r.text()
        .lines()
        .find(|l| {
            l.starts_with("extract_between_http_requests_total")
                && l.contains("/execute")
                && l.contains("status=\"200\"")
        })
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[test]
fn restarting_each_instance_behind_haproxy_loses_no_request() {
    if !haproxy_available() {
        return;
    }
    // Each instance picks its port and announces it; a restart binds the same one again.
    let mut instances = [instance(0), instance(0)];
    let ports = [instances[0].addr.port(), instances[1].addr.port()];
    // HAProxy's front: a socket the kernel gave a port, handed to HAProxy as its standard
    // input (`bind fd@0`), so no port is picked, released and hoped for.
    let front_socket = TcpListener::bind("127.0.0.1:0").unwrap();
    let front = front_socket.local_addr().unwrap();
    let dir = crate::common::scratch::dir();
    let config = dir.join("haproxy.cfg");
    std::fs::write(
        &config,
        format!(
            "global\n  maxconn 1000\n\
             defaults\n  mode http\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n\
             frontend fe\n  bind fd@0\n  default_backend be\n\
             backend be\n  balance roundrobin\n  option httpchk GET /readyz\n  http-check expect status 200\n\
             \x20 default-server inter 200ms fastinter 100ms downinter 200ms fall 1 rise 2\n\
             \x20 server a 127.0.0.1:{} check\n  server b 127.0.0.1:{} check\n",
            ports[0], ports[1]
        ),
    )
    .unwrap();
    let _haproxy = Haproxy(
        Command::new("haproxy")
            .args(["-db", "-f"])
            .arg(&config)
            .stdin(Stdio::from(std::os::fd::OwnedFd::from(front_socket)))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // Both servers up: HAProxy answers, and has done its rise checks.
    let deadline = Instant::now() + Duration::from_secs(10);
    while connect(front).and_then(|mut c| exchange(&mut c)).is_err() {
        assert!(Instant::now() < deadline, "HAProxy never answered");
        std::thread::sleep(Duration::from_millis(100));
    }

    let stop = Arc::new(AtomicBool::new(false));
    let (ok, failed) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (stop, ok, failed) = (Arc::clone(&stop), Arc::clone(&ok), Arc::clone(&failed));
            std::thread::spawn(move || {
                let mut errors = Vec::new();
                let mut conn = None;
                while !stop.load(Ordering::Relaxed) {
                    let c = match conn.as_mut() {
                        Some(c) => c,
                        None => match connect(front) {
                            Ok(c) => conn.insert(c),
                            Err(e) => {
                                failed.fetch_add(1, Ordering::Relaxed);
                                errors.push(format!("connect: {e}"));
                                continue;
                            }
                        },
                    };
                    match exchange(c) {
                        Ok(close) => {
                            ok.fetch_add(1, Ordering::Relaxed);
                            if close {
                                conn = None;
                            }
                        }
                        Err(e) => {
                            failed.fetch_add(1, Ordering::Relaxed);
                            errors.push(e.to_string());
                            conn = None;
                        }
                    }
                }
                errors
            })
        })
        .collect();

    // Traffic flows through both instances before the first restart.
    let flowing = poll_until(Duration::from_secs(15), || {
        instances.iter().all(|s| executed(s) > 0).then_some(())
    });
    assert!(
        flowing.is_some(),
        "HAProxy never sent traffic to both instances"
    );
    for (i, port) in ports.into_iter().enumerate() {
        let before = ok.load(Ordering::Relaxed);
        instances[i].sigterm();
        let status = instances[i]
            .exited_within(Duration::from_secs(15))
            .expect("the instance exits after its drain");
        assert!(status.success(), "instance {i} exited with {status:?}");
        instances[i] = instance(port);
        // HAProxy's rise checks (2 × 200 ms), then traffic for the new instance.
        let served = poll_until(Duration::from_secs(15), || {
            (executed(&instances[i]) > 0).then_some(())
        });
        assert!(
            served.is_some(),
            "restarted instance {i} was never sent traffic"
        );
        assert!(
            ok.load(Ordering::Relaxed) > before,
            "no request answered while instance {i} restarted"
        );
    }
    stop.store(true, Ordering::Relaxed);
    let errors: Vec<String> = clients
        .into_iter()
        .flat_map(|c| c.join().unwrap())
        .collect();
    let (ok, failed) = (ok.load(Ordering::Relaxed), failed.load(Ordering::Relaxed));
    eprintln!("{ok} requests answered, {failed} failed");
    assert_eq!(failed, 0, "failed requests: {errors:?}");
    assert!(ok > 1000, "only {ok} requests answered");
    // Both restarted instances took traffic.
    for (i, server) in instances.iter().enumerate() {
        assert!(
            executed(server) > 0,
            "restarted instance {i} served nothing"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
