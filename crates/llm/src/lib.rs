//! Language models for rearview's memory lifecycle (design §3.4, §5.3): turning a session's
//! working memory into episodes, distilling episodes into a semantic memory, and summarising
//! long memories.
//!
//! - [`LanguageModel`] is the trait the service holds (`Arc<dyn LanguageModel>`); [`ChatClient`]
//!   implements it for any OpenAI-compatible `POST {base_url}/chat/completions` (OpenAI,
//!   DeepSeek, Qwen/DashScope compatible mode, Ollama, vLLM, llama.cpp's server), with a model per
//!   [`Operation`] (a cheap one for extraction, a stronger one for distillation), timeouts,
//!   retries with backoff and token usage logged.
//! - The tasks ([`distill`], [`extract_events`], [`summarize`], [`updated_by`]) build the prompt
//!   from the files in `prompts/`, tell the model which language to answer in (the language of
//!   the input), ask for JSON and validate it. A malformed answer is retried with a correction; if it is still
//!   malformed the task fails with [`LlmError::BadOutput`] and the caller changes nothing.

mod client;
mod error;
mod tasks;

pub use client::{ChatClient, ChatConfig};
pub use error::LlmError;
pub use tasks::{
    Distillation, Episode, Language, distill, dominant_language, extract_events, summarize,
    updated_by,
};

use async_trait::async_trait;

/// What a model is asked to do; each can use its own model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// Key events out of a session's working memory (`end_session`).
    Extract,
    /// Episodes → one semantic memory (`summarize_episodes`).
    Distill,
    /// The recall summary of a long memory.
    Summarize,
    /// Whether a new memory updates older ones (facts that change), on store.
    Supersede,
}

impl Operation {
    /// The name used in configuration and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Extract => "extract",
            Operation::Distill => "distill",
            Operation::Summarize => "summarize",
            Operation::Supersede => "supersede",
        }
    }
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: &'static str,
    /// The text.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self { role: "system", content: content.into() }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self { role: "user", content: content.into() }
    }

    /// An assistant message (an earlier answer, when asking for a correction).
    pub fn assistant(content: impl Into<String>) -> Self {
        Self { role: "assistant", content: content.into() }
    }
}

/// A model's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The answer text.
    pub text: String,
    /// The model that answered (as the server names it).
    pub model: String,
    /// Prompt tokens, when the server reports usage.
    pub prompt_tokens: Option<u64>,
    /// Completion tokens, when the server reports usage.
    pub completion_tokens: Option<u64>,
}

/// A chat model. Implementations must be cheap to share (`Arc<dyn LanguageModel>`).
#[async_trait]
pub trait LanguageModel: Send + Sync + std::fmt::Debug + 'static {
    /// The model used for `operation`, for provenance metadata.
    fn model_for(&self, operation: Operation) -> &str;

    /// One completion of `messages`, asking for a JSON object when `json` is set.
    async fn complete(
        &self,
        operation: Operation,
        messages: &[Message],
        json: bool,
    ) -> Result<Completion, LlmError>;
}
