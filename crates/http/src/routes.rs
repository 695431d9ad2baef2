//! REST routes, one file per resource; shared request helpers here.

pub mod lifecycle;
pub mod memories;
pub mod recall;

use axum::http::HeaderMap;
use rearview_core::{InputError, MemoryType, Namespace};

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

/// The namespace a request body names, else the header's or the server's default.
pub(crate) fn namespace_or(
    name: Option<&str>,
    headers: &HeaderMap,
    state: &AppState,
) -> Result<Namespace, ApiError> {
    match name {
        Some(name) => Ok(name.parse()?),
        None => namespace(headers, state),
    }
}

pub(crate) fn parse_tier(name: Option<&str>) -> Result<Option<MemoryType>, ApiError> {
    Ok(name.map(str::parse).transpose()?)
}
