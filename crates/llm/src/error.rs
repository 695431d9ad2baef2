//! LLM errors.

/// Why a language-model task failed. Either way the caller must change nothing.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LlmError {
    /// The endpoint could not be used (down, timed out, refused the key, HTTP error).
    #[error("language model unavailable: {message}")]
    Unavailable {
        /// What went wrong and how to fix it.
        message: String,
    },
    /// The model answered, but never in the required form, even after corrections.
    #[error("language model gave no usable answer after {attempts} attempts: {message}")]
    BadOutput {
        /// What was wrong with the last answer.
        message: String,
        /// How many answers were tried.
        attempts: u32,
    },
}
