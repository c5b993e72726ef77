//! `/mcp`: the MCP Streamable HTTP endpoint, under the service's limits. The `Origin`
//! check comes first (a foreign origin gets 403), then the body as the execute route reads
//! it (size, `--body-timeout`, the memory budget), a run slot, and [`crate::mcp`]'s answer.
//! Tokens are checked by the edge like every other route's. GET (no server-initiated
//! stream) and DELETE (no sessions) get the router's 405, with `Allow: POST`.

use super::body::read_body;
use super::error::{ApiError, json_response};
use super::state::AppState;
use crate::mcp::http as mcp_http;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

pub(super) async fn post(
    State(state): State<AppState>,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if state.config.loopback {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .or_else(|| uri.authority().map(|a| a.as_str()));
        if !mcp_http::host_allowed(host, &state.config.allow_host) {
            return json_response(StatusCode::FORBIDDEN, mcp_http::forbidden_host());
        }
    }
    if !mcp_http::origin_allowed(&headers, &state.config.allow_origin) {
        return json_response(StatusCode::FORBIDDEN, mcp_http::forbidden_origin());
    }
    let (bytes, permits) = match read_body(&state, &headers, body).await {
        Ok(read) => read,
        Err(refused) => return as_rpc_error(&refused),
    };
    let _slot = match state.run_slot() {
        Ok(slot) => slot,
        Err(refused) => return as_rpc_error(&refused),
    };
    let run = state.run_parse(bytes.len(), move || mcp_http::handle(&headers, &bytes));
    let answer = match run.await {
        Ok(answer) => answer,
        Err(refused) => return as_rpc_error(&refused),
    };
    drop(permits);
    let status = StatusCode::from_u16(answer.http_status).unwrap_or(StatusCode::OK);
    let Some(text) = answer.body else {
        return StatusCode::ACCEPTED.into_response();
    };
    match state.budgeted_body(text) {
        Ok(body) => (status, [(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err(refused) => as_rpc_error(&refused),
    }
}

/// A refusal of the service's limits, as a JSON-RPC error (id `null`: the message was not
/// read) with the same status and words as the HTTP envelope, so that an MCP client gets an
/// answer it can parse.
fn as_rpc_error(refused: &ApiError) -> Response {
    json_response(refused.status(), mcp_http::refusal(&refused.message))
}
