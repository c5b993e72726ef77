//! `/playground`: a static page where a person tries the tool in their browser, computed
//! there by the npm package on WebAssembly when the binary carries it (see `build.rs`), else
//! by the service's own execute URL; and `/`, an index of the service's pages. Their files
//! need no token, like the probes: they hold nothing but the page and the package.

use super::error::{ApiError, ErrorCode};
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};

include!(concat!(env!("OUT_DIR"), "/playground.rs"));

/// `/playground` → `/playground/`, so that the page's relative imports resolve under it.
pub(super) async fn redirect() -> Response {
    Redirect::permanent("/playground/").into_response()
}

/// The page.
pub(super) async fn index() -> Response {
    file(String::new())
}

/// `/`: what this service serves, linked.
pub(super) async fn root() -> Response {
    (
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static("default-src 'self'; style-src 'unsafe-inline'"),
            ),
        ],
        ROOT_PAGE,
    )
        .into_response()
}

/// The index page: each route a person or a client starts from.
const ROOT_PAGE: &str = concat!(
    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>extract-between</title>",
    "<link rel=\"icon\" href=\"/playground/favicon.svg\" type=\"image/svg+xml\">",
    "<style>body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:44rem;padding:0 1rem}</style></head><body>",
    "<h1>extract-between</h1><p>The tool card <code>text-extract-between</code> 1.0.0, served over HTTP and MCP.</p><ul>",
    "<li><a href=\"/playground/\">Playground</a>: try it in the browser</li>",
    "<li><a href=\"/v1/tools/text-extract-between/versions/1.0.0\">The card</a>; <code>POST /v1/tools/text-extract-between/versions/1.0.0/execute</code> runs it</li>",
    "<li><a href=\"/openapi.json\">OpenAPI document</a></li>",
    "<li><a href=\"/v1/tools\">Tool list</a></li>",
    "<li><code>POST /mcp</code>: MCP (Streamable HTTP)</li>",
    "<li>Probes: <a href=\"/livez\">/livez</a>, <a href=\"/readyz\">/readyz</a>; <a href=\"/metrics\">/metrics</a></li>",
    "<li><a href=\"https://github.com/extract-between/extract-between#readme\">Documentation</a></li>",
    "</ul></body></html>\n"
);

/// A file under `/playground/`.
pub(super) async fn asset(Path(name): Path<String>) -> Response {
    file(name)
}

fn file(name: String) -> Response {
    let Some((_, body)) = FILES.iter().find(|(n, _)| *n == name) else {
        let why = if name.starts_with("lib/") || name.starts_with("wasm/") {
            "this binary was built without the npm package (bash js/build.sh, then build it again): the playground computes through the execute URL"
        } else {
            "no such file in the playground"
        };
        return ApiError::new(ErrorCode::NotFound, why).into_response();
    };
    let kind = if name.is_empty() {
        "text/html; charset=utf-8"
    } else if name.ends_with(".svg") {
        "image/svg+xml"
    } else if name.ends_with(".wasm") {
        "application/wasm"
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
    fn embedded_files_are_the_page_its_icon_and_javascript_modules() {
        for (name, body) in super::FILES {
            assert!(
                name.is_empty()
                    || name.ends_with(".js")
                    || name.ends_with(".wasm")
                    || *name == "favicon.svg",
                "{name}"
            );
            assert!(!body.is_empty(), "{name} is empty");
        }
        assert!(super::FILES.iter().any(|(n, _)| n.is_empty()));
    }
}
