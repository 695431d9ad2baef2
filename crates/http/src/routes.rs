//! REST routes, one file per resource; shared request helpers here.

pub mod memories;
pub mod recall;

use axum::http::HeaderMap;
use rearview_core::{InputError, MemoryType, Namespace, Timestamp};

use crate::{ApiError, AppState};

/// The request's namespace: the `X-Rearview-Namespace` header, else the server's default.
pub(crate) fn namespace(headers: &HeaderMap, state: &AppState) -> Result<Namespace, ApiError> {
    match headers.get("x-rearview-namespace") {
        None => Ok(state.default_namespace.clone()),
        Some(v) => {
            let text = v.to_str().map_err(|_| {
                ApiError::from(InputError::new("X-Rearview-Namespace", "must be valid text"))
            })?;
            Ok(text.parse()?)
        }
    }
}

pub(crate) fn parse_tier(name: Option<&str>) -> Result<Option<MemoryType>, ApiError> {
    Ok(name.map(str::parse).transpose()?)
}

pub(crate) fn parse_time(field: &'static str, text: &str) -> Result<Timestamp, InputError> {
    chrono::DateTime::parse_from_rfc3339(text).map(|t| t.with_timezone(&chrono::Utc)).map_err(
        |_| {
            InputError::new(
                field,
                format!("{text:?} is not an RFC 3339 time such as 2023-05-08T13:56:00Z"),
            )
        },
    )
}
