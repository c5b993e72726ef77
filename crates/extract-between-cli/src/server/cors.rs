//! CORS for the browser pages of the origins `--cors-origin` names, as tower-http's
//! `CorsLayer` does it: preflights answered before authentication (a preflight carries no
//! token), answers marked readable. Off by default.

use axum::http::{HeaderName, Method, header};
use std::time::Duration;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// How long a browser may keep a preflight's answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// The layer for `origins` (`*`: any), `None` when there are none.
pub(super) fn layer(origins: &[String]) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    let allowed = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        // Each was checked to be a header value when the flag was read.
        AllowOrigin::list(origins.iter().filter_map(|o| o.parse().ok()))
    };
    let request_id = HeaderName::from_static("x-request-id");
    Some(
        CorsLayer::new()
            .allow_origin(allowed)
            .allow_methods([Method::GET, Method::POST, Method::PUT])
            .allow_headers([
                header::CONTENT_TYPE,
                header::AUTHORIZATION,
                request_id.clone(),
            ])
            .expose_headers([request_id, header::RETRY_AFTER])
            .max_age(PREFLIGHT_MAX_AGE),
    )
}
