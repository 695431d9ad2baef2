//! Tool parameters, with the JSON Schemas clients see in `tools/list`.

use rearview_api::MAX_DOCUMENTED_TTL;
pub use rearview_api::{
    EndSessionParams, IdsParams, NamespaceParams, RecallParams as RetrieveMemoryParams,
    StoreParams as StoreMemoryParams, SuggestParams, SummarizeEpisodesParams, Tier,
};
use rearview_core::Namespace;
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `get_memory` and `delete_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryIdParams {
    /// The memory's id (UUID).
    pub id: String,
    /// Tenant (user, agent or memory bank); default the connection's, else the key's only
    /// namespace, else `default`. Refused outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
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
    /// Tenant (user, agent or memory bank); default the connection's, else the key's only
    /// namespace, else `default`. Refused outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
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
    /// Tenant (user, agent or memory bank); default the connection's, else the key's only
    /// namespace, else `default`. Refused outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
    pub namespace: Option<String>,
}

/// Arguments of a tool that takes none (`memory_stats`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}
