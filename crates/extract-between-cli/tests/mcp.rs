//! The MCP server under raw JSON-RPC, over stdio and HTTP: what no well-behaved client
//! sends (malformed JSON, wrong `jsonrpc`, invalid UTF-8, lone surrogates, oversized lines,
//! requests before `initialize`, unsupported versions, wrong or missing headers) gets a
//! JSON-RPC error and the server keeps serving.

use crate::common::http::{Response, Server, request};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

const TOOL: &str = "text-extract-between";
const V: &str = "2026-07-28";

fn meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}
    })
}

struct Stdio_ {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Stdio_ {
    fn start() -> Stdio_ {
        let mut child = Command::new(env!("CARGO_BIN_EXE_extract-between"))
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Stdio_ {
            child,
            input,
            output,
        }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        self.input.write_all(bytes).unwrap();
        self.input.write_all(b"\n").unwrap();
        self.input.flush().unwrap();
    }

    fn send(&mut self, message: &Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    /// The next line on stdout, which must be a JSON-RPC message.
    fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        v
    }

    fn ask(&mut self, message: &Value) -> Value {
        self.send(message);
        self.recv()
    }
}

fn error_code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

fn ping(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
}

#[test]
fn stdio_answers_every_bad_message_and_keeps_serving() {
    let mut s = Stdio_::start();
    // Malformed JSON, invalid UTF-8, a non-object: errors with a null id.
    for bad in [&b"{\"jsonrpc\":"[..], b"\xff\xfe{}", b"[1,2]", b"42"] {
        s.send_raw(bad);
        let v = s.recv();
        assert!(v["id"].is_null(), "{v}");
        assert!([-32700, -32600].contains(&error_code(&v)), "{v}");
    }
    // Wrong jsonrpc, a null id: invalid request.
    let v = s.ask(&json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}));
    assert_eq!((error_code(&v), v["id"].clone()), (-32600, json!(1)));
    let v = s.ask(&json!({"jsonrpc": "2.0", "id": null, "method": "ping"}));
    assert_eq!(error_code(&v), -32600);
    // Before initialize: an error naming the way out; ping is allowed.
    let v = s.ask(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert_eq!(error_code(&v), -32600);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize"),
        "{v}"
    );
    assert_eq!(s.ask(&ping(3))["result"], json!({}));
    // Notifications (a request without an id, too) get no answer: the next line answers
    // the next request.
    s.send(&json!({"jsonrpc": "2.0", "method": "tools/list"}));
    s.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}),
    );
    assert_eq!(s.ask(&ping(4))["id"], 4);
    // initialize with a version the server does not have: it offers its newest legacy one.
    let v = s.ask(&json!({"jsonrpc": "2.0", "id": 5, "method": "initialize",
        "params": {"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}));
    assert_eq!(v["result"]["protocolVersion"], "2025-11-25", "{v}");
    assert_eq!(v["result"]["serverInfo"]["name"], "extract-between");
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // Unknown methods and tools.
    assert_eq!(
        error_code(&s.ask(&json!({"jsonrpc": "2.0", "id": 6, "method": "resources/list"}))),
        -32601
    );
    let v = s.ask(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "nope", "arguments": {}}}));
    assert_eq!(error_code(&v), -32602);
    // A lone surrogate in the text: the card's invalid_input, as the execute URL says it.
    s.send_raw(br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"text-extract-between","arguments":{"text":"a\ud800b","start":"[","end":"]"}}}"#);
    let v = s.recv();
    assert_eq!(v["result"]["isError"], true, "{v}");
    let envelope: Value =
        serde_json::from_str(v["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(envelope["error"]["code"], "invalid_input");
    assert_eq!(envelope["error"]["field"], "text");
    assert!(v["result"].get("structuredContent").is_none());
    // A lone surrogate where the protocol reads: an error, still answered.
    s.send_raw(br#"{"jsonrpc":"2.0","id":9,"method":"tools/\udc00"}"#);
    assert!(s.recv().get("error").is_some());
    // A line over 4 MiB: an error, then the next message is served.
    let mut huge = br#"{"jsonrpc":"2.0","id":10,"method":"ping","params":{"pad":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'x', 5 << 20));
    huge.extend_from_slice(br#""}}"#);
    s.send_raw(&huge);
    let v = s.recv();
    assert_eq!(error_code(&v), -32600);
    assert!(
        v["error"]["message"].as_str().unwrap().contains("4194304"),
        "{v}"
    );
    assert_eq!(s.ask(&ping(11))["id"], 11);
    // stdin closes: exit 0.
    drop(s.input);
    assert!(s.child.wait().unwrap().success());
}

#[test]
fn stdio_modern_requests_check_their_metadata() {
    let mut s = Stdio_::start();
    let call = |id: u64, m: Value, args: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"_meta": m, "name": TOOL, "arguments": args}})
    };
    // No initialize needed.
    let v = s.ask(&call(
        1,
        meta(V),
        json!({"text": "pre[one]mid[two]post", "start": "[", "end": "]"}),
    ));
    assert_eq!(
        v["result"]["structuredContent"],
        json!({"matches": ["one", "two"], "truncated": false})
    );
    assert_eq!(v["result"]["resultType"], "complete");
    assert_eq!(
        v["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "extract-between"
    );
    // Byte for byte what tool mode prints.
    let tool = Command::new(env!("CARGO_BIN_EXE_extract-between"))
        .arg("tool")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    tool.stdin
        .as_ref()
        .unwrap()
        .write_all(br#"{"text": "pre[one]mid[two]post", "start": "[", "end": "]"}"#)
        .unwrap();
    let printed = tool.wait_with_output().unwrap().stdout;
    assert_eq!(
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .as_bytes(),
        printed.strip_suffix(b"\n").unwrap()
    );
    // Unsupported versions: -32022 with what is supported.
    for version in ["2099-01-01", "2025-11-25"] {
        let v = s.ask(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta(version)}}));
        assert_eq!(error_code(&v), -32022, "{v}");
        assert_eq!(v["error"]["data"]["requested"], version);
        assert_eq!(v["error"]["data"]["supported"][0], V);
    }
    // Missing client capabilities: invalid params.
    let v = s.ask(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": V}}}));
    assert_eq!(error_code(&v), -32602);
    // Discovery and the list, with caching hints; ping is gone in this era.
    let v = s.ask(&json!({"jsonrpc": "2.0", "id": 4, "method": "server/discover", "params": {"_meta": meta(V)}}));
    assert_eq!(v["result"]["supportedVersions"][0], V);
    assert!(v["result"]["capabilities"]["tools"].is_object());
    let v = s.ask(
        &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": meta(V)}}),
    );
    assert_eq!(v["result"]["tools"][0]["name"], TOOL);
    assert!(v["result"]["ttlMs"].as_u64().unwrap() > 0);
    assert_eq!(v["result"]["cacheScope"], "public");
    let v =
        s.ask(&json!({"jsonrpc": "2.0", "id": 6, "method": "ping", "params": {"_meta": meta(V)}}));
    assert_eq!(error_code(&v), -32601);
}

fn post_mcp(server: &Server, headers: &[(&str, &str)], body: &Value) -> Response {
    request(server, "POST", "/mcp", headers, body.to_string().as_bytes())
}

fn modern_headers<'a>(method: &'a str, name: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![("MCP-Protocol-Version", V), ("Mcp-Method", method)];
    if let Some(name) = name {
        h.push(("Mcp-Name", name));
    }
    h
}

#[test]
fn http_checks_headers_origins_and_methods() {
    let server = Server::start(&["--allow-origin", "https://app.example"]);
    let list =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(V)}});
    let r = post_mcp(&server, &modern_headers("tools/list", None), &list);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"));
    // Missing or mismatched headers: 400 HeaderMismatch.
    for headers in [
        vec![("Mcp-Method", "tools/list")],
        vec![("MCP-Protocol-Version", V)],
        vec![
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Method", "tools/list"),
        ],
        vec![("MCP-Protocol-Version", V), ("Mcp-Method", "tools/call")],
    ] {
        let r = post_mcp(&server, &headers, &list);
        assert_eq!(r.status, 400, "{headers:?}");
        assert_eq!(error_code(&r.json()), -32020, "{headers:?}");
    }
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"_meta": meta(V), "name": TOOL, "arguments": {"text": "[a]", "start": "[", "end": "]"}}});
    let r = post_mcp(&server, &modern_headers("tools/call", None), &call);
    assert_eq!((r.status, error_code(&r.json())), (400, -32020));
    let r = post_mcp(&server, &modern_headers("tools/call", Some("other")), &call);
    assert_eq!((r.status, error_code(&r.json())), (400, -32020));
    let r = post_mcp(&server, &modern_headers("tools/call", Some(TOOL)), &call);
    assert_eq!(
        r.json()["result"]["structuredContent"]["matches"],
        json!(["a"])
    );
    // The base64 form of Mcp-Name is decoded before the comparison.
    let r = post_mcp(
        &server,
        &modern_headers(
            "tools/call",
            Some("=?base64?dGV4dC1leHRyYWN0LWJldHdlZW4=?="),
        ),
        &call,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // An unsupported version: 400 with -32022; an unknown method: 404 with -32601.
    let old = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": meta("2099-01-01")}});
    let r = post_mcp(
        &server,
        &[
            ("MCP-Protocol-Version", "2099-01-01"),
            ("Mcp-Method", "tools/list"),
        ],
        &old,
    );
    assert_eq!((r.status, error_code(&r.json())), (400, -32022));
    let odd =
        json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/list", "params": {"_meta": meta(V)}});
    let r = post_mcp(&server, &modern_headers("prompts/list", None), &odd);
    assert_eq!((r.status, error_code(&r.json())), (404, -32601));
    // Legacy: an unsupported MCP-Protocol-Version is a 400; a notification is 202, no body.
    let legacy = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"});
    let r = post_mcp(&server, &[("MCP-Protocol-Version", "1999-01-01")], &legacy);
    assert_eq!(r.status, 400);
    let r = post_mcp(&server, &[("MCP-Protocol-Version", "2025-11-25")], &legacy);
    assert_eq!(r.json()["result"]["tools"][0]["name"], TOOL);
    let r = post_mcp(
        &server,
        &[],
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!((r.status, r.body.len()), (202, 0));
    // Malformed JSON and invalid UTF-8: 400 with a parse error.
    for body in [&b"{oops"[..], b"\xc3\x28"] {
        let r = request(&server, "POST", "/mcp", &[], body);
        assert_eq!((r.status, error_code(&r.json())), (400, -32700));
    }
    // Origins: foreign 403 (a JSON-RPC error without an id), loopback and allowed pass.
    for (origin, status) in [
        ("https://evil.example", 403),
        ("http://localhost:5173", 200),
        ("http://127.0.0.1:9", 200),
        ("https://app.example", 200),
    ] {
        let mut h = modern_headers("tools/list", None);
        h.push(("Origin", origin));
        let r = post_mcp(&server, &h, &list);
        assert_eq!(r.status, status, "{origin}");
        if status == 403 {
            assert!(r.json()["id"].is_null() && r.json()["error"].is_object());
        }
    }
    // GET and DELETE: 405, POST allowed.
    for method in ["GET", "DELETE"] {
        let r = request(&server, method, "/mcp", &[], b"");
        assert_eq!(r.status, 405);
        assert_eq!(r.header("allow"), Some("POST"));
    }
    // The execute route's body limit, answered as a JSON-RPC error.
    let r = request(&server, "POST", "/mcp", &[], &vec![b' '; 5 << 20]);
    assert_eq!(r.status, 413);
    assert_eq!(error_code(&r.json()), -32600);
    assert!(r.json()["id"].is_null());
}

#[test]
fn http_mcp_needs_the_token_when_tokens_are_set() {
    let dir = crate::common::scratch::dir();
    let file = dir.join("tokens");
    std::fs::write(&file, "mcp-token\n").unwrap();
    let server = Server::start(&["--auth-token-file", file.to_str().unwrap()]);
    let list =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(V)}});
    let r = post_mcp(&server, &modern_headers("tools/list", None), &list);
    assert_eq!(r.status, 401);
    let mut h = modern_headers("tools/list", None);
    h.push(("Authorization", "Bearer mcp-token"));
    assert_eq!(post_mcp(&server, &h, &list).status, 200);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A client that stops reading is a normal end over stdio: exit 0, nothing on stderr (as
/// `extract-between mcp | head -c 10`).
#[test]
fn stdio_ends_quietly_when_the_client_closes_its_end() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_extract-between"))
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    for id in 0..100 {
        if writeln!(stdin, "{}", ping(id)).is_err() {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

fn initialize(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
}

/// A message is a JSON object: an array in a message's place is a batch, answered only in
/// the protocol version that has batches (2025-03-26), and a positional array never runs
/// the tool.
#[test]
fn batches_only_in_2025_03_26_and_arrays_are_never_messages() {
    let positional = json!(["2.0", 7, "tools/call", {"name": TOOL, "arguments": {"text": "[a]", "start": "[", "end": "]"}}, null, null]);
    let batch = json!([ping(1), {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]);

    // stdio, negotiated 2025-11-25: refused, naming the version that has them.
    let mut s = Stdio_::start();
    assert_eq!(s.ask(&positional)["error"]["code"], -32600);
    s.ask(&initialize("2025-11-25"));
    let v = s.ask(&batch);
    assert_eq!(error_code(&v), -32600);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2025-03-26"),
        "{v}"
    );
    assert_eq!(s.ask(&ping(3))["id"], 3);

    // stdio, negotiated 2025-03-26: one array of answers, none for the notification.
    let mut s = Stdio_::start();
    s.ask(&initialize("2025-03-26"));
    let line = {
        s.send(&batch);
        let mut line = String::new();
        s.output.read_line(&mut line).unwrap();
        line
    };
    let answers: Vec<Value> = serde_json::from_str(&line).unwrap();
    let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!(2)], "{line}");
    assert_eq!(answers[1]["result"]["tools"][0]["name"], TOOL);
    // The positional array as a batch: each element refused, the tool never run.
    s.send(&positional);
    let mut line = String::new();
    s.output.read_line(&mut line).unwrap();
    let answers: Vec<Value> = serde_json::from_str(&line).unwrap();
    assert!(
        answers.iter().all(|a| a["error"]["code"] == -32600),
        "{line}"
    );
    assert!(!line.contains("structuredContent"));

    // HTTP: without MCP-Protocol-Version (2025-03-26 assumed) a batch is answered; with a
    // later version it is refused.
    let server = Server::start(&[]);
    let r = post_mcp(&server, &[], &batch);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json().as_array().map(Vec::len), Some(2), "{}", r.text());
    // A batch holding what is no message is a bad request, answered element by element.
    let r = post_mcp(&server, &[], &positional);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json().as_array().map(Vec::len), Some(6), "{}", r.text());
    let r = post_mcp(&server, &[("MCP-Protocol-Version", "2025-11-25")], &batch);
    assert_eq!((r.status, error_code(&r.json())), (400, -32600));
    let r = post_mcp(
        &server,
        &[("MCP-Protocol-Version", "2025-11-25")],
        &positional,
    );
    assert_eq!((r.status, error_code(&r.json())), (400, -32600));
}

/// A service on loopback answers `/mcp` only for loopback hosts (a page that rebinds its
/// own name to 127.0.0.1 sends that name), unless `--allow-host` names the host.
#[test]
fn a_loopback_service_answers_mcp_only_for_loopback_or_allowed_hosts() {
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let send = |server: &Server, host: &str| {
        let body = ping.to_string();
        let message = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        crate::common::http::raw_exchange(server.addr, message.as_bytes())
    };
    let server = Server::start(&[]);
    for host in ["localhost:8080", "127.0.0.1", "[::1]:1"] {
        assert_eq!(send(&server, host).status, 200, "{host}");
    }
    let r = send(&server, "rebound.example:8080");
    assert_eq!(r.status, 403);
    assert_eq!(error_code(&r.json()), -32600);
    let allowed = Server::start(&["--allow-host", "mcp.example"]);
    assert_eq!(send(&allowed, "mcp.example:443").status, 200);
    assert_eq!(send(&allowed, "rebound.example").status, 403);
}
