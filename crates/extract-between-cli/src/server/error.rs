//! The service's refusals as one type: [`ApiError`] has its status, its code, its message
//! and the field it concerns, and renders as the JSON envelope every route answers with, or
//! (on `/mcp`) as a JSON-RPC error with the same words.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use extract_between::request::error_body;
use std::borrow::Cow;

/// The `code` of the error envelope, for what the service itself refuses (the card's
/// contract answers its own codes through [`extract_between::request`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ErrorCode {
    InvalidInput,
    PayloadTooLarge,
    RequestTimeout,
    Overloaded,
    Unauthorized,
    NotFound,
    MethodNotAllowed,
    ShuttingDown,
    UnsupportedEncoding,
    UnsupportedTransferCoding,
    UriTooLong,
    HeadersTooLarge,
    DuplicateHeader,
}

impl ErrorCode {
    /// The code as the envelope spells it.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::Overloaded => "overloaded",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::ShuttingDown => "shutting_down",
            ErrorCode::UnsupportedEncoding => "unsupported_encoding",
            ErrorCode::UnsupportedTransferCoding => "unsupported_transfer_coding",
            ErrorCode::UriTooLong => "uri_too_long",
            ErrorCode::HeadersTooLarge => "headers_too_large",
            ErrorCode::DuplicateHeader => "duplicate_header",
        }
    }

    /// The HTTP status that goes with the code.
    pub(super) fn status(self) -> StatusCode {
        match self {
            ErrorCode::InvalidInput | ErrorCode::DuplicateHeader => StatusCode::BAD_REQUEST,
            ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ErrorCode::Overloaded | ErrorCode::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::UnsupportedEncoding => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::UnsupportedTransferCoding => StatusCode::NOT_IMPLEMENTED,
            ErrorCode::UriTooLong => StatusCode::URI_TOO_LONG,
            ErrorCode::HeadersTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        }
    }
}

/// A refusal: the envelope `{"error":{"code","message"[,"field"]}}` with its status.
#[derive(Debug)]
pub(super) struct ApiError {
    pub(super) code: ErrorCode,
    pub(super) message: Cow<'static, str>,
    /// The request field, header or query parameter it concerns.
    pub(super) field: Option<Cow<'static, str>>,
}

impl ApiError {
    pub(super) fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            field: None,
        }
    }

    /// The same refusal, naming the field it concerns.
    pub(super) fn field(mut self, field: impl Into<Cow<'static, str>>) -> ApiError {
        self.field = Some(field.into());
        self
    }

    pub(super) fn status(&self) -> StatusCode {
        self.code.status()
    }

    /// The envelope's JSON text.
    pub(super) fn body(&self) -> String {
        error_body(self.code.as_str(), &self.message, self.field.as_deref())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        json_response(self.status(), self.body())
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_envelope_with_its_status() {
        let e = ApiError::new(ErrorCode::InvalidInput, "start must not be empty").field("start");
        assert_eq!(e.status(), StatusCode::BAD_REQUEST);
        let body: serde_json::Value = serde_json::from_str(&e.body()).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"error": {"code": "invalid_input",
                "message": "start must not be empty", "field": "start"}})
        );
    }
}
