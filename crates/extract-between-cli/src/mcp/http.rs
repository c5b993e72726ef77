//! The Streamable HTTP binding's side of MCP: the MCP request headers handed to the
//! dispatcher (`Mcp-Name` decoded from its base64 form) and the JSON-RPC refusals the route
//! answers before a message is read. The route itself, with the service's limits and the
//! `Host`/`Origin` checks, is `server::mcp_route`.

use super::dispatch::{self, Answer, HttpHeaders, Room, Session, Transport};
pub(crate) use super::dispatch::{OverBudget, Verdict};
use super::rpc;
use base64::Engine;
use rmcp::model::ErrorData;

/// A refusal before the message was read (too large, too slow, overload): a JSON-RPC
/// error without an id.
pub(crate) fn refusal(message: &str) -> String {
    rpc::error(None, &ErrorData::invalid_request(message.to_owned(), None))
}

/// The MCP request headers as they arrived, each `None` when absent.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct RequestHeaders<'a> {
    /// `MCP-Protocol-Version`.
    pub(crate) protocol_version: Option<&'a [u8]>,
    /// `Mcp-Method`.
    pub(crate) method: Option<&'a [u8]>,
    /// `Mcp-Name`, perhaps in its `=?base64?…?=` form.
    pub(crate) name: Option<&'a [u8]>,
}

/// Answers one POSTed message (or batch, whose answer asks `room` for its bytes as it
/// grows).
pub(crate) fn handle(
    headers: RequestHeaders<'_>,
    body: &[u8],
    room: Room<'_>,
) -> Result<Answer, OverBudget> {
    let text = |value: Option<&[u8]>| value.map(|v| String::from_utf8_lossy(v).into_owned());
    let name = match text(headers.name) {
        Some(v) => match decode_sentinel(&v) {
            Some(decoded) => Some(decoded),
            None => {
                let e = ErrorData::header_mismatch(
                    "the Mcp-Name header's =?base64?…?= value is not base64 of UTF-8",
                    None,
                );
                return Ok(Answer {
                    body: Some(rpc::error(None, &e)),
                    verdict: Verdict::Refused,
                });
            }
        },
        None => None,
    };
    let headers = HttpHeaders {
        protocol_version: text(headers.protocol_version),
        method: text(headers.method),
        name,
    };
    // No sessions over HTTP: every request stands alone.
    dispatch::handle(
        &mut Session::default(),
        body,
        Transport::Http(&headers),
        room,
    )
}

/// A header value in the `=?base64?…?=` form decoded; other values as they are.
fn decode_sentinel(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|b| String::from_utf8(b).ok()),
        None => Some(value.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_sentinel_decodes() {
        assert_eq!(
            decode_sentinel("=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(),
            "Hello, 世界"
        );
        assert_eq!(decode_sentinel("plain").unwrap(), "plain");
        assert!(decode_sentinel("=?base64?*?=").is_none());
    }
}
