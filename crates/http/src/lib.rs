//! rearview's HTTP server: Streamable HTTP MCP at `/mcp`, the design's plain-HTTP tool endpoints
//! (`GET /mcp/tools/list`, `POST /mcp/tools/call`), `/healthz` and `/readyz`.
//!
//! This is the only crate that depends on `axum`. Handlers only parse, call the service and
//! render. The REST API (`/v1/…`) and its OpenAPI document are the next step (issue #4).

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Json};
use axum::routing::{get, post};
use rearview_core::Namespace;
use rearview_service::MemoryService;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// All use cases.
    pub service: Arc<MemoryService>,
    /// The MCP tools, for the design's plain-HTTP compatibility endpoints.
    pub tools: rearview_mcp::RearviewMcp,
}

/// The application: MCP at `/mcp`, health at `/healthz` (process up) and `/readyz` (store
/// answers).
pub fn router(service: Arc<MemoryService>, default_namespace: Namespace) -> Router {
    let tools = rearview_mcp::RearviewMcp::new(Arc::clone(&service), default_namespace.clone());
    let mcp = rearview_mcp::streamable_http(Arc::clone(&service), default_namespace);
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        // The design's plain-HTTP tool endpoints (its LangChain example calls these directly).
        .route("/mcp/tools/list", get(tools_list))
        .route("/mcp/tools/call", post(tools_call))
        .nest_service("/mcp", mcp)
        .with_state(AppState { service, tools })
}

/// Serves `app` on `listener` until `shutdown` completes, then lets in-flight requests finish.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await
}

async fn healthz() -> impl IntoResponse {
    Json(serde_json::json!({ "status": "ok" }))
}

async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    match state.service.stats().await {
        Ok(stats) => (
            StatusCode::OK,
            Json(
                serde_json::json!({ "status": "ready", "embedding": rearview_api::stats(&stats)["embedding"] }),
            ),
        ),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(serde_json::json!({ "code": "unavailable", "message": e.to_string() })),
        ),
    }
}

/// `GET /mcp/tools/list` → `{"tools": [...]}`, the same definitions MCP's `tools/list` returns.
async fn tools_list() -> impl IntoResponse {
    Json(serde_json::json!({ "tools": rearview_mcp::tool_definitions() }))
}

/// A call of the design's `POST /mcp/tools/call`.
#[derive(serde::Deserialize)]
struct ToolCall {
    name: String,
    #[serde(default)]
    arguments: serde_json::Map<String, serde_json::Value>,
}

/// `POST /mcp/tools/call {name, arguments}` → `{"result": …}` (200), or `{"error": …}` with 400
/// for bad arguments, 422 for a tool that ran and failed, 500 for our faults.
async fn tools_call(
    State(state): State<AppState>,
    Json(call): Json<ToolCall>,
) -> impl IntoResponse {
    use rearview_mcp::CallFailure;
    let (status, body) = match state.tools.call_json(&call.name, call.arguments).await {
        Ok(result) => (StatusCode::OK, serde_json::json!({ "result": result })),
        Err(CallFailure::InvalidArguments(m)) => {
            (StatusCode::BAD_REQUEST, serde_json::json!({ "error": m }))
        }
        Err(CallFailure::ToolError(m)) => {
            (StatusCode::UNPROCESSABLE_ENTITY, serde_json::json!({ "error": m }))
        }
        Err(CallFailure::Internal(m)) => {
            (StatusCode::INTERNAL_SERVER_ERROR, serde_json::json!({ "error": m }))
        }
    };
    (status, Json(body))
}
