//! [`ChatClient`]: OpenAI-compatible chat completions over HTTP.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rearview_openai_client::{Endpoint, excerpt};
use serde::Deserialize;

use crate::{Completion, LanguageModel, LlmError, Message, Operation};

/// Settings of an OpenAI-compatible chat endpoint.
#[derive(Clone)]
pub struct ChatConfig {
    /// Base URL up to and including the version segment, e.g. `https://api.deepseek.com/v1` or
    /// `http://localhost:11434/v1` (Ollama).
    pub base_url: String,
    /// The model for every operation without its own.
    pub model: String,
    /// A model per operation (e.g. a cheap one for `extract`, a strong one for `distill`).
    pub models: HashMap<Operation, String>,
    /// Bearer token; `None` for servers without authentication.
    pub api_key: Option<String>,
    /// Time limit for one request (generation included).
    pub timeout: Duration,
    /// Retries after a 429, a 5xx or a connection failure.
    pub max_retries: u32,
    /// First backoff; doubles with each retry.
    pub initial_backoff: Duration,
    /// Sampling temperature; low, because the tasks are extraction, not creative writing.
    pub temperature: f32,
    /// Most tokens an answer may have.
    pub max_tokens: u32,
    /// Send `response_format: {"type": "json_object"}` when JSON is wanted. Most compatible
    /// servers honour it; turn it off for one that rejects the field.
    pub json_mode: bool,
}

impl ChatConfig {
    /// Defaults for `model` at `base_url`: 120 s timeout, 3 retries from 500 ms, temperature
    /// 0.2, answers up to 1,024 tokens, JSON mode on.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            models: HashMap::new(),
            api_key: None,
            timeout: Duration::from_secs(120),
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            temperature: 0.2,
            max_tokens: 1024,
            json_mode: true,
        }
    }
}

impl std::fmt::Debug for ChatConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("models", &self.models)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .finish_non_exhaustive()
    }
}

/// A [`LanguageModel`] behind an OpenAI-compatible `chat/completions` endpoint.
#[derive(Debug, Clone)]
pub struct ChatClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: ChatConfig,
    endpoint: Endpoint,
}

impl ChatClient {
    /// A client for `config`. Makes no request: the first task finds out whether the endpoint
    /// answers (see [`ChatClient::check`] for a start-up probe).
    pub fn new(config: ChatConfig) -> Self {
        let endpoint = Endpoint::new(
            &config.base_url,
            "chat/completions",
            config.api_key.clone(),
            config.timeout,
            config.initial_backoff,
        );
        Self { inner: Arc::new(Inner { config, endpoint }) }
    }

    /// The URL requests go to.
    pub fn url(&self) -> &str {
        self.inner.endpoint.url()
    }

    /// Asks for a one-word answer with no retries: `Ok` when the endpoint answers at all.
    pub async fn check(&self) -> Result<Completion, LlmError> {
        let messages = [Message::user("Answer with the single word: ok")];
        self.request(Operation::Summarize, &messages, false, 0).await
    }

    async fn request(
        &self,
        operation: Operation,
        messages: &[Message],
        json: bool,
        max_retries: u32,
    ) -> Result<Completion, LlmError> {
        let config = &self.inner.config;
        let model = self.model_for(operation).to_owned();
        let mut body = serde_json::json!({
            "model": model,
            "messages": messages,
            "temperature": config.temperature,
            "max_tokens": config.max_tokens,
            "stream": false,
        });
        if json && config.json_mode {
            body["response_format"] = serde_json::json!({ "type": "json_object" });
        }
        let inner = Arc::clone(&self.inner);
        let started = std::time::Instant::now();
        let text = tokio::task::spawn_blocking(move || {
            inner.endpoint.post_json(&body, max_retries, "chat completion")
        })
        .await
        .map_err(|e| LlmError::Unavailable { message: format!("LLM task failed: {e}") })?
        .map_err(|e| LlmError::Unavailable { message: e.message })?;
        let completion = parse_answer(&text, &model)?;
        tracing::info!(
            operation = operation.as_str(),
            model = completion.model,
            prompt_tokens = completion.prompt_tokens,
            completion_tokens = completion.completion_tokens,
            ms = started.elapsed().as_millis() as u64,
            "LLM call"
        );
        Ok(completion)
    }
}

#[async_trait]
impl LanguageModel for ChatClient {
    fn model_for(&self, operation: Operation) -> &str {
        let config = &self.inner.config;
        config.models.get(&operation).unwrap_or(&config.model)
    }

    async fn complete(
        &self,
        operation: Operation,
        messages: &[Message],
        json: bool,
    ) -> Result<Completion, LlmError> {
        self.request(operation, messages, json, self.inner.config.max_retries).await
    }
}

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    model: Option<String>,
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Choice {
    message: ChoiceMessage,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct Usage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
}

fn parse_answer(text: &str, requested_model: &str) -> Result<Completion, LlmError> {
    let answer: Answer = serde_json::from_str(text).map_err(|e| LlmError::Unavailable {
        message: format!(
            "answer is not an OpenAI chat completion ({e}): {}; is the base URL right?",
            excerpt(text)
        ),
    })?;
    let content =
        answer.choices.into_iter().next().and_then(|c| c.message.content).ok_or_else(|| {
            LlmError::Unavailable {
                message: "chat completion has no choices[0].message.content".to_owned(),
            }
        })?;
    Ok(Completion {
        text: content,
        model: answer.model.unwrap_or_else(|| requested_model.to_owned()),
        prompt_tokens: answer.usage.as_ref().and_then(|u| u.prompt_tokens),
        completion_tokens: answer.usage.as_ref().and_then(|u| u.completion_tokens),
    })
}
