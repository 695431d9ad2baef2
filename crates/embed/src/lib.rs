//! Text → vectors.
//!
//! This crate owns the [`Embedder`] trait and its providers: [`OpenAiEmbedder`] for any
//! OpenAI-compatible HTTP endpoint (OpenAI, Ollama, vLLM, TEI, …); the local model runtime lives in
//! `rearview-embed-local`.
//! The service holds an `Arc<dyn Embedder>` and never knows which.
//!
//! Feature `testing` adds [`TestEmbedder`], a deterministic, dependency-free embedder for unit
//! tests and benchmarks. It captures shared words and characters, not meaning: it must never be
//! the embedder a user gets by default.

mod batch;
mod error;
mod openai;
#[cfg(feature = "testing")]
mod test_embedder;
#[cfg(feature = "testing")]
pub mod testing;

use async_trait::async_trait;
use rearview_core::Embedding;

pub use batch::{BatchingEmbedder, MAX_BATCH_TEXTS};
pub use error::EmbedError;
pub use openai::{OpenAiConfig, OpenAiEmbedder};
#[cfg(feature = "testing")]
pub use test_embedder::TestEmbedder;

/// What a text is, for models that embed queries and passages differently (e5: `query: ` /
/// `passage: ` prefixes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// A search query.
    Query,
    /// A memory being stored.
    Passage,
}

/// Turns texts into unit-length vectors.
///
/// Required: [`Embedder::model_id`], [`Embedder::dimensions`], [`Embedder::embed`].
///
/// Invariants implementors must keep:
/// - `embed` returns exactly one vector per input text, in input order, each with
///   [`Embedder::dimensions`] components; otherwise it returns an error;
/// - every vector passed [`Embedding::new`]'s checks (finite, norm ≥ 1e-6), so a broken model
///   surfaces as an error, never as a zero vector that poisons ranking (design §5.2);
/// - `model_id` is stable across restarts for the same weights: it is stored next to every
///   vector, and vectors of different ids are never compared.
///
/// Implementations: [`OpenAiEmbedder`] (any OpenAI-compatible HTTP endpoint) and [`TestEmbedder`]
/// (feature `testing`, tests only).
#[async_trait]
pub trait Embedder: Send + Sync + 'static {
    /// Stored next to every vector; a different id means a different vector space.
    fn model_id(&self) -> &str;

    /// Components per vector.
    fn dimensions(&self) -> usize;

    /// Embeds a batch of texts.
    async fn embed(&self, texts: &[String], kind: TextKind) -> Result<Vec<Embedding>, EmbedError>;
}

/// Checks a provider's raw output against the trait's invariants and normalises it.
///
/// Providers call this on what their model or API returned, so every one enforces the same rules.
pub fn validate_batch(
    raw: Vec<Vec<f32>>,
    expected_count: usize,
    dimensions: usize,
) -> Result<Vec<Embedding>, EmbedError> {
    if raw.len() != expected_count {
        return Err(EmbedError::BadOutput {
            message: format!("got {} vectors for {expected_count} texts", raw.len()),
        });
    }
    raw.into_iter()
        .map(|v| {
            if v.len() != dimensions {
                return Err(EmbedError::DimensionMismatch { expected: dimensions, got: v.len() });
            }
            Embedding::new(v).map_err(|e| EmbedError::BadOutput { message: e.message })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_batch_rejects_zero_vectors_and_wrong_shapes() {
        assert!(validate_batch(vec![vec![0.0, 0.0]], 1, 2).is_err());
        assert!(matches!(
            validate_batch(vec![vec![1.0, 0.0, 0.0]], 1, 2),
            Err(EmbedError::DimensionMismatch { expected: 2, got: 3 })
        ));
        assert!(validate_batch(vec![vec![1.0, 0.0]], 2, 2).is_err());
        assert_eq!(validate_batch(vec![vec![2.0, 0.0]], 1, 2).unwrap()[0].as_slice(), &[1.0, 0.0]);
    }
}
