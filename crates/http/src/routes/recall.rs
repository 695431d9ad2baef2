//! `/v1/recall`, `/v1/cleanup` and `/v1/stats`.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use rearview_api::{RecallParams, RecallView};

use crate::routes::Tenant;
use crate::{ApiError, AppState};

/// `POST /v1/recall` → ranked memories with scores. The body is [`RecallParams`], the same
/// type MCP's `retrieve_memory` takes; its `namespace` field overrides the header.
pub async fn recall(
    State(state): State<AppState>,
    tenant: Tenant,
    body: Result<Json<RecallParams>, JsonRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let Json(mut body) = body.map_err(ApiError::from)?;
    let ns = tenant.namespace(body.namespace.take().as_deref(), &state)?;
    let request = body.into_request()?;
    let response = state.service.recall(&ns, request).await?;
    Ok(Json(serde_json::to_value(RecallView::from(&response)).unwrap_or_default()))
}

/// `POST /v1/cleanup` → `{"cleaned": n}`: deletes the namespace's expired memories (the
/// `X-Rearview-Namespace` header's, or the default). Takes no body.
pub async fn cleanup(
    State(state): State<AppState>,
    tenant: Tenant,
) -> Result<Json<serde_json::Value>, ApiError> {
    let ns = tenant.namespace(None, &state)?;
    let cleaned = state.service.cleanup_expired(Some(&ns)).await?;
    Ok(Json(serde_json::json!({ "cleaned": cleaned, "namespace": ns.as_str() })))
}

/// `GET /v1/stats`: the namespaces the key may see; the database location for admins only.
pub async fn stats(
    State(state): State<AppState>,
    tenant: Tenant,
) -> Result<Json<serde_json::Value>, ApiError> {
    Ok(Json(rearview_api::stats(&state.service.stats_for(&tenant.caller).await?)))
}
