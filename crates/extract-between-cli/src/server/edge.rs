//! What every request goes through before its handler, as one middleware (one boxed future
//! a request, where a layer per concern cost four): a request id in `x-request-id` and in
//! the span of every log line it causes, the metrics, the framing checks, the token check,
//! and, while draining, `Connection: close` on HTTP/1 answers so keep-alive clients move to
//! another instance.

use super::request_id::HEADER as REQUEST_ID;
use super::state::AppState;
use super::{auth, protocol};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, Request, Version, header};
use axum::response::Response;
use std::sync::atomic::Ordering;
use tracing::Instrument;

pub(super) async fn edge(
    State(state): State<AppState>,
    req: Request<Body>,
    next: axum::middleware::Next,
) -> Response {
    let id = state.request_ids.of(req.headers());
    let http1 = req.version() <= Version::HTTP_11;
    // Build the log fields only when they will be written: this runs on every request.
    let logged = tracing::enabled!(tracing::Level::DEBUG)
        .then(|| (req.method().clone(), req.uri().path().to_owned()));
    let span = tracing::info_span!("request", id = %String::from_utf8_lossy(id.as_bytes()));
    let observation = state.metrics.observe(&req);
    let refused = protocol::refuse_framing(&req)
        .or_else(|| auth::refuse_unauthorized(state.auth.as_deref(), &req));
    let mut response = match refused {
        Some(refused) => refused,
        None => next.run(req).instrument(span.clone()).await,
    };
    observation.answered(&response);
    if let Some((method, path)) = logged {
        let _entered = span.enter();
        tracing::debug!(%method, path, status = response.status().as_u16(), "answered");
    }
    response.headers_mut().insert(REQUEST_ID, id);
    // HTTP/2 has no such header: its connections get GOAWAY when the drain ends.
    if http1 && state.draining.load(Ordering::Relaxed) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}
