//! OpenAI-compatible HTTP plumbing shared by every remote model provider (embeddings in
//! `rearview-embed`, chat completions in `rearview-llm`).
//!
//! [`Endpoint::post_json`] is the one place that talks to such a server:
//! - 429, 5xx and connection failures are retried with exponential backoff (honouring
//!   `Retry-After` in seconds, capped at 30 s), up to a retry budget;
//! - 401/403 fail at once with a message pointing at the API key; other 4xx fail at once with the
//!   server's own message;
//! - the API key is sent as a bearer token and never appears in `Debug` output, errors or logs.
//!
//! The client is blocking (`ureq`); async callers run it on tokio's blocking pool.
//!
//! Feature `testing` adds [`testing::serve_with`], a scripted loopback server.

#[cfg(feature = "testing")]
pub mod testing;

use std::time::Duration;

/// Why a request failed for good (after any retries). The message says what to fix.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct RemoteError {
    /// What went wrong, naming the URL (never the key).
    pub message: String,
}

/// One OpenAI-compatible URL (e.g. `{base_url}/embeddings`) with its key and retry policy.
pub struct Endpoint {
    url: String,
    api_key: Option<String>,
    agent: ureq::Agent,
    initial_backoff: Duration,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("initial_backoff", &self.initial_backoff)
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// `path` (e.g. `embeddings`, `chat/completions`) under `base_url`; every request is limited
    /// to `timeout`; the first backoff is `initial_backoff` and doubles with each retry.
    pub fn new(
        base_url: &str,
        path: &str,
        api_key: Option<String>,
        timeout: Duration,
        initial_backoff: Duration,
    ) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .build()
            .into();
        let url = format!("{}/{}", base_url.trim_end_matches('/'), path.trim_start_matches('/'));
        Self { url, api_key, agent, initial_backoff }
    }

    /// The full URL requests go to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// POSTs `body` and returns the text of the first 2xx answer, retrying as the crate docs
    /// describe up to `max_retries` times. `what` names the request in retry logs.
    pub fn post_json(
        &self,
        body: &serde_json::Value,
        max_retries: u32,
        what: &str,
    ) -> Result<String, RemoteError> {
        let body = body.to_string();
        let mut backoff = self.initial_backoff;
        let mut attempt = 0;
        loop {
            let mut request = self.agent.post(&self.url).header("Content-Type", "application/json");
            if let Some(key) = &self.api_key {
                request = request.header("Authorization", &format!("Bearer {key}"));
            }
            let (wait, why) = match request.send(body.as_str()) {
                Ok(mut response) => {
                    let status = response.status().as_u16();
                    let retry_after = response
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(Duration::from_secs);
                    let text = response.body_mut().read_to_string().unwrap_or_default();
                    match status {
                        200..=299 => return Ok(text),
                        429 | 500..=599 => {
                            (retry_after, format!("HTTP {status}: {}", excerpt(&text)))
                        }
                        401 | 403 => {
                            return Err(RemoteError {
                                message: format!(
                                    "{} refused the API key (HTTP {status}); check the environment variable that holds it",
                                    self.url
                                ),
                            });
                        }
                        _ => {
                            return Err(RemoteError {
                                message: format!(
                                    "{} answered HTTP {status}: {}",
                                    self.url,
                                    excerpt(&text)
                                ),
                            });
                        }
                    }
                }
                Err(e) => (None, format!("cannot reach {}: {e}", self.url)),
            };
            if attempt >= max_retries {
                return Err(RemoteError {
                    message: format!("{why} (gave up after {} attempts)", attempt + 1),
                });
            }
            attempt += 1;
            let wait = wait.unwrap_or(backoff).min(Duration::from_secs(30));
            tracing::warn!(
                attempt,
                wait_ms = wait.as_millis() as u64,
                why,
                what,
                "retrying request"
            );
            std::thread::sleep(wait);
            backoff = backoff.saturating_mul(2);
        }
    }
}

/// The first 200 characters of a server's answer, for error messages.
pub fn excerpt(text: &str) -> String {
    rearview_core::truncate_chars(text.trim(), 200)
}
