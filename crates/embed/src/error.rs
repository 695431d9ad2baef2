//! Embedding errors.

/// Why texts could not be embedded.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The model or API is not available right now (not downloaded, endpoint down, timed out).
    #[error("embedding model unavailable: {message}")]
    Unavailable {
        /// What went wrong and how to fix it.
        message: String,
    },
    /// The model returned vectors of the wrong length.
    #[error("embedding has {got} dimensions, expected {expected}")]
    DimensionMismatch {
        /// Dimensions the model declares.
        expected: usize,
        /// Dimensions it returned.
        got: usize,
    },
    /// The model returned something unusable (a zero vector, NaN, the wrong count).
    #[error("embedding model returned bad output: {message}")]
    BadOutput {
        /// What was wrong.
        message: String,
    },
}
