//! Bearer-token authentication from outside, on a real socket: which routes need a token,
//! the token file read again on a change and on SIGHUP, `!revoke-all`, a byte order mark,
//! a token from the environment that never reaches the logs, and the start refused for a
//! token file that cannot serve.

use crate::common::http::{
    EXAMPLE, Server, TOOL, get, metric, metrics_of, request, start_logged, temp_file, with_token,
};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const EXECUTE: &str = "/v1/tools/text-extract-between/versions/1.0.0/execute";
const STREAM: &str = "/v1/tools/text-extract-between/versions/1.0.0/stream";

#[test]
fn tokens_are_required_everywhere_but_the_probes() {
    let file = temp_file(
        "tokens-a",
        "# rotated monthly\nalpha-token\n\n  beta-token  \n",
    );
    let server = Server::start(&["--auth-token-file", file.to_str().unwrap()]);
    // No token: 401, the envelope, the challenge.
    let r = request(&server, "POST", EXECUTE, &[], EXAMPLE.as_bytes());
    assert_eq!(r.status, 401);
    assert_eq!(r.json()["error"]["code"], "unauthorized");
    assert_eq!(r.json()["error"]["field"], "Authorization");
    assert_eq!(
        r.header("www-authenticate"),
        Some(r#"Bearer realm="extract-between""#)
    );
    // A wrong token, another scheme, a token's prefix.
    for header in [
        "Bearer gamma-token",
        "Basic YWxwaGEtdG9rZW4=",
        "Bearer alpha",
    ] {
        let r = request(
            &server,
            "POST",
            EXECUTE,
            &[("Authorization", header)],
            EXAMPLE.as_bytes(),
        );
        assert_eq!(r.status, 401, "{header}");
        assert!(
            r.header("www-authenticate")
                .unwrap()
                .contains("invalid_token"),
            "{r:?}"
        );
    }
    // Either token of the file, any case of the scheme.
    for token in ["alpha-token", "beta-token"] {
        let r = with_token(&server, "POST", EXECUTE, token, EXAMPLE.as_bytes());
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let r = request(
        &server,
        "POST",
        EXECUTE,
        &[("Authorization", "bearer alpha-token")],
        EXAMPLE.as_bytes(),
    );
    assert_eq!(r.status, 200);
    // Every other route is guarded too, unknown ones included.
    for path in [TOOL, "/v1/tools", "/openapi.json", "/metrics", "/nowhere"] {
        assert_eq!(get(&server, path).status, 401, "{path}");
    }
    let r = with_token(
        &server,
        "POST",
        &format!("{STREAM}?start=%5B&end=%5D"),
        "beta-token",
        b"[z]",
    );
    assert_eq!(r.status, 200);
    // The probes are not.
    for path in ["/livez", "/healthz", "/readyz"] {
        assert_eq!(get(&server, path).status, 200, "{path}");
    }
    let text = metrics_of(&server, Some("alpha-token"));
    assert_eq!(
        metric(
            &text,
            "extract_between_rejected_total{reason=\"unauthorized\"}"
        ),
        9.0,
        "{text}"
    );
}

#[test]
fn a_changed_token_file_is_read_again_without_a_restart() {
    let file = temp_file("tokens-rotate", "old-token\n");
    let (server, logs) = start_logged(&["--auth-token-file", file.to_str().unwrap()], &[]);
    assert_eq!(
        with_token(&server, "GET", "/v1/tools", "old-token", b"").status,
        200
    );
    assert_eq!(
        with_token(&server, "GET", "/v1/tools", "new-token", b"").status,
        401
    );
    // The way a Kubernetes Secret volume updates: a new file renamed over the old.
    let next = file.with_extension("next");
    std::fs::write(&next, "new-token\n").unwrap();
    std::fs::rename(&next, &file).unwrap();
    let deadline = Instant::now() + Duration::from_secs(8);
    while with_token(&server, "GET", "/v1/tools", "new-token", b"").status != 200 {
        assert!(
            Instant::now() < deadline,
            "the new token was never accepted"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(
        with_token(&server, "GET", "/v1/tools", "old-token", b"").status,
        401
    );
    // A file emptied by mistake keeps the tokens read before.
    std::fs::write(&file, "\n").unwrap();
    logs.wait_for("keeping the tokens read before", Duration::from_secs(8));
    assert_eq!(
        with_token(&server, "GET", "/v1/tools", "new-token", b"").status,
        200
    );
}

#[test]
fn a_token_from_the_environment_works_and_never_reaches_the_logs() {
    let token = "env-token-5f3a9c";
    let (mut server, logs) = start_logged(
        &["--listen", "127.0.0.1:0", "--drain-seconds", "0"],
        &[("EXTRACT_BETWEEN_AUTH_TOKEN", token), ("RUST_LOG", "trace")],
    );
    assert_eq!(
        with_token(&server, "POST", EXECUTE, token, EXAMPLE.as_bytes()).status,
        200
    );
    assert_eq!(
        with_token(
            &server,
            "POST",
            EXECUTE,
            "env-token-5f3a9d",
            EXAMPLE.as_bytes()
        )
        .status,
        401
    );
    server.sigterm();
    server.exited_within(Duration::from_secs(5)).unwrap();
    let logs = logs.join().unwrap();
    assert!(logs.len() > 3, "{logs:?}");
    assert!(!logs.iter().any(|l| l.contains("5f3a9")), "{logs:#?}");
}

#[test]
fn a_token_file_that_cannot_serve_stops_the_start_naming_it() {
    let empty = temp_file("tokens-empty", "# nothing yet\n\n");
    for (file, why) in [
        (empty.to_str().unwrap().to_owned(), "holds no token"),
        (
            "/nonexistent/tokens".to_owned(),
            "cannot read the token file /nonexistent/tokens",
        ),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_extract-between"))
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--auth-token-file",
                &file,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(why) && stderr.contains(&file), "{stderr}");
        assert!(
            out.stdout.is_empty(),
            "announced before failing: {:?}",
            out.stdout
        );
    }
}

#[test]
fn listening_beyond_loopback_without_a_token_warns() {
    for (args, warned) in [
        (vec!["--listen", "0.0.0.0:0"], true),
        (vec!["--listen", "127.0.0.1:0"], false),
    ] {
        let mut args = args;
        args.extend(["--drain-seconds", "0"]);
        let (mut server, logs) = start_logged(&args, &[("RUST_LOG", "info")]);
        server.sigterm();
        server.exited_within(Duration::from_secs(5)).unwrap();
        let logs = logs.join().unwrap();
        assert_eq!(
            logs.iter().any(|l| l.contains("without authentication")),
            warned,
            "{args:?}: {logs:#?}"
        );
    }
}

/// A FIFO, a device and a 1 GiB file put in the token file's place are refused without
/// blocking or reading them: the tokens read before still work, memory stays small, and the
/// next rotation takes effect.
#[test]
fn a_token_file_replaced_by_a_fifo_a_device_or_a_huge_file_is_refused_and_rotation_goes_on() {
    let file = temp_file("tokens-odd", "alpha\n");
    let server = Server::start_with(
        &["--auth-token-file", file.to_str().unwrap()],
        &[],
        Stdio::null(),
    );
    until_token_gets(&server, "alpha", 200, Duration::from_secs(1));
    let next = file.with_extension("next");
    let fifo = file.with_extension("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    assert!(made, "mkfifo");
    std::fs::rename(&fifo, &file).unwrap();
    server.signal("HUP");
    // A reloader blocked on the FIFO would never see what follows.
    std::fs::write(&next, "beta\n").unwrap();
    std::fs::rename(&next, &file).unwrap();
    server.signal("HUP");
    until_token_gets(&server, "beta", 200, Duration::from_secs(5));
    // A link to a device, then a sparse 1 GiB file: refused, the tokens before kept.
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
    server.signal("HUP");
    let huge = std::fs::File::create(&next).unwrap();
    huge.set_len(1 << 30).unwrap();
    drop(huge);
    std::fs::remove_file(&file).unwrap();
    std::fs::rename(&next, &file).unwrap();
    server.signal("HUP");
    std::fs::write(&next, "gamma\n").unwrap();
    std::fs::rename(&next, &file).unwrap();
    server.signal("HUP");
    until_token_gets(&server, "gamma", 200, Duration::from_secs(5));
    assert!(
        server.peak_rss_kib() < 200 * 1024,
        "peak RSS {} KiB: a token file was read whole",
        server.peak_rss_kib()
    );
}

/// Lines are trimmed of ASCII whitespace only, as the header is: a token wrapped in no-break
/// spaces is not silently another token.
#[test]
fn token_lines_are_trimmed_as_the_header_is() {
    let file = temp_file("tokens-nbsp", "\u{A0}tok\u{A0}\n  plain  \n");
    let server = Server::start_with(
        &["--auth-token-file", file.to_str().unwrap()],
        &[],
        Stdio::null(),
    );
    until_token_gets(&server, "plain", 200, Duration::from_secs(1));
    assert_eq!(
        with_token(&server, "GET", "/v1/tools", "tok", b"").status,
        401
    );
}

/// The README's first command, as a user runs it: nothing it logs on its way up and down is a
/// warning (the allocator's settings included).
#[test]
fn a_plain_start_logs_no_warning() {
    let (mut server, logs) = start_logged(&["--drain-seconds", "0"], &[("RUST_LOG", "info")]);
    assert_eq!(get(&server, "/readyz").status, 200);
    server.sigterm();
    server.exited_within(Duration::from_secs(5)).unwrap();
    let logs = logs.join().unwrap();
    assert!(logs.iter().any(|l| l.contains("listening")), "{logs:#?}");
    assert!(!logs.iter().any(|l| l.contains(" WARN ")), "{logs:#?}");
}

/// Polls until `token` on `/v1/tools` gets `status`, for at most `within`.
fn until_token_gets(server: &Server, token: &str, status: u16, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let got = with_token(server, "GET", "/v1/tools", token, b"").status;
        if got == status {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{token} still gets {got}, not {status}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_byte_order_mark_in_the_token_file_is_not_part_of_the_first_token() {
    let file = temp_file("tokens-bom", "\u{FEFF}alpha\nbeta\n");
    let server = Server::start(&["--auth-token-file", file.to_str().unwrap()]);
    for token in ["alpha", "beta"] {
        assert_eq!(
            with_token(&server, "GET", "/v1/tools", token, b"").status,
            200,
            "{token}"
        );
    }
}

/// SIGHUP re-reads the token file at once, even a file whose size, time and inode did not
/// change (which the periodic check would not re-read), and never ends the server.
#[test]
fn sighup_re_reads_the_token_file_and_keeps_serving() {
    let file = temp_file("tokens-hup", "aaaa\n");
    let stamp = file.with_extension("stamp");
    std::fs::write(&stamp, "").unwrap();
    let touch = |from: &Path, to: &Path| {
        let ok = std::process::Command::new("touch")
            .arg("-r")
            .arg(from)
            .arg(to)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "touch -r");
    };
    touch(&file, &stamp);
    let mut server = Server::start(&["--auth-token-file", file.to_str().unwrap()]);
    assert_eq!(
        with_token(&server, "GET", "/v1/tools", "aaaa", b"").status,
        200
    );
    // Same length, same inode, and the old modification time put back.
    std::fs::write(&file, "bbbb\n").unwrap();
    touch(&stamp, &file);
    server.signal("HUP");
    until_token_gets(&server, "bbbb", 200, Duration::from_secs(5));
    assert_eq!(
        with_token(&server, "GET", "/v1/tools", "aaaa", b"").status,
        401
    );
    assert!(server.exited_within(Duration::from_millis(300)).is_none());
}

#[test]
fn sighup_without_a_token_file_does_not_end_the_server() {
    let mut server = Server::start(&[]);
    server.signal("HUP");
    assert!(
        server.exited_within(Duration::from_secs(1)).is_none(),
        "SIGHUP ended the server"
    );
    assert_eq!(get(&server, "/livez").status, 200);
}

/// A token file reading `!revoke-all` refuses every request but the probes, the
/// environment's token included; an emptied file still keeps the tokens read before.
#[test]
fn revoke_all_in_the_token_file_refuses_every_token() {
    let file = temp_file("tokens-revoke", "alpha\n");
    let server = Server::start_with(
        &["--auth-token-file", file.to_str().unwrap()],
        &[("EXTRACT_BETWEEN_AUTH_TOKEN", "from-env")],
        Stdio::null(),
    );
    until_token_gets(&server, "alpha", 200, Duration::from_secs(1));
    let next = file.with_extension("next");
    std::fs::write(&next, "# incident 42\n!revoke-all\nalpha\n").unwrap();
    std::fs::rename(&next, &file).unwrap();
    server.signal("HUP");
    until_token_gets(&server, "alpha", 401, Duration::from_secs(5));
    assert_eq!(
        with_token(&server, "GET", "/v1/tools", "from-env", b"").status,
        401
    );
    assert_eq!(get(&server, "/readyz").status, 200);
    std::fs::write(&next, "gamma\n").unwrap();
    std::fs::rename(&next, &file).unwrap();
    server.signal("HUP");
    until_token_gets(&server, "gamma", 200, Duration::from_secs(5));
}
