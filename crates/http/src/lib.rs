//! rearview's HTTP server: Streamable HTTP MCP at `/mcp`, the design's plain-HTTP tool endpoints
//! (`GET /mcp/tools/list`, `POST /mcp/tools/call`), the REST API under `/v1`, `/metrics`,
//! `/healthz` and `/readyz`.
//!
//! This is the only crate that depends on `axum`. Handlers only parse, call the service and
//! render. REST: `POST/GET /v1/memories`, `GET/PATCH/DELETE /v1/memories/{id}`,
//! `POST /v1/recall`, `GET /v1/stats`, `POST /v1/cleanup`, and the lifecycle: `POST /v1/archive`,
//! `/v1/restore`, `/v1/sessions/end`, `/v1/summarize`, `/v1/suggest-distillations`. Errors are
//! `{"code", "message"}` (see [`ApiError`]), including 404, 405 and 413. The OpenAPI 3.1 document
//! is at `/openapi.json` ([`openapi::document`]).
//!
//! Every request passes the gate of `guard.rs` (outermost first): Host/Origin validation,
//! authentication by API key from the headers alone (the key's grant becomes the request's
//! [`rearview_service::Caller`]; failures logged and limited per address), the per-key rate
//! limit, the MCP session rules (caps in all and per key, a session bound to its key), admission
//! (load shedding past [`HttpConfig::max_in_flight`] and past a key's share), then the body
//! (size cap, a stalled or too slow body refused). REST calls are audited in `audit.rs`, tool calls in
//! `rearview-mcp`.

mod audit;
mod console;
mod error;
mod guard;
mod idle;
pub mod openapi;
pub mod routes;
mod serve;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Json};
use axum::routing::{get, post};
use rearview_core::Namespace;
use rearview_service::MemoryService;

pub use error::{ApiError, ErrorCode};
pub use guard::{AuthMode, RateLimit};
pub use idle::Activity;
pub use serve::serve;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// All use cases.
    pub service: Arc<MemoryService>,
    /// The MCP tools, for the design's plain-HTTP compatibility endpoints.
    pub tools: rearview_mcp::RearviewMcp,
    /// Namespace of requests that name none (and whose key grants more than one).
    pub default_namespace: Namespace,
}

/// Limits and access rules of the HTTP server. [`Default`] is a server on loopback.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Largest accepted request body, in bytes (default 1 MiB). Larger requests, chunked ones
    /// included, get a 413 `payload_too_large` before anything is applied.
    pub max_request_bytes: usize,
    /// When API keys are required.
    pub auth: AuthMode,
    /// `/metrics` without a key (else it needs an admin key).
    pub metrics_public: bool,
    /// Hosts the server answers (`Host` and a browser's `Origin`): names or `name:port`.
    pub allowed_hosts: Vec<String>,
    /// Per-key rate limit; `None` = unlimited.
    pub rate_limit: Option<RateLimit>,
    /// Requests processed at once; past that, 503 with `Retry-After` instead of a queue.
    pub max_in_flight: usize,
    /// Open MCP sessions; past that, a new session gets 503.
    pub max_mcp_sessions: usize,
    /// Open MCP sessions one key may hold (so one tenant cannot take them all); past that, its
    /// new session gets 503.
    pub max_mcp_sessions_per_key: usize,
    /// An MCP session idle this long is closed.
    pub mcp_session_idle: Duration,
    /// A client must send a request's headers within this time (slow or half-open connections
    /// are closed), each chunk of its body within this time, and the whole body within three
    /// times it.
    pub read_timeout: Duration,
    /// Open connections served as usual; past that, half as many more are accepted, each of
    /// which must send its request within a second and is closed after it (a flood of idle
    /// connections cannot keep a health probe waiting), and the rest wait in the kernel's
    /// backlog.
    pub max_connections: usize,
    /// How long a stopping server lets in-flight requests finish before it closes them.
    pub shutdown_grace: Duration,
    /// Serve the console's files from this directory instead of the ones built in (development).
    pub console_dir: Option<std::path::PathBuf>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            max_request_bytes: 1 << 20,
            auth: AuthMode::WhenKeysExist,
            metrics_public: false,
            allowed_hosts: ["localhost", "127.0.0.1", "[::1]"].map(str::to_owned).to_vec(),
            rate_limit: Some(RateLimit {
                per_second: std::num::NonZeroU32::new(50).unwrap_or(std::num::NonZeroU32::MIN),
                burst: std::num::NonZeroU32::new(100).unwrap_or(std::num::NonZeroU32::MIN),
            }),
            max_in_flight: 256,
            max_mcp_sessions: 256,
            max_mcp_sessions_per_key: 32,
            mcp_session_idle: Duration::from_secs(300),
            read_timeout: Duration::from_secs(10),
            max_connections: 1024,
            shutdown_grace: Duration::from_secs(10),
            console_dir: None,
        }
    }
}

/// The application and the token that, cancelled, ends every open MCP stream (cancel it when
/// the server stops, or SSE clients hold it open).
pub struct App {
    /// The routes with every middleware.
    pub router: Router,
    /// Cancels MCP sessions.
    pub shutdown: tokio_util::sync::CancellationToken,
}

/// [`router_with`] and the default [`HttpConfig`].
pub fn router(service: Arc<MemoryService>, default_namespace: Namespace) -> Router {
    router_with(service, default_namespace, &HttpConfig::default()).router
}

/// The application: MCP at `/mcp`, health at `/healthz` (process up) and `/readyz` (store
/// answers), the REST API under `/v1`, each behind the gate.
pub fn router_with(
    service: Arc<MemoryService>,
    default_namespace: Namespace,
    config: &HttpConfig,
) -> App {
    let shutdown = tokio_util::sync::CancellationToken::new();
    let sessions = rearview_mcp::sessions(config.mcp_session_idle);
    let limits = rearview_mcp::HttpLimits {
        max_request_bytes: config.max_request_bytes,
        allowed_hosts: config.allowed_hosts.clone(),
    };
    let mcp = rearview_mcp::streamable_http(
        Arc::clone(&service),
        default_namespace.clone(),
        &limits,
        Arc::clone(&sessions),
        shutdown.clone(),
    );
    let guard = Arc::new(guard::Guard::new(Arc::clone(&service), config, sessions));
    let tools = rearview_mcp::RearviewMcp::new(Arc::clone(&service), default_namespace.clone());
    let max = config.max_request_bytes;
    let read_timeout = config.read_timeout;
    let access = openapi::Access { auth: config.auth, metrics_public: config.metrics_public };
    let document = Arc::new(std::sync::OnceLock::new());
    let protected = Router::new()
        .route("/metrics", get(metrics))
        .route("/v1/memories", post(routes::memories::store).get(routes::memories::list))
        .route(
            "/v1/memories/{id}",
            get(routes::memories::get)
                .patch(routes::memories::patch)
                .delete(routes::memories::delete),
        )
        .route("/v1/memories/{id}/history", get(routes::memories::history))
        .route("/v1/link", post(routes::links::link))
        .route("/v1/unlink", post(routes::links::unlink))
        .route("/v1/possible-updates", get(routes::links::pending))
        .route("/v1/keys", get(routes::keys::list).post(routes::keys::create))
        .route("/v1/keys/{id}/revoke", post(routes::keys::revoke))
        .route("/v1/recall", post(routes::recall::recall))
        .route("/v1/timeline", get(routes::recall::timeline))
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
        .nest_service(
            "/mcp",
            Router::new().fallback_service(mcp).layer(axum::middleware::from_fn(session_closed_ok)),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(AppState { service: Arc::clone(&service), tools, default_namespace })
        .layer(axum::middleware::from_fn(audit::audit_rest));
    let public = Router::new()
        .route("/openapi.json", get(move || std::future::ready(openapi_json(access, &document))))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .merge(console::routes(config.console_dir.clone()))
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(service);
    // Outermost first: log, Host check, authentication (headers only), admission, the body.
    let router = protected
        .merge(public)
        .layer(axum::middleware::from_fn(move |request, next| {
            serve::read_body(max, read_timeout, request, next)
        }))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&guard), guard::admit))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&guard), guard::authenticate))
        .layer(axum::middleware::from_fn_with_state(guard, guard::check_host))
        .layer(axum::middleware::from_fn(serve::log_request));
    App { router, shutdown }
}

/// `GET /metrics`: Prometheus (OpenMetrics) text.
async fn metrics(State(state): State<AppState>) -> Result<axum::response::Response, ApiError> {
    let stats = state.service.stats().await?;
    let body = rearview_telemetry::metrics::render(&stats);
    Ok(([(axum::http::header::CONTENT_TYPE, rearview_telemetry::metrics::CONTENT_TYPE)], body)
        .into_response())
}

async fn healthz() -> impl IntoResponse {
    Json(serde_json::json!({ "status": "ok" }))
}

/// `GET /openapi.json`: the document, built and serialised once per router, when first asked.
fn openapi_json(
    access: openapi::Access,
    document: &std::sync::OnceLock<axum::body::Bytes>,
) -> impl IntoResponse + use<> {
    let body = document.get_or_init(|| {
        serde_json::to_vec(&openapi::document(access)).expect("JSON serialises").into()
    });
    ([(axum::http::header::CONTENT_TYPE, "application/json")], body.clone())
}

async fn readyz(
    State(service): State<Arc<MemoryService>>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let stats =
        service.stats().await.map_err(|e| ApiError::new(ErrorCode::Unavailable, e.to_string()))?;
    let answer = rearview_api::StatsAnswer::new(&stats, None);
    Ok(Json(serde_json::json!({ "status": "ready", "embedding": answer.embedding })))
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    let path: String = uri.path().chars().take(200).collect();
    ApiError::new(ErrorCode::NotFound, format!("no route {path:?}; /openapi.json lists the API"))
}

async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    let path: String = uri.path().chars().take(200).collect();
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("{method} is not allowed on {path:?}; /openapi.json lists the methods"),
    )
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

/// `POST /mcp/tools/call {name, arguments}` → `{"result": …}` (200) in the design's shapes
/// where it defines them ([`rearview_api::compat`]), or `{"code", "message", "error"}` with 400
/// for bad arguments, 403 for a namespace outside the key's grant, 422 for a tool that ran and
/// failed, 500 for our faults. Honours `X-Rearview-Namespace` like `/mcp`.
async fn tools_call(
    State(state): State<AppState>,
    tenant: routes::Tenant,
    body: Result<Json<ToolCall>, axum::extract::rejection::JsonRejection>,
) -> axum::response::Response {
    use rearview_mcp::Failure;
    let Json(call) = match body {
        Ok(body) => body,
        Err(rejection) => return ApiError::from(rejection).into_response(),
    };
    let context = tenant.call();
    match state.tools.call_json(&context, &call.name, call.arguments).await {
        Ok(result) => {
            let result = rearview_api::compat::design_result(&call.name, result);
            (StatusCode::OK, Json(serde_json::json!({ "result": result }))).into_response()
        }
        Err(failure) => {
            let code = match &failure {
                Failure::InvalidArguments(_) => ErrorCode::InvalidInput,
                Failure::Forbidden(_) => ErrorCode::Forbidden,
                Failure::ToolError(_) => ErrorCode::ToolError,
                Failure::Internal(_) => ErrorCode::Internal,
            };
            // `error` is what this endpoint always answered; `code` and `message` are the format
            // of every other error.
            let message = failure.message();
            let error = ApiError::new(code, message);
            let mut body = error.body();
            body["error"] = message.into();
            (error.status(), Json(body)).into_response()
        }
    }
}

/// A closed MCP session answers 200: rmcp answers a session's `DELETE /mcp` with 202, which the
/// official Python client reports as "Session termination failed: 202" (it expects 200 or 204).
async fn session_closed_ok(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let delete = request.method() == axum::http::Method::DELETE;
    let mut response = next.run(request).await;
    if delete && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::OK;
    }
    response
}
