//! The router: which handler answers which route, the small handlers (card, tool list,
//! OpenAPI, probes), and the JSON answers every handler shares.

use super::error::{ApiError, ErrorCode, json_response};
use super::playground;
use super::state::AppState;
use super::urls::{
    EXECUTE_PATH, HEALTHZ, LIVEZ, MCP_PATH, METRICS_PATH, OPENAPI_PATH, PLAYGROUND, READYZ,
    STREAM_PATH, TOOL_PATH, TOOLS_PATH,
};
use super::{edge, execute, mcp_route, upload};
use crate::tool_card::CARD;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use extract_between::card::{CARD_JSON, TOOL_ID, TOOL_VERSION};
use std::sync::atomic::Ordering;

/// The routes, behind [`edge::edge`] (request id, metrics, authentication, framing). The
/// probes sit outside every admission limit and need no token, so they answer while each
/// tool slot is taken.
pub(super) fn router(state: AppState) -> Router {
    let cors = super::cors::layer(&state.config.cors_origin);
    let edge = axum::middleware::from_fn_with_state(state.clone(), edge::edge);
    let routes = Router::new()
        .route(EXECUTE_PATH, post(execute::execute))
        .route(
            STREAM_PATH,
            post(upload::stream_upload).put(upload::stream_upload),
        )
        .route(TOOL_PATH, get(card))
        .route(TOOLS_PATH, get(tools))
        .route(OPENAPI_PATH, get(openapi_json))
        .route(METRICS_PATH, get(metrics_text))
        .route(LIVEZ, get(livez))
        .route(HEALTHZ, get(livez))
        .route(READYZ, get(readyz))
        .route("/", get(playground::root))
        .route(PLAYGROUND, get(playground::redirect))
        .route("/playground/", get(playground::index))
        .route("/playground/{*file}", get(playground::asset))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state.clone())
        .layer(edge.clone());
    // Outermost: a preflight is answered before the edge asks for a token, and every answer,
    // an error too, is readable to the page that asked.
    let routes = match cors {
        Some(cors) => routes.layer(cors),
        None => routes,
    };
    // `/mcp` has CORS of its own: the origins its Origin check admits, the MCP headers.
    let mcp = Router::new()
        .route(MCP_PATH, post(mcp_route::post))
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state.clone())
        .layer(edge)
        .layer(super::cors::mcp_layer(&state.config.allow_origin));
    routes.merge(mcp)
}

async fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound, "no such route; see GET /openapi.json")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
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
        ApiError::new(ErrorCode::ShuttingDown, "the service is shutting down").into_response()
    }
}

async fn card() -> Response {
    json_response(StatusCode::OK, CARD_JSON.into())
}

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

/// What `--metrics-listen` serves: `GET /metrics` alone, no token, every other path 404.
pub(super) fn metrics_router(state: AppState) -> Router {
    Router::new()
        .route(METRICS_PATH, get(metrics_text))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
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
