//! What every request goes through before its handler, as one middleware (one boxed future
//! a request, where a layer per concern cost four): a request id in `x-request-id` and in
//! the span of every log line it causes, the metrics, the framing checks, the token check,
//! and, while draining, `Connection: close` on HTTP/1 answers so keep-alive clients move to
//! another instance.

use super::admission::AppState;
use super::{auth, protocol};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, Request, Version, header};
use axum::response::Response;
use extract_between::request;
use std::sync::atomic::Ordering;
use tracing::Instrument;

pub(super) async fn edge(
    State(state): State<AppState>,
    req: Request<Body>,
    next: axum::middleware::Next,
) -> Response {
    let id = state.request_ids.fetch_add(1, Ordering::Relaxed);
    let http1 = req.version() <= Version::HTTP_11;
    // Build the log fields only when they will be written: this runs on every request.
    let logged = tracing::enabled!(tracing::Level::DEBUG)
        .then(|| (req.method().clone(), req.uri().path().to_owned()));
    let span = tracing::info_span!("request", id);
    let observation = state.metrics.observe(&req);
    let refused =
        protocol::refuse_framing(&req).or_else(|| auth::refuse_unauthorized(&state, &req));
    let mut response = match refused {
        Some(refused) => refused,
        None => next.run(req).instrument(span.clone()).await,
    };
    observation.answered(response.status());
    if let Some((method, path)) = logged {
        let _entered = span.enter();
        tracing::debug!(%method, path, status = response.status().as_u16(), "answered");
    }
    let mut digits = String::with_capacity(20);
    request::push_u64(&mut digits, id);
    if let Ok(v) = HeaderValue::from_str(&digits) {
        response.headers_mut().insert("x-request-id", v);
    }
    // HTTP/2 has no such header: its connections get GOAWAY when the drain ends.
    if http1 && state.draining.load(Ordering::Relaxed) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}
