//! `/mcp`: the MCP Streamable HTTP endpoint, under the service's limits. The `Origin`
//! check comes first (a foreign origin gets 403), then the body as the execute route reads
//! it (size, `--body-timeout`, the memory budget), a run slot, and [`crate::mcp`]'s answer,
//! a batch's answer taking the memory budget as it grows.
//! Tokens are checked by the edge like every other route's. GET (no server-initiated
//! stream) and DELETE (no sessions) get the router's 405, with `Allow: POST`.

use super::body::read_and_run;
use super::error::{ApiError, json_response};
use super::origin::{forbidden_host, forbidden_origin, host_allowed, origin_allowed};
use super::state::{AppState, overloaded};
use crate::mcp::http::{self as mcp_http, OverBudget, RequestHeaders, Verdict};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::OwnedSemaphorePermit;

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
        if !host_allowed(host, &state.config.allow_host) {
            return json_response(StatusCode::FORBIDDEN, forbidden_host());
        }
    }
    if !origin_allowed(&headers, &state.config.allow_origin) {
        return json_response(StatusCode::FORBIDDEN, forbidden_origin());
    }
    let budget = state.clone();
    let sent = |name| headers.get(name).cloned();
    let mcp_headers = [
        sent("mcp-protocol-version"),
        sent("mcp-method"),
        sent("mcp-name"),
    ];
    let run = read_and_run(&state, &headers, body, move |bytes| {
        let [protocol_version, method, name] = mcp_headers
            .each_ref()
            .map(|v| v.as_ref().map(|v| v.as_bytes()));
        let request = RequestHeaders {
            protocol_version,
            method,
            name,
        };
        // A batch's answer takes the budget as it grows, so it is refused before it is
        // built past the budget, not after.
        let mut held = Held::default();
        let answer = mcp_http::handle(request, &bytes, &mut |n| held.take(&budget, n));
        (answer, held)
    });
    let (answer, held) = match run.await {
        Ok((Ok(answer), held)) => (answer, held),
        Ok((Err(OverBudget), _)) => return as_rpc_error(&batch_over_budget()),
        Err(refused) => return as_rpc_error(&refused),
    };
    let Some(text) = answer.body else {
        return StatusCode::ACCEPTED.into_response();
    };
    match state.budgeted_body_holding(text, held.0) {
        Ok(body) => (
            status_of(answer.verdict),
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response(),
        Err(refused) => as_rpc_error(&refused),
    }
}

/// The HTTP status of an MCP answer, as the Streamable HTTP binding gives it.
fn status_of(verdict: Verdict) -> StatusCode {
    match verdict {
        Verdict::Unanswered => StatusCode::ACCEPTED,
        Verdict::Answered => StatusCode::OK,
        Verdict::Refused => StatusCode::BAD_REQUEST,
        Verdict::NoSuchMethod => StatusCode::NOT_FOUND,
    }
}

/// A refusal of the service's limits, as a JSON-RPC error (id `null`: the message was not
/// read) with the same status and words as the HTTP envelope, so that an MCP client gets an
/// answer it can parse.
fn as_rpc_error(refused: &ApiError) -> Response {
    json_response(refused.status(), mcp_http::refusal(&refused.message))
}

/// The budget a batch's answer took while it grew.
#[derive(Default)]
struct Held(Option<OwnedSemaphorePermit>);

impl Held {
    /// Takes `n` more bytes of `state`'s budget; `false` when they are not there.
    fn take(&mut self, state: &AppState, n: usize) -> bool {
        let Ok(more) = state.reserve(n) else {
            return false;
        };
        match &mut self.0 {
            Some(held) => held.merge(more),
            None => self.0 = Some(more),
        }
        true
    }
}

/// The 503 of a batch whose answers would pass the memory budget.
fn batch_over_budget() -> ApiError {
    overloaded(
        "the batch's answers would pass the memory budget (--max-memory-mib); send fewer messages at once, or retry shortly",
    )
}
