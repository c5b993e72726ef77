//! JSON-RPC 2.0 framing: reading a message without trusting it, and writing answers.
//!
//! A message is read as an envelope whose `id` stays raw JSON text, echoed exactly as sent,
//! and whose `params` are read as the caller asks: as the parameters themselves (one pass
//! over a large message), or as raw text (to say which part of a bad message is wrong).

use rmcp::model::ErrorData;
use serde::Deserialize;
use serde_json::value::RawValue;

/// A message as it arrived: only what routing needs is parsed, and `params` as `P`.
#[derive(Debug, Deserialize)]
#[serde(bound(deserialize = "P: Deserialize<'de>"))]
pub(crate) struct Envelope<'a, P> {
    pub(crate) jsonrpc: Option<&'a str>,
    /// `Some` whenever the member is there, `null` included (an invalid id, not a
    /// notification).
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) id: Option<&'a RawValue>,
    pub(crate) method: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) params: Option<P>,
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
pub(crate) enum Message<'a, P> {
    /// A request: it gets an answer.
    Request {
        id: &'a RawValue,
        method: String,
        params: Option<P>,
    },
    /// A notification: it gets none.
    Notification { params: Option<P> },
    /// A response or error from the client (to nothing we asked): ignored.
    Response,
}

/// Reads one message, its `params` as `P`. `Err` carries the error to answer, with the id
/// when it was readable (a `params` that is no `P` makes the whole message unreadable: read
/// it again with `P = &RawValue` to tell the two apart).
pub(crate) fn parse<'a, P: Deserialize<'a>>(
    bytes: &'a [u8],
) -> Result<Message<'a, P>, (Option<&'a RawValue>, ErrorData)> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        (
            None,
            ErrorData::parse_error(
                format!("the message is not valid UTF-8 (byte {})", e.valid_up_to()),
                None,
            ),
        )
    })?;
    // serde would read a struct from an array too: `["2.0",7,"tools/call",…]` is no message.
    // Only what does not open an object is parsed a second time, to say which error it is.
    if !text.trim_start().starts_with('{') {
        let why = match serde_json::from_str::<&RawValue>(text) {
            Ok(_) => ErrorData::invalid_request("a JSON-RPC message must be a JSON object", None),
            Err(e) => ErrorData::parse_error(format!("the message is not JSON: {e}"), None),
        };
        return Err((None, why));
    }
    let env: Envelope<'_, P> = serde_json::from_str(text).map_err(|e| {
        let why = if e.is_data() {
            ErrorData::invalid_request(format!("not a JSON-RPC 2.0 message: {e}"), None)
        } else {
            ErrorData::parse_error(format!("the message is not JSON: {e}"), None)
        };
        (None, why)
    })?;
    let invalid = |id, why: &'static str| Err((id, ErrorData::invalid_request(why, None)));
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
pub(crate) fn error(id: Option<&RawValue>, e: &ErrorData) -> String {
    let error = serde_json::to_string(e).expect("an ErrorData always serializes");
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{}}}",
        id.map_or("null", RawValue::get),
        error
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ErrorCode;

    #[test]
    fn kinds_of_message() {
        assert!(matches!(
            parse::<&RawValue>(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#),
            Ok(Message::Request { .. })
        ));
        assert!(matches!(
            parse::<&RawValue>(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Message::Notification { .. })
        ));
        assert!(matches!(
            parse::<&RawValue>(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Ok(Message::Response)
        ));
        let code_of = |m: &[u8]| parse::<&RawValue>(m).unwrap_err().1.code;
        assert_eq!(code_of(b"{not json"), ErrorCode::PARSE_ERROR);
        assert_eq!(code_of(b"\xff"), ErrorCode::PARSE_ERROR);
        assert_eq!(code_of(br#"[1]"#), ErrorCode::INVALID_REQUEST);
        assert_eq!(
            code_of(br#"["2.0",7,"tools/call",{"name":"text-extract-between"},null,null]"#),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            code_of(br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            code_of(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            code_of(br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            ErrorCode::INVALID_REQUEST
        );
    }

    #[test]
    fn ids_are_echoed_as_sent() {
        let Ok(Message::Request { id, .. }) =
            parse::<&RawValue>(br#"{"jsonrpc":"2.0","id":"a\u00e9","method":"x"}"#)
        else {
            panic!()
        };
        assert_eq!(
            result(id, "{}"),
            r#"{"jsonrpc":"2.0","id":"a\u00e9","result":{}}"#
        );
    }
}
