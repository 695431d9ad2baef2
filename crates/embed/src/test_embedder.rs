//! A deterministic embedder for tests and benchmarks.

use async_trait::async_trait;
use rearview_core::Embedding;

use crate::{EmbedError, Embedder, TextKind, validate_batch};

/// Hashes lower-cased words and characters into a fixed number of signed buckets.
///
/// Texts that share words or characters get similar vectors; paraphrases with no shared surface
/// form do not. Good enough to exercise every vector code path deterministically, useless as a
/// model of meaning: tests only.
#[derive(Debug, Clone)]
pub struct TestEmbedder {
    model_id: String,
    dimensions: usize,
    /// When set, every call fails with [`EmbedError::Unavailable`] (to test degraded mode).
    failing: bool,
}

impl TestEmbedder {
    /// A test embedder producing `dimensions`-dimensional vectors.
    pub fn new(dimensions: usize) -> Self {
        Self { model_id: format!("test-hash-{dimensions}"), dimensions, failing: false }
    }

    /// The same embedder under another model id (to test separate vector spaces).
    pub fn with_model_id(mut self, model_id: impl Into<String>) -> Self {
        self.model_id = model_id.into();
        self
    }

    /// An embedder whose every call fails as if the model were missing.
    pub fn failing(mut self) -> Self {
        self.failing = true;
        self
    }

    fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; self.dimensions];
        let lower = text.to_lowercase();
        let mut add = |feature: &str, weight: f32| {
            let h = fnv1a(feature.as_bytes());
            let bucket = (h % self.dimensions as u64) as usize;
            let sign = if (h >> 63) == 1 { -1.0 } else { 1.0 };
            v[bucket] += sign * weight;
        };
        for word in lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            add(word, 1.0);
        }
        for c in lower.chars().filter(|c| c.is_alphanumeric() && !c.is_ascii()) {
            add(c.encode_utf8(&mut [0; 4]), 0.5);
        }
        // A constant feature keeps empty or punctuation-only text from being a zero vector.
        add("\u{0}bias", 0.05);
        v
    }
}

#[async_trait]
impl Embedder for TestEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    async fn embed(&self, texts: &[String], _kind: TextKind) -> Result<Vec<Embedding>, EmbedError> {
        if self.failing {
            return Err(EmbedError::Unavailable {
                message: "test embedder set to fail".to_owned(),
            });
        }
        validate_batch(texts.iter().map(|t| self.vector(t)).collect(), texts.len(), self.dimensions)
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn shared_words_are_similar_and_deterministic() {
        let e = TestEmbedder::new(64);
        let texts = ["likes green tea", "likes green tea a lot", "port 8765"].map(str::to_owned);
        let v = e.embed(&texts, TextKind::Passage).await.unwrap();
        assert!(v[0].cosine(&v[1]) > v[0].cosine(&v[2]));
        assert_eq!(e.embed(&texts[..1], TextKind::Query).await.unwrap()[0], v[0]);
        assert!(e.embed(&["".to_owned()], TextKind::Query).await.is_ok());
    }
}
