//! OpenAI-compatible embeddings over HTTP: `POST {base_url}/embeddings`.
//!
//! Works with OpenAI (`text-embedding-3-small`), Ollama (`http://localhost:11434/v1`), vLLM,
//! text-embeddings-inference, LM Studio, llama.cpp's server and the compatible modes of DashScope
//! and others: they all accept `{"model", "input": [..]}` and answer
//! `{"data": [{"index", "embedding": [..]}]}`.
//!
//! Behaviour a user can rely on:
//! - texts are sent in batches of at most `batch_size`;
//! - 429, 5xx and connection failures are retried with exponential backoff (honouring
//!   `Retry-After` in seconds), up to `max_retries` times; other 4xx fail at once with the
//!   server's message (all of this is `rearview_openai_client::Endpoint`);
//! - every vector is checked: count, dimension (learned from the first answer or configured),
//!   finiteness and non-zero norm;
//! - the API key is sent as a bearer token and never appears in `Debug` output, errors or logs.
//!
//! The HTTP client is blocking (`ureq`), run on tokio's blocking pool.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use rearview_core::Embedding;
use rearview_openai_client::{Endpoint, excerpt};
use serde::Deserialize;

use crate::{EmbedError, Embedder, TextKind, validate_batch};

/// Settings of an OpenAI-compatible embedding endpoint.
#[derive(Clone)]
pub struct OpenAiConfig {
    /// Base URL up to and including the version segment, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// Model name sent in each request.
    pub model: String,
    /// Bearer token; `None` for servers without authentication (Ollama, local vLLM).
    pub api_key: Option<String>,
    /// Vector length; `None` learns it from the first answer.
    pub dimensions: Option<usize>,
    /// Most texts per request.
    pub batch_size: usize,
    /// Time limit for one request.
    pub timeout: Duration,
    /// Retries after a 429, a 5xx or a connection failure.
    pub max_retries: u32,
    /// First backoff; doubles with each retry.
    pub initial_backoff: Duration,
    /// Prepended to queries (e5-style models want `query: `).
    pub query_prefix: String,
    /// Prepended to stored texts (e5-style models want `passage: `).
    pub passage_prefix: String,
}

impl OpenAiConfig {
    /// Defaults for `model` at `base_url`: batches of 64, 30 s timeout, 4 retries from 250 ms.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            dimensions: None,
            batch_size: 64,
            timeout: Duration::from_secs(30),
            max_retries: 4,
            initial_backoff: Duration::from_millis(250),
            query_prefix: String::new(),
            passage_prefix: String::new(),
        }
    }
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("dimensions", &self.dimensions)
            .field("batch_size", &self.batch_size)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .finish_non_exhaustive()
    }
}

/// An [`Embedder`] backed by an OpenAI-compatible HTTP endpoint.
#[derive(Debug)]
pub struct OpenAiEmbedder {
    /// Shared with the blocking-pool threads that make the requests.
    client: Arc<Client>,
    /// Vector length: configured, or learned from the first answer.
    dimensions: OnceLock<usize>,
}

#[derive(Debug)]
struct Client {
    config: OpenAiConfig,
    /// `{base_url}/embeddings`.
    endpoint: Endpoint,
}

impl OpenAiEmbedder {
    /// Connects to the endpoint: one small request checks that it answers and, unless configured,
    /// learns the vector length. Fails with a message saying what to fix.
    pub async fn connect(config: OpenAiConfig) -> Result<Self, EmbedError> {
        if config.batch_size == 0 {
            return Err(EmbedError::Unavailable {
                message: "batch_size must be at least 1".into(),
            });
        }
        let endpoint = Endpoint::new(
            &config.base_url,
            "embeddings",
            config.api_key.clone(),
            config.timeout,
            config.initial_backoff,
        );
        let dimensions = OnceLock::new();
        if let Some(d) = config.dimensions {
            let _ = dimensions.set(d);
        }
        let embedder = Self { client: Arc::new(Client { config, endpoint }), dimensions };
        // The probe retries once at most: a command started while the endpoint is down should
        // learn it in a moment, not after the full backoff schedule.
        let probe = embedder.embed_with(&["probe".to_owned()], TextKind::Query, 1).await?;
        tracing::info!(
            model = embedder.client.config.model,
            dimensions = probe[0].dimensions(),
            "embedding endpoint ready"
        );
        Ok(embedder)
    }
}

impl Client {
    fn request_batch(
        &self,
        inputs: &[String],
        max_retries: u32,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let body = serde_json::json!({ "model": self.config.model, "input": inputs });
        let text = self
            .endpoint
            .post_json(&body, max_retries, "embeddings")
            .map_err(|e| EmbedError::Unavailable { message: e.message })?;
        parse_answer(&text, inputs.len())
    }
}

#[async_trait]
impl Embedder for OpenAiEmbedder {
    fn model_id(&self) -> &str {
        &self.client.config.model
    }

    fn dimensions(&self) -> usize {
        self.dimensions.get().copied().unwrap_or(0)
    }

    async fn embed(&self, texts: &[String], kind: TextKind) -> Result<Vec<Embedding>, EmbedError> {
        self.embed_with(texts, kind, self.client.config.max_retries).await
    }
}

impl OpenAiEmbedder {
    async fn embed_with(
        &self,
        texts: &[String],
        kind: TextKind,
        max_retries: u32,
    ) -> Result<Vec<Embedding>, EmbedError> {
        let config = &self.client.config;
        let prefix = match kind {
            TextKind::Query => &config.query_prefix,
            TextKind::Passage => &config.passage_prefix,
        };
        let inputs: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        let mut out = Vec::with_capacity(texts.len());
        for chunk in inputs.chunks(config.batch_size) {
            let chunk = chunk.to_vec();
            let client = Arc::clone(&self.client);
            let n = chunk.len();
            let raw =
                tokio::task::spawn_blocking(move || client.request_batch(&chunk, max_retries))
                    .await
                    .map_err(|e| EmbedError::Unavailable {
                        message: format!("embedding task failed: {e}"),
                    })??;
            let dims = *self.dimensions.get_or_init(|| raw.first().map_or(0, Vec::len));
            out.extend(validate_batch(raw, n, dims)?);
        }
        Ok(out)
    }
}

#[derive(Deserialize)]
struct Answer {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    index: Option<usize>,
    embedding: Vec<f32>,
}

/// The vectors of an answer, in input order.
fn parse_answer(text: &str, expected: usize) -> Result<Vec<Vec<f32>>, EmbedError> {
    let answer: Answer = serde_json::from_str(text).map_err(|e| EmbedError::BadOutput {
        message: format!("answer is not an OpenAI embeddings response ({e}): {}", excerpt(text)),
    })?;
    let mut items: Vec<(usize, Vec<f32>)> = answer
        .data
        .into_iter()
        .enumerate()
        .map(|(i, item)| (item.index.unwrap_or(i), item.embedding))
        .collect();
    items.sort_by_key(|(i, _)| *i);
    if items.len() != expected || items.iter().enumerate().any(|(i, (idx, _))| i != *idx) {
        return Err(EmbedError::BadOutput {
            message: format!(
                "expected {expected} embeddings indexed 0..{expected}, got {}",
                items.len()
            ),
        });
    }
    Ok(items.into_iter().map(|(_, v)| v).collect())
}
