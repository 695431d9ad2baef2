//! Request parameters shared by the transports: parsed the same way over MCP and REST.

use rearview_core::{InputError, MemoryFilter, MemoryType, Namespace, parse_timestamp};
use rearview_ranking::TierOrder;
use rearview_service::{RecallRequest, RememberRequest, UpdateRequest};
use rearview_store::Page;
use schemars::JsonSchema;
use serde::Deserialize;

/// The largest `ttl` (seconds) the schemas of `store_memory` and `update_memory` advertise, over
/// MCP and REST alike: about 31,700 years, far past any use; the server refuses only what
/// overflows a timestamp, naming `ttl`.
pub const MAX_DOCUMENTED_TTL: i64 = 1_000_000_000_000;

// Parameters carry the tier as a string and we parse it ourselves, so that a wrong value gets the
// service's message, which lists the three tiers, over every door; this enum only gives the
// schema its three allowed values.
/// A memory tier.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Scratch notes of the current task; expire after 1 hour by default.
    Working,
    /// Events with time and context; expire after 30 days by default.
    Episodic,
    /// Lasting knowledge; never expires by default.
    Semantic,
}

/// Arguments of a store: MCP `store_memory` and REST `POST /v1/memories` (one type, so the
/// two doors cannot drift apart).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreParams {
    /// The text to remember: one fact, preference, decision or event.
    #[schemars(length(min = 1))]
    pub content: String,
    /// Tier: `working`, `episodic` (the default) or `semantic`.
    #[schemars(with = "Option<Tier>")]
    pub memory_type: Option<String>,
    /// A JSON object, e.g. {"source": "chat", "confidence": 0.9, "tags": ["work"]}.
    // Any JSON is taken and the service's check refuses what is not an object, with the fix in
    // its message, the same over both doors; the schema says object.
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub metadata: Option<serde_json::Value>,
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
    /// history, left out of recall. Each must exist, else nothing is stored and the error
    /// names `supersedes`. The server also finds such updates itself; the answer's
    /// `superseded` lists what was replaced.
    #[schemars(inner(pattern(rearview_core::MemoryId::PATTERN)), extend("uniqueItems" = true))]
    pub supersedes: Option<Vec<String>>,
    /// Tenant (user, agent or memory bank). Over REST it overrides `X-Rearview-Namespace`,
    /// over MCP the connection's; default the key's only namespace, else `default`. Refused
    /// outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
    pub namespace: Option<String>,
}

impl StoreParams {
    /// The service request, without the `namespace` field: that is the caller's to resolve
    /// against the key's grant (it falls back to the connection's or the header's), before
    /// this consumes the parameters.
    pub fn into_request(self) -> Result<RememberRequest, InputError> {
        // Every field named: a new one must be placed here, and the namespace is the caller's.
        let StoreParams {
            content,
            memory_type,
            metadata,
            ttl,
            session_id,
            occurred_at,
            dedup,
            supersedes,
            namespace: _,
        } = self;
        Ok(RememberRequest {
            content,
            memory_type: memory_type.as_deref().map(str::parse::<MemoryType>).transpose()?,
            metadata,
            ttl_secs: ttl,
            session_id,
            occurred_at: occurred_at
                .as_deref()
                .map(|t| parse_timestamp("occurred_at", t))
                .transpose()?,
            dedup,
            supersedes: crate::memory_ids("supersedes", &supersedes.unwrap_or_default())?,
        })
    }
}

/// Arguments of a recall: MCP `retrieve_memory` and REST `POST /v1/recall` (one type, so the
/// two doors cannot drift apart).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallParams {
    /// What you are looking for, in any language.
    pub query: String,
    /// How many memories to return, 1 to 100; default 5.
    #[schemars(range(min = 1, max = 100))]
    pub top_k: Option<u32>,
    /// Only this tier.
    #[schemars(with = "Option<Tier>")]
    pub memory_type: Option<String>,
    /// Only memories of this conversation.
    pub session_id: Option<String>,
    /// Only memories carrying all of these tags.
    pub tags: Option<Vec<String>>,
    /// Include archived (cold) memories; default false.
    pub include_archived: Option<bool>,
    /// Include history: memories a newer one superseded (a moved city, a changed port, an
    /// earlier text of an updated memory); default false. `as_of` before a change sees the
    /// older memory as current anyway.
    pub include_superseded: Option<bool>,
    /// Rank and expire as of this instant (RFC 3339), hiding later events; default now.
    pub as_of: Option<String>,
    /// Semantic memories first, then episodic, then working; default false.
    pub tier_priority: Option<bool>,
    /// Include how each score was computed; default false.
    pub explain: Option<bool>,
    /// Query only these embedding models' vector spaces (ids as memory_stats lists them), e.g.
    /// only the fast local one; default all, their similarities averaged.
    pub models: Option<Vec<String>>,
    /// Leave out memories less similar to the query than this (cosine, 0 to 1; 0 keeps every
    /// candidate); default the server's floor. The answer says how many it left out.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_relevance: Option<f32>,
    /// Count this recall as a use of the memories it returns (their heat, `access_count`);
    /// default true. A person browsing (the console) sets false: looking must not change ranking.
    pub count_access: Option<bool>,
    /// Return only the best memories whose text fits in this many tokens (estimated: one per
    /// Chinese character, one per four other characters), a long one by its summary when only
    /// that fits; default no budget.
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// Tenant (user, agent or memory bank). Over REST it overrides `X-Rearview-Namespace`,
    /// over MCP the connection's; default the key's only namespace, else `default`. Refused
    /// outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
    pub namespace: Option<String>,
}

impl RecallParams {
    /// The service request. The `namespace` field is the caller's to resolve (it falls back to
    /// the connection's or the header's); take it before calling this.
    pub fn into_request(self) -> Result<RecallRequest, InputError> {
        let memory_type = self.memory_type.as_deref().map(str::parse::<MemoryType>).transpose()?;
        Ok(RecallRequest {
            top_k: self.top_k.map_or(5, |k| k as usize),
            filter: MemoryFilter {
                memory_types: memory_type.into_iter().collect(),
                session_id: self.session_id,
                tags: self.tags.unwrap_or_default(),
                include_archived: self.include_archived.unwrap_or(false),
                include_superseded: self.include_superseded.unwrap_or(false),
                ..MemoryFilter::default()
            },
            as_of: self.as_of.as_deref().map(|t| parse_timestamp("as_of", t)).transpose()?,
            tier_order: if self.tier_priority.unwrap_or(false) {
                TierOrder::SemanticFirst
            } else {
                TierOrder::ByScore
            },
            explain: self.explain.unwrap_or(false),
            models: self.models,
            min_relevance: self.min_relevance,
            max_tokens: self.max_tokens.map(|t| t as usize),
            record_access: self.count_access.unwrap_or(true),
            ..RecallRequest::new(self.query)
        })
    }
}

/// Arguments of a listing: MCP `list_memories` and the query of REST `GET /v1/memories` (one
/// type, so the two doors cannot drift apart).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// Only this tier.
    #[schemars(with = "Option<Tier>")]
    pub memory_type: Option<String>,
    /// Only memories of this conversation.
    pub session_id: Option<String>,
    /// Only memories carrying all of these tags (in a query string: `tags=a&tags=b`; `tag` is
    /// taken too).
    #[serde(alias = "tag")]
    pub tags: Option<Vec<String>>,
    /// Include archived memories; default false.
    pub include_archived: Option<bool>,
    /// Include history: memories a newer one superseded; default false.
    pub include_superseded: Option<bool>,
    /// Only memories whose event happened at or after this time (RFC 3339).
    pub occurred_after: Option<String>,
    /// Only memories whose event happened at or before this time (RFC 3339).
    pub occurred_before: Option<String>,
    /// Page size, 1 to 1000; default 20.
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<u64>,
    /// Memories to skip; default 0.
    pub offset: Option<u64>,
    /// Tenant (user, agent or memory bank). Over REST it overrides `X-Rearview-Namespace`,
    /// over MCP the connection's; default the key's only namespace, else `default`. Refused
    /// outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
    pub namespace: Option<String>,
}

impl ListParams {
    /// The filter and page. The `namespace` field is the caller's to resolve; take it first.
    pub fn into_request(self) -> Result<(MemoryFilter, Page), InputError> {
        let time = |field: &'static str, t: Option<String>| {
            t.as_deref().map(|t| parse_timestamp(field, t)).transpose()
        };
        let filter = MemoryFilter {
            memory_types: self
                .memory_type
                .as_deref()
                .map(str::parse::<MemoryType>)
                .transpose()?
                .into_iter()
                .collect(),
            session_id: self.session_id,
            tags: self.tags.unwrap_or_default(),
            include_archived: self.include_archived.unwrap_or(false),
            include_superseded: self.include_superseded.unwrap_or(false),
            occurred_after: time("occurred_after", self.occurred_after)?,
            occurred_before: time("occurred_before", self.occurred_before)?,
        };
        Ok((filter, Page { offset: self.offset.unwrap_or(0), limit: self.limit.unwrap_or(20) }))
    }
}

/// Declares a type of the changes to one memory, with the fields every update takes and
/// `$extra` before them: one list of fields, descriptions and checks for MCP `update_memory`
/// (which names the memory by `id`) and REST `PATCH /v1/memories/{id}` (whose path does).
macro_rules! update_params {
    ($(#[$attr:meta])* $name:ident { $($extra:tt)* }) => {
        #[derive(Debug, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        $(#[$attr])*
        pub struct $name {
            $($extra)*
            /// New text (re-indexed and re-embedded); the earlier text is kept as history.
            #[serde(default)]
            #[schemars(with = "String", length(min = 1))]
            pub content: Option<String>,
            /// Replacement metadata: a JSON object, e.g. {"source": "chat", "tags": ["work"]}.
            // Any JSON is taken and the service's check refuses what is not an object, with the
            // fix in its message, the same over both doors; the schema says object.
            #[serde(default)]
            #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
            pub metadata: Option<serde_json::Value>,
            /// New tier: `working`, `episodic` or `semantic`.
            #[serde(default)]
            #[schemars(with = "Tier")]
            pub memory_type: Option<String>,
            /// New time to live in seconds, counted from now; 0 = never expires.
            #[serde(default)]
            #[schemars(with = "i64", range(min = 0, max = MAX_DOCUMENTED_TTL))]
            pub ttl: Option<i64>,
            /// Tenant (user, agent or memory bank). Over REST it overrides
            /// `X-Rearview-Namespace`, over MCP the connection's; default the key's only
            /// namespace, else `default`. Refused outside the key's grant.
            #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
            pub namespace: Option<String>,
        }

        impl $name {
            /// The changes as a service request (at least one is needed; the service says so).
            pub fn changes(&self) -> Result<UpdateRequest, InputError> {
                Ok(UpdateRequest {
                    content: self.content.clone(),
                    metadata: self.metadata.clone(),
                    memory_type: self
                        .memory_type
                        .as_deref()
                        .map(str::parse::<MemoryType>)
                        .transpose()?,
                    ttl_secs: self.ttl,
                })
            }
        }
    };
}

update_params!(
    /// Body of REST `PATCH /v1/memories/{id}`: the changes (the path names the memory); at
    /// least one.
    #[schemars(extend("minProperties" = 1))]
    UpdateParams {}
);

update_params!(
    /// Arguments of MCP `update_memory`: the memory's id and the changes.
    UpdateMemoryParams {
        /// The memory's id (UUID).
        #[schemars(pattern(rearview_core::MemoryId::PATTERN))]
        pub id: String,
    }
);
