//! rearview over the Model Context Protocol.
//!
//! [`RearviewMcp`] is an `rmcp` server handler exposing the design's tools (`store_memory`,
//! `retrieve_memory`, `summarize_episodes`, `cleanup_expired`) plus what agents need to manage
//! memory. The tools are declared once, in the registry of `tools.rs`: `tools/list`, `tools/call`,
//! the design's plain-HTTP [`RearviewMcp::call_json`] and the metric labels all come from it.
//! Every tool parses its arguments, resolves its namespace against the caller's grant, calls
//! [`MemoryService`], and renders the result as structured JSON (the shapes of `rearview-api`).
//! This is the only crate that depends on `rmcp`.
//!
//! Errors follow rmcp's rule: malformed arguments are a JSON-RPC invalid-params error naming the
//! field; a tool that ran and failed (not found, model unavailable, a namespace outside the key's
//! grant) is a tool result with `isError: true` and a message a person can act on; internal
//! faults are internal errors, logged with their cause. Every call is one audit event
//! ([`rearview_telemetry::audit`]).
//!
//! **Callers.** Over Streamable HTTP the server's HTTP layer authenticates each request and puts
//! a [`Caller`] into the request's extensions; a request that reaches a tool without one is
//! refused (fail closed). Over stdio the caller is the trusted local user.
//!
//! Nothing here writes to stdout: over stdio, stdout is the protocol channel.

mod params;
mod tools;

use std::sync::Arc;

use rearview_core::Namespace;
use rearview_service::{Caller, MemoryService};
use rearview_telemetry::audit::{self, AuditEvent};
use rmcp::model::{
    CallToolResult, ContentBlock, JsonObject, ListToolsResult, ServerCapabilities, ServerConfig,
};
use rmcp::{ErrorData, ServerHandler};

pub use params::*;
pub use tools::{Call, Failure, TOOL_NAMES};

/// Instructions sent to the client at initialisation: when a model should store and retrieve.
const INSTRUCTIONS: &str = include_str!("instructions.md");

/// The MCP server: one per connection, sharing one service.
#[derive(Clone)]
pub struct RearviewMcp {
    /// Every tool calls only this.
    service: Arc<MemoryService>,
    /// The namespace used when a call names none (from the connection's settings).
    default_namespace: Namespace,
}

impl std::fmt::Debug for RearviewMcp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RearviewMcp").field("default_namespace", &self.default_namespace).finish()
    }
}

impl RearviewMcp {
    /// A handler serving `service`, in `default_namespace` unless a call names another.
    pub fn new(service: Arc<MemoryService>, default_namespace: Namespace) -> Self {
        Self { service, default_namespace }
    }

    /// Runs tool `name` for `call` and writes its audit event: the one path of every tool call,
    /// on every transport.
    pub async fn invoke(
        &self,
        transport: &str,
        call: &Call,
        name: &str,
        arguments: JsonObject,
    ) -> Result<serde_json::Value, Failure> {
        let started = std::time::Instant::now();
        let audited = audit::enabled();
        let input = if audited {
            serde_json::Value::Object(arguments.clone()).to_string()
        } else {
            String::new()
        };
        let result = self.dispatch(call, name, arguments).await;
        let output = match &result {
            _ if !audited => String::new(),
            Ok(value) => value.to_string(),
            Err(failure) => failure.message().to_owned(),
        };
        audit::record(&AuditEvent {
            transport,
            // Unknown names are not recorded as operations (they would let clients mint labels).
            tool: if TOOL_NAMES.contains(&name) { name } else { "unknown" },
            namespace: call.namespace.get().map(String::as_str),
            key_id: call.caller.key_id(),
            outcome: result.as_ref().map_or_else(Failure::outcome, |_| "ok"),
            duration: started.elapsed(),
            input: &input,
            output: &output,
        });
        result
    }

    /// Calls a tool by name outside an MCP session: the design's plain-HTTP
    /// `POST /mcp/tools/call {name, arguments}`. Same tools, same validation, same grant checks
    /// as over MCP; the answer is the tool's structured result.
    pub async fn call_json(
        &self,
        call: &Call,
        name: &str,
        arguments: JsonObject,
    ) -> Result<serde_json::Value, Failure> {
        self.invoke("http-tools", call, name, arguments).await
    }
}

impl ServerHandler for RearviewMcp {
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let call = match context.extensions.get::<http::request::Parts>() {
            // Streamable HTTP: the HTTP layer authenticated this request.
            Some(parts) => {
                let Some(caller) = parts.extensions.get::<Caller>() else {
                    return Err(ErrorData::internal_error(
                        "request reached the MCP handler without authentication",
                        None,
                    ));
                };
                let header = match parts.headers.get("x-rearview-namespace") {
                    None => None,
                    Some(v) => Some(
                        rearview_api::namespace_header(v.as_bytes())
                            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?,
                    ),
                };
                Call::new(caller.clone(), header)
            }
            // stdio: the local user.
            None => Call::new(Caller::trusted(), None),
        };
        let arguments = request.arguments.unwrap_or_default();
        let result = self.invoke("mcp", &call, &request.name, arguments).await;
        match result {
            Ok(value) => Ok(CallToolResult::structured(value).into()),
            Err(Failure::InvalidArguments(m)) => Err(ErrorData::invalid_params(m, None)),
            Err(Failure::Forbidden(m) | Failure::ToolError(m)) => {
                Ok(CallToolResult::error(vec![ContentBlock::text(m)]).into())
            }
            Err(Failure::Internal(m)) => Err(ErrorData::internal_error(m, None)),
        }
    }

    async fn list_tools(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::definitions()))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        tools::definitions().into_iter().find(|t| t.name == name)
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

/// The `tools/list` answer as JSON (tools sorted by name): names, descriptions, input schemas and
/// annotations. Snapshot-tested, so a schema change is always a reviewed change.
pub fn tool_definitions() -> serde_json::Value {
    // Fixed data, snapshot-tested: it serialises or the tests fail.
    serde_json::to_value(tools::definitions()).expect("the tool definitions serialise")
}

/// Limits of the Streamable HTTP endpoint.
#[derive(Debug, Clone)]
pub struct HttpLimits {
    /// Largest POST body; larger ones (chunked too) get 413.
    pub max_request_bytes: usize,
    /// Hosts (`name` or `name:port`) the endpoint answers; rmcp's DNS-rebinding check.
    pub allowed_hosts: Vec<String>,
}

/// The session manager of the Streamable HTTP endpoint; shared so the HTTP layer can count open
/// sessions and refuse new ones past its cap.
pub type Sessions = rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// The MCP service for Streamable HTTP, to mount at `/mcp` in an HTTP server. Each session gets
/// its own handler over the shared `service`. Long-lived SSE streams get a keep-alive every 15 s
/// (proxies drop idle connections; design §5.4). Cancelling `shutdown` ends every open session
/// and stream, so a server can stop while clients hold SSE streams.
pub fn streamable_http(
    service: Arc<MemoryService>,
    default_namespace: Namespace,
    limits: &HttpLimits,
    sessions: Arc<Sessions>,
    shutdown: tokio_util::sync::CancellationToken,
) -> rmcp::transport::StreamableHttpService<RearviewMcp, Sessions> {
    let config = rmcp::transport::StreamableHttpServerConfig::default()
        .with_sse_keep_alive(Some(std::time::Duration::from_secs(15)))
        .with_allowed_hosts(limits.allowed_hosts.clone())
        .with_max_request_body_bytes(limits.max_request_bytes)
        .with_cancellation_token(shutdown);
    rmcp::transport::StreamableHttpService::new(
        move || Ok(RearviewMcp::new(Arc::clone(&service), default_namespace.clone())),
        sessions,
        config,
    )
}

/// A session manager whose sessions close after `idle` without traffic.
pub fn sessions(idle: std::time::Duration) -> Arc<Sessions> {
    let mut manager = Sessions::default();
    manager.session_config.keep_alive = Some(idle);
    Arc::new(manager)
}

/// How many MCP sessions are open.
pub async fn open_sessions(sessions: &Sessions) -> usize {
    sessions.sessions.read().await.len()
}

/// The ids of the open MCP sessions.
pub async fn open_session_ids(sessions: &Sessions) -> std::collections::HashSet<String> {
    sessions.sessions.read().await.keys().map(ToString::to_string).collect()
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
