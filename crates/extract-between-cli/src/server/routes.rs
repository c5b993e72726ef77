//! The router: which handler answers which route, the small handlers (card, tool list,
//! OpenAPI, probes), and the JSON answers every handler shares.

use super::admission::AppState;
use super::{EXECUTE_PATH, STREAM_PATH, TOOL_PATH, edge, execute, mcp, upload};
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use extract_between::card::{CARD_JSON, TOOL_ID, TOOL_VERSION};
use extract_between::request::error_body;
use std::sync::LazyLock;
use std::sync::atomic::Ordering;

pub(super) const READYZ: &str = "/readyz";
/// The probes: no token needed, no slot taken.
pub(super) const PROBES: [&str; 3] = ["/livez", "/healthz", READYZ];
/// Every route template, as the metrics label them.
pub(super) const MCP_PATH: &str = "/mcp";
pub(super) const ROUTES: [&str; 10] = [
    EXECUTE_PATH,
    STREAM_PATH,
    TOOL_PATH,
    "/v1/tools",
    "/openapi.json",
    "/metrics",
    MCP_PATH,
    PROBES[0],
    PROBES[1],
    READYZ,
];

/// The routes, behind [`edge::edge`] (request id, metrics, authentication, framing). The
/// probes sit outside every admission limit and need no token, so they answer while each
/// tool slot is taken.
pub(super) fn router(state: AppState) -> Router {
    Router::new()
        .route(EXECUTE_PATH, post(execute::execute))
        .route(
            STREAM_PATH,
            post(upload::stream_upload).put(upload::stream_upload),
        )
        .route(TOOL_PATH, get(card))
        .route("/v1/tools", get(tools))
        .route("/openapi.json", get(openapi_json))
        .route("/metrics", get(metrics_text))
        .route(MCP_PATH, post(mcp::post))
        .route(PROBES[0], get(livez))
        .route(PROBES[1], get(livez))
        .route(READYZ, get(readyz))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state.clone())
        .layer(axum::middleware::from_fn_with_state(state, edge::edge))
}

/// A JSON answer with its status.
pub(super) fn json_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// The error envelope with `code` and `message` as a JSON answer.
pub(super) fn error_response(status: StatusCode, code: &str, message: &str) -> Response {
    json_response(status, error_body(code, message, None))
}

async fn not_found() -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        "not_found",
        "no such route; see GET /openapi.json",
    )
}

async fn method_not_allowed() -> Response {
    error_response(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "method not allowed on this route",
    )
}

/// `/livez` and its alias `/healthz`: the process runs and its runtime answers.
async fn livez() -> Response {
    json_response(StatusCode::OK, r#"{"status":"ok"}"#.into())
}

/// `/readyz`: 200 while the service takes traffic, 503 from the moment shutdown begins, so
/// load balancers stop sending before connections close.
async fn readyz(State(state): State<AppState>) -> Response {
    if !state.draining.load(Ordering::Relaxed) {
        json_response(StatusCode::OK, r#"{"status":"ready"}"#.into())
    } else {
        error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "shutting_down",
            "the service is shutting down",
        )
    }
}

async fn card() -> Response {
    json_response(StatusCode::OK, CARD_JSON.into())
}

/// The shipped card, parsed once for the documents built from it.
pub(super) static CARD: LazyLock<serde_json::Value> =
    LazyLock::new(|| serde_json::from_str(CARD_JSON).unwrap_or_default());

async fn tools() -> Response {
    let card = &*CARD;
    let list = serde_json::json!({
        "tools": [{
            "id": TOOL_ID,
            "version": TOOL_VERSION,
            "description": card["description"],
            "card_url": TOOL_PATH,
            "execute_url": card["execute_url"],
            "stream_url": STREAM_PATH,
        }]
    });
    json_response(StatusCode::OK, list.to_string())
}

async fn openapi_json(State(state): State<AppState>) -> Response {
    json_response(StatusCode::OK, state.openapi.to_string())
}

/// `/metrics`: OpenMetrics text, which is what prometheus-client writes (`# EOF`, counters
/// named without `_total`); labelled as Prometheus' older text format, every counter would
/// be read as untyped.
async fn metrics_text(State(state): State<AppState>) -> Response {
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(super::metrics::CONTENT_TYPE),
        )],
        state.metrics.render(),
    )
        .into_response()
}
