//! The execute route: the card's JSON request in, the card's JSON answer out, through
//! [`extract_between::request::execute`] (byte for byte what the CLI's tool mode prints).
//!
//! The body is parsed as JSON whatever the `Content-Type` says, so `curl -d` works as
//! written. Its bytes hold the memory budget while they arrive, and the answer holds it until
//! written; the run itself takes a slot only once the body is in (the path `/mcp` shares).

use super::body::read_and_run;
use super::state::AppState;
use super::urls::EXECUTE_PATH;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use extract_between::request;

pub(super) async fn execute(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let run = read_and_run(&state, &headers, body, |bytes| {
        match request::parse(&bytes) {
            Ok(req) => (request::run(&req), req.text.len()),
            Err(invalid) => (request::Reply::from(&invalid), 0),
        }
    });
    let (reply, scanned) = match run.await {
        Ok(done) => done,
        Err(refused) => return refused.into_response(),
    };
    state
        .metrics
        .scanned(EXECUTE_PATH, scanned as u64, reply.matches as u64);
    let status = status_of(reply.outcome);
    match state.budgeted_body(reply.body) {
        Ok(body) => (status, [(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err(refused) => refused.into_response(),
    }
}

/// The HTTP status of an answer: 200 the card's output, 422 an unclosed start marker, 400
/// invalid input.
fn status_of(outcome: extract_between::request::Outcome) -> StatusCode {
    use extract_between::request::Outcome;
    match outcome {
        Outcome::Output => StatusCode::OK,
        Outcome::Unclosed => StatusCode::UNPROCESSABLE_ENTITY,
        Outcome::InvalidInput => StatusCode::BAD_REQUEST,
    }
}
