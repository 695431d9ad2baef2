//! One error format for REST, `{"code", "message"}`: the codes and their HTTP statuses
//! ([`ErrorCode`]), and the one table mapping service error kinds to them.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Json, Response};
use rearview_service::{ErrorKind, ServiceError};

/// The `code` of an error response. One list: each code has one HTTP status, and the OpenAPI
/// document publishes them from here ([`ErrorCode::ALL`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// 400: a field, a body or a query string that is not what the API takes.
    InvalidInput,
    /// 401: no valid API key where the server requires one.
    Unauthorized,
    /// 403: a namespace outside the key's grant, or an admin route without an admin key.
    Forbidden,
    /// 403: a `Host` or `Origin` the server does not serve (`--allowed-hosts`).
    HostNotAllowed,
    /// 404: no such memory, or no such route.
    NotFound,
    /// 405: the route exists, the method does not.
    MethodNotAllowed,
    /// 408: the request body stalled.
    RequestTimeout,
    /// 413: the request body is over `--max-request-bytes`.
    PayloadTooLarge,
    /// 422: a tool of `POST /mcp/tools/call` ran and failed.
    ToolError,
    /// 429: the key is over its request rate (`--rate-limit`); see `Retry-After`.
    RateLimited,
    /// 500: a fault of ours, logged.
    Internal,
    /// 503: something the request needs is not there (the store, the model, the LLM).
    Unavailable,
    /// 503: the server sheds load (`--max-in-flight`); see `Retry-After`.
    Overloaded,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: [ErrorCode; 13] = [
        ErrorCode::InvalidInput,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::HostNotAllowed,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::RequestTimeout,
        ErrorCode::PayloadTooLarge,
        ErrorCode::ToolError,
        ErrorCode::RateLimited,
        ErrorCode::Internal,
        ErrorCode::Unavailable,
        ErrorCode::Overloaded,
    ];

    /// The code as it is sent (`invalid_input`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::HostNotAllowed => "host_not_allowed",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::ToolError => "tool_error",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::Internal => "internal",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::Overloaded => "overloaded",
        }
    }

    /// Its HTTP status.
    pub fn status(self) -> StatusCode {
        match self {
            ErrorCode::InvalidInput => StatusCode::BAD_REQUEST,
            ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::Forbidden | ErrorCode::HostNotAllowed => StatusCode::FORBIDDEN,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::ToolError => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Unavailable | ErrorCode::Overloaded => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// An error response: `{"code": "...", "message": "..."}`.
#[derive(Debug)]
pub struct ApiError {
    code: ErrorCode,
    message: String,
}

impl ApiError {
    /// `code` (and its status) with our `{code, message}` body.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }

    /// A 500 for a fault of ours; logged.
    pub fn internal(message: impl Into<String>) -> Self {
        let message = message.into();
        tracing::error!(message, "request failed internally");
        Self::new(ErrorCode::Internal, message)
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.code.status()
    }

    /// A 400 for a request body or path that could not be parsed.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidInput, message)
    }

    /// A 413 for a request body over the configured limit.
    pub fn payload_too_large(max_bytes: usize) -> Self {
        Self::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "the request body exceeds {max_bytes} bytes; send less, or raise the limit with --max-request-bytes (REARVIEW_MAX_REQUEST_BYTES)"
            ),
        )
    }

    /// The body alone, for endpoints that add fields to it.
    pub fn body(&self) -> serde_json::Value {
        serde_json::json!({ "code": self.code.as_str(), "message": self.message })
    }
}

/// | kind | HTTP | code |
/// |---|---|---|
/// | `InvalidInput` | 400 | `invalid_input` |
/// | `NotFound` | 404 | `not_found` |
/// | `Forbidden` | 403 | `forbidden` |
/// | `Unavailable` | 503 | `unavailable` |
/// | `Internal` | 500 | `internal` (logged with its cause) |
impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        let code = match e.kind() {
            ErrorKind::InvalidInput => ErrorCode::InvalidInput,
            ErrorKind::NotFound => ErrorCode::NotFound,
            ErrorKind::Forbidden => ErrorCode::Forbidden,
            ErrorKind::Unavailable => ErrorCode::Unavailable,
            ErrorKind::Internal => {
                tracing::error!(error = ?e, "request failed internally");
                ErrorCode::Internal
            }
        };
        Self::new(code, e.to_string())
    }
}

impl From<rearview_core::InputError> for ApiError {
    fn from(e: rearview_core::InputError) -> Self {
        ServiceError::from(e).into()
    }
}

/// A body that is not the JSON we expect: 400 in our format, with axum's explanation (which
/// names the field and the problem).
impl From<axum::extract::rejection::JsonRejection> for ApiError {
    fn from(r: axum::extract::rejection::JsonRejection) -> Self {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return Self::new(
                ErrorCode::PayloadTooLarge,
                format!(
                    "{}; raise the limit with --max-request-bytes (REARVIEW_MAX_REQUEST_BYTES)",
                    r.body_text()
                ),
            );
        }
        Self::bad_request(format!("invalid request body: {}", r.body_text()))
    }
}

/// An answer that could not be rendered: ours, a 500 (logged).
impl From<rearview_api::RenderError> for ApiError {
    fn from(e: rearview_api::RenderError) -> Self {
        Self::internal(e.to_string())
    }
}

/// A query string that does not parse: 400 in our format.
impl From<axum::extract::rejection::QueryRejection> for ApiError {
    fn from(r: axum::extract::rejection::QueryRejection) -> Self {
        Self::bad_request(format!("invalid query string: {}", r.body_text()))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status(), Json(self.body())).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wire table, written out: each code's name and status. The match is exhaustive, so a
    /// new code does not compile until it is placed here, with the position it must have in
    /// [`ErrorCode::ALL`].
    fn wire(code: ErrorCode) -> (usize, &'static str, u16) {
        match code {
            ErrorCode::InvalidInput => (0, "invalid_input", 400),
            ErrorCode::Unauthorized => (1, "unauthorized", 401),
            ErrorCode::Forbidden => (2, "forbidden", 403),
            ErrorCode::HostNotAllowed => (3, "host_not_allowed", 403),
            ErrorCode::NotFound => (4, "not_found", 404),
            ErrorCode::MethodNotAllowed => (5, "method_not_allowed", 405),
            ErrorCode::RequestTimeout => (6, "request_timeout", 408),
            ErrorCode::PayloadTooLarge => (7, "payload_too_large", 413),
            ErrorCode::ToolError => (8, "tool_error", 422),
            ErrorCode::RateLimited => (9, "rate_limited", 429),
            ErrorCode::Internal => (10, "internal", 500),
            ErrorCode::Unavailable => (11, "unavailable", 503),
            ErrorCode::Overloaded => (12, "overloaded", 503),
        }
    }

    #[test]
    fn every_code_is_listed_once_with_its_status() {
        for (i, code) in ErrorCode::ALL.into_iter().enumerate() {
            let (position, name, status) = wire(code);
            assert_eq!(position, i, "{name} out of place in ErrorCode::ALL");
            assert_eq!((code.as_str(), code.status().as_u16()), (name, status));
        }
        // The last position of the table is the last of the list: none left out.
        assert_eq!(wire(ErrorCode::Overloaded).0 + 1, ErrorCode::ALL.len());
    }
}
