//! The server loop (connections, read timeouts, graceful shutdown) and the request-level
//! plumbing every route shares: request ids and logs, buffered bodies with a size cap.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;

use crate::{ApiError, App, ErrorCode, HttpConfig};

/// Serves `app` on `listener` until `shutdown` completes; then stops accepting, ends open MCP
/// streams, and lets in-flight requests finish for up to [`HttpConfig::shutdown_grace`].
///
/// Each connection must send a request's headers within [`HttpConfig::read_timeout`] (hyper's
/// header read timeout), so slow or half-open connections are closed; at most
/// [`HttpConfig::max_connections`] are served at once.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: App,
    config: &HttpConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let connections = Arc::new(tokio::sync::Semaphore::new(config.max_connections));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(config.read_timeout).keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&connections).acquire_owned() => {
                permit.map_err(std::io::Error::other)?
            }
            () = &mut shutdown => break,
        };
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let service = TowerToHyperService::new(app.router.clone());
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    // MCP's SSE streams never end on their own: cancel the sessions, then wait for the rest.
    app.shutdown.cancel();
    if tokio::time::timeout(config.shutdown_grace, graceful.shutdown()).await.is_err() {
        tracing::warn!(
            grace_secs = config.shutdown_grace.as_secs(),
            "requests still in flight after the grace period; closing them"
        );
    }
    Ok(())
}

/// Numbers requests for logs and the `X-Request-Id` response header.
static NEXT_REQUEST_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// One debug log event per request (method, path, status, duration, request id), and the id
/// echoed as `X-Request-Id` so a client can quote it in a bug report. Tool calls and REST
/// operations are logged by the audit log.
pub(crate) async fn log_request(request: Request, next: Next) -> Response {
    let id = NEXT_REQUEST_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let started = std::time::Instant::now();
    let mut response = next.run(request).await;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    tracing::debug!(request_id = id, %method, path, status = response.status().as_u16(), ms, "http request");
    if let Ok(value) = axum::http::HeaderValue::from_str(&id.to_string()) {
        response.headers_mut().insert("x-request-id", value);
    }
    response
}

/// Reads the whole request body before any handler runs: at most `max` bytes (a declared or
/// streamed larger body, chunked included, is a 413 in our format), each chunk within
/// `timeout` (a stalled body is a 408). Bodies here are small JSON documents.
pub(crate) async fn read_body(
    max: usize,
    timeout: Duration,
    request: Request,
    next: Next,
) -> Response {
    let declared = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return ApiError::payload_too_large(max).into_response();
    }
    let (parts, body) = request.into_parts();
    let mut body = http_body_util::Limited::new(body, max);
    let mut bytes = Vec::new();
    loop {
        match tokio::time::timeout(timeout, body.frame()).await {
            Err(_) => {
                return ApiError::new(
                    ErrorCode::RequestTimeout,
                    format!("the request body stalled for {} s", timeout.as_secs()),
                )
                .into_response();
            }
            Ok(None) => break,
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    bytes.extend_from_slice(&data);
                }
            }
            Ok(Some(Err(e))) => {
                if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() {
                    return ApiError::payload_too_large(max).into_response();
                }
                return ApiError::bad_request(format!("reading the request body failed: {e}"))
                    .into_response();
            }
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}
