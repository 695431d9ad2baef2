//! The tool registry: every tool's name, description, annotations, parameter type (and so its
//! JSON Schema and argument check) and implementation, in one list ([`tools!`]). `tools/list`,
//! MCP's `tools/call`, the design's `POST /mcp/tools/call` and the metrics' operation labels all
//! read it, so they cannot disagree.

use rearview_api::{
    CleanedAnswer, DeletedAnswer, LinkParams, LinkedAnswer, MemoriesAnswer, MemoryAnswer,
    RecallView, RenderError, SessionEndAnswer, StatsAnswer, StoredAnswer, SuggestionsAnswer,
    SummarizeAnswer, UnlinkParams, render,
};
use rearview_core::{InputError, MemoryId, Namespace};
use rearview_service::{Caller, ErrorKind, ServiceError};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::Value;

use crate::RearviewMcp;
use crate::params::*;

/// What one call knows besides its arguments: who calls, the transport's namespace header, and
/// (once a tool resolved it) the namespace it worked in, for the audit log.
#[derive(Debug)]
pub struct Call {
    pub(crate) caller: Caller,
    pub(crate) header_namespace: Option<String>,
    pub(crate) namespace: std::sync::OnceLock<String>,
}

impl Call {
    /// A call by `caller`, with the transport's `X-Rearview-Namespace` if it sent one.
    pub fn new(caller: Caller, header_namespace: Option<String>) -> Self {
        Self { caller, header_namespace, namespace: std::sync::OnceLock::new() }
    }
}

/// How a tool call fails. Transports map these: MCP answers invalid params, a tool result with
/// `isError`, or an internal error; the design's HTTP endpoint answers 400, 403, 422 or 500.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The arguments were wrong (unknown tool, bad field); the message names the fix.
    InvalidArguments(String),
    /// The namespace is outside the caller's grant; nothing was read or written.
    Forbidden(String),
    /// The tool ran and failed (not found, model unavailable).
    ToolError(String),
    /// Our fault; logged.
    Internal(String),
}

impl Failure {
    /// The outcome label of the audit log and metrics.
    pub fn outcome(&self) -> &'static str {
        match self {
            Failure::InvalidArguments(_) => "invalid_params",
            Failure::Forbidden(_) => "forbidden",
            Failure::ToolError(_) => "tool_error",
            Failure::Internal(_) => "internal_error",
        }
    }

    /// The message for the client.
    pub fn message(&self) -> &str {
        match self {
            Failure::InvalidArguments(m)
            | Failure::Forbidden(m)
            | Failure::ToolError(m)
            | Failure::Internal(m) => m,
        }
    }
}

impl From<ServiceError> for Failure {
    fn from(e: ServiceError) -> Self {
        match e.kind() {
            ErrorKind::InvalidInput => Failure::InvalidArguments(e.to_string()),
            ErrorKind::Forbidden => Failure::Forbidden(e.to_string()),
            ErrorKind::NotFound | ErrorKind::Unavailable => Failure::ToolError(e.to_string()),
            ErrorKind::Internal => {
                tracing::error!(error = ?e, "tool failed internally");
                Failure::Internal(format!("internal error: {e}"))
            }
        }
    }
}

impl From<RenderError> for Failure {
    fn from(e: RenderError) -> Self {
        tracing::error!(error = %e, "tool answer not rendered");
        Failure::Internal(format!("internal error: {e}"))
    }
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::InvalidArguments(e.to_string())
    }
}

type Outcome = Result<Value, Failure>;

/// Declares the tools: for each, its name (the method implementing it), parameter type,
/// description and behaviour hints. Generates [`TOOL_NAMES`], [`definitions`] and
/// `RearviewMcp::dispatch`.
macro_rules! tools {
    ($(
        $name:ident($params:ty) {
            description: $description:literal,
            read_only: $read_only:literal,
            destructive: $destructive:literal,
            idempotent: $idempotent:literal $(,)?
        }
    )+) => {
        /// Every tool's name, in declaration order.
        pub const TOOL_NAMES: &[&str] = &[$(stringify!($name)),+];

        /// The `tools/list` entries, sorted by name.
        pub fn definitions() -> Vec<Tool> {
            let mut tools = vec![$(
                Tool::new(
                    stringify!($name),
                    $description,
                    input_schema::<$params>(),
                )
                .with_annotations(
                    ToolAnnotations::new()
                        .read_only($read_only)
                        .destructive($destructive)
                        .idempotent($idempotent)
                        .open_world(false),
                )
            ),+];
            tools.sort_by(|a, b| a.name.cmp(&b.name));
            tools
        }

        impl RearviewMcp {
            /// Parses `arguments` as tool `name`'s parameters (a malformed argument is
            /// invalid-params naming the field) and runs the tool.
            pub(crate) async fn dispatch(&self, call: &Call, name: &str, arguments: JsonObject) -> Outcome {
                match name {
                    $(stringify!($name) => {
                        let params = parse_arguments::<$params>(arguments)?;
                        self.$name(call, params).await
                    })+
                    _ => Err(Failure::InvalidArguments(format!(
                        "unknown tool {name:?}; tools/list names the tools"
                    ))),
                }
            }
        }
    };
}

tools! {
    store_memory(StoreMemoryParams) {
        description: "Store a memory: a fact, preference, decision or event worth recalling in a later turn or conversation. Use `episodic` for things that happened (default), `semantic` for lasting knowledge about the user or project, `working` for scratch notes of the current task (expire after 1 hour). When a fact changes (moved city, new address, no longer likes something), store the new statement and name the memory it replaces in `supersedes`: that one becomes history, left out of recall. The server also links a change the new text states plainly (`superseded` in the answer says what was replaced, by whom and why). Older memories it may change but did not link come back in `possible_updates` (id, content, similarity, why): if one is really the same fact changed, confirm it with link_memories (supersedes), otherwise leave it or dismiss it. Returns the stored memory with its id.",
        read_only: false, destructive: false, idempotent: false,
    }
    retrieve_memory(RetrieveMemoryParams) {
        description: "Retrieve the memories most relevant to a query, ranked by meaning, keywords, recency and how often they were useful. Call this before answering whenever earlier conversations, user preferences or past decisions might matter. Write the query as a short description of what you need (any language).",
        read_only: true, destructive: false, idempotent: false,
    }
    get_memory(MemoryIdParams) {
        description: "Fetch one memory by id, with all its fields.",
        read_only: true, destructive: false, idempotent: true,
    }
    update_memory(UpdateMemoryParams) {
        description: "Correct a memory that is wrong or outdated: new content (re-indexed; the earlier text is kept as history), metadata, tier or TTL. The memory keeps its id.",
        read_only: false, destructive: true, idempotent: true,
    }
    delete_memory(MemoryIdParams) {
        description: "Delete a memory permanently, e.g. when the user asks to forget something.",
        read_only: false, destructive: true, idempotent: true,
    }
    list_memories(ListMemoriesParams) {
        description: "List memories, newest event first, optionally filtered by tier, session or tags; `include_superseded` adds history (memories a newer one replaced, each naming it in `superseded_by`). For browsing; use retrieve_memory to search.",
        read_only: true, destructive: false, idempotent: true,
    }
    memory_stats(NoParams) {
        description: "Counts of memories per namespace and tier, database size, and the embedding model's state.",
        read_only: true, destructive: false, idempotent: true,
    }
    summarize_episodes(SummarizeEpisodesParams) {
        description: "Distil several episodic memories into one lasting semantic memory (e.g. repeated mentions of a habit become one preference), following an optional instruction. Written by the server's LLM when one is configured, else extractively (the sentences the episodes share, dates left out, only those matching the instruction); the result's `method` says which. Distilling the same episodes again returns the first result (`already_existed`). The new memory lists its sources; the originals are archived by default. If the LLM fails, nothing changes.",
        read_only: false, destructive: true, idempotent: false,
    }
    suggest_distillations(SuggestParams) {
        description: "Propose groups of similar episodic memories worth distilling with summarize_episodes. Writes nothing; review the groups, then distil the ones that make sense.",
        read_only: true, destructive: false, idempotent: true,
    }
    end_session(EndSessionParams) {
        description: "End a conversation session: its working memories become episodic memories (key events extracted by the server's LLM when one is configured, otherwise each substantive user statement) and the working memories expire. Call once when a conversation is over.",
        read_only: false, destructive: false, idempotent: true,
    }
    archive_memory(IdsParams) {
        description: "Move memories to the cold archive: they stay stored but leave recall and listings unless include_archived is set. Reversible with restore_memory.",
        read_only: false, destructive: false, idempotent: true,
    }
    restore_memory(IdsParams) {
        description: "Bring archived memories back into recall.",
        read_only: false, destructive: false, idempotent: true,
    }
    link_memories(LinkParams) {
        description: "Confirm that a memory replaces older ones (`supersedes`: they become its history, left out of recall, `as_of` before the change still sees them) and dismiss possible updates that are not changes (`dismiss`). Use it on the `possible_updates` a store returned, when the older memory states the same fact with an old value. Reversible with unlink_memory.",
        read_only: false, destructive: false, idempotent: true,
    }
    unlink_memory(UnlinkParams) {
        description: "Undo a link: make a superseded memory (history) current again, e.g. when it was wrongly read as replaced. It returns to recall and listings.",
        read_only: false, destructive: false, idempotent: false,
    }
    cleanup_expired(NamespaceParams) {
        description: "Delete this namespace's expired memories (past their TTL) and report how many. Expired memories are already invisible to every read; this reclaims their space. The server also sweeps on its own schedule.",
        read_only: false, destructive: true, idempotent: true,
    }
}

impl RearviewMcp {
    /// The namespace a call works in: its `namespace` argument, else the header, else the key's
    /// only namespace or the connection's default; refused outside the caller's grant.
    fn namespace(&self, call: &Call, named: Option<&str>) -> Result<Namespace, Failure> {
        let namespace = call.caller.resolve(
            named,
            call.header_namespace.as_deref(),
            &self.default_namespace,
        )?;
        let _ = call.namespace.set(namespace.as_str().to_owned());
        Ok(namespace)
    }

    async fn store_memory(&self, call: &Call, mut p: StoreMemoryParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.take().as_deref())?;
        let request = p.into_request()?;
        let stored = self.service.remember(&namespace, request).await?;
        Ok(render(&StoredAnswer::from(&stored))?)
    }

    async fn retrieve_memory(&self, call: &Call, mut p: RetrieveMemoryParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.take().as_deref())?;
        let request = p.into_request()?;
        let result = self.service.recall(&namespace, request).await?;
        Ok(render(&RecallView::from(&result))?)
    }

    async fn get_memory(&self, call: &Call, p: MemoryIdParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.as_deref())?;
        let id = parse_id(&p.id)?;
        Ok(render(&MemoryAnswer::from(&self.service.get(&namespace, id).await?))?)
    }

    async fn update_memory(&self, call: &Call, p: UpdateMemoryParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.as_deref())?;
        let id = parse_id(&p.id)?;
        let memory = self.service.update(&namespace, id, p.changes()?).await?;
        Ok(render(&MemoryAnswer::from(&memory))?)
    }

    async fn delete_memory(&self, call: &Call, p: MemoryIdParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.as_deref())?;
        let id = parse_id(&p.id)?;
        self.service.forget(&namespace, id).await?;
        Ok(render(&DeletedAnswer { deleted: id.to_string() })?)
    }

    async fn list_memories(&self, call: &Call, mut p: ListMemoriesParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.take().as_deref())?;
        let (filter, page) = p.into_request()?;
        let memories = self.service.list(&namespace, &filter, page).await?;
        Ok(render(&MemoriesAnswer::from(memories.as_slice()))?)
    }

    async fn memory_stats(&self, call: &Call, _: NoParams) -> Outcome {
        let stats = self.service.stats_for(&call.caller).await?;
        Ok(render(&StatsAnswer::new(&stats, Some(&call.caller)))?)
    }

    async fn summarize_episodes(&self, call: &Call, p: SummarizeEpisodesParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.as_deref())?;
        let summarized = rearview_api::summarize(&self.service, &namespace, &p).await?;
        Ok(render(&SummarizeAnswer::from(&summarized))?)
    }

    async fn suggest_distillations(&self, call: &Call, p: SuggestParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.as_deref())?;
        let (threshold, min_size, limit) = p.resolve()?;
        let groups =
            self.service.suggest_distillations(&namespace, threshold, min_size, limit).await?;
        Ok(render(&SuggestionsAnswer::from(groups.as_slice()))?)
    }

    async fn end_session(&self, call: &Call, p: EndSessionParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.as_deref())?;
        let end = self.service.end_session(&namespace, &p.session_id).await?;
        Ok(render(&SessionEndAnswer::from(&end))?)
    }

    async fn archive_memory(&self, call: &Call, p: IdsParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.as_deref())?;
        let ids = p.ids()?;
        let archived = self.service.archive(&namespace, &ids).await?;
        Ok(render(&MemoriesAnswer::from(archived.as_slice()))?)
    }

    async fn restore_memory(&self, call: &Call, p: IdsParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.as_deref())?;
        let ids = p.ids()?;
        let restored = self.service.restore(&namespace, &ids).await?;
        Ok(render(&MemoriesAnswer::from(restored.as_slice()))?)
    }

    async fn link_memories(&self, call: &Call, mut p: LinkParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.take().as_deref())?;
        let linked = rearview_api::link(&self.service, &namespace, p).await?;
        Ok(render(&LinkedAnswer::from(&linked))?)
    }

    async fn unlink_memory(&self, call: &Call, p: UnlinkParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.as_deref())?;
        let id = parse_id(&p.id)?;
        Ok(render(&MemoryAnswer::from(&self.service.unlink(&namespace, id).await?))?)
    }

    async fn cleanup_expired(&self, call: &Call, p: NamespaceParams) -> Outcome {
        let namespace = self.namespace(call, p.namespace.as_deref())?;
        let cleaned = self.service.cleanup_expired(Some(&namespace)).await?;
        Ok(render(&CleanedAnswer::new(cleaned, &namespace))?)
    }
}

/// The JSON Schema of a parameter type, without the Rust type's name and doc comment (written for
/// us, not for clients; each field keeps its own description).
fn input_schema<T: schemars::JsonSchema + 'static>() -> std::sync::Arc<JsonObject> {
    let mut schema = (*rmcp::handler::server::common::schema_for_type::<T>()).clone();
    schema.remove("title");
    schema.remove("description");
    // Some clients insist on `properties`, even for a tool without arguments.
    schema.entry("properties").or_insert_with(|| serde_json::json!({}));
    std::sync::Arc::new(schema)
}

/// `arguments` as a tool's parameter struct, or invalid-params naming the failing field.
fn parse_arguments<T: serde::de::DeserializeOwned>(arguments: JsonObject) -> Result<T, Failure> {
    serde_path_to_error::deserialize(Value::Object(arguments)).map_err(|e| {
        let path = e.path().to_string();
        let what = if path == "." {
            format!("invalid arguments: {}", e.inner())
        } else {
            format!("invalid argument `{path}`: {}", e.inner())
        };
        Failure::InvalidArguments(format!(
            "{what}; the tool's input schema in tools/list says what is allowed"
        ))
    })
}

fn parse_id(id: &str) -> Result<MemoryId, Failure> {
    Ok(id.parse()?)
}
