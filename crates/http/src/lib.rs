//! rearview's HTTP server: Streamable HTTP MCP at `/mcp`, `/healthz` and `/readyz`.
//!
//! This is the only crate that depends on `axum`. Handlers only parse, call the service and
//! render. The REST API (`/v1/…`), its OpenAPI document and the design's `/mcp/tools/*`
//! compatibility endpoints are the next step (issue #4).

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Json};
use axum::routing::get;
use rearview_core::Namespace;
use rearview_service::MemoryService;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// All use cases.
    pub service: Arc<MemoryService>,
}

/// The application: MCP at `/mcp`, health at `/healthz` (process up) and `/readyz` (store
/// answers).
pub fn router(service: Arc<MemoryService>, default_namespace: Namespace) -> Router {
    let mcp = rearview_mcp::streamable_http(Arc::clone(&service), default_namespace);
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .nest_service("/mcp", mcp)
        .with_state(AppState { service })
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
