//! rearview over the Model Context Protocol.
//!
//! [`RearviewMcp`] is an `rmcp` server handler exposing the design's tools (`store_memory`,
//! `retrieve_memory`, `summarize_episodes`, `cleanup_expired`) plus what agents need to manage
//! memory (`get_memory`, `update_memory`, `delete_memory`, `list_memories`, `memory_stats`). Every
//! tool parses its arguments, calls [`MemoryService`], and renders the result as structured JSON
//! (the shapes of `rearview-api`). This is the only crate that depends on `rmcp`.
//!
//! Errors follow rmcp's rule: malformed arguments are a JSON-RPC invalid-params error naming the
//! field; a tool that ran and failed (not found, model unavailable) is a tool result with
//! `isError: true` and a message a person can act on; internal faults are internal errors, logged
//! with their cause.
//!
//! Nothing here writes to stdout: over stdio, stdout is the protocol channel.

mod params;

use std::sync::Arc;

use rearview_api::{
    MemoryView, RecallView, distilled_json, memories_json, session_end_json, stored_json,
    suggestions_json,
};
use rearview_core::{InputError, MemoryFilter, MemoryId, Namespace};
use rearview_service::{ErrorKind, MemoryService, RememberRequest, ServiceError, UpdateRequest};
use rearview_store::Page;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};

pub use params::*;

/// Instructions sent to the client at initialisation: when a model should store and retrieve.
const INSTRUCTIONS: &str = include_str!("instructions.md");

/// The MCP server: one per connection, sharing one service.
#[derive(Clone)]
pub struct RearviewMcp {
    /// Every tool calls only this.
    service: Arc<MemoryService>,
    /// The namespace used when a call names none (from the connection's settings).
    default_namespace: Namespace,
    /// rmcp's generated dispatch table of our tools.
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for RearviewMcp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RearviewMcp").field("default_namespace", &self.default_namespace).finish()
    }
}

#[tool_router]
impl RearviewMcp {
    /// A handler serving `service`, in `default_namespace` unless a call names another.
    pub fn new(service: Arc<MemoryService>, default_namespace: Namespace) -> Self {
        Self { service, default_namespace, tool_router: Self::tool_router() }
    }

    #[tool(
        description = "Store a memory: a fact, preference, decision or event worth recalling in a later turn or conversation. Use `episodic` for things that happened (default), `semantic` for lasting knowledge about the user or project, `working` for scratch notes of the current task (expire after 1 hour). Returns the stored memory with its id.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn store_memory(
        &self,
        Parameters(p): Parameters<StoreMemoryParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let namespace = self.namespace(p.namespace.as_deref())?;
        let request = RememberRequest {
            content: p.content,
            memory_type: tier(p.memory_type.as_deref())?,
            metadata: p.metadata.map(serde_json::Value::Object),
            ttl_secs: p.ttl,
            session_id: p.session_id,
            occurred_at: p
                .occurred_at
                .as_deref()
                .map(|t| rearview_core::parse_timestamp("occurred_at", t))
                .transpose()
                .map_err(invalid)?,
            dedup: p.dedup,
        };
        let result = self.service.remember(&namespace, request).await;
        render(result, stored_json)
    }

    #[tool(
        description = "Retrieve the memories most relevant to a query, ranked by meaning, keywords, recency and how often they were useful. Call this before answering whenever earlier conversations, user preferences or past decisions might matter. Write the query as a short description of what you need (any language).",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn retrieve_memory(
        &self,
        Parameters(mut p): Parameters<RetrieveMemoryParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let namespace = self.namespace(p.namespace.take().as_deref())?;
        let request = p.into_request().map_err(invalid)?;
        let result = self.service.recall(&namespace, request).await;
        render(result, |r| serde_json::to_value(RecallView::from(r)).unwrap_or_default())
    }

    #[tool(
        description = "Fetch one memory by id, with all its fields.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_memory(
        &self,
        Parameters(p): Parameters<MemoryIdParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let namespace = self.namespace(p.namespace.as_deref())?;
        let id = parse_id(&p.id)?;
        render(self.service.get(&namespace, id).await, memory_json)
    }

    #[tool(
        description = "Correct a memory that is wrong or outdated: new content (re-indexed), metadata, tier or TTL. Prefer this to storing a contradicting memory.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn update_memory(
        &self,
        Parameters(p): Parameters<UpdateMemoryParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let namespace = self.namespace(p.namespace.as_deref())?;
        let id = parse_id(&p.id)?;
        let request = UpdateRequest {
            content: p.content,
            metadata: p.metadata.map(serde_json::Value::Object),
            memory_type: tier(p.memory_type.as_deref())?,
            ttl_secs: p.ttl,
        };
        render(self.service.update(&namespace, id, request).await, memory_json)
    }

    #[tool(
        description = "Delete a memory permanently, e.g. when the user asks to forget something.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn delete_memory(
        &self,
        Parameters(p): Parameters<MemoryIdParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let namespace = self.namespace(p.namespace.as_deref())?;
        let id = parse_id(&p.id)?;
        render(
            self.service.forget(&namespace, id).await,
            |()| serde_json::json!({ "deleted": id.to_string() }),
        )
    }

    #[tool(
        description = "List memories, newest event first, optionally filtered by tier, session or tags. For browsing; use retrieve_memory to search.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn list_memories(
        &self,
        Parameters(p): Parameters<ListMemoriesParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let namespace = self.namespace(p.namespace.as_deref())?;
        let filter = MemoryFilter {
            memory_types: tier(p.memory_type.as_deref())?.into_iter().collect(),
            session_id: p.session_id,
            tags: p.tags.unwrap_or_default(),
            include_archived: p.include_archived.unwrap_or(false),
            ..MemoryFilter::default()
        };
        let page = Page { offset: p.offset.unwrap_or(0), limit: p.limit.unwrap_or(20) };
        render(
            self.service.list(&namespace, &filter, page).await,
            |ms| serde_json::json!({ "memories": ms.iter().map(MemoryView::from).collect::<Vec<_>>() }),
        )
    }

    #[tool(
        description = "Counts of memories per namespace and tier, database size, and the embedding model's state.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn memory_stats(&self) -> Result<CallToolResult, ErrorData> {
        render(self.service.stats().await, rearview_api::stats)
    }

    #[tool(
        description = "Distil several episodic memories into one lasting semantic memory (e.g. repeated mentions of a habit become one preference), following an optional instruction. Written by the server's LLM when one is configured, else extractively (representative sentences); the result's `method` says which. The new memory lists its sources; the originals are archived by default. If the LLM fails, nothing changes.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn summarize_episodes(
        &self,
        Parameters(p): Parameters<SummarizeEpisodesParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let namespace = self.namespace(p.namespace.as_deref())?;
        let request = p.to_request().map_err(invalid)?;
        render(self.service.summarize_episodes(&namespace, request).await, distilled_json)
    }

    #[tool(
        description = "Propose groups of similar episodic memories worth distilling with summarize_episodes. Writes nothing; review the groups, then distil the ones that make sense.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn suggest_distillations(
        &self,
        Parameters(p): Parameters<SuggestParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let namespace = self.namespace(p.namespace.as_deref())?;
        let (threshold, min_size, limit) = p.resolve().map_err(invalid)?;
        let result =
            self.service.suggest_distillations(&namespace, threshold, min_size, limit).await;
        render(result, |g| suggestions_json(g))
    }

    #[tool(
        description = "End a conversation session: its working memories become episodic memories (key events extracted by the server's LLM when one is configured, otherwise each substantive user statement) and the working memories expire. Call once when a conversation is over.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn end_session(
        &self,
        Parameters(p): Parameters<EndSessionParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let namespace = self.namespace(p.namespace.as_deref())?;
        render(self.service.end_session(&namespace, &p.session_id).await, session_end_json)
    }

    #[tool(
        description = "Move memories to the cold archive: they stay stored but leave recall and listings unless include_archived is set. Reversible with restore_memory.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn archive_memory(
        &self,
        Parameters(p): Parameters<IdsParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let namespace = self.namespace(p.namespace.as_deref())?;
        let ids = p.ids().map_err(invalid)?;
        render(self.service.archive(&namespace, &ids).await, |m| memories_json(m))
    }

    #[tool(
        description = "Bring archived memories back into recall.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn restore_memory(
        &self,
        Parameters(p): Parameters<IdsParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let namespace = self.namespace(p.namespace.as_deref())?;
        let ids = p.ids().map_err(invalid)?;
        render(self.service.restore(&namespace, &ids).await, |m| memories_json(m))
    }

    #[tool(
        description = "Delete this namespace's expired memories (past their TTL) and report how many. Expired memories are already invisible to every read; this reclaims their space. The server also sweeps on its own schedule.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn cleanup_expired(
        &self,
        Parameters(p): Parameters<NamespaceParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let namespace = self.namespace(p.namespace.as_deref())?;
        let result = self.service.cleanup_expired(Some(&namespace)).await;
        render(result, |n| serde_json::json!({ "cleaned": n, "namespace": namespace.as_str() }))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RearviewMcp {
    /// Dispatches to the tool and logs the call (design §5.4: every tool call with its input and
    /// output, long text truncated, its duration and outcome) as one structured event.
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let started = std::time::Instant::now();
        let mut request = request;
        self.apply_namespace_header(&mut request, &context);
        let tool = request.name.to_string();
        let arguments = request.arguments.clone().unwrap_or_default();
        let input = excerpt(&serde_json::Value::Object(arguments.clone()).to_string());
        if let Err(e) = check_arguments(&tool, arguments) {
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            tracing::info!(tool, input, ms, outcome = "invalid_params", message = %e.message, "tool call");
            let operation =
                if TOOL_NAMES.contains(&tool.as_str()) { tool.as_str() } else { "unknown" };
            rearview_api::metrics::observe("mcp", operation, "invalid_params", started.elapsed());
            return Err(e);
        }
        let tcc = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let response = self.tool_router.call(tcc).await;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let outcome = match &response {
            Ok(rmcp::model::CallToolResponse::Complete(r)) if r.is_error == Some(true) => {
                "tool_error"
            }
            Ok(_) => "ok",
            Err(_) => "protocol_error",
        };
        let operation = if TOOL_NAMES.contains(&tool.as_str()) { tool.as_str() } else { "unknown" };
        rearview_api::metrics::observe("mcp", operation, outcome, started.elapsed());
        match &response {
            Ok(rmcp::model::CallToolResponse::Complete(result)) => {
                let output = result
                    .content
                    .first()
                    .and_then(|c| c.as_text())
                    .map(|t| excerpt(&t.text))
                    .unwrap_or_default();
                let outcome = if result.is_error == Some(true) { "tool_error" } else { "ok" };
                tracing::info!(tool, input, output, ms, outcome, "tool call");
            }
            Ok(_) => tracing::info!(tool, input, ms, outcome = "other", "tool call"),
            Err(e) => {
                tracing::info!(tool, input, ms, outcome = "protocol_error", code = e.code.0, message = %e.message, "tool call")
            }
        }
        response
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                rmcp::model::Implementation::new("rearview", env!("CARGO_PKG_VERSION"))
                    .with_title("rearview long-term memory"),
            )
            .with_instructions(INSTRUCTIONS)
    }
}

/// Deserialises `arguments` as `tool`'s parameters, so that a malformed argument (missing, wrong
/// type, unknown field) is a JSON-RPC invalid-params error naming the field. rmcp itself reports
/// such failures as tool errors, which clients and models read as "the tool ran and failed".
fn check_arguments(
    tool: &str,
    arguments: serde_json::Map<String, serde_json::Value>,
) -> Result<(), ErrorData> {
    fn check<T: serde::de::DeserializeOwned>(
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), ErrorData> {
        parse_arguments::<T>(arguments).map(drop)
    }
    match tool {
        "store_memory" => check::<StoreMemoryParams>(arguments),
        "retrieve_memory" => check::<RetrieveMemoryParams>(arguments),
        "get_memory" | "delete_memory" => check::<MemoryIdParams>(arguments),
        "update_memory" => check::<UpdateMemoryParams>(arguments),
        "list_memories" => check::<ListMemoriesParams>(arguments),
        "summarize_episodes" => check::<SummarizeEpisodesParams>(arguments),
        "suggest_distillations" => check::<SuggestParams>(arguments),
        "end_session" => check::<EndSessionParams>(arguments),
        "archive_memory" | "restore_memory" => check::<IdsParams>(arguments),
        "cleanup_expired" => check::<NamespaceParams>(arguments),
        _ => Ok(()),
    }
}

/// Every tool's name: the only values metrics use as an operation label.
const TOOL_NAMES: &[&str] = &[
    "store_memory",
    "retrieve_memory",
    "get_memory",
    "delete_memory",
    "update_memory",
    "list_memories",
    "summarize_episodes",
    "suggest_distillations",
    "end_session",
    "archive_memory",
    "restore_memory",
    "cleanup_expired",
];

/// `arguments` as a tool's parameter struct, or invalid-params naming the failing field.
fn parse_arguments<T: serde::de::DeserializeOwned>(
    arguments: serde_json::Map<String, serde_json::Value>,
) -> Result<T, ErrorData> {
    serde_path_to_error::deserialize(serde_json::Value::Object(arguments)).map_err(|e| {
        let path = e.path().to_string();
        let what = if path == "." {
            format!("invalid arguments: {}", e.inner())
        } else {
            format!("invalid argument `{path}`: {}", e.inner())
        };
        ErrorData::invalid_params(
            format!("{what}; the tool's input schema in tools/list says what is allowed"),
            None,
        )
    })
}

/// The `tools/list` answer as JSON (tools sorted by name): names, descriptions, input schemas and
/// annotations. Snapshot-tested, so a schema change is always a reviewed change.
pub fn tool_definitions() -> serde_json::Value {
    let mut tools = RearviewMcp::tool_router().list_all();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    serde_json::to_value(tools).unwrap_or_default()
}

/// The MCP service for Streamable HTTP, to mount at `/mcp` in an HTTP server. Each session gets
/// its own handler over the shared `service`; the `X-Rearview-Namespace` header picks a session's
/// namespace unless a call names one. Long-lived SSE streams get a keep-alive every 15 s (proxies
/// drop idle connections; design §5.4).
pub fn streamable_http(
    service: Arc<MemoryService>,
    default_namespace: Namespace,
) -> rmcp::transport::StreamableHttpService<
    RearviewMcp,
    rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
> {
    let config = rmcp::transport::StreamableHttpServerConfig::default()
        .with_sse_keep_alive(Some(std::time::Duration::from_secs(15)));
    rmcp::transport::StreamableHttpService::new(
        move || Ok(RearviewMcp::new(Arc::clone(&service), default_namespace.clone())),
        Arc::default(),
        config,
    )
}

/// Serves one MCP session on stdin/stdout until the client disconnects.
pub async fn serve_stdio(
    service: Arc<MemoryService>,
    namespace: Namespace,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use rmcp::ServiceExt;
    let running = RearviewMcp::new(service, namespace).serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}

impl RearviewMcp {
    /// Calls a tool by name outside an MCP session: the design's plain-HTTP
    /// `POST /mcp/tools/call {name, arguments}` (used by its LangChain example). Same tools, same
    /// validation, same results as over MCP.
    pub async fn call_json(
        &self,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Value, CallFailure> {
        let started = std::time::Instant::now();
        let result = match self.dispatch_json(name, arguments).await {
            Ok(result) if result.is_error != Some(true) => {
                Ok(result.structured_content.clone().unwrap_or_else(|| first_text(&result).into()))
            }
            Ok(result) => Err(CallFailure::ToolError(first_text(&result))),
            Err(e) if e.code == rmcp::model::ErrorCode::INVALID_PARAMS => {
                Err(CallFailure::InvalidArguments(e.message.to_string()))
            }
            Err(e) => Err(CallFailure::Internal(e.message.to_string())),
        };
        let outcome = match &result {
            Ok(_) => "ok",
            Err(CallFailure::ToolError(_)) => "tool_error",
            Err(CallFailure::InvalidArguments(_)) => "invalid_params",
            Err(CallFailure::Internal(_)) => "internal_error",
        };
        // Unknown names are not recorded as operations (they would let clients mint labels).
        let operation = if TOOL_NAMES.contains(&name) { name } else { "unknown" };
        rearview_api::metrics::observe("http-tools", operation, outcome, started.elapsed());
        result
    }

    async fn dispatch_json(
        &self,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<CallToolResult, ErrorData> {
        fn args<T: serde::de::DeserializeOwned>(
            arguments: serde_json::Map<String, serde_json::Value>,
        ) -> Result<Parameters<T>, ErrorData> {
            parse_arguments(arguments).map(Parameters)
        }
        match name {
            "store_memory" => self.store_memory(args(arguments)?).await,
            "retrieve_memory" => self.retrieve_memory(args(arguments)?).await,
            "get_memory" => self.get_memory(args(arguments)?).await,
            "update_memory" => self.update_memory(args(arguments)?).await,
            "delete_memory" => self.delete_memory(args(arguments)?).await,
            "list_memories" => self.list_memories(args(arguments)?).await,
            "memory_stats" => self.memory_stats().await,
            "summarize_episodes" => self.summarize_episodes(args(arguments)?).await,
            "cleanup_expired" => self.cleanup_expired(args(arguments)?).await,
            _ => Err(ErrorData::invalid_params(
                format!("unknown tool {name:?}; GET /mcp/tools/list names the tools"),
                None,
            )),
        }
    }

    /// Over HTTP, `X-Rearview-Namespace` supplies the namespace of calls that do not name one.
    fn apply_namespace_header(
        &self,
        request: &mut rmcp::model::CallToolRequestParams,
        context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    ) {
        let Some(parts) = context.extensions.get::<http::request::Parts>() else { return };
        let Some(namespace) =
            parts.headers.get("x-rearview-namespace").and_then(|v| v.to_str().ok())
        else {
            return;
        };
        let takes_namespace = self
            .tool_router
            .get(&request.name)
            .and_then(|t| t.input_schema.get("properties"))
            .is_some_and(|p| p.get("namespace").is_some());
        if takes_namespace {
            let args = request.arguments.get_or_insert_with(Default::default);
            args.entry("namespace").or_insert_with(|| namespace.into());
        }
    }

    fn namespace(&self, name: Option<&str>) -> Result<Namespace, ErrorData> {
        match name {
            None => Ok(self.default_namespace.clone()),
            Some(name) => name.parse().map_err(invalid),
        }
    }
}

/// Maps a service outcome onto MCP: success → structured result; the caller's mistake →
/// invalid params; a tool that ran and failed → tool error result; our fault → internal error.
fn render<T>(
    result: Result<T, ServiceError>,
    view: impl FnOnce(&T) -> serde_json::Value,
) -> Result<CallToolResult, ErrorData> {
    match result {
        Ok(value) => Ok(CallToolResult::structured(view(&value))),
        Err(e) => match e.kind() {
            ErrorKind::InvalidInput => Err(ErrorData::invalid_params(e.to_string(), None)),
            ErrorKind::NotFound | ErrorKind::Unavailable => Ok(tool_error(&e.to_string())),
            ErrorKind::Internal => {
                tracing::error!(error = ?e, "tool failed internally");
                Err(ErrorData::internal_error(format!("internal error: {e}"), None))
            }
        },
    }
}

/// Why a plain-HTTP tool call failed (see [`RearviewMcp::call_json`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallFailure {
    /// The arguments were wrong (unknown tool, bad field); the message names the fix.
    InvalidArguments(String),
    /// The tool ran and failed (not found, model unavailable).
    ToolError(String),
    /// Our fault; logged.
    Internal(String),
}

fn first_text(result: &CallToolResult) -> String {
    result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default()
}

/// `{"memory": …}`, the result of every tool that returns one memory.
fn memory_json(memory: &rearview_core::Memory) -> serde_json::Value {
    serde_json::json!({ "memory": MemoryView::from(memory) })
}

/// The first 300 characters of `text`, for logs.
fn excerpt(text: &str) -> String {
    rearview_core::truncate_chars(text, 300)
}

fn tool_error(message: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.to_owned())])
}

fn invalid(e: InputError) -> ErrorData {
    ErrorData::invalid_params(e.to_string(), None)
}

fn tier(name: Option<&str>) -> Result<Option<rearview_core::MemoryType>, ErrorData> {
    name.map(str::parse).transpose().map_err(invalid)
}

fn parse_id(id: &str) -> Result<MemoryId, ErrorData> {
    id.parse().map_err(invalid)
}
