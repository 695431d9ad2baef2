//! The gate in front of every route: Host and Origin validation (DNS rebinding), authentication
//! by API key, the per-key rate limit, the cap on open MCP sessions, and load shedding.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::{Request, State};
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
    pub(crate) sessions: Arc<rearview_mcp::Sessions>,
    pub(crate) max_sessions: usize,
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
            sessions,
            max_sessions: config.max_mcp_sessions,
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

/// Routes that answer without a key: liveness, readiness and the API description.
pub(crate) fn is_public(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/openapi.json")
}

/// Authenticates the request and puts its [`Caller`] into the request's extensions; 401
/// without a valid key where keys are required. `/metrics` needs an admin key unless public.
pub(crate) async fn authenticate(
    State(guard): State<Arc<Guard>>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    if is_public(path) || (path == "/metrics" && guard.metrics_public) {
        request.extensions_mut().insert(Caller::trusted());
        return next.run(request).await;
    }
    let authorization = request.headers().get(header::AUTHORIZATION).cloned();
    let opens_session = opens_mcp_session(&request);
    let is_metrics = path == "/metrics";
    let caller = match caller(&guard, authorization.as_ref()).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    if is_metrics && !caller.is_admin() {
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
        return too_many_requests(wait);
    }
    if opens_session && rearview_mcp::open_sessions(&guard.sessions).await >= guard.max_sessions {
        return overloaded(format!(
            "{} MCP sessions are open, the most this server keeps (--max-mcp-sessions); close one or retry later",
            guard.max_sessions
        ));
    }
    request.extensions_mut().insert(caller);
    next.run(request).await
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

/// A POST to `/mcp` without a session id starts a session (the `initialize` request).
fn opens_mcp_session(request: &Request) -> bool {
    request.method() == Method::POST
        && request.uri().path() == "/mcp"
        && !request.headers().contains_key("mcp-session-id")
}

fn unauthorized(message: &str) -> Response {
    let mut response = ApiError::new(ErrorCode::Unauthorized, message).into_response();
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

fn too_many_requests(wait: Duration) -> Response {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut response = ApiError::new(
        ErrorCode::RateLimited,
        format!("this key is over its request rate (--rate-limit); retry in {seconds} s"),
    )
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
