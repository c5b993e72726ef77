//! A JSON request body read under the service's limits: at most
//! [`MAX_REQUEST_BYTES`], within `--body-timeout`, each byte of room it takes held in the
//! memory budget. The execute route and `/mcp` read their bodies so, and run them through
//! [`read_and_run`], the one request path both take.

use super::error::{ApiError, ErrorCode};
use super::protocol::unsupported_encoding;
use super::state::AppState;
use axum::body::Body;
use axum::http::{HeaderMap, header};
use extract_between::request::{MAX_REQUEST_BYTES, payload_too_large_message};
use futures_util::StreamExt;
use tokio::sync::OwnedSemaphorePermit;

/// A JSON body of at most [`MAX_REQUEST_BYTES`] within `--body-timeout`, and the budget it
/// holds; or why not (413, 408, 415, 503, 400).
pub(super) async fn read_body(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<(Vec<u8>, Option<OwnedSemaphorePermit>), ApiError> {
    if let Some(refused) = unsupported_encoding(headers) {
        return Err(refused);
    }
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_REQUEST_BYTES as u64) {
        return Err(too_large());
    }
    let timeout = state.config.body_timeout;
    let read = read_limited(body, declared, state);
    match tokio::time::timeout(timeout, read).await {
        Err(_) => Err(ApiError::new(
            ErrorCode::RequestTimeout,
            format!(
                "the request body did not arrive within {} s",
                timeout.as_secs()
            ),
        )),
        Ok(Err(BodyRead::TooLarge)) => Err(too_large()),
        Ok(Err(BodyRead::OverBudget)) => Err(ApiError::new(
            ErrorCode::Overloaded,
            "too many request bodies held at once; retry shortly",
        )),
        Ok(Err(BodyRead::Failed(e))) => Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!("could not read the request body: {e}"),
        )),
        Ok(Ok(read)) => Ok(read),
    }
}

/// What the execute route and `/mcp` both do with a request: the body read (see
/// [`read_body`]), a run slot taken only once it is in, and `work` run on it (off the async
/// workers when large). The body's budget is given back when `work` is done, before the
/// answer takes its own.
pub(super) async fn read_and_run<T: Send + 'static>(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
    work: impl FnOnce(Vec<u8>) -> T + Send + 'static,
) -> Result<T, ApiError> {
    let (bytes, permits) = read_body(state, headers, body).await?;
    let _slot = state.run_slot()?;
    let done = state.run_parse(bytes.len(), move || work(bytes)).await?;
    drop(permits);
    Ok(done)
}

/// The 413 of a body over [`MAX_REQUEST_BYTES`], in the words of the card's contract.
fn too_large() -> ApiError {
    ApiError::new(ErrorCode::PayloadTooLarge, payload_too_large_message())
}

enum BodyRead {
    TooLarge,
    OverBudget,
    Failed(axum::Error),
}

/// Reads a JSON body (execute, `/mcp`) of at most [`MAX_REQUEST_BYTES`], holding a permit of the budget
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
    // `read_body` answered 413 already for a declared length over the limit.
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
