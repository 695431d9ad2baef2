//! `/v1/memories`: store, list, get, correct, delete.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use rearview_api::{
    HistoryAnswer, ListParams, MemoriesAnswer, MemoryAnswer, StoreParams, StoredAnswer,
    UpdateParams, render,
};
use rearview_core::MemoryId;

use crate::routes::{Answer, Tenant, query};
use crate::{ApiError, AppState};

/// `POST /v1/memories` → 201 with the stored memory (200 when merged). The body is
/// [`StoreParams`], the same type MCP's `store_memory` takes; its `namespace` field overrides
/// the header.
pub async fn store(
    State(state): State<AppState>,
    tenant: Tenant,
    body: Result<Json<StoreParams>, JsonRejection>,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let Json(mut body) = body.map_err(ApiError::from)?;
    let ns = tenant.namespace(body.namespace.take().as_deref(), &state)?;
    let stored = state.service.remember(&ns, body.into_request()?).await?;
    // 201 for a new memory, 200 when the text was merged into an existing one.
    let status = if stored.merged.is_some() { StatusCode::OK } else { StatusCode::CREATED };
    Ok((status, Json(render(&StoredAnswer::from(&stored))?)))
}

/// `GET /v1/memories?…` → `{"memories": [...]}`, newest event first. The query is
/// [`ListParams`], the same type MCP's `list_memories` takes (`tags` repeated for several).
pub async fn list(State(state): State<AppState>, tenant: Tenant, uri: Uri) -> Answer {
    let mut params: ListParams = query(&uri)?;
    let ns = tenant.namespace(params.namespace.take().as_deref(), &state)?;
    let (filter, page) = params.into_request()?;
    let memories = state.service.list(&ns, &filter, page).await?;
    Ok(Json(render(&MemoriesAnswer::from(memories.as_slice()))?))
}

/// `GET /v1/memories/{id}`.
pub async fn get(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> Answer {
    let ns = tenant.namespace(None, &state)?;
    let memory = state.service.get(&ns, id.parse::<MemoryId>()?).await?;
    Ok(Json(render(&MemoryAnswer::from(&memory))?))
}

/// `GET /v1/memories/{id}/history` → `{"history": [...]}`: the earlier texts and statements
/// the memory replaced (by an update or a supersession), transitively, latest replaced first.
pub async fn history(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> Answer {
    let ns = tenant.namespace(None, &state)?;
    let history = state.service.history(&ns, id.parse::<MemoryId>()?).await?;
    Ok(Json(render(&HistoryAnswer::from(history.as_slice()))?))
}

/// `PATCH /v1/memories/{id}`: correct content, metadata, tier or TTL. The body is
/// [`UpdateParams`]: the fields of MCP's `update_memory` but the id, which the path gives.
pub async fn patch(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: Result<Json<UpdateParams>, JsonRejection>,
) -> Answer {
    let Json(body) = body.map_err(ApiError::from)?;
    let ns = tenant.namespace(body.namespace.as_deref(), &state)?;
    let memory = state.service.update(&ns, id.parse::<MemoryId>()?, body.changes()?).await?;
    Ok(Json(render(&MemoryAnswer::from(&memory))?))
}

/// `DELETE /v1/memories/{id}` → 204.
pub async fn delete(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let ns = tenant.namespace(None, &state)?;
    state.service.forget(&ns, id.parse::<MemoryId>()?).await?;
    Ok(StatusCode::NO_CONTENT)
}
