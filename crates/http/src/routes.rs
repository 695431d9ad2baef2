//! REST routes, one file per resource; shared request helpers here.

pub mod keys;
pub mod lifecycle;
pub mod links;
pub mod memories;
pub mod recall;

use std::sync::{Arc, OnceLock};

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use rearview_core::Namespace;
use rearview_service::Caller;

use crate::{ApiError, AppState};

/// Where a REST handler leaves the namespace it resolved, for the request's audit event.
#[derive(Debug, Clone, Default)]
pub(crate) struct AuditSlot(pub(crate) Arc<OnceLock<String>>);

/// Extractor: who is calling (put there by the auth middleware) and the `X-Rearview-Namespace`
/// header.
#[derive(Debug, Clone)]
pub struct Tenant {
    pub(crate) caller: Caller,
    header: Option<String>,
    slot: Option<AuditSlot>,
}

impl Tenant {
    /// The namespace of the request: `named` (the body's `namespace`), else the header, else the
    /// key's only namespace or the server's default; 403 outside the caller's grant.
    pub(crate) fn namespace(
        &self,
        named: Option<&str>,
        state: &AppState,
    ) -> Result<Namespace, ApiError> {
        let namespace =
            self.caller.resolve(named, self.header.as_deref(), &state.default_namespace)?;
        if let Some(slot) = &self.slot {
            let _ = slot.0.set(namespace.as_str().to_owned());
        }
        Ok(namespace)
    }
}

impl Tenant {
    /// The same caller and header as a tool call's context (`/mcp/tools/call`).
    pub(crate) fn call(&self) -> rearview_mcp::Call {
        rearview_mcp::Call::new(self.caller.clone(), self.header.clone())
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Tenant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        // Fail closed: every route that reaches a handler went through authentication.
        let caller = parts.extensions.get::<Caller>().cloned().ok_or_else(|| {
            ApiError::internal("request reached a handler without authentication")
        })?;
        let header = match parts.headers.get("x-rearview-namespace") {
            None => None,
            Some(v) => Some(rearview_api::namespace_header(v.as_bytes())?),
        };
        Ok(Tenant { caller, header, slot: parts.extensions.get::<AuditSlot>().cloned() })
    }
}

/// What a JSON endpoint answers: the body rendered from the operation's answer type
/// (`rearview_api`), or an error.
pub(crate) type Answer = Result<axum::Json<serde_json::Value>, ApiError>;

/// The query string as `T` (`serde_html_form`: a repeated key is a list, `tags=a&tags=b`); a
/// 400 naming the field otherwise.
pub(crate) fn query<T: serde::de::DeserializeOwned>(uri: &axum::http::Uri) -> Result<T, ApiError> {
    let query = serde_html_form::Deserializer::from_bytes(uri.query().unwrap_or("").as_bytes());
    serde_path_to_error::deserialize(query).map_err(|e| {
        let path = e.path().to_string();
        let problem = e.into_inner();
        match path.as_str() {
            "." => ApiError::bad_request(format!("invalid query string: {problem}")),
            field => ApiError::bad_request(format!("invalid query parameter `{field}`: {problem}")),
        }
    })
}
