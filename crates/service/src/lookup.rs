//! Where searches run: in this process's indexes (`indexes.rs`), or in the store itself when it
//! can search (PostgreSQL: pgvector, and BM25 in SQL for one-shot commands) and
//! [`ServiceConfig::search_in_store`] asks for it; then a server keeps no copy of vectors in
//! memory, and every server on the database searches the same vectors. Both answer alike (the store contract's
//! `in_store_search_scores_as_the_in_memory_indexes_do`).
//!
//! [`ServiceConfig::search_in_store`]: crate::ServiceConfig::search_in_store

use rearview_core::{Embedding, MemoryFilter, MemoryId, Namespace, Timestamp};
use rearview_index::VectorHit;
use rearview_store::KeywordHit;

use crate::{MemoryService, ServiceError};

/// How far a vector search looks in a graph (an exact scan looks at everything either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Recall's wide net: as many of the true nearest as the graph finds.
    Wide,
    /// Only memories close to the query (cosine ≥ 0.8: near duplicates, facts it updates), which
    /// a graph finds with a fraction of the candidates (`VectorIndex::search_near`).
    Close,
}

impl MemoryService {
    /// Whether searches go to the store (see the module docs): then what any server or process
    /// commits is found at once, without following the change log.
    pub fn searches_in_store(&self) -> bool {
        self.in_store
    }

    /// Whether keyword search runs in the store with per-term weights (PostgreSQL without a
    /// keyword index in memory); else in this process's indexes or the store's plain BM25.
    pub(crate) fn keywords_in_store(&self) -> bool {
        self.in_store && self.config.keyword_search == crate::KeywordSearch::Store
    }

    /// The `k` nearest memories to `query` in `model`'s space among those matching `filter`.
    pub(crate) async fn nearest(
        &self,
        namespace: &Namespace,
        model: &str,
        query: &Embedding,
        k: usize,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<Vec<VectorHit>, ServiceError> {
        self.nearest_within(namespace, model, query, (k, Reach::Wide), filter, now).await
    }

    /// [`MemoryService::nearest`], looking as far as `reach` says (`k` first).
    pub(crate) async fn nearest_within(
        &self,
        namespace: &Namespace,
        model: &str,
        query: &Embedding,
        (k, reach): (usize, Reach),
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<Vec<VectorHit>, ServiceError> {
        if self.in_store {
            let found = self.store.nearest_vectors(namespace, model, query, filter, now, k).await?;
            return Ok(found
                .unwrap_or_default()
                .into_iter()
                .map(|m| VectorHit { id: m.id, cosine: m.cosine })
                .collect());
        }
        let _in_memory = self.resident(namespace).await?;
        Ok(self.indexes.search_vectors(namespace, model, query, (k, reach), filter, now).await)
    }

    /// Each of `ids`' cosine to `query` in `model`'s space (`None` without a vector).
    pub(crate) async fn similarities(
        &self,
        namespace: &Namespace,
        model: &str,
        ids: &[MemoryId],
        query: &Embedding,
    ) -> Result<Vec<Option<f32>>, ServiceError> {
        if self.in_store {
            let found = self.store.vector_similarities(namespace, model, ids, query).await?;
            return Ok(found.unwrap_or_else(|| vec![None; ids.len()]));
        }
        let _in_memory = self.resident(namespace).await?;
        Ok(self.indexes.similarities(namespace, model, ids, query))
    }

    /// The stored vectors of `ids` in `model`'s space (`None` without one).
    pub(crate) async fn vectors_of(
        &self,
        namespace: &Namespace,
        model: &str,
        ids: &[MemoryId],
    ) -> Result<Vec<Option<Vec<f32>>>, ServiceError> {
        if self.in_store {
            let mut found: std::collections::HashMap<MemoryId, Vec<f32>> = self
                .store
                .records(namespace, ids)
                .await?
                .into_iter()
                .filter_map(|r| {
                    let id = r.memory.id;
                    r.vectors
                        .into_iter()
                        .find(|v| v.model_id == model)
                        .map(|v| (id, v.embedding.as_slice().to_vec()))
                })
                .collect();
            return Ok(ids.iter().map(|id| found.remove(id)).collect());
        }
        let _in_memory = self.resident(namespace).await?;
        Ok(self.indexes.vectors_of(namespace, model, ids))
    }

    /// The best `k` BM25 matches with per-term weights from the store (only when it
    /// searches), and the full-match score of those terms.
    pub(crate) async fn store_keywords(
        &self,
        namespace: &Namespace,
        terms: &[(String, f32)],
        filter: &MemoryFilter,
        now: Timestamp,
        k: usize,
    ) -> Result<(Vec<KeywordHit>, Option<f32>), ServiceError> {
        let found = self.store.weighted_keyword_search(namespace, terms, filter, now, k).await?;
        Ok(found.map_or((Vec::new(), None), |f| (f.hits, Some(f.full_match))))
    }

    /// The BM25 score of a full match of `terms` (see `TextIndex::full_match`): from the
    /// in-memory keyword index, or the store when it searches; `None` with neither.
    pub(crate) async fn full_match(
        &self,
        namespace: &Namespace,
        terms: &[(String, f32)],
        now: Timestamp,
    ) -> Result<Option<f32>, ServiceError> {
        if self.keywords_in_store() {
            let any = MemoryFilter::default();
            let found = self.store.weighted_keyword_search(namespace, terms, &any, now, 0).await?;
            return Ok(found.map(|f| f.full_match));
        }
        let _in_memory = self.resident(namespace).await?;
        Ok(self.indexes.full_match(namespace, terms))
    }
}
