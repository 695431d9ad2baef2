//! The JSON shapes rearview speaks on every transport, so a memory looks the same from
//! `rearview list --json`, an MCP tool result and (next) the REST API.
//!
//! This crate owns serialisation for external consumers; `core` types stay free of wire
//! concerns. Field names follow the design's record (§3.1): `memory_type`, `ttl` (seconds),
//! `timestamp`, `access_count`, … Times are RFC 3339 in UTC.

mod answers;
pub mod compat;
mod header;
mod lifecycle;
mod links;
mod params;
mod transfer;

pub use answers::{
    CleanedAnswer, DayView, DeletedAnswer, DistilledAnswer, EmbeddingView, HistoryAnswer,
    IndexesView, KeyView, KeysAnswer, LinkedAnswer, MemoriesAnswer, MemoryAnswer, MergedView,
    MinuteView, ModelVectorsView, ModelView, PendingAnswer, PendingView, PreviewView, RenderError,
    RevokedAnswer, SessionEndAnswer, StatsAnswer, StoreStatus, StoredAnswer, SuggestionView,
    SuggestionsAnswer, SummarizeAnswer, SupersededView, TierCountView, TimelineAnswer, render,
};
pub use header::{NAMESPACE_HEADER, namespace_header};
pub use lifecycle::{
    EndSessionParams, IdsParams, NamespaceParams, OriginalsParam, SuggestParams,
    SummarizeEpisodesParams, Summarized, memory_ids, summarize,
};
pub use links::{LinkParams, LinkView, PossibleUpdateView, UnlinkParams, link, possible_json};
pub use params::{
    ListParams, MAX_DOCUMENTED_TTL, RecallParams, StoreParams, Tier, UpdateMemoryParams,
    UpdateParams,
};
pub use transfer::{EXPORT_VERSION, ExportHeader, ExportedMemory, ExportedVector};

use rearview_core::{Memory, Timestamp};
use rearview_ranking::Explanation;
use rearview_service::{RecallResponse, ServiceStats, Shown, VectorSearch};
use schemars::JsonSchema;
use serde::Serialize;

/// A memory on the wire.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Memory")]
pub struct MemoryView<'a> {
    /// UUID.
    pub id: String,
    /// Tenant.
    pub namespace: &'a str,
    /// `working`, `episodic` or `semantic`.
    pub memory_type: &'static str,
    /// The text (for a long memory: the full original).
    pub content: &'a str,
    /// For a long memory: the summary recall shows and embeds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<&'a str>,
    /// Free-form JSON object.
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    pub metadata: &'a rearview_core::Metadata,
    /// Conversation.
    pub session_id: Option<&'a str>,
    /// Seconds to live; 0 = never.
    pub ttl: u64,
    /// Creation time.
    #[schemars(extend("format" = "date-time"))]
    pub timestamp: String,
    /// Event time.
    #[schemars(extend("format" = "date-time"))]
    pub occurred_at: String,
    /// Last change.
    #[schemars(extend("format" = "date-time"))]
    pub updated_at: String,
    /// Last recall that returned it.
    #[schemars(extend("format" = "date-time"))]
    pub last_accessed_at: Option<String>,
    /// When it expires, if ever: RFC 3339, except that an expiry past the year 9999 (a TTL of
    /// thousands of years) is written as ISO 8601 writes such years, `+33715-09-03T14:02:34Z`,
    /// so the schema names no `date-time` format here.
    pub expires_at: Option<String>,
    /// Recalls that returned it.
    pub access_count: u64,
    /// In the cold tier.
    pub archived: bool,
    /// Memories it was derived from.
    pub source_ids: Vec<String>,
    /// SHA-256 of the normalised content.
    pub content_hash: &'a str,
    /// The memory that replaced this one (a newer statement of the fact, or, for an earlier text
    /// kept by an update, the updated memory); null while it is current. Superseded memories are
    /// history: left out of recall and listings unless `include_superseded` is set.
    pub superseded_by: Option<String>,
    /// When its validity ended (it began at `occurred_at`); null while it is current.
    #[schemars(extend("format" = "date-time"))]
    pub invalid_at: Option<String>,
    /// Who linked it to `superseded_by` and why; absent while it is current (and for history
    /// made before links recorded it). Undone by `unlink_memory`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkView>,
    /// Older memories this one may change, found when it was stored and not linked: confirm one
    /// with `link_memories`, or dismiss it. Absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub possible_updates: Vec<PossibleUpdateView>,
}

impl<'a> From<&'a Memory> for MemoryView<'a> {
    fn from(m: &'a Memory) -> Self {
        Self {
            id: m.id.to_string(),
            namespace: m.namespace.as_str(),
            memory_type: m.memory_type.as_str(),
            content: &m.content,
            summary: m.summary.as_deref(),
            metadata: &m.metadata,
            session_id: m.session_id.as_deref(),
            ttl: m.ttl_secs,
            timestamp: time(m.timestamp),
            occurred_at: time(m.occurred_at),
            updated_at: time(m.updated_at),
            last_accessed_at: m.last_accessed_at.map(time),
            expires_at: m.expires_at.map(time),
            access_count: m.access_count,
            archived: m.archived,
            source_ids: m.source_ids.iter().map(ToString::to_string).collect(),
            content_hash: &m.content_hash,
            superseded_by: m.superseded_by.map(|id| id.to_string()),
            invalid_at: m.invalid_at.map(time),
            link: m.link.as_ref().map(LinkView::from),
            possible_updates: m.possible_updates.iter().map(PossibleUpdateView::from).collect(),
        }
    }
}

/// A recall result on the wire.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "RecallResult")]
pub struct RecallView<'a> {
    /// The instant ranking and expiry were evaluated at.
    #[schemars(extend("format" = "date-time"))]
    pub as_of: String,
    /// Whether vector search took part.
    pub vector_search: String,
    /// The keyword terms the query became.
    pub query_terms: &'a [String],
    /// Best first.
    pub hits: Vec<HitView<'a>>,
    /// Candidates left out for scoring under the relevance floor (`min_relevance`).
    pub below_floor: usize,
    /// With `max_tokens`: memories ranked among the hits that did not fit the budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_budget: Option<usize>,
    /// Milliseconds spent: `embed` (the query's embedding), `search` (everything else).
    pub took_ms: TookView,
}

/// Where a recall's time went, in milliseconds.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TookView {
    /// Embedding the query.
    pub embed: f64,
    /// Candidates, ranking and loading the memories.
    pub search: f64,
}

/// One recalled memory on the wire.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "RecallHit")]
pub struct HitView<'a> {
    /// Final score; higher is better.
    pub score: f32,
    /// The memory.
    pub memory: MemoryView<'a>,
    /// True when `max_tokens` left room only for the memory's summary: `memory.content` then
    /// holds the summary (`get` returns the whole text).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub summarized: bool,
    /// How the score was computed, when asked for: `{value, description, details: [...]}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Value>")]
    pub explanation: Option<&'a Explanation>,
}

impl<'a> From<&'a RecallResponse> for RecallView<'a> {
    fn from(r: &'a RecallResponse) -> Self {
        Self {
            as_of: time(r.as_of),
            vector_search: vector_search(&r.vector_search),
            query_terms: &r.query_terms,
            below_floor: r.below_floor,
            over_budget: r.budgeted.then_some(r.over_budget),
            took_ms: TookView { embed: millis(r.timings.embed), search: millis(r.timings.search) },
            hits: r
                .hits
                .iter()
                .map(|h| HitView {
                    score: h.score,
                    // Under a token budget each hit's text is shown once: the summary is not
                    // repeated beside the content it stands for.
                    memory: MemoryView {
                        content: h.text(),
                        summary: if r.budgeted { None } else { h.memory.summary.as_deref() },
                        ..MemoryView::from(&h.memory)
                    },
                    summarized: h.shown == Shown::Summary,
                    explanation: h.explanation.as_ref(),
                })
                .collect(),
        }
    }
}

/// One line on the embedding model's state: `ready`, or why recall is keyword-only.
pub fn embedding_status(s: &ServiceStats) -> String {
    match (&s.embedder, &s.embedding_status) {
        (Some(_), _) => "ready".to_owned(),
        (None, Some(status)) => format!("keyword-only: {status}"),
        (None, None) => "keyword-only: no embedding model configured".to_owned(),
    }
}

/// A duration in milliseconds, to the microsecond.
fn millis(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// A human-readable account of whether vector search took part.
pub fn vector_search(v: &VectorSearch) -> String {
    match v {
        VectorSearch::Used { model_id } => format!("vector search: {model_id}"),
        VectorSearch::NoModel => "keyword-only: no embedding model configured".to_owned(),
        VectorSearch::Disabled => "keyword-only: vector candidates disabled".to_owned(),
        VectorSearch::Failed { reason } => format!("keyword-only: embedding failed ({reason})"),
    }
}

/// RFC 3339, UTC, `Z` suffix, sub-second digits only when present.
pub fn time(t: Timestamp) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}
