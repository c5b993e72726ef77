//! `/playground`: a static page where a person tries the tool in their browser, computed
//! there by the npm package on WebAssembly (no request reaches the tool's routes). Its files
//! are embedded at build time when the package was built (see `build.rs`); they need no
//! token, like the probes: the page holds nothing but the package.

use super::error::{ApiError, ErrorCode};
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};

include!(concat!(env!("OUT_DIR"), "/playground.rs"));

/// The page's route; its files are under it.
pub(super) const PLAYGROUND: &str = "/playground";

/// `/playground` → `/playground/`, so that the page's relative imports resolve under it.
pub(super) async fn redirect() -> Response {
    Redirect::permanent("/playground/").into_response()
}

/// The page.
pub(super) async fn index() -> Response {
    file(String::new())
}

/// A file under `/playground/`.
pub(super) async fn asset(Path(name): Path<String>) -> Response {
    file(name)
}

fn file(name: String) -> Response {
    if FILES.is_empty() {
        return ApiError::new(
            ErrorCode::NotFound,
            "this binary was built without the playground: run `bash js/build.sh`, then build it again",
        )
        .into_response();
    }
    let Some((_, body)) = FILES.iter().find(|(n, _)| *n == name) else {
        return ApiError::new(ErrorCode::NotFound, "no such file in the playground")
            .into_response();
    };
    let kind = if name.is_empty() {
        "text/html; charset=utf-8"
    } else {
        "text/javascript; charset=utf-8"
    };
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(kind)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
            // The page runs the package's WebAssembly and its own module, nothing from elsewhere.
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(
                    "default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'unsafe-inline'",
                ),
            ),
        ],
        *body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn embedded_files_are_the_page_and_javascript_modules() {
        for (name, body) in super::FILES {
            assert!(name.is_empty() || name.ends_with(".js"), "{name}");
            assert!(!body.is_empty(), "{name} is empty");
        }
    }
}
