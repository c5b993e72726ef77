//! `/mcp`: the MCP Streamable HTTP endpoint, under the service's limits. The `Origin`
//! check comes first (a foreign origin gets 403), then the body as the execute route reads
//! it (size, `--body-timeout`, the memory budget), a run slot, and [`crate::mcp`]'s answer.
//! Tokens are checked by the edge like every other route's. GET (no server-initiated
//! stream) and DELETE (no sessions) get the router's 405, with `Allow: POST`.

use super::admission::AppState;
use super::execute::read_body;
use crate::mcp::http as mcp_http;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

pub(super) async fn post(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if !mcp_http::origin_allowed(&headers, &state.args.allow_origin) {
        return (
            StatusCode::FORBIDDEN,
            [(header::CONTENT_TYPE, "application/json")],
            mcp_http::forbidden_origin(),
        )
            .into_response();
    }
    let (bytes, permits) = match read_body(&state, &headers, body).await {
        Ok(read) => read,
        Err(refused) => return as_rpc_error(refused.status(), &state),
    };
    let _slot = match state.run_slot() {
        Ok(slot) => slot,
        Err(_) => return as_rpc_error(StatusCode::SERVICE_UNAVAILABLE, &state),
    };
    let answer = mcp_http::handle(&headers, &bytes);
    drop((bytes, permits));
    let status = StatusCode::from_u16(answer.http_status).unwrap_or(StatusCode::OK);
    let Some(text) = answer.body else {
        return StatusCode::ACCEPTED.into_response();
    };
    match state.budgeted_body(text) {
        Ok(body) => (status, [(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err(_) => as_rpc_error(StatusCode::SERVICE_UNAVAILABLE, &state),
    }
}

/// A refusal of the service's limits, as a JSON-RPC error (id `null`: the message was not
/// read) with the same status, so that an MCP client gets an answer it can parse.
fn as_rpc_error(status: StatusCode, state: &AppState) -> Response {
    let message = match status {
        StatusCode::PAYLOAD_TOO_LARGE => format!(
            "the message is over {} bytes",
            extract_between::request::MAX_REQUEST_BYTES
        ),
        StatusCode::REQUEST_TIMEOUT => format!(
            "the message did not arrive within {} s",
            state.args.body_timeout.max(1)
        ),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            "a Content-Encoding is not supported: send the message uncompressed".into()
        }
        StatusCode::SERVICE_UNAVAILABLE => "overloaded; retry shortly".into(),
        _ => "the message could not be read".into(),
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        mcp_http::refusal(&message),
    )
        .into_response()
}
