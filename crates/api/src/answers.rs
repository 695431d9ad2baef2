//! Answers on the wire: one type per operation's result. REST, MCP (`tools/call` and the
//! design's `POST /mcp/tools/call`) and the CLI's `--json` render the same type, and
//! `/openapi.json` describes it from that type, so no transport has a shape of its own.
//!
//! Rendering goes through [`render`], which reports a serialisation failure as an error (ours)
//! instead of a silent `null`.

use rearview_core::{LinkMaker, Memory, Namespace};
use rearview_service::{
    Caller, DistillPreview, Distilled, Grant, Linked, PendingReview, ServiceStats, SessionEnd,
    Stored, Suggestion, Superseded,
};
use schemars::JsonSchema;
use serde::Serialize;

use crate::{MemoryView, PossibleUpdateView, Summarized, embedding_status, possible_json, time};

/// An answer that could not be rendered as JSON: a bug of ours, reported as an internal error.
#[derive(Debug)]
pub struct RenderError(pub String);

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rendering the answer: {}", self.0)
    }
}

impl std::error::Error for RenderError {}

/// `answer` as a JSON value.
pub fn render<T: Serialize>(answer: &T) -> Result<serde_json::Value, RenderError> {
    serde_json::to_value(answer).map_err(|e| RenderError(e.to_string()))
}

/// Whether a store wrote a new memory or merged the text into one it had.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StoreStatus {
    /// A new memory.
    Stored,
    /// Merged into an existing memory (`memory` is that one).
    Merged,
}

/// How a new text was merged into an existing memory.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MergedView {
    /// The memory it was merged into (UUID).
    pub into: String,
    /// The same text exactly (after normalising).
    pub exact: bool,
    /// The cosine of the two texts, for a near duplicate.
    pub similarity: Option<f32>,
    /// The new text said more, so it replaced the old one (kept in the merge record).
    pub content_replaced: bool,
}

/// A memory a store or a link made history.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "SupersededMemory")]
pub struct SupersededView {
    /// Its id (UUID); its `superseded_by` now names the newer memory.
    pub id: String,
    /// Who linked it: `caller`, `llm`, `rule` or `update`.
    #[schemars(with = "crate::links::LinkMakerName")]
    pub made_by: &'static str,
    /// Why, in a sentence.
    pub reason: String,
}

impl From<&Superseded> for SupersededView {
    fn from(s: &Superseded) -> Self {
        let made_by: LinkMaker = s.link.made_by;
        Self { id: s.id.to_string(), made_by: made_by.as_str(), reason: s.link.reason.clone() }
    }
}

/// The answer to a store (`store_memory`, `POST /v1/memories`, `rearview add --json`).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Stored")]
pub struct StoredAnswer<'a> {
    /// The memory's id (the design's own answer, `{"id", "status"}`, which its LangChain tools
    /// read).
    pub id: String,
    /// `stored` or `merged`.
    pub status: StoreStatus,
    /// The memory as stored: the new one, or the one the text was merged into.
    pub memory: MemoryView<'a>,
    /// How the text was merged, or null for a new memory.
    pub merged: Option<MergedView>,
    /// Memories this one replaced; they are history now.
    pub superseded: Vec<SupersededView>,
    /// Older memories this one may change but did not replace: confirm one with
    /// `link_memories` (`POST /v1/link`, supersedes) or dismiss it.
    pub possible_updates: Vec<PossibleUpdateView>,
}

impl<'a> From<&'a Stored> for StoredAnswer<'a> {
    fn from(stored: &'a Stored) -> Self {
        Self {
            id: stored.memory.id.to_string(),
            status: if stored.merged.is_some() { StoreStatus::Merged } else { StoreStatus::Stored },
            memory: MemoryView::from(&stored.memory),
            merged: stored.merged.as_ref().map(|m| MergedView {
                into: stored.memory.id.to_string(),
                exact: m.exact,
                similarity: m.similarity,
                content_replaced: m.content_replaced,
            }),
            superseded: stored.superseded.iter().map(SupersededView::from).collect(),
            possible_updates: stored.possible_updates.iter().map(possible_json).collect(),
        }
    }
}

/// One memory: `{"memory": …}` (get, update, unlink).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "OneMemory")]
pub struct MemoryAnswer<'a> {
    /// The memory.
    pub memory: MemoryView<'a>,
}

impl<'a> From<&'a Memory> for MemoryAnswer<'a> {
    fn from(memory: &'a Memory) -> Self {
        Self { memory: MemoryView::from(memory) }
    }
}

/// A list of memories: `{"memories": [...]}` (list, archive, restore).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Memories")]
pub struct MemoriesAnswer<'a> {
    /// The memories.
    pub memories: Vec<MemoryView<'a>>,
}

impl<'a> From<&'a [Memory]> for MemoriesAnswer<'a> {
    fn from(memories: &'a [Memory]) -> Self {
        Self { memories: memories.iter().map(MemoryView::from).collect() }
    }
}

/// A memory's history: `{"history": [...]}`, the latest replaced first.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "History")]
pub struct HistoryAnswer<'a> {
    /// The earlier texts and statements the memory replaced, transitively.
    pub history: Vec<MemoryView<'a>>,
}

impl<'a> From<&'a [Memory]> for HistoryAnswer<'a> {
    fn from(history: &'a [Memory]) -> Self {
        Self { history: history.iter().map(MemoryView::from).collect() }
    }
}

/// A deleted memory: `{"deleted": id}`.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Deleted")]
pub struct DeletedAnswer {
    /// The id of the memory deleted.
    pub deleted: String,
}

/// What a cleanup of expired memories did.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Cleaned")]
pub struct CleanedAnswer {
    /// Expired memories deleted.
    pub cleaned: usize,
    /// The namespace cleaned.
    pub namespace: String,
}

impl CleanedAnswer {
    /// `cleaned` memories deleted from `namespace`.
    pub fn new(cleaned: usize, namespace: &Namespace) -> Self {
        Self { cleaned, namespace: namespace.as_str().to_owned() }
    }
}

/// A link confirmed or possible updates dismissed: the newer memory as it is now, and the
/// memories that became its history.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Linked")]
pub struct LinkedAnswer<'a> {
    /// The newer memory.
    pub memory: MemoryView<'a>,
    /// The memories it now replaces.
    pub superseded: Vec<SupersededView>,
}

impl<'a> From<&'a Linked> for LinkedAnswer<'a> {
    fn from(linked: &'a Linked) -> Self {
        Self {
            memory: MemoryView::from(&linked.memory),
            superseded: linked.superseded.iter().map(SupersededView::from).collect(),
        }
    }
}

/// What ending a session did.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "SessionEnded")]
pub struct SessionEndAnswer<'a> {
    /// Working memories the session had.
    pub working_memories: usize,
    /// Of those, greetings and acknowledgements, never made into episodes.
    pub small_talk: usize,
    /// `llm` or `rules`.
    pub method: &'static str,
    /// The LLM that extracted the events, for `llm`.
    pub model: Option<&'a str>,
    /// The episodes made (a merged one appears as the memory it merged into).
    pub episodes: Vec<StoredAnswer<'a>>,
}

impl<'a> From<&'a SessionEnd> for SessionEndAnswer<'a> {
    fn from(end: &'a SessionEnd) -> Self {
        Self {
            working_memories: end.working_memories,
            small_talk: end.small_talk,
            method: end.method,
            model: end.model.as_deref(),
            episodes: end.episodes.iter().map(StoredAnswer::from).collect(),
        }
    }
}

/// How a distillation was written.
#[derive(JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code, reason = "only its schema is used")]
enum DistillMethod {
    Llm,
    ExtractiveEmbeddings,
    ExtractiveKeywords,
}

/// A distillation: the new semantic memory.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Distilled")]
pub struct DistilledAnswer<'a> {
    /// The semantic memory (`source_ids`: the originals).
    pub memory: MemoryView<'a>,
    /// How it was written.
    #[schemars(with = "DistillMethod")]
    pub method: &'static str,
    /// The LLM that wrote it, for `llm`.
    pub model: Option<&'a str>,
    /// Originals archived or deleted.
    pub originals_changed: usize,
    /// The same memories had been distilled before: this is that memory, nothing was written.
    pub already_existed: bool,
}

impl<'a> From<&'a Distilled> for DistilledAnswer<'a> {
    fn from(d: &'a Distilled) -> Self {
        Self {
            memory: MemoryView::from(&d.memory),
            method: d.method,
            model: d.model.as_deref(),
            originals_changed: d.originals_changed,
            already_existed: d.already_existed,
        }
    }
}

/// What a distillation would store (`dry_run`); nothing was written.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PreviewView<'a> {
    /// The text the semantic memory would hold.
    pub content: &'a str,
    /// How it would be written.
    #[schemars(with = "DistillMethod")]
    pub method: &'static str,
    /// The LLM that would write it, for `llm`.
    pub model: Option<&'a str>,
    /// How many memories it condenses.
    pub sources: usize,
}

/// The answer to `summarize_episodes`: the distillation, or with `dry_run` its preview.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "Summarized")]
pub enum SummarizeAnswer<'a> {
    /// Stored.
    Distilled(Box<DistilledAnswer<'a>>),
    /// Only previewed.
    Preview {
        /// What would be stored.
        preview: PreviewView<'a>,
    },
}

impl<'a> From<&'a Summarized> for SummarizeAnswer<'a> {
    fn from(s: &'a Summarized) -> Self {
        match s {
            Summarized::Distilled(d) => {
                SummarizeAnswer::Distilled(Box::new(DistilledAnswer::from(&**d)))
            }
            Summarized::Preview(p) => SummarizeAnswer::Preview { preview: PreviewView::from(p) },
        }
    }
}

impl<'a> From<&'a DistillPreview> for PreviewView<'a> {
    fn from(p: &'a DistillPreview) -> Self {
        Self {
            content: &p.content,
            method: p.method,
            model: p.model.as_deref(),
            sources: p.sources,
        }
    }
}

/// A group of similar episodes worth distilling.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SuggestionView<'a> {
    /// The episodes (UUIDs), oldest first: pass them to `summarize_episodes`.
    pub episode_ids: Vec<String>,
    /// Mean cosine of the members to the group's first episode.
    pub cohesion: f32,
    /// The first words of each member.
    pub previews: &'a [String],
}

/// Suggested distillations.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Suggestions")]
pub struct SuggestionsAnswer<'a> {
    /// The groups, most cohesive first.
    pub suggestions: Vec<SuggestionView<'a>>,
}

impl<'a> From<&'a [Suggestion]> for SuggestionsAnswer<'a> {
    fn from(groups: &'a [Suggestion]) -> Self {
        let suggestions = groups
            .iter()
            .map(|g| SuggestionView {
                episode_ids: g.ids.iter().map(ToString::to_string).collect(),
                cohesion: g.cohesion,
                previews: &g.previews,
            })
            .collect();
        Self { suggestions }
    }
}

/// A memory waiting for review, with what it may change.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PendingView<'a> {
    /// The newer memory.
    pub memory: MemoryView<'a>,
    /// The older memories it may change, with their texts.
    pub possible_updates: Vec<PossibleUpdateView>,
}

/// The review list: memories with possible updates to confirm or dismiss.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "PendingReview")]
pub struct PendingAnswer<'a> {
    /// The latest stored first.
    pub pending: Vec<PendingView<'a>>,
}

impl<'a> From<&'a [PendingReview]> for PendingAnswer<'a> {
    fn from(pending: &'a [PendingReview]) -> Self {
        let pending = pending
            .iter()
            .map(|p| PendingView {
                memory: MemoryView::from(&p.memory),
                possible_updates: p.possible.iter().map(possible_json).collect(),
            })
            .collect();
        Self { pending }
    }
}

/// Memories of one namespace and tier.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TierCountView<'a> {
    /// The namespace.
    pub namespace: &'a str,
    /// The tier.
    pub memory_type: &'static str,
    /// Current memories, recalled and listed.
    pub live: u64,
    /// In the cold archive.
    pub archived: u64,
    /// History: replaced by a newer memory.
    pub superseded: u64,
    /// Past their TTL, not yet swept (invisible to every read).
    pub expired: u64,
}

/// Stored vectors of one embedding model.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ModelVectorsView<'a> {
    /// The model id.
    pub model: &'a str,
    /// Vectors stored.
    pub vectors: u64,
}

/// An embedding model in use.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ModelView<'a> {
    /// The model id.
    pub model: &'a str,
    /// Vector length.
    pub dimensions: usize,
}

/// The embedding models' state.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EmbeddingView<'a> {
    /// The primary model, or null in keyword-only mode.
    pub model: Option<&'a str>,
    /// Its vector length.
    pub dimensions: Option<usize>,
    /// Every model in use, primary first.
    pub models: Vec<ModelView<'a>>,
    /// True in keyword-only mode.
    pub degraded: bool,
    /// `ready`, or why recall is keyword-only.
    pub status: String,
    /// Vectors in the in-memory index.
    pub indexed_vectors: usize,
    /// Of those, searched through an HNSW graph.
    pub graph_vectors: usize,
    /// Missing vectors waiting for backfill.
    pub pending: u64,
}

/// The in-memory indexes.
#[derive(Debug, Serialize, JsonSchema)]
pub struct IndexesView {
    /// Namespaces whose indexes are in memory.
    pub namespaces_loaded: usize,
    /// Roughly the bytes they hold.
    pub bytes: u64,
    /// The budget when namespaces load on demand; null when all load at start.
    pub budget_bytes: Option<u64>,
    /// Namespaces dropped from memory since start, least recently used first.
    pub evictions: u64,
}

/// Service statistics (`memory_stats`, `GET /v1/stats`, `rearview stats --json`).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Stats")]
pub struct StatsAnswer<'a> {
    /// The backend and its location (admins only; otherwise the backend alone).
    pub store: &'a str,
    /// Bytes the store occupies on disk.
    pub size_bytes: u64,
    /// Counts per namespace and tier.
    pub tiers: Vec<TierCountView<'a>>,
    /// Stored vectors per embedding model.
    pub vectors_per_model: Vec<ModelVectorsView<'a>>,
    /// The embedding models' state.
    pub embedding: EmbeddingView<'a>,
    /// The in-memory indexes.
    pub indexes: IndexesView,
    /// For a key limited to some namespaces: those namespaces (also the empty ones); absent
    /// for an admin key.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>")]
    pub granted: Option<Vec<&'a str>>,
}

impl<'a> StatsAnswer<'a> {
    /// `s` as `caller` sees it (`granted` names a limited key's namespaces).
    pub fn new(s: &'a ServiceStats, caller: Option<&'a Caller>) -> Self {
        let granted = match caller.map(Caller::grant) {
            Some(Grant::Only(namespaces)) => Some(namespaces.iter().map(|n| n.as_str()).collect()),
            _ => None,
        };
        Self {
            store: &s.store.location,
            size_bytes: s.store.size_bytes,
            tiers: s.store.tiers.iter().map(tier_count).collect(),
            vectors_per_model: s
                .store
                .vectors_per_model
                .iter()
                .map(|(model, vectors)| ModelVectorsView { model, vectors: *vectors })
                .collect(),
            embedding: EmbeddingView {
                model: s.embedder.as_ref().map(|e| e.model_id.as_str()),
                dimensions: s.embedder.as_ref().map(|e| e.dimensions),
                models: s
                    .models
                    .iter()
                    .map(|m| ModelView { model: &m.model_id, dimensions: m.dimensions })
                    .collect(),
                degraded: s.embedder.is_none(),
                status: embedding_status(s),
                indexed_vectors: s.indexed_vectors,
                graph_vectors: s.graph_vectors,
                pending: s.pending_embeddings,
            },
            indexes: IndexesView {
                namespaces_loaded: s.indexes.namespaces,
                bytes: s.indexes.bytes,
                budget_bytes: s.indexes.budget,
                evictions: s.indexes.evictions,
            },
            granted,
        }
    }
}

fn tier_count(t: &rearview_store::TierCount) -> TierCountView<'_> {
    TierCountView {
        namespace: t.namespace.as_str(),
        memory_type: t.memory_type.as_str(),
        live: t.live,
        archived: t.archived,
        superseded: t.superseded,
        expired: t.expired,
    }
}

/// An API key as listed: never its secret, but `key` right after creating it.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "ApiKey")]
pub struct KeyView<'a> {
    /// Public identifier, safe to log and show (`rvk_…`).
    pub id: &'a str,
    /// Namespaces the key may read and write (ignored for admin keys).
    pub namespaces: Vec<&'a str>,
    /// May use every namespace and manage keys.
    pub admin: bool,
    /// Free text for people.
    pub label: Option<&'a str>,
    /// When it was made.
    #[schemars(extend("format" = "date-time"))]
    pub created_at: String,
    /// When it stops working, if ever.
    #[schemars(extend("format" = "date-time"))]
    pub expires_at: Option<String>,
    /// When it was revoked, if it was.
    #[schemars(extend("format" = "date-time"))]
    pub revoked_at: Option<String>,
    /// Neither expired nor revoked.
    pub active: bool,
    /// The secret: only in the answer to its creation, never again (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub key: Option<&'a str>,
}

impl<'a> KeyView<'a> {
    /// `key` as it is at `now`, with its `secret` right after creation only.
    pub fn new(
        key: &'a rearview_store::ApiKeyRecord,
        secret: Option<&'a str>,
        now: rearview_core::Timestamp,
    ) -> Self {
        Self {
            id: &key.id,
            namespaces: key.namespaces.iter().map(|n| n.as_str()).collect(),
            admin: key.admin,
            label: key.label.as_deref(),
            created_at: time(key.created_at),
            expires_at: key.expires_at.map(time),
            revoked_at: key.revoked_at.map(time),
            active: key.is_active(now),
            key: secret,
        }
    }
}

/// Every key, oldest first.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "ApiKeys")]
pub struct KeysAnswer<'a> {
    /// The keys, revoked and expired ones included.
    pub keys: Vec<KeyView<'a>>,
}

/// A revoked key: `{"revoked": id}`.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Revoked")]
pub struct RevokedAnswer<'a> {
    /// The key's id.
    pub revoked: &'a str,
}

/// Memories of one day, per tier.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct DayView {
    /// The UTC day (`YYYY-MM-DD`).
    #[schemars(extend("format" = "date"))]
    pub day: String,
    /// Working memories whose event fell on that day.
    pub working: u64,
    /// Episodic memories.
    pub episodic: u64,
    /// Semantic memories.
    pub semantic: u64,
}

/// Recalls in one minute and their latency.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MinuteView {
    /// The minute's start (RFC 3339).
    #[schemars(extend("format" = "date-time"))]
    pub minute: String,
    /// Recalls answered.
    pub count: u64,
    /// Median latency.
    pub p50_ms: f64,
    /// 99th percentile latency.
    pub p99_ms: f64,
}

/// `/v1/timeline`'s answer: memories per day and tier (days without any left out), and the
/// recall latency per minute over the last hour.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Timeline")]
pub struct TimelineAnswer<'a> {
    /// The namespace counted.
    pub namespace: &'a str,
    /// Days back, today included.
    pub days: u32,
    /// One row per day with memories, oldest first.
    pub tiers: Vec<DayView>,
    /// This server's recalls per minute (admin keys only; empty otherwise).
    pub recall_latency: Vec<MinuteView>,
}

impl<'a> TimelineAnswer<'a> {
    /// `counts` (one per day and tier, oldest day first) as one row per day, with `latency`.
    pub fn new(
        namespace: &'a Namespace,
        days: u32,
        counts: &[rearview_store::DayCount],
        latency: &[rearview_telemetry::metrics::MinuteLatency],
    ) -> Self {
        let mut tiers: Vec<DayView> = Vec::new();
        for count in counts {
            let day = chrono::DateTime::from_timestamp(count.day * 86_400, 0)
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_default();
            if tiers.last().is_none_or(|t| t.day != day) {
                tiers.push(DayView { day, ..DayView::default() });
            }
            if let Some(last) = tiers.last_mut() {
                match count.memory_type {
                    rearview_core::MemoryType::Working => last.working = count.count,
                    rearview_core::MemoryType::Episodic => last.episodic = count.count,
                    rearview_core::MemoryType::Semantic => last.semantic = count.count,
                }
            }
        }
        let recall_latency = latency
            .iter()
            .map(|m| MinuteView {
                minute: time(m.minute),
                count: m.count,
                p50_ms: m.p50_ms,
                p99_ms: m.p99_ms,
            })
            .collect();
        Self { namespace: namespace.as_str(), days, tiers, recall_latency }
    }
}
