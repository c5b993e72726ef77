//! CORS (`serve --cors-origin`): off by default; for the origins named, preflights answered
//! before the token check and every answer readable, errors included; other origins get no
//! CORS header; a value that is not an origin is refused at start.

use crate::common::http::{EXAMPLE, Response, Server, TOOL, request, serve_binary, temp_file};

fn preflight(server: &Server, origin: &str) -> Response {
    let path = format!("{TOOL}/execute");
    request(
        server,
        "OPTIONS",
        &path,
        &[
            ("Origin", origin),
            ("Access-Control-Request-Method", "POST"),
            (
                "Access-Control-Request-Headers",
                "content-type,authorization",
            ),
        ],
        b"",
    )
}

#[test]
fn named_origins_get_preflights_and_readable_answers_even_errors() {
    let token = temp_file("cors-token", "sekrit\n");
    let server = Server::start(&[
        "--cors-origin",
        "https://app.example",
        "--auth-token-file",
        token.to_str().unwrap(),
    ]);
    let r = preflight(&server, "https://app.example");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://app.example")
    );
    let methods = r
        .header("access-control-allow-methods")
        .unwrap_or_default()
        .to_ascii_uppercase();
    assert!(methods.contains("POST"), "{methods}");
    let headers = r
        .header("access-control-allow-headers")
        .unwrap_or_default()
        .to_ascii_lowercase();
    assert!(
        headers.contains("authorization") && headers.contains("content-type"),
        "{headers}"
    );
    // A request without the token: 401, and the page may read why.
    let path = format!("{TOOL}/execute");
    let body = EXAMPLE.as_bytes();
    let r = request(
        &server,
        "POST",
        &path,
        &[
            ("Origin", "https://app.example"),
            ("Content-Type", "application/json"),
        ],
        body,
    );
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://app.example")
    );
    assert!(
        r.header("access-control-expose-headers")
            .unwrap_or_default()
            .contains("x-request-id")
    );
    let auth = [
        ("Origin", "https://app.example"),
        ("Content-Type", "application/json"),
        ("Authorization", "Bearer sekrit"),
    ];
    let r = request(&server, "POST", &path, &auth, body);
    assert_eq!(
        (r.status, r.header("access-control-allow-origin")),
        (200, Some("https://app.example"))
    );
    // Another origin: no CORS header, so its browser withholds the answer.
    let r = preflight(&server, "https://evil.example");
    assert_eq!(r.header("access-control-allow-origin"), None);
}

#[test]
fn cors_is_off_by_default_and_star_allows_any_origin() {
    let off = Server::start(&[]);
    let r = preflight(&off, "https://app.example");
    assert_eq!(r.status, 405, "{}", r.text());
    assert_eq!(r.header("access-control-allow-origin"), None);
    let any = Server::start_with(
        &[],
        &[("EXTRACT_BETWEEN_CORS_ORIGIN", "*"), ("RUST_LOG", "warn")],
        std::process::Stdio::inherit(),
    );
    let r = preflight(&any, "https://anyone.example");
    assert_eq!(
        (r.status, r.header("access-control-allow-origin")),
        (200, Some("*"))
    );
}

#[test]
fn a_value_that_is_not_an_origin_is_refused_at_start_by_both_flags() {
    for flag in ["--cors-origin", "--allow-origin"] {
        for bad in [
            "https://app.example/",
            "app.example",
            "ftp://app.example",
            "https://app.example/path",
            "https://app.example#x",
            "https://app.example:99999",
            "https://*.example",
            "https://app.example.",
        ] {
            let out = std::process::Command::new(serve_binary())
                .args(["serve", "--listen", "127.0.0.1:0", flag, bad])
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{flag} {bad}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("is not an origin") && err.contains(flag),
                "{flag} {bad}: {err}"
            );
        }
    }
}

/// What differs from the browser's `Origin` only in the case of scheme and host, or by the
/// scheme's default port, is the same origin: the preflight from the page is answered.
#[test]
fn equivalent_spellings_of_an_origin_match_what_the_browser_sends() {
    for spelling in [
        "HTTPS://App.Example",
        "https://app.example:443",
        "https://APP.example:443",
    ] {
        let server = Server::start(&["--cors-origin", spelling]);
        let r = preflight(&server, "https://app.example");
        assert_eq!(
            (r.status, r.header("access-control-allow-origin")),
            (200, Some("https://app.example")),
            "{spelling}"
        );
        let r = preflight(&server, "https://app.example:8443");
        assert_eq!(r.header("access-control-allow-origin"), None, "{spelling}");
    }
}

fn mcp_preflight(server: &Server, origin: &str) -> Response {
    request(
        server,
        "OPTIONS",
        "/mcp",
        &[
            ("Origin", origin),
            ("Access-Control-Request-Method", "POST"),
            (
                "Access-Control-Request-Headers",
                "content-type,mcp-protocol-version,mcp-session-id,last-event-id,authorization",
            ),
        ],
        b"",
    )
}

/// `/mcp` answers CORS for the origins its own check admits (`--allow-origin`'s, loopback
/// ones), with the MCP headers allowed and the session id readable; `--cors-origin` alone
/// does not open it, and other origins get no CORS header.
#[test]
fn mcp_answers_preflights_for_the_origins_it_admits_with_the_mcp_headers() {
    let server = Server::start(&["--allow-origin", "https://App.Example:443"]);
    for origin in ["https://app.example", "http://localhost:5173"] {
        let r = mcp_preflight(&server, origin);
        assert_eq!(
            (r.status, r.header("access-control-allow-origin")),
            (200, Some(origin)),
            "{origin}: {}",
            r.text()
        );
        let allowed = r
            .header("access-control-allow-headers")
            .unwrap_or_default()
            .to_ascii_lowercase();
        for h in [
            "mcp-protocol-version",
            "mcp-session-id",
            "last-event-id",
            "authorization",
            "content-type",
        ] {
            assert!(allowed.contains(h), "{h} not in {allowed}");
        }
    }
    let r = mcp_preflight(&server, "https://evil.example");
    assert_eq!(r.header("access-control-allow-origin"), None);
    // The answer itself: readable, its session id and request id exposed.
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"page","version":"1"}}}"#;
    let r = request(
        &server,
        "POST",
        "/mcp",
        &[
            ("Origin", "https://app.example"),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        body,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://app.example")
    );
    let exposed = r
        .header("access-control-expose-headers")
        .unwrap_or_default()
        .to_ascii_lowercase();
    assert!(
        exposed.contains("mcp-session-id") && exposed.contains("x-request-id"),
        "{exposed}"
    );
    // --cors-origin opens the HTTP routes, not /mcp.
    let cors_only = Server::start(&["--cors-origin", "https://web.example"]);
    let r = mcp_preflight(&cors_only, "https://web.example");
    assert_eq!(r.header("access-control-allow-origin"), None);
}
