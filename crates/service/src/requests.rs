//! Requests and responses of the use cases, as transports hand them over.

use rearview_core::{
    InputError, Memory, MemoryFilter, MemoryId, MemoryType, Metadata, NewMemory, Timestamp,
};
use rearview_ranking::{Explanation, RankingConfig, TierOrder};

/// A request to store one memory, before validation.
#[derive(Debug, Clone, Default)]
pub struct RememberRequest {
    /// The text. Required, not blank.
    pub content: String,
    /// Tier; `episodic` if absent.
    pub memory_type: Option<MemoryType>,
    /// Must be a JSON object if present.
    pub metadata: Option<serde_json::Value>,
    /// Seconds to live; 0 = never; absent = the tier's default. Negative is an error.
    pub ttl_secs: Option<i64>,
    /// Conversation id.
    pub session_id: Option<String>,
    /// Event time; defaults to now.
    pub occurred_at: Option<Timestamp>,
    /// Merge into an existing near-duplicate (design §5.3); `None` follows the configuration
    /// (on by default). Imports that must keep every record separate turn it off.
    pub dedup: Option<bool>,
    /// Memories of the namespace this one replaces (at most 100, no repeats): they become
    /// history, superseded by the stored memory. Each must exist, else nothing is stored.
    pub supersedes: Vec<MemoryId>,
}

impl RememberRequest {
    /// A request for `content` with every option at its default.
    pub fn new(content: impl Into<String>) -> Self {
        Self { content: content.into(), ..Default::default() }
    }

    pub(crate) fn validate(self, max_content_chars: usize) -> Result<NewMemory, InputError> {
        if self.content.trim().is_empty() {
            return Err(InputError::new("content", "must not be empty or only whitespace"));
        }
        // NUL is no text: PostgreSQL refuses it, and it only ever comes from a broken client.
        if self.content.contains('\0') {
            return Err(InputError::new(
                "content",
                "contains a NUL character (\\u0000); remove it (it is not text)",
            ));
        }
        let chars = self.content.chars().count();
        if chars > max_content_chars {
            return Err(InputError::new(
                "content",
                format!("has {chars} characters; the limit is {max_content_chars} (configurable)"),
            ));
        }
        let metadata: Metadata = match self.metadata {
            None | Some(serde_json::Value::Null) => Metadata::new(),
            Some(serde_json::Value::Object(map)) => map,
            Some(other) => {
                return Err(InputError::new(
                    "metadata",
                    format!(
                        "must be a JSON object like {{\"tags\": [\"work\"]}}, got {}",
                        json_kind(&other)
                    ),
                ));
            }
        };
        if metadata.iter().any(|(k, v)| k.contains('\0') || has_nul(v)) {
            return Err(InputError::new(
                "metadata",
                "contains a NUL character (\\u0000) in a key or string; remove it",
            ));
        }
        if let Some(tags) = metadata.get("tags")
            && !tags.as_array().is_some_and(|a| a.iter().all(|t| t.is_string()))
        {
            return Err(InputError::new("metadata.tags", "must be an array of strings"));
        }
        let ttl_secs = match self.ttl_secs {
            Some(t) if t < 0 => {
                return Err(InputError::new(
                    "ttl",
                    format!("{t} is negative; use 0 for never, or a number of seconds"),
                ));
            }
            Some(t) => Some(t as u64),
            None => None,
        };
        if let Some(session) = &self.session_id
            && (session.is_empty() || session.chars().count() > 256 || session.contains('\0'))
        {
            return Err(InputError::new(
                "session_id",
                "must be 1 to 256 characters, without NUL (\\u0000)",
            ));
        }
        if self.supersedes.len() > MAX_SUPERSEDES {
            return Err(InputError::new(
                "supersedes",
                format!("lists {} ids; at most {MAX_SUPERSEDES}", self.supersedes.len()),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = self.supersedes.iter().find(|id| !seen.insert(**id)) {
            return Err(InputError::new("supersedes", format!("lists {dup} twice")));
        }
        Ok(NewMemory {
            content: self.content,
            memory_type: self.memory_type.unwrap_or(MemoryType::Episodic),
            metadata,
            ttl_secs,
            session_id: self.session_id,
            occurred_at: self.occurred_at,
            supersedes: self.supersedes,
        })
    }
}

/// Changes to one memory. Absent fields stay as they are; at least one must be present.
#[derive(Debug, Clone, Default)]
pub struct UpdateRequest {
    /// New text (re-tokenised and re-embedded).
    pub content: Option<String>,
    /// Replacement metadata (a JSON object; replaces the whole object).
    pub metadata: Option<serde_json::Value>,
    /// New tier. The TTL stays unless `ttl_secs` is given too.
    pub memory_type: Option<MemoryType>,
    /// New time to live in seconds, counted from the update; 0 = never expires.
    pub ttl_secs: Option<i64>,
}

/// An [`UpdateRequest`] after validation.
pub(crate) struct ValidUpdate {
    pub content: Option<String>,
    pub metadata: Option<Metadata>,
    pub memory_type: Option<MemoryType>,
    pub ttl_secs: Option<u64>,
}

impl UpdateRequest {
    pub(crate) fn validate(self, max_content_chars: usize) -> Result<ValidUpdate, InputError> {
        if self.content.is_none()
            && self.metadata.is_none()
            && self.memory_type.is_none()
            && self.ttl_secs.is_none()
        {
            return Err(InputError::new(
                "update",
                "names no change; give at least one of content, metadata, memory_type, ttl",
            ));
        }
        // Reuse the store-time rules for every field that is present.
        let probe = RememberRequest {
            content: self.content.clone().unwrap_or_else(|| "unchanged".to_owned()),
            memory_type: self.memory_type,
            metadata: self.metadata.clone(),
            ttl_secs: self.ttl_secs,
            session_id: None,
            occurred_at: None,
            dedup: None,
            supersedes: Vec::new(),
        }
        .validate(max_content_chars)?;
        Ok(ValidUpdate {
            content: self.content.map(|_| probe.content),
            metadata: self.metadata.map(|_| probe.metadata),
            memory_type: self.memory_type,
            ttl_secs: probe.ttl_secs,
        })
    }
}

/// A recall query.
#[derive(Debug, Clone)]
pub struct RecallRequest {
    /// What to look for. Required, not blank.
    pub query: String,
    /// How many memories to return (1 to the configured maximum, 100 by default).
    pub top_k: usize,
    /// Which memories are eligible.
    pub filter: MemoryFilter,
    /// Evaluate expiry and decay at this instant instead of now, and hide later events.
    pub as_of: Option<Timestamp>,
    /// Score order or semantic-first tier order.
    pub tier_order: TierOrder,
    /// Return each hit's score explanation.
    pub explain: bool,
    /// Count this recall in the returned memories' access counts (off for evaluation).
    pub record_access: bool,
    /// Override the configured ranking for this query (evaluation, experiments).
    pub ranking: Option<RankingConfig>,
    /// Vector spaces to query, by model id (the design's routing: e.g. only the fast local
    /// model). `None`: every model in use; their cosines are averaged per memory.
    pub models: Option<Vec<String>>,
    /// Leave out memories less similar to the query than this cosine (`rearview_ranking::Floor`;
    /// 0 keeps every candidate); `None`: the configured floor, else the model's calibrated one.
    pub min_relevance: Option<f32>,

    /// Return only the best memories whose text fits in this many tokens (estimated), a long
    /// one by its summary when only that fits. `None`: no budget.
    pub max_tokens: Option<usize>,
}

impl RecallRequest {
    /// A query for the top 5 with default filters, counting access.
    pub fn new(query: impl Into<String>) -> Self {
        Self {
            query: query.into(),
            top_k: 5,
            filter: MemoryFilter::default(),
            as_of: None,
            tier_order: TierOrder::ByScore,
            explain: false,
            record_access: true,
            ranking: None,
            models: None,
            min_relevance: None,
            max_tokens: None,
        }
    }

    pub(crate) fn validate(
        &self,
        max_top_k: usize,
        max_query_chars: usize,
    ) -> Result<(), InputError> {
        if self.query.trim().is_empty() {
            return Err(InputError::new("query", "must not be empty or only whitespace"));
        }
        // Counted without reading past the limit: a huge query costs nothing to refuse.
        if self.query.chars().nth(max_query_chars).is_some() {
            return Err(InputError::new(
                "query",
                format!(
                    "is longer than {max_query_chars} characters; send the part that says what you need (the latest turns of a dialogue)"
                ),
            ));
        }
        if let Some(floor) = self.min_relevance
            && !(0.0..=1.0).contains(&floor)
        {
            return Err(InputError::new(
                "min_relevance",
                format!("{floor} is out of range; allowed: 0 to 1 (0 keeps every candidate)"),
            ));
        }
        if self.max_tokens == Some(0) {
            return Err(InputError::new(
                "max_tokens",
                "must be at least 1; leave it out for no budget",
            ));
        }
        if self.top_k == 0 || self.top_k > max_top_k {
            return Err(InputError::new(
                "top_k",
                format!("{} is out of range; allowed: 1 to {max_top_k}", self.top_k),
            ));
        }
        if let (Some(after), Some(before)) =
            (self.filter.occurred_after, self.filter.occurred_before)
            && after > before
        {
            return Err(InputError::new("after", "must not be later than `before`"));
        }
        Ok(())
    }
}

/// The result of a recall.
#[derive(Debug, Clone)]
pub struct RecallResponse {
    /// Best first.
    pub hits: Vec<RecallHit>,
    /// The instant ranking and expiry were evaluated at.
    pub as_of: Timestamp,
    /// Whether vector search took part, and if not, why.
    pub vector_search: VectorSearch,
    /// The keyword terms the query was turned into.
    pub query_terms: Vec<String>,
    /// Candidates the relevance floor left out.
    pub below_floor: usize,
    /// Memories ranked among the hits that did not fit `max_tokens`.
    pub over_budget: usize,
    /// Whether the request set `max_tokens` (transports then show each hit's text once).
    pub budgeted: bool,
    /// Where the time went.
    pub timings: RecallTimings,
}

/// Time spent in a recall, so a slow one can say whether the model or the search was slow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecallTimings {
    /// Embedding the query (every model asked).
    pub embed: std::time::Duration,
    /// Everything else: candidates, ranking, loading the memories.
    pub search: std::time::Duration,
}

/// One recalled memory.
#[derive(Debug, Clone)]
pub struct RecallHit {
    /// The memory (its access count already includes this recall, when counted).
    pub memory: Memory,
    /// Final score; higher is better.
    pub score: f32,
    /// How the score was computed, when asked for.
    pub explanation: Option<Explanation>,
    /// Whether the content or, to fit a token budget, the summary is what the caller should see.
    pub shown: Shown,
}

impl RecallHit {
    /// The text to show: the content, or the summary when the token budget chose it.
    pub fn text(&self) -> &str {
        match self.shown {
            Shown::Summary => self.memory.summary.as_deref().unwrap_or(&self.memory.content),
            Shown::Content => &self.memory.content,
        }
    }
}

/// Which text of a recalled memory is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// The whole content.
    Content,
    /// The recall summary of a long memory (a token budget left no room for the content).
    Summary,
}

/// Roughly how many tokens `text` costs an LLM: one per Han character (and other CJK), one per
/// four other characters, rounded up. Close for BPE tokenizers of English and Chinese alike;
/// the budget is a packing aid, not a billing meter.
pub fn estimate_tokens(text: &str) -> usize {
    let (mut cjk, mut other) = (0usize, 0usize);
    for c in text.chars() {
        if rearview_core::is_han(c) || matches!(c as u32, 0x3000..=0x30FF | 0xAC00..=0xD7AF) {
            cjk += 1;
        } else {
            other += 1;
        }
    }
    cjk + other.div_ceil(4)
}

/// Whether vector search took part in a recall.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VectorSearch {
    /// It did, in this model's space.
    Used {
        /// The model.
        model_id: String,
    },
    /// No embedding model is configured: keyword-only mode.
    NoModel,
    /// The ranking asked for no vector candidates.
    Disabled,
    /// The model failed for this query; keywords only.
    Failed {
        /// Why.
        reason: String,
    },
}

/// Most ids one memory may supersede explicitly.
const MAX_SUPERSEDES: usize = 100;

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Whether a NUL character occurs in any string or key of `value`.
fn has_nul(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::String(s) => s.contains('\0'),
        serde_json::Value::Array(items) => items.iter().any(has_nul),
        serde_json::Value::Object(map) => map.iter().any(|(k, v)| k.contains('\0') || has_nul(v)),
        _ => false,
    }
}
