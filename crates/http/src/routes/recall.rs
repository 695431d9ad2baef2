//! `/v1/recall`, `/v1/cleanup`, `/v1/stats` and `/v1/timeline`.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::Uri;
use rearview_api::{
    CleanedAnswer, NamespaceParams, RecallParams, RecallView, StatsAnswer, TimelineAnswer, render,
};

use crate::routes::{Answer, Tenant, query};
use crate::{ApiError, AppState};

/// `POST /v1/recall` → ranked memories with scores. The body is [`RecallParams`], the same
/// type MCP's `retrieve_memory` takes; its `namespace` field overrides the header.
pub async fn recall(
    State(state): State<AppState>,
    tenant: Tenant,
    body: Result<Json<RecallParams>, JsonRejection>,
) -> Answer {
    let Json(mut body) = body.map_err(ApiError::from)?;
    let ns = tenant.namespace(body.namespace.take().as_deref(), &state)?;
    let request = body.into_request()?;
    let response = state.service.recall(&ns, request).await?;
    Ok(Json(render(&RecallView::from(&response))?))
}

/// `POST /v1/cleanup` `{"namespace"?}` → `{"cleaned": n, "namespace"}`: deletes the namespace's
/// expired memories (the body's `namespace`, else the `X-Rearview-Namespace` header's, else the
/// default). The body may be empty; when present it is [`NamespaceParams`], as
/// `cleanup_expired` takes.
pub async fn cleanup(
    State(state): State<AppState>,
    tenant: Tenant,
    body: axum::body::Bytes,
) -> Answer {
    let params: NamespaceParams = if body.iter().all(u8::is_ascii_whitespace) {
        NamespaceParams::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::bad_request(format!("invalid request body: {e}")))?
    };
    let ns = tenant.namespace(params.namespace.as_deref(), &state)?;
    let cleaned = state.service.cleanup_expired(Some(&ns)).await?;
    Ok(Json(render(&CleanedAnswer::new(cleaned, &ns))?))
}

/// `GET /v1/stats`: the namespaces the key may see; the database location for admins only;
/// `granted`, for a key limited to some namespaces, names them (also those still empty).
pub async fn stats(State(state): State<AppState>, tenant: Tenant) -> Answer {
    let stats = state.service.stats_for(&tenant.caller).await?;
    // `granted`: the namespaces a limited key may use, so a client (the console) can offer
    // exactly them.
    Ok(Json(render(&StatsAnswer::new(&stats, Some(&tenant.caller)))?))
}

/// Query of `GET /v1/timeline`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimelineQuery {
    /// Days back, today included: 1 to 366; default 30.
    #[schemars(range(min = 1, max = 366))]
    days: Option<u32>,
}

/// `GET /v1/timeline?days=30` → `{"days": n, "tiers": [{"day", "working", "episodic",
/// "semantic"}], "recall_latency": [{"minute", "count", "p50_ms", "p99_ms"}]}`: the namespace's
/// memories per day of their event time and tier (days without any left out), and this server's
/// recall latency per minute over the last hour (all namespaces, like `/metrics`: empty unless
/// the key is an admin key).
pub async fn timeline(State(state): State<AppState>, tenant: Tenant, uri: Uri) -> Answer {
    let q: TimelineQuery = query(&uri)?;
    let ns = tenant.namespace(None, &state)?;
    let days = q.days.unwrap_or(30);
    let counts = state.service.daily_counts(&ns, days).await?;
    // Latency sums over every tenant, like `/metrics`: admin keys only.
    let latency = if tenant.caller.is_admin() {
        rearview_telemetry::metrics::recall_latency(state.service.now())
    } else {
        Vec::new()
    };
    Ok(Json(render(&TimelineAnswer::new(&ns, days, &counts, &latency))?))
}
