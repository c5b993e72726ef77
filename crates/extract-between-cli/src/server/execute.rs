//! The execute route: the card's JSON request in, the card's JSON answer out, through
//! [`extract_between::request::execute`] (byte for byte what the CLI's tool mode prints).
//!
//! The body is parsed as JSON whatever the `Content-Type` says, so `curl -d` works as
//! written. Its bytes hold the memory budget while they arrive, and the answer holds it until
//! written; the run itself takes a slot only once the body is in.

use super::EXECUTE_PATH;
use super::admission::{AppState, Overloaded};
use super::protocol::unsupported_encoding;
use super::routes::{error_response, json_response};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use extract_between::request::{self, MAX_REQUEST_BYTES, payload_too_large_body};
use futures_util::StreamExt;
use std::time::Duration;
use tokio::sync::OwnedSemaphorePermit;

pub(super) async fn execute(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let (bytes, permits) = match read_body(&state, &headers, body).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let _slot = match state.run_slot() {
        Ok(slot) => slot,
        Err(refused) => return refused.into_response(),
    };
    let (reply, scanned) = match request::parse(&bytes) {
        Ok(req) => (request::run(&req), req.text.len()),
        Err(_) => (request::execute(&bytes), 0),
    };
    state
        .metrics
        .scanned(EXECUTE_PATH, scanned as u64, reply.matches as u64);
    // The request's bytes are done with: give their budget back before the answer takes its.
    drop((bytes, permits));
    let status = StatusCode::from_u16(reply.outcome.http_status()).unwrap_or(StatusCode::OK);
    match state.budgeted_body(reply.body) {
        Ok(body) => (status, [(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err(refused) => refused.into_response(),
    }
}

/// A JSON body of at most [`MAX_REQUEST_BYTES`] within `--body-timeout`, and the budget it
/// holds; or the refusal to answer (413, 408, 415, 503, 400).
pub(super) async fn read_body(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<(Vec<u8>, Option<OwnedSemaphorePermit>), Response> {
    if let Some(refused) = unsupported_encoding(headers) {
        return Err(refused);
    }
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_REQUEST_BYTES as u64) {
        return Err(json_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            payload_too_large_body(),
        ));
    }
    let timeout = Duration::from_secs(state.args.body_timeout.max(1));
    let read = read_limited(body, declared, state);
    match tokio::time::timeout(timeout, read).await {
        Err(_) => Err(error_response(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            &format!(
                "the request body did not arrive within {} s",
                timeout.as_secs()
            ),
        )),
        Ok(Err(BodyRead::TooLarge)) => Err(json_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            payload_too_large_body(),
        )),
        Ok(Err(BodyRead::OverBudget)) => {
            Err(Overloaded("too many request bodies held at once; retry shortly").into_response())
        }
        Ok(Err(BodyRead::Failed(e))) => Err(error_response(
            StatusCode::BAD_REQUEST,
            "invalid_input",
            &format!("could not read the request body: {e}"),
        )),
        Ok(Ok(read)) => Ok(read),
    }
}

enum BodyRead {
    TooLarge,
    OverBudget,
    Failed(axum::Error),
}

/// Reads an execute body of at most [`MAX_REQUEST_BYTES`], holding a permit of the budget
/// for every byte of room the body takes. Room grows with what has arrived (doubling, up to
/// the declared length), never reserved ahead for the declared length: a reservation is
/// memory once the allocator hands out pages touched before, and a hundred clients declaring
/// 4 MiB and sending a byte would otherwise hold 400 MiB.
async fn read_limited(
    body: Body,
    declared: Option<u64>,
    state: &AppState,
) -> Result<(Vec<u8>, Option<OwnedSemaphorePermit>), BodyRead> {
    let mut permits: Option<OwnedSemaphorePermit> = None;
    // `execute` answered 413 for a declared length over the limit.
    let declared = declared.map_or(MAX_REQUEST_BYTES, |n| n as usize);
    let mut out: Vec<u8> = Vec::new();
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(BodyRead::Failed)?;
        let needed = out.len() + chunk.len();
        if needed > MAX_REQUEST_BYTES {
            return Err(BodyRead::TooLarge);
        }
        if needed > out.capacity() {
            let room = needed
                .max(out.capacity() * 2)
                .min(declared.max(needed))
                .max(4096);
            let more = state
                .reserve(room - out.capacity())
                .map_err(|_| BodyRead::OverBudget)?;
            match &mut permits {
                Some(held) => held.merge(more),
                None => permits = Some(more),
            }
            out.reserve_exact(room - out.len());
        }
        out.extend_from_slice(&chunk);
    }
    Ok((out, permits))
}
