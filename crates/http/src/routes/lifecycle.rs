//! The lifecycle endpoints: `/v1/archive`, `/v1/restore`, `/v1/sessions/end`, `/v1/summarize`,
//! `/v1/suggest-distillations`. Bodies are the same `rearview-api` types the MCP tools take; a
//! body's `namespace` overrides the `X-Rearview-Namespace` header.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use rearview_api::{
    EndSessionParams, IdsParams, MemoriesAnswer, SessionEndAnswer, SuggestParams,
    SuggestionsAnswer, SummarizeAnswer, SummarizeEpisodesParams, render,
};

use crate::routes::{Answer, Tenant};
use crate::{ApiError, AppState};

/// `POST /v1/archive` `{"ids": [...]}` → `{"memories": [...]}`, now archived.
pub async fn archive(
    State(state): State<AppState>,
    tenant: Tenant,
    body: Result<Json<IdsParams>, JsonRejection>,
) -> Answer {
    let Json(body) = body.map_err(ApiError::from)?;
    let ns = tenant.namespace(body.namespace.as_deref(), &state)?;
    let archived = state.service.archive(&ns, &body.ids()?).await?;
    Ok(Json(render(&MemoriesAnswer::from(archived.as_slice()))?))
}

/// `POST /v1/restore` `{"ids": [...]}` → `{"memories": [...]}`, back in recall.
pub async fn restore(
    State(state): State<AppState>,
    tenant: Tenant,
    body: Result<Json<IdsParams>, JsonRejection>,
) -> Answer {
    let Json(body) = body.map_err(ApiError::from)?;
    let ns = tenant.namespace(body.namespace.as_deref(), &state)?;
    let restored = state.service.restore(&ns, &body.ids()?).await?;
    Ok(Json(render(&MemoriesAnswer::from(restored.as_slice()))?))
}

/// `POST /v1/sessions/end` `{"session_id"}` → the episodes made from the session's working
/// memories.
pub async fn end_session(
    State(state): State<AppState>,
    tenant: Tenant,
    body: Result<Json<EndSessionParams>, JsonRejection>,
) -> Answer {
    let Json(body) = body.map_err(ApiError::from)?;
    let ns = tenant.namespace(body.namespace.as_deref(), &state)?;
    let end = state.service.end_session(&ns, &body.session_id).await?;
    Ok(Json(render(&SessionEndAnswer::from(&end))?))
}

/// `POST /v1/summarize` `{"episode_ids", "instruction"?, "originals"?, "dry_run"?}` → the new
/// semantic memory, the method that wrote it, and how many originals were archived or deleted;
/// with `dry_run`, only `{"preview": {...}}` and nothing written.
pub async fn summarize(
    State(state): State<AppState>,
    tenant: Tenant,
    body: Result<Json<SummarizeEpisodesParams>, JsonRejection>,
) -> Answer {
    let Json(body) = body.map_err(ApiError::from)?;
    let ns = tenant.namespace(body.namespace.as_deref(), &state)?;
    let summarized = rearview_api::summarize(&state.service, &ns, &body).await?;
    Ok(Json(render(&SummarizeAnswer::from(&summarized))?))
}

/// `POST /v1/suggest-distillations` `{"threshold"?, "min_size"?, "limit"?}` → groups of
/// similar episodes; writes nothing.
pub async fn suggest(
    State(state): State<AppState>,
    tenant: Tenant,
    body: Result<Json<SuggestParams>, JsonRejection>,
) -> Answer {
    let Json(body) = body.map_err(ApiError::from)?;
    let ns = tenant.namespace(body.namespace.as_deref(), &state)?;
    let (threshold, min_size, limit) = body.resolve()?;
    let groups = state.service.suggest_distillations(&ns, threshold, min_size, limit).await?;
    Ok(Json(render(&SuggestionsAnswer::from(groups.as_slice()))?))
}
