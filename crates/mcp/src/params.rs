//! Tool parameters, with the JSON Schemas clients see in `tools/list`.

pub use rearview_api::{
    EndSessionParams, IdsParams, ListParams as ListMemoriesParams, NamespaceParams,
    RecallParams as RetrieveMemoryParams, StoreParams as StoreMemoryParams, SuggestParams,
    SummarizeEpisodesParams, UpdateMemoryParams,
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

/// Arguments of a tool that takes none (`memory_stats`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}
