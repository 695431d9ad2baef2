//! One error format for REST, `{"code", "message"}`, and the one table mapping service error
//! kinds to HTTP status codes.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Json, Response};
use rearview_service::{ErrorKind, ServiceError};

/// An error response: `{"code": "...", "message": "..."}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    /// Any status with our `{code, message}` body.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self { status, code, message: message.into() }
    }

    /// A 500 for a fault of ours; logged.
    pub fn internal(message: impl Into<String>) -> Self {
        let message = message.into();
        tracing::error!(message, "request failed internally");
        Self { status: StatusCode::INTERNAL_SERVER_ERROR, code: "internal", message }
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// A 400 for a request body or path that could not be parsed.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self { status: StatusCode::BAD_REQUEST, code: "invalid_input", message: message.into() }
    }

    /// A 413 for a request body over the configured limit.
    pub fn payload_too_large(max_bytes: usize) -> Self {
        Self {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            code: "payload_too_large",
            message: format!(
                "the request body exceeds {max_bytes} bytes; send less, or raise the limit with --max-request-bytes (REARVIEW_MAX_REQUEST_BYTES)"
            ),
        }
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
        let (status, code) = match e.kind() {
            ErrorKind::InvalidInput => (StatusCode::BAD_REQUEST, "invalid_input"),
            ErrorKind::NotFound => (StatusCode::NOT_FOUND, "not_found"),
            ErrorKind::Forbidden => (StatusCode::FORBIDDEN, "forbidden"),
            ErrorKind::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            ErrorKind::Internal => {
                tracing::error!(error = ?e, "request failed internally");
                (StatusCode::INTERNAL_SERVER_ERROR, "internal")
            }
        };
        Self { status, code, message: e.to_string() }
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
            return Self {
                status: StatusCode::PAYLOAD_TOO_LARGE,
                code: "payload_too_large",
                message: format!(
                    "{}; raise the limit with --max-request-bytes (REARVIEW_MAX_REQUEST_BYTES)",
                    r.body_text()
                ),
            };
        }
        Self::bad_request(format!("invalid request body: {}", r.body_text()))
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
        (self.status, Json(serde_json::json!({ "code": self.code, "message": self.message })))
            .into_response()
    }
}
