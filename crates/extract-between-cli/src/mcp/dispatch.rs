//! The server side of MCP for one tool, in both protocol eras: which era a request speaks,
//! what it is answered, and the tool call through the card's JSON contract.
//!
//! - **Modern** (2026-07-28): every request carries its protocol version and client
//!   capabilities in `params._meta`; no handshake, no session; `server/discover`; results
//!   carry `resultType` and the server's identity; lists carry caching hints.
//! - **Legacy** (2025-11-25 and earlier): `initialize` negotiates a version, then `ping`,
//!   `tools/list`, `tools/call`. On stdio the process is the session; on HTTP there are no
//!   sessions (the specification makes them optional), each request stands alone.

use super::rpc::{self, Message, RpcError, code};
use extract_between::card::TOOL_ID;
use extract_between::request::{self, Outcome};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::sync::LazyLock;

/// The protocol versions served per request (`_meta`), newest first.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];
/// The protocol versions `initialize` can negotiate, newest first.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The version assumed for an HTTP request without `MCP-Protocol-Version` (as the
/// specification allows, for clients older than the header).
const HEADERLESS_VERSION: &str = "2025-03-26";
/// How long a client may cache the tool list and the discovery result.
const CACHE_TTL_MS: u64 = 3_600_000;

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// What one stdio process (or nothing, on HTTP) remembers between requests.
#[derive(Debug, Default)]
pub(crate) struct Session {
    /// The legacy version `initialize` negotiated.
    legacy: Option<&'static str>,
}

/// The Streamable HTTP request headers MCP defines, as sent (`None` when absent;
/// `Mcp-Name` already decoded from its base64 form).
#[derive(Debug, Default)]
pub(crate) struct HttpHeaders {
    pub(crate) protocol_version: Option<String>,
    pub(crate) method: Option<String>,
    pub(crate) name: Option<String>,
}

/// How a request reached the server.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Transport<'a> {
    Stdio,
    // Built by the HTTP service alone.
    Http(&'a HttpHeaders),
}

/// The answer to one message: the JSON text to send (none for notifications) and the HTTP
/// status the transport binding gives it.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) body: Option<String>,
    // Read by the HTTP service alone.
    pub(crate) http_status: u16,
}

impl Answer {
    fn none() -> Answer {
        Answer {
            body: None,
            http_status: 202,
        }
    }

    fn ok(id: &RawValue, result: &Value) -> Answer {
        Answer::ok_text(id, &result.to_string())
    }

    /// A result already written as JSON text.
    fn ok_text(id: &RawValue, result: &str) -> Answer {
        Answer {
            body: Some(rpc::result(id, result)),
            http_status: 200,
        }
    }

    fn error(id: Option<&RawValue>, e: &RpcError, http_status: u16) -> Answer {
        Answer {
            body: Some(rpc::error(id, e)),
            http_status,
        }
    }
}

/// The parameters any method here reads; each, when there, must have its type.
#[derive(Debug, Default, Deserialize)]
struct Params<'a> {
    #[serde(rename = "_meta", default, deserialize_with = "rpc::present")]
    meta: Option<Meta>,
    #[serde(default, deserialize_with = "rpc::present")]
    name: Option<String>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "protocolVersion", default, deserialize_with = "rpc::present")]
    protocol_version: Option<String>,
}

/// What the server reads of `params._meta`: the protocol version (another type than a
/// string reads as `""`, which no version is) and whether the client's capabilities are an
/// object. Every other member is skipped unbuilt, however large.
#[derive(Debug, Default)]
struct Meta {
    version: Option<String>,
    capabilities_object: bool,
}

impl<'de> Deserialize<'de> for Meta {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Meta, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Meta;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Meta, A::Error> {
                let mut meta = Meta::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*key {
                        META_VERSION => {
                            let v: &RawValue = map.next_value()?;
                            let version = serde_json::from_str::<String>(v.get());
                            meta.version = Some(version.unwrap_or_default());
                        }
                        META_CAPABILITIES => {
                            let v: &RawValue = map.next_value()?;
                            meta.capabilities_object = v.get().starts_with('{');
                        }
                        _ => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(meta)
            }
        }
        d.deserialize_map(V)
    }
}

fn server_info() -> Value {
    json!({"name": "extract-between", "title": "extract-between", "version": env!("CARGO_PKG_VERSION")})
}

/// The one tool, from the card.
static TOOL: LazyLock<Value> = LazyLock::new(|| {
    let card = &*crate::card::CARD;
    json!({
        "name": TOOL_ID,
        "title": "Extract text between markers",
        "description": card["description"],
        "inputSchema": card["input_schema"],
        "outputSchema": card["output_schema"],
        "annotations": {
            "title": "Extract text between markers",
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false
        }
    })
});

/// The tool definition `tools/list` gives.
///
/// ```
/// let tool = extract_between_cli::mcp::tool_definition();
/// assert_eq!(tool["name"], "text-extract-between");
/// assert_eq!(tool["annotations"]["readOnlyHint"], true);
/// ```
pub fn tool_definition() -> Value {
    TOOL.clone()
}

/// The one protocol version whose transport takes batches (a JSON array of messages).
const BATCH_VERSION: &str = "2025-03-26";

/// Handles what arrived: one message, or a batch where the protocol has them.
pub(crate) fn handle(session: &mut Session, bytes: &[u8], transport: Transport<'_>) -> Answer {
    if bytes.trim_ascii_start().starts_with(b"[") {
        return batch(session, bytes, transport);
    }
    handle_one(session, bytes, transport)
}

/// A batch: answered message by message, the answers in one array (none when every message
/// was a notification), in the version that has batches; refused in every other.
fn batch(session: &mut Session, bytes: &[u8], transport: Transport<'_>) -> Answer {
    let version = match transport {
        Transport::Http(headers) => headers
            .protocol_version
            .as_deref()
            .unwrap_or(HEADERLESS_VERSION),
        Transport::Stdio => session.legacy.unwrap_or("none (before initialize)"),
    };
    let refuse =
        |message: String| Answer::error(None, &RpcError::new(code::INVALID_REQUEST, message), 400);
    if version != BATCH_VERSION {
        return refuse(format!(
            "batches are part of protocol {BATCH_VERSION} only (this exchange speaks {version}): send one message at a time"
        ));
    }
    let messages: Vec<&RawValue> = match std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| serde_json::from_str(text).ok())
    {
        Some(messages) => messages,
        // Not JSON after all: the single-message path says why.
        None => return handle_one(session, bytes, transport),
    };
    if messages.is_empty() {
        return refuse("an empty batch".into());
    }
    let mut refused = false;
    let answers: Vec<String> = messages
        .iter()
        .filter_map(|m| {
            let one = if m.get().starts_with('[') {
                Answer::error(
                    None,
                    &RpcError::new(code::INVALID_REQUEST, "a batch cannot hold a batch"),
                    400,
                )
            } else {
                handle_one(session, m.get().as_bytes(), transport)
            };
            // A message the transport refuses (not JSON-RPC, bad params) makes the batch
            // a bad request, as it makes a message alone one; the array says which.
            refused |= one.http_status == 400;
            one.body
        })
        .collect();
    if answers.is_empty() {
        return Answer::none();
    }
    Answer {
        body: Some(format!("[{}]", answers.join(","))),
        http_status: if refused { 400 } else { 200 },
    }
}

/// Handles one message.
fn handle_one(session: &mut Session, bytes: &[u8], transport: Transport<'_>) -> Answer {
    let (id, method, params) = match rpc::parse(bytes) {
        Ok(Message::Request { id, method, params }) => (id, method, params),
        Ok(Message::Notification { params }) => {
            // Accepted only with well-formed parameters, else refused (HTTP 400).
            return match params.map(|p| serde_json::from_str::<Params<'_>>(p.get())) {
                Some(Err(e)) => Answer::error(
                    None,
                    &RpcError::new(code::INVALID_PARAMS, format!("params: {e}")),
                    400,
                ),
                _ => Answer::none(),
            };
        }
        Ok(Message::Response) => return Answer::none(),
        Err((id, e)) => return Answer::error(id, &e, 400),
    };
    let params: Params<'_> = match params.map(|p| serde_json::from_str(p.get())) {
        None => Params::default(),
        Some(Ok(p)) => p,
        Some(Err(e)) => {
            let e = RpcError::new(code::INVALID_PARAMS, format!("params: {e}"));
            return Answer::error(Some(id), &e, 400);
        }
    };
    let modern = params.meta.as_ref().and_then(|m| m.version.clone());
    match modern {
        Some(version) if method != "initialize" => {
            modern_request(id, &method, &params, &version, transport)
        }
        _ => legacy_request(session, id, &method, &params, transport),
    }
}

fn supported_versions() -> Value {
    MODERN_VERSIONS
        .iter()
        .chain(LEGACY_VERSIONS)
        .copied()
        .collect()
}

fn modern_request(
    id: &RawValue,
    method: &str,
    params: &Params<'_>,
    version: &str,
    transport: Transport<'_>,
) -> Answer {
    if let Transport::Http(headers) = transport {
        let mut checks = vec![
            (
                "MCP-Protocol-Version",
                headers.protocol_version.as_deref(),
                version,
            ),
            ("Mcp-Method", headers.method.as_deref(), method),
        ];
        if method == "tools/call" {
            let body = params.name.as_deref().unwrap_or_default();
            checks.push(("Mcp-Name", headers.name.as_deref(), body));
        }
        for (name, sent, body) in checks {
            if let Err(why) = header_matches(name, sent, body) {
                let e = RpcError::new(code::HEADER_MISMATCH, why);
                return Answer::error(Some(id), &e, 400);
            }
        }
    }
    if !MODERN_VERSIONS.contains(&version) {
        let e = RpcError::new(
            code::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
        )
        .with_data(json!({"supported": supported_versions(), "requested": version}));
        return Answer::error(Some(id), &e, 400);
    }
    if !params.meta.as_ref().is_some_and(|m| m.capabilities_object) {
        let e = RpcError::new(
            code::INVALID_PARAMS,
            format!("params._meta must hold \"{META_CAPABILITIES}\" (an object)"),
        );
        return Answer::error(Some(id), &e, 400);
    }
    if method == "tools/call" {
        return match call_tool(params) {
            Ok(mut result) => {
                // The object's closing brace gives way to the modern fields.
                result.pop();
                result.push_str(",\"resultType\":\"complete\",\"_meta\":");
                result.push_str(&json!({META_SERVER_INFO: server_info()}).to_string());
                result.push('}');
                Answer::ok_text(id, &result)
            }
            Err(e) => Answer::error(Some(id), &e, 200),
        };
    }
    let mut result = match method {
        "server/discover" => json!({
            "supportedVersions": supported_versions(),
            "capabilities": {"tools": {}},
            "instructions": instructions(),
            "ttlMs": CACHE_TTL_MS,
            "cacheScope": "public"
        }),
        "tools/list" => json!({
            "tools": [tool_definition()],
            "ttlMs": CACHE_TTL_MS,
            "cacheScope": "public"
        }),
        _ => return method_not_found(id, method, 404),
    };
    result["resultType"] = json!("complete");
    result["_meta"] = json!({META_SERVER_INFO: server_info()});
    Answer::ok(id, &result)
}

/// A required MCP header, present and equal to the body's value, or why not.
fn header_matches(name: &str, sent: Option<&str>, body: &str) -> Result<(), String> {
    match sent {
        None => Err(format!("the {name} header is missing")),
        Some(h) if h != body => Err(format!(
            "Header mismatch: {name} header value '{h}' does not match body value '{body}'"
        )),
        Some(_) => Ok(()),
    }
}

fn instructions() -> &'static str {
    "One tool, text-extract-between: the exact substrings of `text` between a literal `start` \
     and `end` marker, left to right, non-overlapping, at most `max_matches` (default 100) with \
     `truncated` telling whether more exist; offsets count UTF-16 code units."
}

fn method_not_found(id: &RawValue, method: &str, http_status: u16) -> Answer {
    let e = RpcError::new(
        code::METHOD_NOT_FOUND,
        format!("Method not found: {method}"),
    );
    Answer::error(Some(id), &e, http_status)
}

fn legacy_request(
    session: &mut Session,
    id: &RawValue,
    method: &str,
    params: &Params<'_>,
    transport: Transport<'_>,
) -> Answer {
    if method == "initialize" {
        let requested = params.protocol_version.as_deref().unwrap_or_default();
        let negotiated = LEGACY_VERSIONS
            .iter()
            .copied()
            .find(|v| *v == requested)
            .unwrap_or(LEGACY_VERSIONS[0]);
        session.legacy = Some(negotiated);
        return Answer::ok(
            id,
            &json!({
                "protocolVersion": negotiated,
                "capabilities": {"tools": {"listChanged": false}},
                "serverInfo": server_info(),
                "instructions": instructions()
            }),
        );
    }
    match transport {
        Transport::Http(headers) => {
            let version = headers
                .protocol_version
                .as_deref()
                .unwrap_or(HEADERLESS_VERSION);
            if MODERN_VERSIONS.contains(&version) {
                let e = RpcError::new(
                    code::INVALID_PARAMS,
                    format!("protocol {version} requires params._meta[\"{META_VERSION}\"]"),
                );
                return Answer::error(Some(id), &e, 400);
            }
            if !LEGACY_VERSIONS.contains(&version) {
                let e = RpcError::new(
                    code::INVALID_REQUEST,
                    format!("unsupported MCP-Protocol-Version {version:?}"),
                )
                .with_data(json!({"supported": supported_versions(), "requested": version}));
                return Answer::error(Some(id), &e, 400);
            }
        }
        Transport::Stdio => {
            if session.legacy.is_none() && method != "ping" {
                let e = RpcError::new(
                    code::INVALID_REQUEST,
                    format!(
                        "{method} before initialize: send initialize first, or give the protocol \
                         version in params._meta[\"{META_VERSION}\"] (supported: {})",
                        MODERN_VERSIONS.join(", ")
                    ),
                );
                return Answer::error(Some(id), &e, 400);
            }
        }
    }
    let result = match method {
        "ping" => json!({}),
        "tools/list" => json!({"tools": [tool_definition()]}),
        "tools/call" => {
            return match call_tool(params) {
                Ok(result) => Answer::ok_text(id, &result),
                Err(e) => Answer::error(Some(id), &e, 200),
            };
        }
        _ => return method_not_found(id, method, 200),
    };
    Answer::ok(id, &result)
}

/// `tools/call`: the arguments go through the card's JSON contract as the client wrote
/// them, so the text block is byte for byte what the execute URL and tool mode answer.
fn call_tool(params: &Params<'_>) -> Result<String, RpcError> {
    match params.name.as_deref() {
        Some(TOOL_ID) => {}
        Some(other) => {
            return Err(RpcError::new(
                code::INVALID_PARAMS,
                format!("Unknown tool: {other} (this server has {TOOL_ID})"),
            ));
        }
        None => {
            return Err(RpcError::new(
                code::INVALID_PARAMS,
                "params.name is required",
            ));
        }
    }
    let arguments = params.arguments.map_or("{}", RawValue::get);
    let reply = request::execute(arguments.as_bytes());
    // Written as text, not built as a `Value`: the answer is the contract's JSON twice (as
    // structured content and as an escaped string), and a 256000-byte text's answer is large.
    let mut out = String::with_capacity(2 * reply.body.len() + 96);
    out.push_str("{\"content\":[{\"type\":\"text\",\"text\":");
    extract_between::request::push_json_string(&mut out, &reply.body);
    out.push_str("}],");
    match reply.outcome {
        Outcome::Output => {
            out.push_str("\"structuredContent\":");
            out.push_str(&reply.body);
            out.push_str(",\"isError\":false}");
        }
        // The output schema does not describe errors: no structuredContent.
        Outcome::InvalidInput | Outcome::Unclosed => out.push_str("\"isError\":true}"),
    }
    Ok(out)
}
