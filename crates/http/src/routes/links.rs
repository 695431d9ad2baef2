//! Links between memories: `POST /v1/link` (confirm possible updates, link, dismiss),
//! `POST /v1/unlink`, and `GET /v1/possible-updates` (the review list). Bodies are the same
//! `rearview-api` types the MCP tools `link_memories` and `unlink_memory` take; a body's
//! `namespace` overrides the `X-Rearview-Namespace` header.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::Uri;
use rearview_api::{LinkParams, LinkedAnswer, MemoryAnswer, PendingAnswer, UnlinkParams, render};
use rearview_core::MemoryId;
use rearview_store::Page;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::routes::{Answer, Tenant, query};
use crate::{ApiError, AppState};

/// `POST /v1/link` `{"id", "supersedes"?, "dismiss"?, "reason"?}` → `{"memory", "superseded"}`.
pub async fn link(
    State(state): State<AppState>,
    tenant: Tenant,
    body: Result<Json<LinkParams>, JsonRejection>,
) -> Answer {
    let Json(mut body) = body.map_err(ApiError::from)?;
    let ns = tenant.namespace(body.namespace.take().as_deref(), &state)?;
    let linked = rearview_api::link(&state.service, &ns, body).await?;
    Ok(Json(render(&LinkedAnswer::from(&linked))?))
}

/// `POST /v1/unlink` `{"id"}` → `{"memory"}`, current again.
pub async fn unlink(
    State(state): State<AppState>,
    tenant: Tenant,
    body: Result<Json<UnlinkParams>, JsonRejection>,
) -> Answer {
    let Json(body) = body.map_err(ApiError::from)?;
    let ns = tenant.namespace(body.namespace.as_deref(), &state)?;
    let memory = state.service.unlink(&ns, body.id.parse::<MemoryId>()?).await?;
    Ok(Json(render(&MemoryAnswer::from(&memory))?))
}

/// Query of `GET /v1/possible-updates`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewQuery {
    /// Page size, 1 to 1000; default 20.
    #[schemars(range(min = 1, max = 1000))]
    limit: Option<u64>,
    /// Memories to skip; default 0.
    offset: Option<u64>,
}

/// `GET /v1/possible-updates` → `{"pending": [{"memory", "possible_updates": [...]}]}`: the
/// memories that list possible updates, the latest stored first.
pub async fn pending(State(state): State<AppState>, tenant: Tenant, uri: Uri) -> Answer {
    let q: ReviewQuery = query(&uri)?;
    let ns = tenant.namespace(None, &state)?;
    let page = Page { offset: q.offset.unwrap_or(0), limit: q.limit.unwrap_or(20) };
    let pending = state.service.pending_review(&ns, page).await?;
    Ok(Json(render(&PendingAnswer::from(pending.as_slice()))?))
}
