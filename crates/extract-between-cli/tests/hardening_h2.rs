//! HTTP/2 against the service's bounds, with raw frames: a stream whose flow-control window
//! the client keeps shut is ended at the stall bound, and connections get GOAWAY when the
//! drain begins.

use crate::common::http::{H2_PREFACE, Server, closed_within, get};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Reads HTTP/2 frames until one of `kind` arrives (its type byte), or the connection ends
/// or `within` passes: whether it came.
fn h2_frame_within(s: &mut TcpStream, kind: u8, within: Duration) -> bool {
    let until = Instant::now() + within;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        s.set_read_timeout(Some(left)).unwrap();
        let mut head = [0u8; 9];
        if s.read_exact(&mut head).is_err() {
            return false;
        }
        let len = usize::from(head[0]) << 16 | usize::from(head[1]) << 8 | usize::from(head[2]);
        let mut payload = vec![0u8; len];
        if s.read_exact(&mut payload).is_err() {
            return false;
        }
        if head[3] == kind {
            return true;
        }
    }
}

/// `GET /` on stream 1 with END_STREAM and END_HEADERS (HPACK: GET, http, path /).
const H2_GET_ROOT: [u8; 12] = [0, 0, 3, 1, 5, 0, 0, 0, 1, 0x82, 0x86, 0x84];

/// A client that keeps one HTTP/2 stream's window shut never lets its answer out: the
/// stream holds its place until the stall bound, then the connection is closed and counted
/// as a timeout, as a stalled HTTP/1 write is.
#[test]
fn an_http2_stream_whose_window_stays_shut_is_ended_at_the_stall_bound() {
    let server = Server::start(&["--idle-timeout", "1", "--keepalive-timeout", "60"]);
    let mut s = server.connect();
    // The preface, then SETTINGS with INITIAL_WINDOW_SIZE 0: no stream may receive data.
    s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
    s.write_all(&[0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0])
        .unwrap();
    s.write_all(&H2_GET_ROOT).unwrap();
    let opened = Instant::now();
    // Settings and headers may come; no DATA can, and the connection ends.
    assert!(
        closed_within(&mut s, Duration::from_secs(15)),
        "never closed"
    );
    let took = opened.elapsed();
    // The bound (1 s and a second's grace), found within another bound's time.
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(8),
        "closed after {took:?}"
    );
    let text = get(&server, "/metrics").text();
    assert!(
        text.lines().any(
            |l| l.starts_with("extract_between_rejected_total{reason=\"timeout\"} ")
                && !l.ends_with(" 0")
        ),
        "{text}"
    );
}

/// SIGTERM: an HTTP/2 connection gets GOAWAY when the drain begins (not when it ends), so
/// the client opens its next streams elsewhere while this instance still answers.
#[test]
fn http2_connections_get_goaway_when_the_drain_begins() {
    let mut server = Server::start(&["--drain-seconds", "20", "--shutdown-timeout", "1"]);
    let mut s = server.connect();
    s.write_all(H2_PREFACE).unwrap();
    s.write_all(&H2_GET_ROOT).unwrap();
    // The answer's HEADERS (type 1): the connection is up and served.
    assert!(h2_frame_within(&mut s, 1, Duration::from_secs(5)));
    server.sigterm();
    // GOAWAY is type 7; the drain lasts 20 s.
    assert!(
        h2_frame_within(&mut s, 7, Duration::from_secs(10)),
        "no GOAWAY in the first half of the drain"
    );
    assert_eq!(
        get(&server, "/livez").status,
        200,
        "still serving in the drain"
    );
    let _ = server.child.kill();
}
