//! Refusals of what a request's framing and encoding ask for, with the error envelope:
//! transfer codings other than `chunked` (501), compressed bodies (415), request targets and
//! header sections over this service's limits (414, 431).
//!
//! The limits here sit below hyper's own (a 65534-byte target, a 400 KiB head, 200 header
//! fields), so that an oversized request meets them here and gets the envelope. What hyper
//! refuses before any of this runs — a request it cannot parse (400), or past its own limits
//! (414, 431) — it answers itself, with an empty body: hyper offers no hook to shape those.

use super::error::{ApiError, ErrorCode};
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Request, header};
use axum::response::{IntoResponse, Response};

/// The longest request target accepted: two 4096-byte markers, each character
/// percent-encoded, fit with room to spare.
pub(super) const MAX_TARGET_BYTES: usize = 32 * 1024;
/// The most header fields accepted.
pub(super) const MAX_HEADER_FIELDS: usize = 100;
/// The largest header section accepted (names and values).
pub(super) const MAX_HEADER_BYTES: usize = 16 * 1024;

/// The refusal of what no route can serve, before any handler reads the body.
pub(super) fn refuse_framing(req: &Request<Body>) -> Option<Response> {
    let target = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if target > MAX_TARGET_BYTES {
        return Some(closing(ApiError::new(
            ErrorCode::UriTooLong,
            format!(
                "the request target is {target} bytes; at most {MAX_TARGET_BYTES} are accepted"
            ),
        )));
    }
    let headers = req.headers();
    let size: usize = headers
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len())
        .sum();
    if headers.len() > MAX_HEADER_FIELDS || size > MAX_HEADER_BYTES {
        return Some(closing(ApiError::new(
            ErrorCode::HeadersTooLarge,
            format!(
                "{} header fields of {size} bytes; at most {MAX_HEADER_FIELDS} fields of {MAX_HEADER_BYTES} bytes are accepted",
                headers.len()
            ),
        )));
    }
    // A proxy and this service could each take a different one as the caller or the host
    // (nginx refuses a second Authorization too).
    for name in [header::AUTHORIZATION, header::HOST] {
        if headers.get_all(&name).iter().nth(1).is_some() {
            return Some(closing(
                ApiError::new(
                    ErrorCode::DuplicateHeader,
                    format!("the request has more than one {name} header: send one"),
                )
                .field(name.as_str().to_owned()),
            ));
        }
    }
    if let Some(coding) = unsupported_transfer_coding(headers) {
        return Some(closing(ApiError::new(
            ErrorCode::UnsupportedTransferCoding,
            format!(
                "Transfer-Encoding {coding:?} is not supported: send the body with Content-Length or Transfer-Encoding: chunked alone"
            ),
        )));
    }
    None
}

/// The first transfer coding that is not `chunked`. hyper frames a body whose last coding is
/// `chunked` and ignores the others; reading `gzip, chunked` as plain text would scan
/// compressed bytes.
fn unsupported_transfer_coding(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::TRANSFER_ENCODING)
        .iter()
        .find_map(|v| {
            String::from_utf8_lossy(v.as_bytes())
                .split(',')
                .map(str::trim)
                .find(|c| !c.eq_ignore_ascii_case("chunked"))
                .map(str::to_owned)
        })
}

/// The answer, and the connection closed after it: the body was not read, so what follows
/// on the connection is not a request.
fn closing(refused: ApiError) -> Response {
    let mut response = refused.into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A compressed body is refused by name (415) rather than scanned as if it were text, where
/// its first byte would be "invalid UTF-8" with no hint why.
pub(super) fn unsupported_encoding(headers: &HeaderMap) -> Option<ApiError> {
    let encoding = headers.get(header::CONTENT_ENCODING)?;
    let name = String::from_utf8_lossy(encoding.as_bytes());
    if name.trim().eq_ignore_ascii_case("identity") {
        return None;
    }
    Some(ApiError::new(
        ErrorCode::UnsupportedEncoding,
        format!(
            "Content-Encoding {:?} is not supported: send the body uncompressed",
            name.trim()
        ),
    ))
}
