//! The memory a hook talks to: a rearview server over REST (`REARVIEW_URL`, or the local server
//! started on demand), else the database in this process, keyword-only (loading the embedding
//! model would take seconds). Either way the request and the answer are the REST API's JSON, the
//! same wire types (`rearview_api`), so the hook reads one shape.

use std::time::Duration;

use anyhow::Context;
use rearview_core::{MemoryFilter, MemoryType, Namespace};
use rearview_service::{KeywordSearch, MemoryService, ServiceConfig};
use serde_json::Value;

use crate::settings::Settings;

/// One request a hook makes.
#[derive(Debug, Clone, Copy)]
pub enum Op {
    /// `POST /v1/memories` with `StoreParams`.
    Store,
    /// `POST /v1/recall` with `RecallParams`.
    Recall,
    /// `GET /v1/memories?memory_type=…&limit=…`, newest event first.
    List { tier: MemoryType, limit: u64 },
    /// `POST /v1/sessions/end` with `EndSessionParams`.
    EndSession,
}

/// A rearview server's REST API.
pub struct Server {
    pub url: String,
    pub api_key: Option<String>,
    agent: ureq::Agent,
}

impl Server {
    pub fn new(url: &str, api_key: Option<String>, timeout: Duration) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .build()
            .new_agent();
        Self { url: url.trim_end_matches('/').to_owned(), api_key, agent }
    }

    fn call(&self, op: Op, namespace: &Namespace, mut body: Value) -> anyhow::Result<Value> {
        let auth = self.api_key.as_ref().map(|k| format!("Bearer {k}"));
        let mut response = match op {
            Op::List { tier, limit } => {
                let url = format!("{}/v1/memories?memory_type={tier}&limit={limit}", self.url);
                let mut request = self
                    .agent
                    .get(&url)
                    .header(rearview_api::NAMESPACE_HEADER, &percent_encode(namespace.as_str()));
                if let Some(auth) = &auth {
                    request = request.header("Authorization", auth);
                }
                request.call()
            }
            Op::Store | Op::Recall | Op::EndSession => {
                let path = match op {
                    Op::Store => "/v1/memories",
                    Op::Recall => "/v1/recall",
                    _ => "/v1/sessions/end",
                };
                body["namespace"] = namespace.as_str().into();
                let mut request = self
                    .agent
                    .post(&format!("{}{path}", self.url))
                    .header("Content-Type", "application/json");
                if let Some(auth) = &auth {
                    request = request.header("Authorization", auth);
                }
                request.send(body.to_string().as_str())
            }
        }
        .with_context(|| format!("reaching {}", self.url))?;
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().unwrap_or_default();
        if !(200..300).contains(&status) {
            anyhow::bail!(
                "{} answered {status}: {}",
                self.url,
                text.chars().take(300).collect::<String>()
            );
        }
        serde_json::from_str(&text).with_context(|| format!("{} answered no JSON", self.url))
    }

    /// Whether the server answers `/healthz` within the agent's timeout.
    pub fn is_up(&self) -> bool {
        self.agent
            .get(&format!("{}/healthz", self.url))
            .call()
            .is_ok_and(|r| r.status().as_u16() == 200)
    }
}

/// The database in this process, keyword-only, on a runtime of its own.
struct InProcess {
    runtime: tokio::runtime::Runtime,
    service: MemoryService,
}

impl InProcess {
    fn open(settings: &Settings) -> anyhow::Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting a runtime")?;
        let config = ServiceConfig {
            keyword_search: KeywordSearch::Store,
            max_content_chars: settings.max_content_chars,
            lifecycle: crate::commands::lifecycle_config(settings),
            ..ServiceConfig::default()
        };
        let service =
            runtime.block_on(crate::commands::open_service(settings, Vec::new(), config))?;
        Ok(Self { runtime, service })
    }

    fn call(&self, op: Op, namespace: &Namespace, body: Value) -> anyhow::Result<Value> {
        let service = &self.service;
        self.runtime.block_on(async {
            Ok(match op {
                Op::Store => {
                    let params: rearview_api::StoreParams = serde_json::from_value(body)?;
                    let stored = service.remember(namespace, params.into_request()?).await?;
                    rearview_api::render(&rearview_api::StoredAnswer::from(&stored))?
                }
                Op::Recall => {
                    let params: rearview_api::RecallParams = serde_json::from_value(body)?;
                    let response = service.recall(namespace, params.into_request()?).await?;
                    rearview_api::render(&rearview_api::RecallView::from(&response))?
                }
                Op::List { tier, limit } => {
                    let filter =
                        MemoryFilter { memory_types: vec![tier], ..MemoryFilter::default() };
                    let page = rearview_store::Page { offset: 0, limit };
                    let memories = service.list(namespace, &filter, page).await?;
                    rearview_api::render(&rearview_api::MemoriesAnswer::from(memories.as_slice()))?
                }
                Op::EndSession => {
                    let params: rearview_api::EndSessionParams = serde_json::from_value(body)?;
                    let end = service.end_session(namespace, &params.session_id).await?;
                    rearview_api::render(&rearview_api::SessionEndAnswer::from(&end))?
                }
            })
        })
    }
}

/// Where a hook's requests go: a server first when there is one; the database in this process
/// when the server is the local one started on demand and it fails (not yet up, or keys
/// required), or when there is none.
pub struct Memory {
    server: Option<Server>,
    /// Whether the database is this machine's (no `REARVIEW_URL`): then it may be opened here.
    local: Option<Settings>,
    in_process: Option<InProcess>,
}

impl Memory {
    /// A remote server only (`REARVIEW_URL`): its failures are the hook's.
    pub fn remote(server: Server) -> Self {
        Self { server: Some(server), local: None, in_process: None }
    }

    /// This machine's database, through `server` while it answers.
    pub fn local(server: Option<Server>, settings: Settings) -> Self {
        Self { server, local: Some(settings), in_process: None }
    }

    /// Whether requests go to a server (as opposed to the database in this process).
    pub fn via(&self) -> &str {
        match (&self.server, &self.in_process) {
            (Some(server), _) => &server.url,
            (None, Some(_)) => "in process (keyword-only)",
            (None, None) => "in process",
        }
    }

    pub fn call(&mut self, op: Op, namespace: &Namespace, body: Value) -> anyhow::Result<Value> {
        if let Some(server) = &self.server {
            match server.call(op, namespace, body.clone()) {
                Ok(answer) => return Ok(answer),
                Err(e) if self.local.is_some() => {
                    tracing::warn!(error = %format!("{e:#}"), "the local server failed; using the database in process");
                    self.server = None;
                }
                Err(e) => return Err(e),
            }
        }
        if self.in_process.is_none() {
            let settings = self.local.as_ref().context("no server and no local database")?;
            self.in_process = Some(InProcess::open(settings)?);
        }
        let in_process = self.in_process.as_ref().context("opening the database")?;
        in_process.call(op, namespace, body)
    }
}

/// `value` percent-encoded for the `X-Rearview-Namespace` header (every byte but unreserved
/// ASCII), which the server decodes.
fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_header_is_percent_encoded() {
        assert_eq!(percent_encode("project:rearview@1a2b"), "project%3Arearview%401a2b");
        assert_eq!(percent_encode("项目"), "%E9%A1%B9%E7%9B%AE");
    }
}
