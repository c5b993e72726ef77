//! The stream route: a raw UTF-8 upload of any size, answered as NDJSON while it arrives
//! — a line per match as it is found, then a summary or an error line.

use super::error::{ApiError, ErrorCode};
use super::metrics::{CLIENT_CLOSED, CountedAtEnd, Metrics, Rejection};
use super::protocol::unsupported_encoding;
use super::query::parse_stream_query;
use super::state::AppState;
use super::urls::STREAM_PATH;
use axum::Extension;
use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use core::pin::Pin;
use core::task::{Context, Poll};
use extract_between::__private as json;
use extract_between::Pos;
use extract_between::scanner::ScanError;
use extract_between::stream::{self, Error as StreamError, MatchStream};
use futures_core::Stream;
use futures_util::StreamExt;
use prometheus_client::metrics::counter::Counter;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::OwnedSemaphorePermit;

pub(super) async fn stream_upload(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if let Some(refused) = unsupported_encoding(&headers) {
        return refused.into_response();
    }
    let query = match parse_stream_query(query.as_deref(), state.config.max_match_bytes) {
        Ok(q) => q,
        Err((field, message)) => {
            return ApiError::new(ErrorCode::InvalidInput, message)
                .field(field)
                .into_response();
        }
    };
    let permit = match state.stream_slot() {
        Ok(permit) => permit,
        Err(refused) => return refused.into_response(),
    };
    let (scanned, matched) = state.metrics.route_counters(STREAM_PATH);
    let mut source = IdleTimeout::new(
        body.into_data_stream(),
        state.config.idle_timeout,
        scanned,
        Arc::clone(&state.deadline),
    )
    .fuse();
    // The answer waits for the upload's first bytes (or its end, error or idle timeout):
    // that first read is what makes hyper send `100 Continue` to a client that asked for
    // it (curl does for bodies over 1 MiB). Answered at once, the 200 went out instead, and
    // curl held the body back for its one-second wait.
    let first = source.next().await;
    let source = futures_util::stream::iter(first).chain(source);
    let matches = stream::matches(source, &query.markers, query.options);
    let body = Ndjson {
        matches,
        line: None,
        _permit: permit,
        done: false,
        matched,
        counted: 0,
        metrics: Arc::clone(&state.metrics),
        ended: None,
    };
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/x-ndjson"),
        )],
        // The head's 200 says nothing yet of how the upload ends: the body counts it.
        Extension(CountedAtEnd),
        Body::from_stream(body),
    )
        .into_response()
}

/// Why the upload stopped arriving.
#[derive(Debug)]
enum UploadError {
    Read(axum::Error),
    Idle(Duration),
    /// `--shutdown-timeout` passed while the upload was still coming.
    ShuttingDown,
}

impl std::fmt::Display for UploadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UploadError::Read(e) => write!(f, "reading the request body: {e}"),
            UploadError::Idle(d) => write!(f, "no bytes arrived for {} s", d.as_secs()),
            UploadError::ShuttingDown => f.write_str(
                "the service is shutting down and --shutdown-timeout passed before the upload ended",
            ),
        }
    }
}

/// Ends a body stream with an error when no chunk arrives for `idle`; counts the bytes
/// that pass.
struct IdleTimeout<S> {
    inner: S,
    idle: Duration,
    sleep: Pin<Box<tokio::time::Sleep>>,
    scanned: Counter,
    /// Resolves when `--shutdown-timeout` passes; `None` once it has.
    deadline: Option<Pin<Box<tokio::sync::futures::OwnedNotified>>>,
}

impl<S> IdleTimeout<S> {
    fn new(inner: S, idle: Duration, scanned: Counter, deadline: Arc<tokio::sync::Notify>) -> Self {
        IdleTimeout {
            inner,
            idle,
            sleep: Box::pin(tokio::time::sleep(idle)),
            scanned,
            deadline: Some(Box::pin(deadline.notified_owned())),
        }
    }
}

impl<S> Stream for IdleTimeout<S>
where
    S: Stream<Item = Result<Bytes, axum::Error>> + Unpin,
{
    type Item = Result<Bytes, UploadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let passed = match this.deadline.as_mut() {
            Some(deadline) => deadline.as_mut().poll(cx).is_ready(),
            None => true,
        };
        if passed {
            this.deadline = None;
            return Poll::Ready(Some(Err(UploadError::ShuttingDown)));
        }
        match Pin::new(&mut this.inner).poll_next(cx) {
            Poll::Ready(item) => {
                let deadline = tokio::time::Instant::now() + this.idle;
                this.sleep.as_mut().reset(deadline);
                if let Some(Ok(chunk)) = &item {
                    this.scanned.inc_by(chunk.len() as u64);
                }
                Poll::Ready(item.map(|r| r.map_err(UploadError::Read)))
            }
            Poll::Pending => match this.sleep.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Some(Err(UploadError::Idle(this.idle)))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

/// The NDJSON response body: match lines batched into chunks as they are found, then the
/// summary or the error line. Then, before the response ends, the rest of the upload is read
/// and dropped unscanned: ending the response while the client is still sending makes the
/// server close a connection with unread data, which resets it — curl then fails with "Send
/// failure: Broken pipe" (exit 55), and a reset can even discard the answer before the
/// client has read it.
///
/// Memory: a chunk is cut once it reaches [`NDJSON_BATCH`], and a match's content is escaped
/// [`ESCAPE_PIECE`] bytes at a time, so a chunk holds at most `NDJSON_BATCH` + 6 ×
/// `ESCAPE_PIECE` + one line's offsets (56 KiB and a little), however long the match and
/// however much JSON escaping multiplies it. The match itself is held to `max_match_bytes`.
struct Ndjson<S> {
    matches: MatchStream<S>,
    /// The match whose line is being written, and how much of its content is.
    line: Option<Line>,
    _permit: OwnedSemaphorePermit,
    done: bool,
    /// The matches counter, and how many of this answer's matches it has been given.
    matched: Counter,
    counted: u64,
    metrics: Arc<Metrics>,
    /// The status the request is counted with once the answer's last line is written: 200
    /// for the card's outcome, 408 an idle upload, 499 an upload the client broke off, 503
    /// one the shutdown cut. An answer dropped before it is counts as 499.
    ended: Option<u16>,
}

impl<S> Drop for Ndjson<S> {
    fn drop(&mut self) {
        let status = self.ended.unwrap_or(CLIENT_CLOSED);
        self.metrics.count_request(STREAM_PATH, "POST", status);
    }
}

struct Line {
    content: Bytes,
    written: usize,
    span: (Pos, Pos),
}

/// A chunk of the answer is sent once it holds this much.
const NDJSON_BATCH: usize = 32 * 1024;
/// Content bytes escaped at a time (at most six output bytes each).
const ESCAPE_PIECE: usize = 4 * 1024;

/// Chunks drained per poll before yielding to the runtime: a fast client must not keep one
/// poll spinning.
const DRAIN_PER_POLL: usize = 64;

impl<S> Stream for Ndjson<S>
where
    S: Stream<Item = Result<Bytes, UploadError>> + Unpin,
{
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return this.drain(cx);
        }
        let polled = this.next_chunk(cx);
        let delivered = this.matches.delivered();
        if delivered > this.counted {
            this.matched.inc_by(delivered - this.counted);
            this.counted = delivered;
        }
        polled
    }
}

impl<S> Ndjson<S>
where
    S: Stream<Item = Result<Bytes, UploadError>> + Unpin,
{
    /// The next chunk of the answer: match lines up to a batch, or the last line.
    fn next_chunk(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Infallible>>> {
        let this = self;
        // Bytes, not a `String`: match content is valid UTF-8 from the scanner and is escaped
        // as bytes, without checking it again per line.
        let mut out = Vec::new();
        loop {
            if out.len() >= NDJSON_BATCH {
                return Poll::Ready(Some(Ok(Bytes::from(out))));
            }
            if let Some(line) = &mut this.line {
                let rest = line.content.get(line.written..).unwrap_or_default();
                let piece = rest.get(..ESCAPE_PIECE).unwrap_or(rest);
                json::push_json_escaped(&mut out, piece);
                line.written += piece.len();
                if line.written == line.content.len() {
                    out.push(b'"');
                    json::push_offsets(&mut out, line.span.0, line.span.1);
                    out.extend_from_slice(b"}\n");
                    this.line = None;
                }
                continue;
            }
            match this.matches.poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(m))) => {
                    if out.capacity() == 0 {
                        // Room for a whole batch at once, not a doubling per few lines.
                        out.reserve(NDJSON_BATCH + 6 * ESCAPE_PIECE + 256);
                    }
                    out.extend_from_slice(b"{\"match\":\"");
                    this.line = Some(Line {
                        content: m.bytes().clone(),
                        written: 0,
                        span: m.span(),
                    });
                }
                Poll::Ready(Some(Err(e))) => {
                    this.done = true;
                    this.ended = Some(match &e {
                        StreamError::Upstream(UploadError::Idle(_)) => {
                            this.metrics.reject(Rejection::Timeout);
                            408
                        }
                        StreamError::Upstream(UploadError::Read(_)) => CLIENT_CLOSED,
                        StreamError::Upstream(UploadError::ShuttingDown) => 503,
                        StreamError::Scan(_) | StreamError::MatchTooLarge { .. } => 200,
                    });
                    out.extend_from_slice(stream_error_line(&e).as_bytes());
                    out.push(b'\n');
                    return Poll::Ready(Some(Ok(Bytes::from(out))));
                }
                Poll::Ready(None) => {
                    this.done = true;
                    this.ended = Some(200);
                    let summary = format!(
                        "{{\"done\":true,\"matches\":{},\"truncated\":{}}}\n",
                        this.matches.delivered(),
                        this.matches.truncated().unwrap_or(false)
                    );
                    out.extend_from_slice(summary.as_bytes());
                    return Poll::Ready(Some(Ok(Bytes::from(out))));
                }
                Poll::Pending if out.is_empty() => return Poll::Pending,
                Poll::Pending => return Poll::Ready(Some(Ok(Bytes::from(out)))),
            }
        }
    }

    /// The answer is out; reads the rest of the upload (see the type's docs).
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Infallible>>> {
        let Some(source) = self.matches.source_mut() else {
            return Poll::Ready(None);
        };
        for _ in 0..DRAIN_PER_POLL {
            match source.poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(_))) => {}
                // Ended, failed or idle too long: nothing more to wait for.
                Poll::Ready(Some(Err(_)) | None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// The stream's last line on an error: the execute route's envelope, its keys in the same
/// order (`code`, `message`, `offset`, `byte_offset`).
#[derive(serde::Serialize)]
struct ErrorLine<'a> {
    error: ErrorBody<'a>,
}

#[derive(serde::Serialize)]
struct ErrorBody<'a> {
    code: &'a str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    byte_offset: Option<u64>,
}

fn stream_error_line(e: &StreamError<UploadError>) -> String {
    let (code, offsets) = match e {
        StreamError::Scan(ScanError::Unclosed { marker }) => {
            ("unclosed_start_marker", Some((marker.utf16, marker.byte)))
        }
        // Invalid UTF-8 has no UTF-16 position: the byte offset stands for both.
        StreamError::Scan(ScanError::InvalidUtf8 { offset, .. }) => {
            ("invalid_utf8", Some((*offset, *offset)))
        }
        StreamError::MatchTooLarge { start, .. } => {
            ("match_too_large", Some((start.utf16, start.byte)))
        }
        StreamError::Upstream(UploadError::Idle(_)) => ("request_timeout", None),
        StreamError::Upstream(UploadError::Read(_)) => ("body_error", None),
        StreamError::Upstream(UploadError::ShuttingDown) => ("shutting_down", None),
    };
    let message = match e {
        StreamError::Scan(ScanError::Unclosed { .. }) => "unclosed start marker".to_owned(),
        _ => e.to_string(),
    };
    let line = ErrorLine {
        error: ErrorBody {
            code,
            message,
            offset: offsets.map(|o| o.0),
            byte_offset: offsets.map(|o| o.1),
        },
    };
    serde_json::to_string(&line).unwrap_or_default()
}
