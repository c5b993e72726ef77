//! The official Rust MCP SDK's client (rmcp) against this project's MCP server, over stdio
//! (`mcp::serve_stdio`, what `extract-between mcp` runs, on a pipe pair) and Streamable HTTP
//! (`/mcp` of the service, on a loopback socket), in both lifecycles: the `initialize`
//! handshake (2025-11-25) and `server/discover` with per-request metadata (2026-07-28).

use extract_between::card::TOOL_ID;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};
use std::io::BufReader;
use tokio::net::unix::pipe;

type Client = RunningService<RoleClient, ()>;

fn lifecycles() -> [(ClientLifecycleMode, ProtocolVersion); 2] {
    [
        (
            ClientLifecycleMode::Initialize,
            ProtocolVersion::V_2025_11_25,
        ),
        (
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
            ProtocolVersion::V_2026_07_28,
        ),
    ]
}

/// A client on the stdio server, which runs on its own thread until the client hangs up.
async fn stdio_client(lifecycle: ClientLifecycleMode) -> Client {
    let (to_server_read, to_server_write) = std::io::pipe().unwrap();
    let (from_server_read, from_server_write) = std::io::pipe().unwrap();
    std::thread::spawn(move || {
        let _ = extract_between_cli::mcp::serve_stdio(
            BufReader::new(to_server_read),
            from_server_write,
        );
    });
    let reader = pipe::Receiver::from_owned_fd(from_server_read.into()).unwrap();
    let writer = pipe::Sender::from_owned_fd(to_server_write.into()).unwrap();
    ().serve_with_lifecycle((reader, writer), lifecycle)
        .await
        .expect("the SDK's client starts its session over stdio")
}

/// A client on the HTTP service, which serves until the test's runtime ends.
async fn http_client(lifecycle: ClientLifecycleMode) -> Client {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(extract_between_cli::server::serve(
        listener,
        Default::default(),
        std::future::pending(),
    ));
    let transport = StreamableHttpClientTransport::from_uri(url);
    ().serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("the SDK's client starts its session over HTTP")
}

fn arguments(value: Value) -> JsonObject {
    value.as_object().cloned().unwrap()
}

async fn call(client: &Client, args: Value) -> CallToolResult {
    let params = CallToolRequestParams::new(TOOL_ID).with_arguments(arguments(args));
    client.call_tool(params).await.expect("tools/call answers")
}

/// What every lifecycle on every transport must give the SDK's client.
async fn check(client: Client, version: ProtocolVersion, transport: &str) {
    let info = client.peer_info().expect("the server introduced itself");
    assert_eq!(info.protocol_version, version, "{transport}");
    assert!(info.capabilities.tools.is_some(), "{transport}");

    let tools = client.list_all_tools().await.expect("tools/list answers");
    assert_eq!(tools.len(), 1, "{transport}");
    let tool = &tools[0];
    assert_eq!(tool.name, TOOL_ID, "{transport}");
    let card: Value = serde_json::from_str(extract_between::card::CARD_JSON).unwrap();
    assert_eq!(
        Value::Object((*tool.input_schema).clone()),
        card["input_schema"]
    );
    let output = tool.output_schema.as_deref().cloned().map(Value::Object);
    assert_eq!(output.as_ref(), Some(&card["output_schema"]), "{transport}");

    let done = call(
        &client,
        json!({"text": "a [x] b [é😀] c [z]", "start": "[", "end": "]", "max_matches": 2}),
    )
    .await;
    assert_eq!(done.is_error, Some(false), "{transport}");
    let expected = json!({"matches": ["x", "é😀"], "truncated": true});
    assert_eq!(
        done.structured_content,
        Some(expected.clone()),
        "{transport}"
    );
    let text = &done.content[0].as_text().expect("a text block").text;
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), expected);

    // The card's errors are the tool's, not the protocol's: an answer with isError.
    let unclosed = call(&client, json!({"text": "a [x", "start": "[", "end": "]"})).await;
    assert_eq!(unclosed.is_error, Some(true), "{transport}");
    assert_eq!(unclosed.structured_content, None, "{transport}");
    let envelope: Value =
        serde_json::from_str(&unclosed.content[0].as_text().unwrap().text).unwrap();
    assert!(
        envelope.to_string().contains("unclosed"),
        "{transport}: {envelope}"
    );
    let invalid = call(&client, json!({"text": "a", "start": "", "end": "]"})).await;
    assert_eq!(invalid.is_error, Some(true), "{transport}");
    let envelope = &invalid.content[0].as_text().unwrap().text;
    assert!(
        envelope.contains("invalid_input"),
        "{transport}: {envelope}"
    );

    // An unknown tool is a protocol error the SDK reports as one.
    let unknown = client
        .call_tool(CallToolRequestParams::new("no-such-tool"))
        .await;
    assert!(unknown.is_err(), "{transport}: {unknown:?}");

    client.cancel().await.expect("the client closes cleanly");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_client_works_over_stdio_in_both_lifecycles() {
    for (lifecycle, version) in lifecycles() {
        let label = format!("stdio {version}");
        check(stdio_client(lifecycle).await, version, &label).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_client_works_over_http_in_both_lifecycles() {
    for (lifecycle, version) in lifecycles() {
        let label = format!("HTTP {version}");
        check(http_client(lifecycle).await, version, &label).await;
    }
}
