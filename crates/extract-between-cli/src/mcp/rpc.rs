//! JSON-RPC 2.0 framing: reading a message without trusting it, and writing answers.
//!
//! A message is read as an envelope whose `id` and `params` stay raw JSON text: the `id` is
//! echoed exactly as sent, and a tool's `arguments` reach the card's JSON contract as the
//! bytes the client wrote, so a lone surrogate in a text gets the same `invalid_input` the
//! execute URL gives, not a parse error of the whole message.

use serde::Deserialize;
use serde_json::value::RawValue;

/// JSON-RPC's and MCP's error codes.
pub mod code {
    /// The message is not JSON (or not UTF-8).
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON, but not a JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Bad parameters: an unknown tool, a missing required `_meta` field.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The HTTP headers do not match the body, or required ones are missing (2026-07-28).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The requested protocol version is not served (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A message as it arrived: only what routing needs is parsed.
#[derive(Debug, Deserialize)]
pub(crate) struct Envelope<'a> {
    pub(crate) jsonrpc: Option<&'a str>,
    /// `Some` whenever the member is there, `null` included (an invalid id, not a
    /// notification).
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) id: Option<&'a RawValue>,
    pub(crate) method: Option<String>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) params: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) result: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) error: Option<&'a RawValue>,
}

/// A member that, when there, must hold its type: `null` is not "absent" (with
/// `#[serde(default)]` for the absent case).
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// What a message is.
#[derive(Debug)]
pub(crate) enum Message<'a> {
    /// A request: it gets an answer.
    Request {
        id: &'a RawValue,
        method: String,
        params: Option<&'a RawValue>,
    },
    /// A notification: it gets none.
    Notification { params: Option<&'a RawValue> },
    /// A response or error from the client (to nothing we asked): ignored.
    Response,
}

/// An error answer that is not tied to a method's result: its code, message, optional
/// data, and the id to answer (raw JSON; `null` when the message had none readable).
#[derive(Debug)]
pub(crate) struct RpcError {
    pub(crate) code: i64,
    pub(crate) message: String,
    pub(crate) data: Option<serde_json::Value>,
}

impl RpcError {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub(crate) fn with_data(mut self, data: serde_json::Value) -> RpcError {
        self.data = Some(data);
        self
    }
}

/// Reads one message. `Err` carries the error to answer, with the id when it was readable.
pub(crate) fn parse(bytes: &[u8]) -> Result<Message<'_>, (Option<&RawValue>, RpcError)> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        (
            None,
            RpcError::new(
                code::PARSE_ERROR,
                format!("the message is not valid UTF-8 (byte {})", e.valid_up_to()),
            ),
        )
    })?;
    // serde would read a struct from an array too: `["2.0",7,"tools/call",…]` is no message.
    // Only what does not open an object is parsed a second time, to say which error it is.
    if !text.trim_start().starts_with('{') {
        let why = match serde_json::from_str::<&RawValue>(text) {
            Ok(_) => RpcError::new(
                code::INVALID_REQUEST,
                "a JSON-RPC message must be a JSON object",
            ),
            Err(e) => RpcError::new(code::PARSE_ERROR, format!("the message is not JSON: {e}")),
        };
        return Err((None, why));
    }
    let env: Envelope<'_> = serde_json::from_str(text).map_err(|e| {
        let why = if e.is_data() {
            RpcError::new(
                code::INVALID_REQUEST,
                format!("not a JSON-RPC 2.0 message: {e}"),
            )
        } else {
            RpcError::new(code::PARSE_ERROR, format!("the message is not JSON: {e}"))
        };
        (None, why)
    })?;
    let invalid = |id, why: &str| Err((id, RpcError::new(code::INVALID_REQUEST, why)));
    if env.jsonrpc != Some("2.0") {
        return invalid(env.id, "jsonrpc must be \"2.0\"");
    }
    if let Some(id) = env.id {
        // MCP: an id is a string or an integer (no fraction, no exponent), never null.
        let raw = id.get().as_bytes();
        let ok = match raw.first() {
            Some(b'"') => true,
            Some(b'-' | b'0'..=b'9') => raw
                .strip_prefix(b"-")
                .unwrap_or(raw)
                .iter()
                .all(u8::is_ascii_digit),
            _ => false,
        };
        if !ok {
            return invalid(None, "id must be a string or an integer");
        }
    }
    match (env.id, env.method, env.result.or(env.error)) {
        (Some(id), Some(method), _) => Ok(Message::Request {
            id,
            method,
            params: env.params,
        }),
        (None, Some(_), _) => Ok(Message::Notification { params: env.params }),
        (Some(_), None, Some(_)) => Ok(Message::Response),
        (id, None, _) => invalid(id, "a request needs a method"),
    }
}

/// A result answer for `id`; `result` is JSON text.
pub(crate) fn result(id: &RawValue, result: &str) -> String {
    let mut out = String::with_capacity(result.len() + id.get().len() + 32);
    out.push_str("{\"jsonrpc\":\"2.0\",\"id\":");
    out.push_str(id.get());
    out.push_str(",\"result\":");
    out.push_str(result);
    out.push('}');
    out
}

/// An error answer for `id` (`null` without one).
pub(crate) fn error(id: Option<&RawValue>, e: &RpcError) -> String {
    let mut error = serde_json::json!({"code": e.code, "message": e.message});
    if let Some(data) = &e.data {
        error["data"] = data.clone();
    }
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{}}}",
        id.map_or("null", RawValue::get),
        error
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_of_message() {
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#),
            Ok(Message::Request { .. })
        ));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Message::Notification { .. })
        ));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Ok(Message::Response)
        ));
        let code_of = |m: &[u8]| parse(m).unwrap_err().1.code;
        assert_eq!(code_of(b"{not json"), code::PARSE_ERROR);
        assert_eq!(code_of(b"\xff"), code::PARSE_ERROR);
        assert_eq!(code_of(br#"[1]"#), code::INVALID_REQUEST);
        assert_eq!(
            code_of(br#"["2.0",7,"tools/call",{"name":"text-extract-between"},null,null]"#),
            code::INVALID_REQUEST
        );
        assert_eq!(
            code_of(br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            code::INVALID_REQUEST
        );
        assert_eq!(
            code_of(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            code::INVALID_REQUEST
        );
        assert_eq!(
            code_of(br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            code::INVALID_REQUEST
        );
    }

    #[test]
    fn ids_are_echoed_as_sent() {
        let Ok(Message::Request { id, .. }) =
            parse(br#"{"jsonrpc":"2.0","id":"a\u00e9","method":"x"}"#)
        else {
            panic!()
        };
        assert_eq!(
            result(id, "{}"),
            r#"{"jsonrpc":"2.0","id":"a\u00e9","result":{}}"#
        );
    }
}
