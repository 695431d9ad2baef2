//! Query vectors computed lately, so that a repeated query (an agent asking the same thing each
//! turn, a console refreshing a search) does not pay for the model again: embedding a query costs
//! milliseconds on the local model and a network round trip on a remote one, the search itself
//! a fraction of that.
//!
//! Keyed by model and exact text; least recently used entries go first. A model's vectors for a
//! text never change, so nothing here can be stale; swapping models only leaves unused entries
//! behind, which age out.

use std::num::NonZeroUsize;
use std::sync::Mutex;

use lru::LruCache;
use rearview_core::Embedding;

/// How many query vectors are kept (384 floats each for the default model: ~6 MiB in all).
const CAPACITY: usize = 4096;

/// A bounded map from `(model, query text)` to its vector.
pub(crate) struct QueryCache {
    entries: Mutex<LruCache<(String, String), Embedding>>,
}

impl Default for QueryCache {
    fn default() -> Self {
        let capacity = NonZeroUsize::new(CAPACITY).unwrap_or(NonZeroUsize::MIN);
        Self { entries: Mutex::new(LruCache::new(capacity)) }
    }
}

impl QueryCache {
    /// The cached vector of `text` in `model`'s space, if any.
    pub(crate) fn get(&self, model: &str, text: &str) -> Option<Embedding> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.get(&(model.to_owned(), text.to_owned())).cloned()
    }

    /// Remembers `vector` as the embedding of `text` in `model`'s space.
    pub(crate) fn put(&self, model: &str, text: &str, vector: Embedding) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.put((model.to_owned(), text.to_owned()), vector);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_kept_per_model_and_text() {
        let cache = QueryCache::default();
        let v = Embedding::new(vec![1.0, 0.0]).unwrap();
        cache.put("m1", "端口 8765", v.clone());
        assert_eq!(cache.get("m1", "端口 8765"), Some(v));
        assert_eq!(cache.get("m2", "端口 8765"), None, "another model's space");
        assert_eq!(cache.get("m1", "端口 8766"), None);
    }
}
