//! `/v1/memories`: store, list, get, correct, delete.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use rearview_api::{MAX_DOCUMENTED_TTL, MemoryView, StoreParams};
use rearview_core::{MemoryFilter, MemoryId};
use rearview_service::UpdateRequest;
use rearview_store::Page;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::routes::{Tenant, parse_tier};
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
    Ok((status, Json(rearview_api::stored_json(&stored))))
}

/// Query of `GET /v1/memories`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Tier: `working`, `episodic` (default when storing) or `semantic`.
    #[schemars(with = "Option<rearview_api::Tier>")]
    memory_type: Option<String>,
    /// Conversation id.
    session_id: Option<String>,
    /// Only memories carrying this tag.
    tag: Option<String>,
    /// Include archived memories; default false.
    include_archived: Option<bool>,
    /// Include history: memories a newer one superseded; default false.
    include_superseded: Option<bool>,
    /// Only memories whose event happened at or after this RFC 3339 time.
    occurred_after: Option<String>,
    /// Only memories whose event happened before this RFC 3339 time.
    occurred_before: Option<String>,
    /// Page size, 1 to 1000; default 20.
    limit: Option<u64>,
    /// Memories to skip; default 0.
    offset: Option<u64>,
}

/// `GET /v1/memories` → `{"memories": [...]}`, newest event first.
pub async fn list(
    State(state): State<AppState>,
    tenant: Tenant,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let Query(q) = query.map_err(ApiError::from)?;
    let ns = tenant.namespace(None, &state)?;
    let filter = MemoryFilter {
        memory_types: parse_tier(q.memory_type.as_deref())?.into_iter().collect(),
        session_id: q.session_id,
        tags: q.tag.into_iter().collect(),
        include_archived: q.include_archived.unwrap_or(false),
        include_superseded: q.include_superseded.unwrap_or(false),
        occurred_after: q
            .occurred_after
            .map(|t| rearview_core::parse_timestamp("occurred_after", &t))
            .transpose()?,
        occurred_before: q
            .occurred_before
            .map(|t| rearview_core::parse_timestamp("occurred_before", &t))
            .transpose()?,
    };
    let page = Page { offset: q.offset.unwrap_or(0), limit: q.limit.unwrap_or(20) };
    let memories = state.service.list(&ns, &filter, page).await?;
    let views: Vec<MemoryView<'_>> = memories.iter().map(MemoryView::from).collect();
    Ok(Json(serde_json::json!({ "memories": views })))
}

/// `GET /v1/memories/{id}`.
pub async fn get(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let ns = tenant.namespace(None, &state)?;
    let memory = state.service.get(&ns, id.parse::<MemoryId>()?).await?;
    Ok(Json(serde_json::json!({ "memory": MemoryView::from(&memory) })))
}

/// `GET /v1/memories/{id}/history` → `{"history": [...]}`: the earlier texts and statements
/// the memory replaced (by an update or a supersession), transitively, latest replaced first.
pub async fn history(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let ns = tenant.namespace(None, &state)?;
    let history = state.service.history(&ns, id.parse::<MemoryId>()?).await?;
    let views: Vec<MemoryView<'_>> = history.iter().map(MemoryView::from).collect();
    Ok(Json(serde_json::json!({ "history": views })))
}

/// Body of `PATCH /v1/memories/{id}`: at least one change, and no field null.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("minProperties" = 1))]
pub struct PatchBody {
    /// New text (re-indexed and re-embedded); the earlier text is kept as history.
    #[serde(default)]
    #[schemars(with = "String", length(min = 1))]
    content: Option<String>,
    /// A JSON object, e.g. {"source": "chat", "tags": ["work"]}.
    #[serde(default)]
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    metadata: Option<serde_json::Value>,
    /// Tier: `working`, `episodic` (default when storing) or `semantic`.
    #[serde(default)]
    #[schemars(with = "rearview_api::Tier")]
    memory_type: Option<String>,
    /// Seconds to live; 0 = never expires; absent = the tier default (on PATCH: counted from now).
    #[serde(default)]
    #[schemars(with = "i64", range(min = 0, max = MAX_DOCUMENTED_TTL))]
    ttl: Option<i64>,
}

/// `PATCH /v1/memories/{id}`: correct content, metadata, tier or TTL.
pub async fn patch(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: Result<Json<PatchBody>, JsonRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let Json(body) = body.map_err(ApiError::from)?;
    let ns = tenant.namespace(None, &state)?;
    let request = UpdateRequest {
        content: body.content,
        metadata: body.metadata,
        memory_type: parse_tier(body.memory_type.as_deref())?,
        ttl_secs: body.ttl,
    };
    let memory = state.service.update(&ns, id.parse::<MemoryId>()?, request).await?;
    Ok(Json(serde_json::json!({ "memory": MemoryView::from(&memory) })))
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
