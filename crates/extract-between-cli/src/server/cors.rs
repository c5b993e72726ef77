//! CORS, as tower-http's `CorsLayer` does it: preflights answered before authentication (a
//! preflight carries no token), answers marked readable. For the HTTP routes, the origins
//! `--cors-origin` names (off by default); for `/mcp`, the origins its own Origin check admits
//! (loopback ones and `--allow-origin`'s), with the headers an MCP client sends after
//! `initialize` allowed and the session id readable, so a page can run a whole session.

use super::origin::origin_value_allowed;
use super::origin_name::listed;
use axum::http::{HeaderName, Method, header};
use std::time::Duration;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// How long a browser may keep a preflight's answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The layer of the HTTP routes for `origins` (normalised; `*`: any), `None` when there are
/// none.
pub(super) fn layer(origins: &[String]) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    let allowed = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        let origins = origins.to_vec();
        AllowOrigin::predicate(move |origin, _| origin.to_str().is_ok_and(|o| listed(o, &origins)))
    };
    Some(
        CorsLayer::new()
            .allow_origin(allowed)
            .allow_methods([Method::GET, Method::POST, Method::PUT])
            .allow_headers([header::CONTENT_TYPE, header::AUTHORIZATION, REQUEST_ID])
            .expose_headers([REQUEST_ID, header::RETRY_AFTER])
            .max_age(PREFLIGHT_MAX_AGE),
    )
}

/// The layer of `/mcp`: the origins [`origin_value_allowed`] admits with `allowed`
/// (`--allow-origin`), the MCP headers of the Streamable HTTP transport.
pub(super) fn mcp_layer(allowed: &[String]) -> CorsLayer {
    let allowed = allowed.to_vec();
    let session = HeaderName::from_static("mcp-session-id");
    let protocol = HeaderName::from_static("mcp-protocol-version");
    CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(move |origin, _| {
            origin_value_allowed(origin, &allowed)
        }))
        .allow_methods([Method::GET, Method::POST, Method::DELETE])
        .allow_headers([
            header::CONTENT_TYPE,
            header::AUTHORIZATION,
            header::ACCEPT,
            protocol.clone(),
            session.clone(),
            HeaderName::from_static("last-event-id"),
            HeaderName::from_static("mcp-method"),
            HeaderName::from_static("mcp-name"),
            REQUEST_ID,
        ])
        .expose_headers([
            session,
            protocol,
            REQUEST_ID,
            header::RETRY_AFTER,
            header::WWW_AUTHENTICATE,
        ])
        .max_age(PREFLIGHT_MAX_AGE)
}
