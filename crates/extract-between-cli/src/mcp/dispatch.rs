//! The lifecycle of MCP for one tool, in both protocol eras: which era a request speaks and
//! what it is answered (the answers themselves are `results` and `tool`).
//!
//! - **Modern** (2026-07-28): every request carries its protocol version and client
//!   capabilities in `params._meta`; no handshake, no session; `server/discover`; results
//!   carry `resultType` and the server's identity; lists carry caching hints.
//! - **Legacy** (2025-11-25 and earlier): `initialize` negotiates a version, then `ping`,
//!   `tools/list`, `tools/call`. On stdio the process is the session; on HTTP there are no
//!   sessions (the specification makes them optional), each request stands alone.

use super::results::{self, Era, LEGACY_VERSIONS, MODERN_VERSIONS};
use super::rpc::{self, Message};
use super::tool;
use rmcp::model::{ErrorCode, ErrorData, ProtocolVersion};
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The version assumed for an HTTP request without `MCP-Protocol-Version` (as the
/// specification allows, for clients older than the header).
const HEADERLESS_VERSION: ProtocolVersion = ProtocolVersion::V_2025_03_26;
/// The one protocol version whose transport takes batches (a JSON array of messages).
const BATCH_VERSION: ProtocolVersion = ProtocolVersion::V_2025_03_26;

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// What one stdio process (or nothing, on HTTP) remembers between requests.
#[derive(Debug, Default)]
pub(crate) struct Session {
    /// The legacy version `initialize` negotiated.
    legacy: Option<&'static ProtocolVersion>,
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

/// The answer to one message: the JSON text to send (none for notifications) and what
/// became of the message, from which a transport gives its status (the HTTP service maps it
/// to one; stdio has none).
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) body: Option<String>,
    pub(crate) verdict: Verdict,
}

/// What became of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// A notification or a response: nothing to answer.
    Unanswered,
    /// A result, or a tool's own error (which is a result of its call).
    Answered,
    /// Refused by the protocol: not JSON-RPC, bad parameters, a version or header at odds.
    Refused,
    /// A method the server does not have, in the era whose transport says so by status.
    NoSuchMethod,
}

impl Answer {
    fn none() -> Answer {
        Answer {
            body: None,
            verdict: Verdict::Unanswered,
        }
    }

    /// A result written as JSON text.
    fn ok(id: &RawValue, result: &str) -> Answer {
        Answer {
            body: Some(rpc::result(id, result)),
            verdict: Verdict::Answered,
        }
    }

    fn error(id: Option<&RawValue>, e: &ErrorData, verdict: Verdict) -> Answer {
        Answer {
            body: Some(rpc::error(id, e)),
            verdict,
        }
    }

    fn refused(id: Option<&RawValue>, e: &ErrorData) -> Answer {
        Answer::error(id, e, Verdict::Refused)
    }
}

/// The methods this server has, named once; any other is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method<'m> {
    Initialize,
    Ping,
    ToolsList,
    ToolsCall,
    ServerDiscover,
    Other(&'m str),
}

impl<'m> Method<'m> {
    fn of(name: &'m str) -> Self {
        match name {
            "initialize" => Method::Initialize,
            "ping" => Method::Ping,
            "tools/list" => Method::ToolsList,
            "tools/call" => Method::ToolsCall,
            "server/discover" => Method::ServerDiscover,
            other => Method::Other(other),
        }
    }

    /// The name the message gave.
    fn name(self) -> &'m str {
        match self {
            Method::Initialize => "initialize",
            Method::Ping => "ping",
            Method::ToolsList => "tools/list",
            Method::ToolsCall => "tools/call",
            Method::ServerDiscover => "server/discover",
            Method::Other(other) => other,
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
    /// Raw JSON text, for the card's contract to read as the client wrote it: a lone
    /// surrogate in a text gets the tool's `invalid_input`, as on the execute URL.
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

/// Room for an answer as it grows: asked for each addition, in bytes, before it is made;
/// `false` refuses it. The HTTP service counts it against its memory budget.
pub(crate) type Room<'a> = &'a mut dyn FnMut(usize) -> bool;

/// A batch's answers grew past the room they were given; the batch is dropped unanswered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OverBudget;

/// Handles what arrived: one message, or a batch where the protocol has them. A batch's
/// answer asks `room` for every byte it takes as it grows.
pub(crate) fn handle(
    session: &mut Session,
    bytes: &[u8],
    transport: Transport<'_>,
    room: Room<'_>,
) -> Result<Answer, OverBudget> {
    if bytes.trim_ascii_start().starts_with(b"[") {
        return batch(session, bytes, transport, room);
    }
    Ok(handle_one(session, bytes, transport))
}

/// A batch: answered message by message, the answers in one array (none when every message
/// was a notification), in the version that has batches; refused in every other.
fn batch(
    session: &mut Session,
    bytes: &[u8],
    transport: Transport<'_>,
    room: Room<'_>,
) -> Result<Answer, OverBudget> {
    let version = match transport {
        Transport::Http(headers) => headers
            .protocol_version
            .as_deref()
            .unwrap_or(HEADERLESS_VERSION.as_str()),
        Transport::Stdio => session
            .legacy
            .map_or("none (before initialize)", ProtocolVersion::as_str),
    };
    let refuse =
        |message: String| Answer::refused(None, &ErrorData::invalid_request(message, None));
    if version != BATCH_VERSION.as_str() {
        return Ok(refuse(format!(
            "batches are part of protocol {BATCH_VERSION} only (this exchange speaks {version}): send one message at a time"
        )));
    }
    let messages: Vec<&RawValue> = match std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| serde_json::from_str(text).ok())
    {
        Some(messages) => messages,
        // Not JSON after all: the single-message path says why.
        None => return Ok(handle_one(session, bytes, transport)),
    };
    if messages.is_empty() {
        return Ok(refuse("an empty batch".into()));
    }
    let mut refused = false;
    let mut answers = Answers::new(room);
    for m in messages {
        let one = if m.get().starts_with('[') {
            let e = ErrorData::invalid_request("a batch cannot hold a batch", None);
            Answer::refused(None, &e)
        } else {
            handle_one(session, m.get().as_bytes(), transport)
        };
        // A message the transport refuses (not JSON-RPC, bad params) makes the batch
        // a bad request, as it makes a message alone one; the array says which.
        refused |= one.verdict == Verdict::Refused;
        if let Some(body) = one.body {
            answers.push(&body)?;
        }
    }
    Ok(match answers.finish() {
        None => Answer::none(),
        Some(body) => Answer {
            body: Some(body),
            verdict: if refused {
                Verdict::Refused
            } else {
                Verdict::Answered
            },
        },
    })
}

/// A batch's answer array, written as its answers come, each byte of room asked for before
/// the text takes it (growth doubles, as a `String`'s would, so the room asked is the
/// memory held).
struct Answers<'r> {
    text: String,
    room: Room<'r>,
}

impl<'r> Answers<'r> {
    fn new(room: Room<'r>) -> Self {
        Answers {
            text: String::new(),
            room,
        }
    }

    fn push(&mut self, answer: &str) -> Result<(), OverBudget> {
        let needed = self.text.len() + 1 + answer.len() + 1;
        if needed > self.text.capacity() {
            let grown = needed.max(2 * self.text.capacity()).max(256);
            if !(self.room)(grown - self.text.capacity()) {
                return Err(OverBudget);
            }
            self.text.reserve_exact(grown - self.text.len());
        }
        self.text.push(if self.text.is_empty() { '[' } else { ',' });
        self.text.push_str(answer);
        Ok(())
    }

    /// The array, or `None` when nothing was pushed.
    fn finish(mut self) -> Option<String> {
        if self.text.is_empty() {
            return None;
        }
        // `push` kept room for the bracket.
        self.text.push(']');
        Some(self.text)
    }
}

/// Handles one message: read in one pass with its parameters, the path every good message
/// takes; a message that does not read so is read again in two steps to say what is wrong.
fn handle_one(session: &mut Session, bytes: &[u8], transport: Transport<'_>) -> Answer {
    match rpc::parse::<Params<'_>>(bytes) {
        Ok(Message::Request { id, method, params }) => answer(
            session,
            id,
            Method::of(&method),
            &params.unwrap_or_default(),
            transport,
        ),
        Ok(Message::Notification { .. } | Message::Response) => Answer::none(),
        Err(_) => refuse(session, bytes, transport),
    }
}

/// Why a message is refused: the envelope's error, or its `params` (a request's error then
/// names its id). Both reads agree on every message; were they ever to differ, the message
/// is answered as read here.
fn refuse(session: &mut Session, bytes: &[u8], transport: Transport<'_>) -> Answer {
    let (request, params) = match rpc::parse::<&RawValue>(bytes) {
        Ok(Message::Request { id, method, params }) => (Some((id, method)), params),
        Ok(Message::Notification { params }) => (None, params),
        Ok(Message::Response) => return Answer::none(),
        Err((id, e)) => return Answer::refused(id, &e),
    };
    let raw = params.map_or("{}", RawValue::get);
    match (serde_json::from_str::<Params<'_>>(raw), request) {
        (Err(e), request) => {
            let e = ErrorData::invalid_params(format!("params: {e}"), None);
            Answer::refused(request.map(|(id, _)| id), &e)
        }
        (Ok(params), Some((id, method))) => {
            answer(session, id, Method::of(&method), &params, transport)
        }
        (Ok(_), None) => Answer::none(),
    }
}

/// The answer to a request, by the era its parameters speak.
fn answer(
    session: &mut Session,
    id: &RawValue,
    method: Method<'_>,
    params: &Params<'_>,
    transport: Transport<'_>,
) -> Answer {
    let modern = params.meta.as_ref().and_then(|m| m.version.as_deref());
    match modern {
        Some(version) if method != Method::Initialize => {
            modern_request(id, method, params, version, transport)
        }
        _ => legacy_request(session, id, method, params, transport),
    }
}

/// Whether `version` is one of `versions`.
fn served<'v>(versions: &'v [ProtocolVersion], version: &str) -> Option<&'v ProtocolVersion> {
    versions.iter().find(|v| v.as_str() == version)
}

/// The error for a version this server does not serve, with the ones it does.
fn unsupported(
    code: ErrorCode,
    message: impl Into<Cow<'static, str>>,
    requested: &str,
) -> ErrorData {
    let data = json!({"supported": results::supported_versions(), "requested": requested});
    ErrorData::new(code, message, Some(data))
}

fn modern_request(
    id: &RawValue,
    method: Method<'_>,
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
            ("Mcp-Method", headers.method.as_deref(), method.name()),
        ];
        if method == Method::ToolsCall {
            let body = params.name.as_deref().unwrap_or_default();
            checks.push(("Mcp-Name", headers.name.as_deref(), body));
        }
        for (name, sent, body) in checks {
            if let Err(why) = header_matches(name, sent, body) {
                return Answer::refused(Some(id), &ErrorData::header_mismatch(why, None));
            }
        }
    }
    if served(MODERN_VERSIONS, version).is_none() {
        let e = unsupported(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            version,
        );
        return Answer::refused(Some(id), &e);
    }
    if !params.meta.as_ref().is_some_and(|m| m.capabilities_object) {
        let e = ErrorData::invalid_params(
            format!("params._meta must hold \"{META_CAPABILITIES}\" (an object)"),
            None,
        );
        return Answer::refused(Some(id), &e);
    }
    match method {
        Method::ToolsCall => call(id, params, Era::Modern),
        Method::ServerDiscover => Answer::ok(id, &results::DISCOVER),
        Method::ToolsList => Answer::ok(id, &results::MODERN_TOOLS),
        _ => method_not_found(id, method, Verdict::NoSuchMethod),
    }
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

/// `tools/call`: the tool's result, or its error as the call's answer.
fn call(id: &RawValue, params: &Params<'_>, era: Era) -> Answer {
    match tool::call(params.name.as_deref(), params.arguments, era.result_tail()) {
        Ok(result) => Answer::ok(id, &result),
        Err(e) => Answer::error(Some(id), &e, Verdict::Answered),
    }
}

/// An unknown method, answered as `verdict` (the eras' HTTP bindings differ on its status).
fn method_not_found(id: &RawValue, method: Method<'_>, verdict: Verdict) -> Answer {
    let e = ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("Method not found: {}", method.name()),
        None,
    );
    Answer::error(Some(id), &e, verdict)
}

fn legacy_request(
    session: &mut Session,
    id: &RawValue,
    method: Method<'_>,
    params: &Params<'_>,
    transport: Transport<'_>,
) -> Answer {
    if method == Method::Initialize {
        let requested = params.protocol_version.as_deref().unwrap_or_default();
        let negotiated = served(LEGACY_VERSIONS, requested).unwrap_or(&LEGACY_VERSIONS[0]);
        session.legacy = Some(negotiated);
        return Answer::ok(id, &results::initialize(negotiated));
    }
    match transport {
        Transport::Http(headers) => {
            let version = headers
                .protocol_version
                .as_deref()
                .unwrap_or(HEADERLESS_VERSION.as_str());
            if served(MODERN_VERSIONS, version).is_some() {
                let e = ErrorData::invalid_params(
                    format!("protocol {version} requires params._meta[\"{META_VERSION}\"]"),
                    None,
                );
                return Answer::refused(Some(id), &e);
            }
            if served(LEGACY_VERSIONS, version).is_none() {
                let e = unsupported(
                    ErrorCode::INVALID_REQUEST,
                    format!("unsupported MCP-Protocol-Version {version:?}"),
                    version,
                );
                return Answer::refused(Some(id), &e);
            }
        }
        Transport::Stdio => {
            if session.legacy.is_none() && method != Method::Ping {
                let modern: Vec<&str> = MODERN_VERSIONS
                    .iter()
                    .map(ProtocolVersion::as_str)
                    .collect();
                let e = ErrorData::invalid_request(
                    format!(
                        "{} before initialize: send initialize first, or give the protocol \
                         version in params._meta[\"{META_VERSION}\"] (supported: {})",
                        method.name(),
                        modern.join(", ")
                    ),
                    None,
                );
                return Answer::refused(Some(id), &e);
            }
        }
    }
    match method {
        Method::Ping => Answer::ok(id, "{}"),
        Method::ToolsList => Answer::ok(id, &results::LEGACY_TOOLS),
        Method::ToolsCall => call(id, params, Era::Legacy),
        _ => method_not_found(id, method, Verdict::Answered),
    }
}
