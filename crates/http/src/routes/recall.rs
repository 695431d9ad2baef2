//! `/v1/recall` and `/v1/stats`.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::HeaderMap;
use rearview_api::RecallView;
use rearview_core::MemoryFilter;
use rearview_search::TierOrder;
use rearview_service::RecallRequest;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::routes::{namespace, parse_tier};
use crate::{ApiError, AppState};

/// Body of `POST /v1/recall`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallBody {
    /// What to look for, in any language.
    query: String,
    /// How many memories to return, 1 to 100; default 5.
    top_k: Option<usize>,
    /// Tier: `working`, `episodic` (default when storing) or `semantic`.
    memory_type: Option<String>,
    /// Conversation id.
    session_id: Option<String>,
    /// Only memories carrying all of these tags.
    tags: Option<Vec<String>>,
    /// Include archived memories; default false.
    include_archived: Option<bool>,
    /// Rank and expire as of this instant (RFC 3339), hiding later events.
    as_of: Option<String>,
    /// Semantic first, then episodic, then working; default false.
    tier_priority: Option<bool>,
    /// Include each score's derivation; default false.
    explain: Option<bool>,
    /// Query only these embedding models' vector spaces (ids as `/v1/stats` lists them);
    /// default all, their similarities averaged.
    models: Option<Vec<String>>,
}

/// `POST /v1/recall` → ranked memories with scores.
pub async fn recall(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Json<RecallBody>, JsonRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let Json(body) = body.map_err(ApiError::from)?;
    let ns = namespace(&headers, &state)?;
    let request = RecallRequest {
        top_k: body.top_k.unwrap_or(5),
        filter: MemoryFilter {
            memory_types: parse_tier(body.memory_type.as_deref())?.into_iter().collect(),
            session_id: body.session_id,
            tags: body.tags.unwrap_or_default(),
            include_archived: body.include_archived.unwrap_or(false),
            ..MemoryFilter::default()
        },
        as_of: body
            .as_of
            .as_deref()
            .map(|t| rearview_core::parse_timestamp("as_of", t))
            .transpose()?,
        tier_order: if body.tier_priority.unwrap_or(false) {
            TierOrder::SemanticFirst
        } else {
            TierOrder::ByScore
        },
        explain: body.explain.unwrap_or(false),
        models: body.models,
        ..RecallRequest::new(body.query)
    };
    let response = state.service.recall(&ns, request).await?;
    Ok(Json(serde_json::to_value(RecallView::from(&response)).unwrap_or_default()))
}

/// `GET /v1/stats`.
pub async fn stats(State(state): State<AppState>) -> Result<Json<serde_json::Value>, ApiError> {
    Ok(Json(rearview_api::stats(&state.service.stats().await?)))
}
