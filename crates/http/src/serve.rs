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
    // Past the cap, a connection must send its request within a second and is closed after it.
    let overflow = Arc::new(tokio::sync::Semaphore::new((config.max_connections / 2).max(1)));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(config.read_timeout).keep_alive(true);
    let mut pressed = hyper::server::conn::http1::Builder::new();
    pressed.timer(TokioTimer::new()).header_read_timeout(Duration::from_secs(1)).keep_alive(false);
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = acquire(&connections, &overflow) => permit?,
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
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
        // The client's address, for the gate (failed authentications are limited per address).
        let router = app.router.clone();
        let service = tower::ServiceExt::map_request(router, move |mut request: Request<_>| {
            request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
            request
        });
        let service = TowerToHyperService::new(service);
        let overflowing = permit.overflow;
        let connection = if overflowing { &pressed } else { &builder }
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, overflowing, "connection ended with an error");
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

/// A connection's place, held while it is open: among the ones served as usual, or past the
/// cap (see [`HttpConfig::max_connections`]).
struct Place {
    _permit: tokio::sync::OwnedSemaphorePermit,
    overflow: bool,
}

/// A place for the next connection: a usual one if free, else an overflow one, else the first
/// of either to free up.
async fn acquire(
    normal: &Arc<tokio::sync::Semaphore>,
    overflow: &Arc<tokio::sync::Semaphore>,
) -> std::io::Result<Place> {
    let place = |overflow| move |permit| Place { _permit: permit, overflow };
    if let Ok(permit) = Arc::clone(normal).try_acquire_owned() {
        return Ok(place(false)(permit));
    }
    if let Ok(permit) = Arc::clone(overflow).try_acquire_owned() {
        return Ok(place(true)(permit));
    }
    tokio::select! {
        permit = Arc::clone(normal).acquire_owned() => permit.map(place(false)),
        permit = Arc::clone(overflow).acquire_owned() => permit.map(place(true)),
    }
    .map_err(std::io::Error::other)
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
/// `timeout` and all of it within three times that (a stalled or trickled body is a 408).
/// Bodies here are small JSON documents.
pub(crate) async fn read_body(
    max: usize,
    timeout: Duration,
    request: Request,
    next: Next,
) -> Response {
    let deadline = tokio::time::Instant::now() + timeout * 3;
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
        // Each chunk within `timeout`, the whole body within three times it: a client that
        // trickles a byte at a time does not hold the request open for long.
        let wait = timeout.min(deadline.saturating_duration_since(tokio::time::Instant::now()));
        match tokio::time::timeout(wait, body.frame()).await {
            Err(_) => {
                return ApiError::new(
                    ErrorCode::RequestTimeout,
                    format!(
                        "the request body stalled, or took longer than {} s in all",
                        3 * timeout.as_secs()
                    ),
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
