//! Tool parameters, with the JSON Schemas clients see in `tools/list`.

use rearview_api::MAX_DOCUMENTED_TTL;
pub use rearview_api::{
    EndSessionParams, IdsParams, RecallParams as RetrieveMemoryParams, SuggestParams,
    SummarizeEpisodesParams, Tier,
};
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `store_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreMemoryParams {
    /// The text to remember: one fact, preference, decision or event.
    #[schemars(length(min = 1))]
    pub content: String,
    /// Tier; `episodic` when absent.
    #[schemars(with = "Option<Tier>")]
    pub memory_type: Option<String>,
    /// Free-form JSON object, e.g. {"source": "chat", "confidence": 0.9, "tags": ["work"]}.
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// Seconds to live; 0 = never expires; absent = the tier's default.
    #[schemars(range(min = 0, max = MAX_DOCUMENTED_TTL))]
    pub ttl: Option<i64>,
    /// Conversation the memory belongs to.
    #[schemars(length(min = 1, max = 256), pattern(r"^[^\x00]*$"))]
    pub session_id: Option<String>,
    /// When the event happened (RFC 3339, e.g. 2023-05-08T13:56:00Z); default now.
    pub occurred_at: Option<String>,
    /// Merge into an existing memory of the same tier that says the same (exact text, or
    /// near-identical meaning with no fact lost); default true. The answer's `merged` tells.
    pub dedup: Option<bool>,
    /// Ids of memories this one replaces because the fact they state changed: they become
    /// history, left out of recall. Each must exist. The server also finds such updates itself;
    /// the answer's `superseded` lists what was replaced.
    #[schemars(inner(pattern(rearview_core::MemoryId::PATTERN)), extend("uniqueItems" = true))]
    pub supersedes: Option<Vec<String>>,
    /// Tenant (user, agent or memory bank); default the connection's.
    pub namespace: Option<String>,
}

/// Arguments of `get_memory` and `delete_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryIdParams {
    /// The memory's id (UUID).
    pub id: String,
    /// Tenant; default the connection's.
    pub namespace: Option<String>,
}

/// Arguments of `update_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateMemoryParams {
    /// The memory's id (UUID).
    pub id: String,
    /// New text.
    pub content: Option<String>,
    /// Replacement metadata object.
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// New tier.
    #[schemars(with = "Option<Tier>")]
    pub memory_type: Option<String>,
    /// New time to live in seconds from now; 0 = never.
    #[schemars(range(min = 0, max = MAX_DOCUMENTED_TTL))]
    pub ttl: Option<i64>,
    /// Tenant; default the connection's.
    pub namespace: Option<String>,
}

/// Arguments of `list_memories`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListMemoriesParams {
    /// Only this tier.
    #[schemars(with = "Option<Tier>")]
    pub memory_type: Option<String>,
    /// Only memories of this conversation.
    pub session_id: Option<String>,
    /// Only memories carrying all of these tags.
    pub tags: Option<Vec<String>>,
    /// Include archived memories; default false.
    pub include_archived: Option<bool>,
    /// Include history: memories a newer one superseded; default false.
    pub include_superseded: Option<bool>,
    /// Page size, 1 to 1000; default 20.
    pub limit: Option<u64>,
    /// Memories to skip; default 0.
    pub offset: Option<u64>,
    /// Tenant; default the connection's.
    pub namespace: Option<String>,
}

/// Arguments of `cleanup_expired` (and other tools that only take a tenant).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NamespaceParams {
    /// Tenant; default the connection's.
    pub namespace: Option<String>,
}

/// Arguments of a tool that takes none (`memory_stats`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}
