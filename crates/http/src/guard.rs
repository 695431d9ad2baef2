//! The gate in front of every route, in the order a request meets it: Host and Origin validation
//! (DNS rebinding); authentication by API key from the headers alone, before any body is read
//! or any slot taken (failed attempts logged and limited per client address); the per-key rate
//! limit; MCP sessions capped in all and per key, and bound to the key that opened them;
//! admission (load shedding past `max_in_flight`, and past a key's share of it).

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use rearview_service::{Caller, MemoryService};

use crate::{ApiError, ErrorCode};

/// When API keys are required.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMode {
    /// Always (a server on a non-loopback address): no key, no access.
    Required,
    /// From the moment any key exists (a server on loopback); until then the local user is
    /// trusted. Once seen, keys stay required for the life of the process.
    WhenKeysExist,
    /// Never (`--insecure-no-auth`): callers without a key are trusted with every namespace. A
    /// request that does present a key is still held to that key's grant.
    Off,
}

/// A per-key request budget: a token bucket refilled at `per_second`, holding at most `burst`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Sustained requests per second per key.
    pub per_second: NonZeroU32,
    /// Requests a key may send at once after being idle.
    pub burst: NonZeroU32,
}

/// The gate's state, shared by its middlewares.
pub(crate) struct Guard {
    pub(crate) service: Arc<MemoryService>,
    pub(crate) auth: AuthMode,
    /// Keys have been seen (for [`AuthMode::WhenKeysExist`]).
    keys_seen: AtomicBool,
    pub(crate) metrics_public: bool,
    /// Lower-cased `host` or `host:port` entries.
    hosts: Vec<String>,
    limiter: Option<DefaultKeyedRateLimiter<String>>,
    /// Failed authentications per client address.
    failures: DefaultKeyedRateLimiter<IpAddr>,
    pub(crate) sessions: Arc<rearview_mcp::Sessions>,
    pub(crate) max_sessions: usize,
    max_sessions_per_key: usize,
    /// Who opened each MCP session (an API key's id; `""` for the trusted local user).
    owners: Mutex<HashMap<String, String>>,
    /// Requests in flight in all, and per key.
    in_flight: Arc<tokio::sync::Semaphore>,
    per_key: Mutex<HashMap<String, usize>>,
    max_in_flight_per_key: usize,
}

impl Guard {
    pub(crate) fn new(
        service: Arc<MemoryService>,
        config: &crate::HttpConfig,
        sessions: Arc<rearview_mcp::Sessions>,
    ) -> Self {
        Self {
            service,
            auth: config.auth,
            keys_seen: AtomicBool::new(false),
            metrics_public: config.metrics_public,
            hosts: config.allowed_hosts.iter().map(|h| normalize_host(h)).collect(),
            limiter: config
                .rate_limit
                .map(|r| RateLimiter::keyed(Quota::per_second(r.per_second).allow_burst(r.burst))),
            failures: RateLimiter::keyed(
                Quota::per_second(FAILED_AUTH_PER_SECOND).allow_burst(FAILED_AUTH_BURST),
            ),
            sessions,
            max_sessions: config.max_mcp_sessions,
            max_sessions_per_key: config.max_mcp_sessions_per_key,
            owners: Mutex::new(HashMap::new()),
            in_flight: Arc::new(tokio::sync::Semaphore::new(config.max_in_flight)),
            per_key: Mutex::new(HashMap::new()),
            max_in_flight_per_key: (config.max_in_flight / 4).max(8),
        }
    }

    /// Whether `authority` (a `Host` header or an origin's `host[:port]`) is allowed: an entry
    /// without a port allows the host on any port.
    fn host_allowed(&self, authority: &str) -> bool {
        let authority = normalize_host(authority);
        let bare = strip_port(&authority);
        self.hosts.iter().any(|h| *h == authority || *h == bare)
    }

    async fn keys_required(&self) -> Result<bool, ApiError> {
        match self.auth {
            AuthMode::Required => Ok(true),
            AuthMode::Off => Ok(false),
            AuthMode::WhenKeysExist => {
                if self.keys_seen.load(Ordering::Relaxed) {
                    return Ok(true);
                }
                let exist = self.service.keys_exist().await?;
                if exist {
                    self.keys_seen.store(true, Ordering::Relaxed);
                }
                Ok(exist)
            }
        }
    }
}

/// `host:port` or `[v6]:port`, lower-cased, brackets kept; a trailing dot dropped.
fn normalize_host(host: &str) -> String {
    host.trim().trim_end_matches('.').to_ascii_lowercase()
}

fn strip_port(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        // "[::1]:8765" → "[::1]"
        return rest.find(']').map_or(authority, |end| &authority[..end + 2]);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
        _ => authority,
    }
}

/// Refuses requests whose `Host` (or browser `Origin`) is not an allowed host: a web page that
/// rebinds a name to this server's address must not read memories (MCP's DNS-rebinding rule).
pub(crate) async fn check_host(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| request.uri().authority().map(|a| a.as_str().to_owned()));
    // A request without any Host (HTTP/1.0, in-process calls) cannot come from a browser, which
    // always sends one: DNS rebinding needs a browser.
    if let Some(host) = host.filter(|h| !guard.host_allowed(h)) {
        return host_refused("Host", &host);
    }
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let authority = origin.split_once("://").map(|(_, rest)| rest).unwrap_or("");
        if authority.is_empty() || !guard.host_allowed(authority) {
            return host_refused("Origin", origin);
        }
    }
    next.run(request).await
}

fn host_refused(what: &str, value: &str) -> Response {
    let value: String = value.chars().take(200).collect();
    ApiError::new(
        ErrorCode::HostNotAllowed,
        format!(
            "{what} {value:?} is not an allowed host; add it with --allowed-hosts (REARVIEW_ALLOWED_HOSTS), e.g. --allowed-hosts rearview,localhost"
        ),
    )
    .into_response()
}

/// Routes that answer without a key: liveness, readiness, the API description, and the
/// console's static files (which hold no data; the page calls the API with the user's key).
pub(crate) fn is_public(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/openapi.json" | "/ui") || path.starts_with("/ui/")
}

/// Failed authentications a client address may make per second, and at once, before it gets 429.
const FAILED_AUTH_PER_SECOND: NonZeroU32 = NonZeroU32::new(5).expect("non-zero");
const FAILED_AUTH_BURST: NonZeroU32 = NonZeroU32::new(20).expect("non-zero");

/// Authenticates the request from its headers (before its body is read or a slot is taken) and
/// puts its [`Caller`] into the request's extensions; 401 without a valid key where keys are
/// required, logged, and 429 for an address that keeps failing. `/metrics` needs an admin key
/// unless public. Then the per-key rate limit and the MCP session rules.
pub(crate) async fn authenticate(
    State(guard): State<Arc<Guard>>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_owned();
    if is_public(&path) || (path == "/metrics" && guard.metrics_public) {
        request.extensions_mut().insert(Caller::trusted());
        return next.run(request).await;
    }
    // The client's address (none for a request made in-process, which is not limited).
    let peer = request.extensions().get::<ConnectInfo<std::net::SocketAddr>>().map(|c| c.0.ip());
    let authorization = request.headers().get(header::AUTHORIZATION).cloned();
    let caller = match caller(&guard, authorization.as_ref()).await {
        Ok(caller) => caller,
        Err(response) => return failed(&guard, peer, request.method(), &path, response),
    };
    if path == "/metrics" && !caller.is_admin() {
        return ApiError::new(
            ErrorCode::Forbidden,
            "/metrics sums over every tenant: it needs an admin key, or start the server with --metrics-public",
        )
        .into_response();
    }
    if let (Some(limiter), Some(id)) = (&guard.limiter, caller.key_id())
        && let Err(not_until) = limiter.check_key(&id.to_owned())
    {
        let wait = not_until.wait_time_from(governor::clock::Clock::now(limiter.clock()));
        return too_many_requests(wait, "this key is over its request rate (--rate-limit)");
    }
    let owner = caller.key_id().unwrap_or_default().to_owned();
    request.extensions_mut().insert(caller);
    if path != "/mcp" {
        return next.run(request).await;
    }
    mcp_session_rules(&guard, owner, request, next).await
}

/// A failed authentication: logged with the client's address, and 429 instead of the 401 for an
/// address over its budget of failures (guessing keys, or a client misconfigured in a loop).
fn failed(
    guard: &Guard,
    peer: Option<IpAddr>,
    method: &Method,
    path: &str,
    response: Response,
) -> Response {
    let path: String = path.chars().take(200).collect();
    let shown = peer.map_or_else(|| "in-process".to_owned(), |p| p.to_string());
    if let Some(Err(not_until)) = peer.map(|p| guard.failures.check_key(&p)) {
        let wait = not_until.wait_time_from(governor::clock::Clock::now(guard.failures.clock()));
        tracing::warn!(target: "rearview::audit", peer = shown, %method, path, "authentication failed; client over its budget of failures (429)");
        return too_many_requests(wait, "too many failed authentications from this address");
    }
    tracing::warn!(target: "rearview::audit", peer = shown, %method, path, status = response.status().as_u16(), "authentication failed");
    response
}

/// MCP sessions: a request to an open session must come from the key that opened it (else 404,
/// as for a session that does not exist); a new session is refused (503) past the server's cap
/// or the key's share of it; the session a request opens is recorded as its key's.
async fn mcp_session_rules(guard: &Guard, owner: String, request: Request, next: Next) -> Response {
    if let Some(id) = request.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
        let recorded = guard.owners.lock().ok().and_then(|o| o.get(id).cloned());
        if recorded.is_some_and(|o| o != owner) {
            return ApiError::new(
                ErrorCode::NotFound,
                "no such MCP session for this key; start one with initialize",
            )
            .into_response();
        }
        let closing = request.method() == Method::DELETE;
        let id = id.to_owned();
        let response = next.run(request).await;
        if closing
            && response.status().is_success()
            && let Ok(mut owners) = guard.owners.lock()
        {
            owners.remove(&id);
        }
        return response;
    }
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    // A POST without a session id opens one (the `initialize` request).
    let open = rearview_mcp::open_session_ids(&guard.sessions).await;
    let mine = match guard.owners.lock() {
        Ok(mut owners) => {
            owners.retain(|id, _| open.contains(id));
            owners.values().filter(|o| **o == owner).count()
        }
        Err(_) => 0,
    };
    if open.len() >= guard.max_sessions {
        return overloaded(format!(
            "{} MCP sessions are open, the most this server keeps (--max-mcp-sessions); close one or retry later",
            guard.max_sessions
        ));
    }
    if mine >= guard.max_sessions_per_key {
        return overloaded(format!(
            "this key has {mine} MCP sessions open, the most one key may (--max-mcp-sessions-per-key); close one (DELETE /mcp) or let one idle out"
        ));
    }
    let response = next.run(request).await;
    if let Some(id) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok())
        && let Ok(mut owners) = guard.owners.lock()
    {
        owners.insert(id.to_owned(), owner);
    }
    response
}

/// Admission: a slot among `max_in_flight` requests, and within the key's share of them (a
/// quarter, at least 8), or 503 with `Retry-After` at once. `/healthz` is never refused.
pub(crate) async fn admit(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    if request.uri().path() == "/healthz" {
        return next.run(request).await;
    }
    let Ok(_slot) = Arc::clone(&guard.in_flight).try_acquire_owned() else {
        return overloaded(
            "the server is at its limit of requests in flight (--max-in-flight); retry shortly"
                .to_owned(),
        );
    };
    let key = request.extensions().get::<Caller>().and_then(|c| c.key_id()).map(str::to_owned);
    let Some(key) = key else { return next.run(request).await };
    let admitted = match guard.per_key.lock() {
        Ok(mut per_key) => {
            let count = per_key.entry(key.clone()).or_default();
            let ok = *count < guard.max_in_flight_per_key;
            if ok {
                *count += 1;
            }
            ok
        }
        Err(_) => true,
    };
    if !admitted {
        return overloaded(format!(
            "this key has {} requests in flight, its share of --max-in-flight; retry shortly",
            guard.max_in_flight_per_key
        ));
    }
    let response = next.run(request).await;
    if let Ok(mut per_key) = guard.per_key.lock()
        && let Some(count) = per_key.get_mut(&key)
    {
        *count -= 1;
        if *count == 0 {
            per_key.remove(&key);
        }
    }
    response
}

async fn caller(guard: &Guard, authorization: Option<&HeaderValue>) -> Result<Caller, Response> {
    let bearer = match authorization {
        None => None,
        Some(value) => Some(
            bearer_token(value)
                .ok_or_else(|| unauthorized("the Authorization header must be `Bearer KEY`"))?,
        ),
    };
    if let Some(secret) = bearer {
        return guard
            .service
            .authenticate(secret)
            .await
            .map_err(|e| unauthorized(&format!("{e}; create one with `rearview keys create`")));
    }
    // Only a request without a key needs to know whether keys are required.
    if guard.keys_required().await.map_err(IntoResponse::into_response)? {
        return Err(unauthorized(
            "this server requires an API key: send `Authorization: Bearer KEY` (create one with `rearview keys create --namespace NAME`)",
        ));
    }
    Ok(Caller::trusted())
}

fn bearer_token(value: &HeaderValue) -> Option<&str> {
    let text = value.to_str().ok()?;
    let (scheme, token) = text.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| token.trim())
}

fn unauthorized(message: &str) -> Response {
    let mut response = ApiError::new(ErrorCode::Unauthorized, message).into_response();
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

fn too_many_requests(wait: Duration, why: &str) -> Response {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut response =
        ApiError::new(ErrorCode::RateLimited, format!("{why}; retry in {} s", seconds.max(1)))
            .into_response();
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
    response
}

/// 503 with `Retry-After: 1`: the server sheds load instead of queueing.
pub(crate) fn overloaded(message: String) -> Response {
    let mut response = ApiError::new(ErrorCode::Overloaded, message).into_response();
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_stripped_from_names_and_bracketed_addresses() {
        assert_eq!(strip_port("rearview:8765"), "rearview");
        assert_eq!(strip_port("[::1]:8765"), "[::1]");
        assert_eq!(strip_port("[::1]"), "[::1]");
        assert_eq!(strip_port("localhost"), "localhost");
    }

    #[test]
    fn bearer_tokens_are_read_case_insensitively() {
        assert_eq!(bearer_token(&HeaderValue::from_static("Bearer rv_abc")), Some("rv_abc"));
        assert_eq!(bearer_token(&HeaderValue::from_static("bearer  rv_abc ")), Some("rv_abc"));
        assert_eq!(bearer_token(&HeaderValue::from_static("Basic dXNlcg==")), None);
        assert_eq!(bearer_token(&HeaderValue::from_static("Bearer ")), None);
    }
}
