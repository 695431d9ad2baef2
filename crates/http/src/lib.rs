//! rearview's HTTP server: Streamable HTTP MCP at `/mcp`, the design's plain-HTTP tool endpoints
//! (`GET /mcp/tools/list`, `POST /mcp/tools/call`), `/healthz` and `/readyz`.
//!
//! This is the only crate that depends on `axum`. Handlers only parse, call the service and
//! render. REST: `POST/GET /v1/memories`, `GET/PATCH/DELETE /v1/memories/{id}`,
//! `POST /v1/recall`, `GET /v1/stats`, `POST /v1/cleanup`, and the lifecycle: `POST /v1/archive`,
//! `/v1/restore`, `/v1/sessions/end`, `/v1/summarize`, `/v1/suggest-distillations`. Errors are `{"code", "message"}` (see [`ApiError`]). The OpenAPI 3.1
//! document is at `/openapi.json` ([`openapi::document`]).

mod error;
pub mod openapi;
pub mod routes;

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
    /// Namespace of requests without an `X-Rearview-Namespace` header.
    pub default_namespace: Namespace,
}

pub use error::ApiError;

/// Limits of the HTTP server.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Largest accepted request body, in bytes (default 1 MiB). Larger requests get a 413
    /// `payload_too_large` before any of them is read or applied.
    pub max_request_bytes: usize,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self { max_request_bytes: 1 << 20 }
    }
}

/// [`router_with`] and the default [`HttpConfig`].
pub fn router(service: Arc<MemoryService>, default_namespace: Namespace) -> Router {
    router_with(service, default_namespace, &HttpConfig::default())
}

/// The application: MCP at `/mcp`, health at `/healthz` (process up) and `/readyz` (store
/// answers), the REST API under `/v1`.
pub fn router_with(
    service: Arc<MemoryService>,
    default_namespace: Namespace,
    config: &HttpConfig,
) -> Router {
    let max = config.max_request_bytes;
    let tools = rearview_mcp::RearviewMcp::new(Arc::clone(&service), default_namespace.clone());
    let mcp = rearview_mcp::streamable_http(Arc::clone(&service), default_namespace.clone());
    Router::new()
        .route("/openapi.json", get(|| async { Json(openapi::document()) }))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/readyz", get(readyz))
        .route("/v1/memories", post(routes::memories::store).get(routes::memories::list))
        .route(
            "/v1/memories/{id}",
            get(routes::memories::get)
                .patch(routes::memories::patch)
                .delete(routes::memories::delete),
        )
        .route("/v1/recall", post(routes::recall::recall))
        .route("/v1/stats", get(routes::recall::stats))
        .route("/v1/summarize", post(routes::lifecycle::summarize))
        .route("/v1/suggest-distillations", post(routes::lifecycle::suggest))
        .route("/v1/sessions/end", post(routes::lifecycle::end_session))
        .route("/v1/archive", post(routes::lifecycle::archive))
        .route("/v1/restore", post(routes::lifecycle::restore))
        .route("/v1/cleanup", post(routes::recall::cleanup))
        // The design's plain-HTTP tool endpoints (its LangChain example calls these directly).
        .route("/mcp/tools/list", get(tools_list))
        .route("/mcp/tools/call", post(tools_call))
        .nest_service("/mcp", mcp)
        .with_state(AppState { service, tools, default_namespace })
        .layer(axum::extract::DefaultBodyLimit::max(max))
        .layer(axum::middleware::from_fn(move |request, next| limit_body(max, request, next)))
        .layer(axum::middleware::from_fn(log_request))
}

/// Serves `app` on `listener` until `shutdown` completes, then lets in-flight requests finish.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await
}

/// `GET /metrics`: Prometheus (OpenMetrics) text.
async fn metrics(State(state): State<AppState>) -> Result<axum::response::Response, ApiError> {
    let stats = state.service.stats().await?;
    let body = rearview_api::metrics::render(&stats);
    Ok(([(axum::http::header::CONTENT_TYPE, rearview_api::metrics::CONTENT_TYPE)], body)
        .into_response())
}

/// Numbers requests for logs and the `X-Request-Id` response header.
static NEXT_REQUEST_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// One structured log event per request (method, path, status, duration, request id), and the
/// id echoed as `X-Request-Id` so a client can quote it in a bug report. MCP tool calls are
/// additionally logged with their input and output by `rearview-mcp`.
async fn log_request(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let id = NEXT_REQUEST_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    // The route pattern (`/v1/memories/{id}`), never the raw path: labels stay bounded.
    let route = request
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let started = std::time::Instant::now();
    let mut response = next.run(request).await;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    // MCP traffic is counted per tool by rearview-mcp; scrapes are not worth counting.
    if !route.starts_with("/mcp") && route != "/metrics" {
        let outcome = format!("{}xx", response.status().as_u16() / 100);
        rearview_api::metrics::observe(
            "rest",
            &format!("{method} {route}"),
            &outcome,
            started.elapsed(),
        );
    }
    tracing::info!(request_id = id, %method, path, status = response.status().as_u16(), ms, "http request");
    if let Ok(value) = axum::http::HeaderValue::from_str(&id.to_string()) {
        response.headers_mut().insert("x-request-id", value);
    }
    response
}

/// Refuses a declared oversized body at once and caps streamed ones (the MCP endpoint reads its
/// body itself, past axum's extractor limit).
async fn limit_body(
    max: usize,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let declared = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return ApiError::payload_too_large(max).into_response();
    }
    let (parts, body) = request.into_parts();
    let body = axum::body::Body::new(http_body_util::Limited::new(body, max));
    next.run(axum::extract::Request::from_parts(parts, body)).await
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
