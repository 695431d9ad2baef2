//! [`HookedStore`]: a store that runs a test's hook before each insert and forwards everything
//! else to the store it wraps, for tests that pause or observe a write inside the store (one
//! forwarding of every role, so a test writes only its hook).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use async_trait::async_trait;
use rearview_core::{Embedding, Memory, MemoryFilter, MemoryId, MemoryType, Namespace, Timestamp};

use crate::prelude::*;
use crate::{
    ApiKeyRecord, Changes, DayCount, FacetEntry, HalfVectorVisitor, KeywordEntry, KeywordHit,
    KeywordVisitor, MemoryRecord, MemoryUpdate, Page, PendingEmbedding, StoreError, StoreStats,
    StoredVector, VectorEntry, VectorMatch, WeightedKeywordHits,
};

/// What a [`HookedStore`] runs before an insert: it may wait (a gate) before the write goes on.
pub type InsertHook =
    Box<dyn Fn(&MemoryRecord) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// `inner`, with `before_insert` run (and awaited) before each [`MemoryRecords::insert`].
pub struct HookedStore {
    inner: Arc<dyn MemoryStore>,
    before_insert: InsertHook,
}

impl HookedStore {
    /// `inner` with `before_insert` run before each insert.
    pub fn new(inner: Arc<dyn MemoryStore>, before_insert: InsertHook) -> Self {
        Self { inner, before_insert }
    }
}

#[async_trait]
impl MemoryRecords for HookedStore {
    async fn insert(&self, record: &MemoryRecord) -> Result<(), StoreError> {
        (self.before_insert)(record).await;
        self.inner.insert(record).await
    }

    async fn insert_many(&self, records: &[MemoryRecord]) -> Result<Vec<bool>, StoreError> {
        self.inner.insert_many(records).await
    }

    async fn get_many(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
        now: Timestamp,
    ) -> Result<Vec<Memory>, StoreError> {
        self.inner.get_many(namespace, ids, now).await
    }

    async fn update(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        update: &MemoryUpdate,
    ) -> Result<Option<Memory>, StoreError> {
        self.inner.update(namespace, id, update).await
    }

    async fn delete(&self, namespace: &Namespace, id: MemoryId) -> Result<bool, StoreError> {
        self.inner.delete(namespace, id).await
    }

    async fn list(
        &self,
        namespace: &Namespace,
        filter: &MemoryFilter,
        now: Timestamp,
        page: Page,
    ) -> Result<Vec<Memory>, StoreError> {
        self.inner.list(namespace, filter, now, page).await
    }

    async fn count(
        &self,
        namespace: &Namespace,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        self.inner.count(namespace, filter, now).await
    }

    async fn record_access(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
        at: Timestamp,
    ) -> Result<(), StoreError> {
        self.inner.record_access(namespace, ids, at).await
    }

    async fn predecessors(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        now: Timestamp,
    ) -> Result<Vec<Memory>, StoreError> {
        self.inner.predecessors(namespace, id, now).await
    }

    async fn pending_review(
        &self,
        namespace: &Namespace,
        now: Timestamp,
        page: Page,
    ) -> Result<Vec<Memory>, StoreError> {
        self.inner.pending_review(namespace, now, page).await
    }

    async fn find_by_hash(
        &self,
        namespace: &Namespace,
        hash: &str,
        now: Timestamp,
    ) -> Result<Vec<Memory>, StoreError> {
        self.inner.find_by_hash(namespace, hash, now).await
    }

    async fn export_page(
        &self,
        namespace: &Namespace,
        after: Option<MemoryId>,
        limit: usize,
        with_vectors: bool,
    ) -> Result<Vec<(Memory, Vec<StoredVector>)>, StoreError> {
        self.inner.export_page(namespace, after, limit, with_vectors).await
    }

    async fn records(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
    ) -> Result<Vec<MemoryRecord>, StoreError> {
        self.inner.records(namespace, ids).await
    }
}

#[async_trait]
impl KeywordStore for HookedStore {
    async fn keyword_search(
        &self,
        namespace: &Namespace,
        terms: &[String],
        filter: &MemoryFilter,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<KeywordHit>, StoreError> {
        self.inner.keyword_search(namespace, terms, filter, now, limit).await
    }

    async fn visit_keyword_entries(
        &self,
        except: &[Namespace],
        visit: KeywordVisitor,
    ) -> Result<(), StoreError> {
        self.inner.visit_keyword_entries(except, visit).await
    }

    async fn visit_namespace_keyword_entries(
        &self,
        namespace: &Namespace,
        visit: KeywordVisitor,
    ) -> Result<(), StoreError> {
        self.inner.visit_namespace_keyword_entries(namespace, visit).await
    }

    async fn keyword_entries(&self) -> Result<Vec<KeywordEntry>, StoreError> {
        self.inner.keyword_entries().await
    }

    async fn weighted_keyword_search(
        &self,
        namespace: &Namespace,
        terms: &[(String, f32)],
        filter: &MemoryFilter,
        now: Timestamp,
        k: usize,
    ) -> Result<Option<WeightedKeywordHits>, StoreError> {
        self.inner.weighted_keyword_search(namespace, terms, filter, now, k).await
    }
}

#[async_trait]
impl VectorStore for HookedStore {
    async fn put_vector(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        vector: &StoredVector,
    ) -> Result<bool, StoreError> {
        self.inner.put_vector(namespace, id, vector).await
    }

    async fn vectors(&self, model_id: &str) -> Result<Vec<VectorEntry>, StoreError> {
        self.inner.vectors(model_id).await
    }

    async fn vector_facets(&self, model_id: &str) -> Result<Vec<FacetEntry>, StoreError> {
        self.inner.vector_facets(model_id).await
    }

    async fn namespace_vectors(
        &self,
        model_id: &str,
        namespace: &Namespace,
    ) -> Result<Vec<VectorEntry>, StoreError> {
        self.inner.namespace_vectors(model_id, namespace).await
    }

    async fn visit_namespace_half_vectors(
        &self,
        model_id: &str,
        namespace: &Namespace,
        visit: HalfVectorVisitor,
    ) -> Result<(), StoreError> {
        self.inner.visit_namespace_half_vectors(model_id, namespace, visit).await
    }

    async fn pending_embeddings(
        &self,
        model_id: &str,
        namespace: Option<&Namespace>,
        limit: usize,
    ) -> Result<Vec<PendingEmbedding>, StoreError> {
        self.inner.pending_embeddings(model_id, namespace, limit).await
    }

    fn searches_in_store(&self) -> bool {
        self.inner.searches_in_store()
    }

    async fn nearest_vectors(
        &self,
        namespace: &Namespace,
        model_id: &str,
        query: &Embedding,
        filter: &MemoryFilter,
        now: Timestamp,
        k: usize,
    ) -> Result<Option<Vec<VectorMatch>>, StoreError> {
        self.inner.nearest_vectors(namespace, model_id, query, filter, now, k).await
    }

    async fn vector_similarities(
        &self,
        namespace: &Namespace,
        model_id: &str,
        ids: &[MemoryId],
        query: &Embedding,
    ) -> Result<Option<Vec<Option<f32>>>, StoreError> {
        self.inner.vector_similarities(namespace, model_id, ids, query).await
    }
}

#[async_trait]
impl KeyStore for HookedStore {
    async fn insert_key(&self, key: &ApiKeyRecord) -> Result<bool, StoreError> {
        self.inner.insert_key(key).await
    }

    async fn find_key(&self, id: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        self.inner.find_key(id).await
    }

    async fn list_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
        self.inner.list_keys().await
    }

    async fn revoke_key(&self, id: &str, at: Timestamp) -> Result<bool, StoreError> {
        self.inner.revoke_key(id, at).await
    }

    async fn count_active_keys(&self, now: Timestamp) -> Result<u64, StoreError> {
        self.inner.count_active_keys(now).await
    }
}

#[async_trait]
impl StoreMaintenance for HookedStore {
    async fn delete_expired(
        &self,
        namespace: Option<&Namespace>,
        now: Timestamp,
    ) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
        self.inner.delete_expired(namespace, now).await
    }

    async fn archive_idle(
        &self,
        namespace: Option<&Namespace>,
        memory_type: MemoryType,
        idle_since: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
        self.inner.archive_idle(namespace, memory_type, idle_since, now).await
    }

    async fn change_position(&self) -> Result<u64, StoreError> {
        self.inner.change_position().await
    }

    async fn changes_since(&self, position: u64, limit: usize) -> Result<Changes, StoreError> {
        self.inner.changes_since(position, limit).await
    }

    async fn prune_changes(&self, keep: u64) -> Result<u64, StoreError> {
        self.inner.prune_changes(keep).await
    }

    async fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.inner.setting(key).await
    }

    async fn set_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.inner.set_setting(key, value).await
    }

    async fn claim_sweep(
        &self,
        now: Timestamp,
        every: chrono::TimeDelta,
    ) -> Result<bool, StoreError> {
        self.inner.claim_sweep(now, every).await
    }

    async fn stats(&self, now: Timestamp) -> Result<StoreStats, StoreError> {
        self.inner.stats(now).await
    }

    async fn daily_counts(
        &self,
        namespace: &Namespace,
        since: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<DayCount>, StoreError> {
        self.inner.daily_counts(namespace, since, now).await
    }

    async fn refresh_statistics(&self) -> Result<(), StoreError> {
        self.inner.refresh_statistics().await
    }
}
