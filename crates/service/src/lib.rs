//! The use cases of rearview. Every transport (CLI today; MCP and REST next) calls only this.
//!
//! [`MemoryService`] holds a store (`Arc<dyn MemoryStore>`), an optional embedder
//! (`Arc<dyn Embedder>`), a clock and the in-memory vector index, and implements:
//! - [`MemoryService::remember`]: validate, tokenise, embed, write row + keyword entry + vector in
//!   one transaction, index the vector;
//! - [`MemoryService::recall`]: hybrid retrieval (vector top-N ∪ keyword top-N → fused score ×
//!   decay × heat → top-k), then count the access in the background
//!   ([`MemoryService::flush_access_counts`] waits for it);
//! - [`MemoryService::update`]: correct content (re-tokenised, re-embedded), metadata, tier or
//!   TTL in one transaction;
//! - [`MemoryService::get`], [`MemoryService::list`], [`MemoryService::forget`],
//!   [`MemoryService::stats`], [`MemoryService::backfill_embeddings`].
//!
//! **Degraded mode.** With no embedder, or while the embedder fails, memories are still stored and
//! are keyword-searchable at once; they get their vector later from
//! [`MemoryService::backfill_embeddings`]. A failing model never loses a write.
//!
//! **Time.** The service reads the clock once per call and passes that instant down; ranking and
//! stores never read it themselves. `as_of` replaces "now" for a recall, so old conversations can
//! be replayed: expiry and decay are evaluated at that instant, and memories whose event time is
//! after it are not visible.

mod access;
mod error;
mod indexes;
mod requests;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rearview_core::{
    Clock, InputError, Memory, MemoryFilter, MemoryId, Namespace, TierTtls, Timestamp,
    content_hash, truncate_chars,
};
use rearview_embed::{Embedder, TextKind};
use rearview_search::{Candidate, RankingConfig, Tokenizer, rank};
use rearview_store::{
    KeywordHit, MemoryRecord, MemoryStore, MemoryUpdate, Page, StoreStats, StoredVector,
};

use crate::access::AccessRecorder;
use crate::indexes::Indexes;

pub use error::{ErrorKind, ServiceError};
pub use requests::{
    RecallHit, RecallRequest, RecallResponse, RememberRequest, UpdateRequest, VectorSearch,
};

/// Settings of the service. Defaults follow the design.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// Default TTL per tier (working 1 h, episodic 30 d, semantic never).
    pub ttls: TierTtls,
    /// Ranking weights, decay, heat and candidate counts (design §3.3).
    pub ranking: RankingConfig,
    /// How keyword terms are made. Changing it requires re-indexing existing memories.
    pub tokenizer: Tokenizer,
    /// Longest content accepted, in characters.
    pub max_content_chars: usize,
    /// Largest `top_k` a recall may ask for.
    pub max_top_k: usize,
    /// Where keyword search runs.
    pub keyword_search: KeywordSearch,
}

/// Where keyword (BM25) search runs. Both score alike (FTS5's BM25 formula); they differ in cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeywordSearch {
    /// An in-memory inverted index per namespace, built from the store at start-up: ~100× faster
    /// per query, costs start-up time and memory. For long-running servers.
    #[default]
    InMemory,
    /// The store's own full-text index (SQLite FTS5): nothing to build. For one-shot CLI commands.
    Store,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        Self {
            ttls: TierTtls::default(),
            ranking: RankingConfig::default(),
            tokenizer: Tokenizer::default(),
            max_content_chars: 32_768,
            max_top_k: 100,
            keyword_search: KeywordSearch::default(),
        }
    }
}

/// What the service holds and how it is doing.
#[derive(Debug, Clone)]
pub struct ServiceStats {
    /// Counts, vectors per model, size.
    pub store: StoreStats,
    /// The embedding model serving recall, or `None` in keyword-only mode.
    pub embedder: Option<EmbedderInfo>,
    /// Vectors in the in-memory index (all namespaces).
    pub indexed_vectors: usize,
    /// Memories without a vector of the current model, waiting for backfill.
    pub pending_embeddings: u64,
    /// Why there is no embedder, or what is happening to it ("fetching …"), when the process
    /// set one ([`MemoryService::set_embedding_status`]).
    pub embedding_status: Option<String>,
}

/// The current embedding model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedderInfo {
    /// Model id stored next to its vectors.
    pub model_id: String,
    /// Vector length.
    pub dimensions: usize,
}

/// The memory service. Cheap to share behind an `Arc`; every method takes `&self`.
pub struct MemoryService {
    /// Source of truth for memories, keyword entries and vectors.
    store: Arc<dyn MemoryStore>,
    /// Embeds memories and queries; `None` means keyword-only mode. Swappable at run time
    /// ([`MemoryService::attach_embedder`]): a server starts keyword-only while its model loads.
    embedder: std::sync::RwLock<Option<Arc<dyn Embedder>>>,
    /// A note on the embedder's state for stats and health (e.g. "fetching …").
    embedding_status: std::sync::RwLock<Option<String>>,
    /// The only source of "now".
    clock: Arc<dyn Clock>,
    /// Validated settings.
    config: ServiceConfig,
    /// Per-namespace keyword index (when in memory) and vectors of the current model, rebuilt
    /// from the store at start-up and updated after every committed write. Never the source of
    /// truth.
    indexes: Indexes,
    /// Applies recalls' access-count increments in the background (see `access.rs`).
    access: AccessRecorder,
}

impl std::fmt::Debug for MemoryService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryService")
            .field("embedder", &self.embedder().map(|e| e.model_id().to_owned()))
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl MemoryService {
    /// Builds the service and loads the current model's vectors from the store into memory.
    pub async fn open(
        store: Arc<dyn MemoryStore>,
        embedder: Option<Arc<dyn Embedder>>,
        clock: Arc<dyn Clock>,
        config: ServiceConfig,
    ) -> Result<Self, ServiceError> {
        config.tokenizer.warm_up();
        let access = AccessRecorder::start(Arc::clone(&store));
        let embedder = std::sync::RwLock::new(embedder);
        let service = Self {
            store,
            embedder,
            embedding_status: std::sync::RwLock::new(None),
            clock,
            config,
            indexes: Indexes::default(),
            access,
        };
        service.check_tokenizer().await?;
        service.load_indexes().await?;
        Ok(service)
    }

    /// The settings in force.
    pub fn config(&self) -> &ServiceConfig {
        &self.config
    }

    /// The embedder in use, or `None` in keyword-only mode.
    pub fn embedder(&self) -> Option<Arc<dyn Embedder>> {
        self.embedder.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Records why recall is keyword-only or what is happening to the model ("fetching
    /// multilingual-e5-small"); shown by stats and health. Attaching an embedder clears it.
    pub fn set_embedding_status(&self, status: Option<String>) {
        *self.embedding_status.write().unwrap_or_else(|e| e.into_inner()) = status;
    }

    fn is_current_model(&self, model_id: &str) -> bool {
        self.embedder().is_some_and(|e| e.model_id() == model_id)
    }

    /// Switches to `embedder` (e.g. once a model finished downloading): loads its stored
    /// vectors into the index, then serves queries with it. Memories stored without a vector
    /// meanwhile are found by [`MemoryService::backfill_embeddings`].
    pub async fn attach_embedder(&self, embedder: Arc<dyn Embedder>) -> Result<(), ServiceError> {
        let entries = self.store.vectors(embedder.model_id()).await?;
        let skipped = self.indexes.load_vectors(entries, embedder.dimensions());
        if skipped > 0 {
            tracing::warn!(
                skipped,
                model = embedder.model_id(),
                "stored vectors with the wrong dimension were not indexed"
            );
        }
        tracing::info!(model = embedder.model_id(), "embedding model attached");
        *self.embedder.write().unwrap_or_else(|e| e.into_inner()) = Some(embedder);
        self.set_embedding_status(None);
        Ok(())
    }

    /// Stores a new memory and returns it as stored.
    ///
    /// If the embedder fails, the memory is stored without a vector (keyword-searchable at once,
    /// vector added by [`MemoryService::backfill_embeddings`]) and a warning is logged.
    pub async fn remember(
        &self,
        namespace: &Namespace,
        request: RememberRequest,
    ) -> Result<Memory, ServiceError> {
        let new = request.validate(self.config.max_content_chars)?;
        let now = self.clock.now();
        let ttl_secs = match new.ttl_secs {
            Some(secs) => secs,
            None => self.config.ttls.for_tier(new.memory_type).map_or(0, |d| d.as_secs()),
        };
        let expires_at = expiry(now, ttl_secs)?;
        let memory = Memory {
            id: MemoryId::new_v7(now),
            namespace: namespace.clone(),
            memory_type: new.memory_type,
            content_hash: content_hash(&new.content),
            content: new.content,
            metadata: new.metadata,
            session_id: new.session_id,
            ttl_secs,
            timestamp: now,
            occurred_at: new.occurred_at.unwrap_or(now),
            updated_at: now,
            last_accessed_at: None,
            expires_at,
            access_count: 0,
            archived: false,
            source_ids: Vec::new(),
        };
        let terms = self.config.tokenizer.index_terms(&memory.content);
        let vector = self.embed_passage(&memory.content).await;
        let record = MemoryRecord { memory, terms, vectors: vector.iter().cloned().collect() };
        self.store.insert(&record).await?;
        let in_memory = self.config.keyword_search == KeywordSearch::InMemory;
        self.indexes.add(
            &record.memory,
            in_memory.then_some(record.terms.as_slice()),
            // A model swapped in meanwhile must not get this vector; backfill embeds it anew.
            vector
                .as_ref()
                .filter(|v| self.is_current_model(&v.model_id))
                .map(|v| (&v.embedding, v.embedding.dimensions())),
        );
        tracing::debug!(namespace = %namespace, id = %record.memory.id, "stored memory");
        Ok(record.memory)
    }

    /// Hybrid recall. See the crate docs and `rearview_search::rank` for the formula.
    pub async fn recall(
        &self,
        namespace: &Namespace,
        request: RecallRequest,
    ) -> Result<RecallResponse, ServiceError> {
        request.validate(self.config.max_top_k)?;
        let now = request.as_of.unwrap_or_else(|| self.clock.now());
        let mut filter = request.filter.clone();
        if request.as_of.is_some() {
            // Replaying the past: what happened after `as_of` had not happened yet.
            filter.occurred_before = Some(filter.occurred_before.map_or(now, |b| b.min(now)));
        }
        let ranking = request.ranking.unwrap_or(self.config.ranking);

        let (query_vector, vector_search) = self.embed_query(&request.query, &ranking).await;
        let vector_hits = match &query_vector {
            Some(q) => {
                self.indexes.search_vectors(namespace, q, ranking.vector_candidates, &filter, now)
            }
            None => Vec::new(),
        };
        let terms = self.config.tokenizer.query_terms(&request.query);
        let keyword_hits = match (ranking.keyword_candidates, self.config.keyword_search) {
            (0, _) => Vec::new(),
            (k, KeywordSearch::InMemory) => self
                .indexes
                .search_text(namespace, &terms, k, &filter, now)
                .into_iter()
                .map(|h| KeywordHit { id: h.id, bm25: h.bm25 })
                .collect(),
            (k, KeywordSearch::Store) => {
                self.store.keyword_search(namespace, &terms, &filter, now, k).await?
            }
        };

        let mut ids: Vec<MemoryId> = vector_hits.iter().map(|h| h.id).collect();
        let mut seen: HashSet<MemoryId> = ids.iter().copied().collect();
        ids.extend(keyword_hits.iter().map(|h| h.id).filter(|id| seen.insert(*id)));
        let memories: HashMap<MemoryId, Memory> = self
            .store
            .get_many(namespace, &ids, now)
            .await?
            .into_iter()
            .map(|m| (m.id, m))
            .collect();

        let candidate_ids: Vec<MemoryId> = memories.keys().copied().collect();
        // Every candidate gets its exact cosine, also those found only by keywords.
        let cosines = match &query_vector {
            Some(q) => self.indexes.similarities(namespace, &candidate_ids, q),
            None => vec![None; candidate_ids.len()],
        };
        let candidates: Vec<Candidate> = candidate_ids
            .iter()
            .zip(cosines)
            .map(|(id, cosine)| (&memories[id], cosine))
            .map(|(m, cosine)| Candidate {
                id: m.id,
                memory_type: m.memory_type,
                cosine,
                vector_rank: vector_hits.iter().position(|h| h.id == m.id).map(|p| p + 1),
                bm25: keyword_hits.iter().find(|h| h.id == m.id).map(|h| h.bm25),
                keyword_rank: keyword_hits.iter().position(|h| h.id == m.id).map(|p| p + 1),
                occurred_at: m.occurred_at,
                access_count: m.access_count,
            })
            .collect();
        let mut ranked = rank(&candidates, &ranking, now, request.tier_order);
        ranked.truncate(request.top_k);

        let returned: Vec<MemoryId> = ranked.iter().map(|s| s.id).collect();
        if request.record_access && !returned.is_empty() {
            self.access.record(namespace, returned, self.clock.now()).await;
        }
        let hits = ranked
            .into_iter()
            .filter_map(|scored| {
                let mut memory = memories.get(&scored.id)?.clone();
                if request.record_access {
                    memory.access_count += 1;
                }
                Some(RecallHit {
                    memory,
                    score: scored.score,
                    explanation: request.explain.then_some(scored.explanation),
                })
            })
            .collect();
        Ok(RecallResponse { hits, as_of: now, vector_search, query_terms: terms })
    }

    /// Waits until the access counts of every recall that has returned are committed. Call
    /// before exiting; reads see a recall's increments only after it (or a moment later).
    pub async fn flush_access_counts(&self) {
        self.access.flush().await;
    }

    /// One memory by id.
    pub async fn get(&self, namespace: &Namespace, id: MemoryId) -> Result<Memory, ServiceError> {
        self.store
            .get(namespace, id, self.clock.now())
            .await?
            .ok_or_else(|| not_found(namespace, id))
    }

    /// Memories matching `filter`, newest event first, one page.
    pub async fn list(
        &self,
        namespace: &Namespace,
        filter: &MemoryFilter,
        page: Page,
    ) -> Result<Vec<Memory>, ServiceError> {
        if page.limit == 0 || page.limit > 1000 {
            return Err(InputError::new("limit", "must be between 1 and 1000").into());
        }
        Ok(self.store.list(namespace, filter, self.clock.now(), page).await?)
    }

    /// Corrects a memory: new content (re-tokenised and re-embedded), metadata, tier or TTL, in
    /// one transaction. A TTL given here counts from now. If the embedder fails, the memory keeps
    /// no stale vector: it is left without one until backfill.
    pub async fn update(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        request: UpdateRequest,
    ) -> Result<Memory, ServiceError> {
        let change = request.validate(self.config.max_content_chars)?;
        let now = self.clock.now();
        let mut update = MemoryUpdate { at: now, ..MemoryUpdate::default() };
        let mut terms = None;
        let mut vector = None;
        if let Some(content) = change.content {
            let new_terms = self.config.tokenizer.index_terms(&content);
            vector = Some(self.embed_passage(&content).await);
            update.vectors = Some(vector.iter().flatten().cloned().collect());
            update.content = Some((content.clone(), new_terms.clone(), content_hash(&content)));
            terms = Some(new_terms);
        }
        update.metadata = change.metadata;
        update.memory_type = change.memory_type;
        if let Some(ttl) = change.ttl_secs {
            update.ttl = Some((ttl, expiry(now, ttl)?));
        }
        let memory = self
            .store
            .update(namespace, id, &update)
            .await?
            .ok_or_else(|| not_found(namespace, id))?;
        let in_memory = self.config.keyword_search == KeywordSearch::InMemory;
        self.indexes.replace(
            &memory,
            terms.as_deref().filter(|_| in_memory),
            vector.as_ref().map(|v| {
                v.as_ref().filter(|v| self.is_current_model(&v.model_id)).map(|v| &v.embedding)
            }),
        );
        Ok(memory)
    }

    /// Deletes a memory, its keyword entry and its vectors.
    pub async fn forget(&self, namespace: &Namespace, id: MemoryId) -> Result<(), ServiceError> {
        if !self.store.delete(namespace, id).await? {
            return Err(not_found(namespace, id));
        }
        self.indexes.remove(namespace, id);
        Ok(())
    }

    /// Counts per namespace and tier, vectors, size, and the embedding model's state.
    pub async fn stats(&self) -> Result<ServiceStats, ServiceError> {
        let store = self.store.stats(self.clock.now()).await?;
        let total: u64 = store.tiers.iter().map(|t| t.live + t.archived + t.expired).sum();
        let embedder = self.embedder().map(|e| EmbedderInfo {
            model_id: e.model_id().to_owned(),
            dimensions: e.dimensions(),
        });
        let embedded = embedder.as_ref().map_or(0, |e| {
            store.vectors_per_model.iter().find(|(m, _)| *m == e.model_id).map_or(0, |(_, n)| *n)
        });
        let indexed_vectors = self.indexes.vector_count();
        Ok(ServiceStats {
            pending_embeddings: total.saturating_sub(embedded),
            store,
            embedder,
            indexed_vectors,
            embedding_status: self
                .embedding_status
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        })
    }

    /// Embeds up to `batch` memories that have no vector of the current model, oldest first.
    /// Returns how many got one. Call repeatedly until it returns 0.
    pub async fn backfill_embeddings(&self, batch: usize) -> Result<usize, ServiceError> {
        let Some(embedder) = self.embedder() else { return Ok(0) };
        let pending = self.store.pending_embeddings(embedder.model_id(), batch).await?;
        if pending.is_empty() {
            return Ok(0);
        }
        let texts: Vec<String> = pending.iter().map(|p| p.content.clone()).collect();
        let vectors = embedder.embed(&texts, TextKind::Passage).await?;
        let mut done = 0;
        let now = self.clock.now();
        for (p, embedding) in pending.iter().zip(vectors) {
            let vector = StoredVector { model_id: embedder.model_id().to_owned(), embedding };
            if self.store.put_vector(&p.namespace, p.id, &vector).await? {
                done += 1;
                // Expired memories get their vector too (so they leave the queue) but no index entry.
                if let Some(memory) = self.store.get(&p.namespace, p.id, now).await? {
                    self.indexes.add_vector(&memory, &vector.embedding, embedder.dimensions());
                }
            }
        }
        Ok(done)
    }

    /// Refuses to run with a tokenizer other than the one that built the stored keyword terms
    /// (their BM25 matches would silently be wrong); records it on first use.
    async fn check_tokenizer(&self) -> Result<(), ServiceError> {
        let ours = self.config.tokenizer.id();
        match self.store.setting(TOKENIZER_SETTING).await? {
            None => Ok(self.store.set_setting(TOKENIZER_SETTING, ours).await?),
            Some(stored) if stored == ours => Ok(()),
            Some(stored) => Err(ServiceError::Unavailable(format!(
                "the database's keyword index was built with tokenizer {stored:?}, but this \
                 configuration uses {ours:?}; switch the tokenizer back (re-indexing keywords \
                 with another tokenizer is not supported yet)"
            ))),
        }
    }

    async fn load_indexes(&self) -> Result<(), ServiceError> {
        if self.config.keyword_search == KeywordSearch::InMemory {
            self.indexes.load_text(self.store.keyword_entries().await?);
        }
        if let Some(embedder) = self.embedder() {
            self.attach_embedder(embedder).await?;
        }
        Ok(())
    }

    /// The passage vector of `content`, or `None` (logged) if there is no working model.
    async fn embed_passage(&self, content: &str) -> Option<StoredVector> {
        let embedder = self.embedder()?;
        match embedder.embed(&[content.to_owned()], TextKind::Passage).await {
            Ok(mut v) if v.len() == 1 => Some(StoredVector {
                model_id: embedder.model_id().to_owned(),
                embedding: v.remove(0),
            }),
            Ok(_) => None,
            Err(e) => {
                tracing::warn!(error = %e, "storing memory without a vector; it will be backfilled");
                None
            }
        }
    }

    async fn embed_query(
        &self,
        query: &str,
        ranking: &RankingConfig,
    ) -> (Option<rearview_core::Embedding>, VectorSearch) {
        let Some(embedder) = self.embedder() else { return (None, VectorSearch::NoModel) };
        if ranking.vector_candidates == 0 {
            return (None, VectorSearch::Disabled);
        }
        match embedder.embed(&[query.to_owned()], TextKind::Query).await {
            Ok(mut v) if v.len() == 1 => {
                (Some(v.remove(0)), VectorSearch::Used { model_id: embedder.model_id().to_owned() })
            }
            Ok(_) => (None, VectorSearch::Failed { reason: "model returned no vector".to_owned() }),
            Err(e) => {
                tracing::warn!(error = %e, "query embedding failed; recalling by keywords only");
                (None, VectorSearch::Failed { reason: truncate_chars(&e.to_string(), 200) })
            }
        }
    }
}

/// Store setting naming the tokenizer that produced the stored keyword terms.
const TOKENIZER_SETTING: &str = "tokenizer";

fn expiry(now: Timestamp, ttl_secs: u64) -> Result<Option<Timestamp>, ServiceError> {
    if ttl_secs == 0 {
        return Ok(None);
    }
    let delta = i64::try_from(ttl_secs).ok().and_then(chrono::TimeDelta::try_seconds);
    delta
        .and_then(|d| now.checked_add_signed(d))
        .map(Some)
        .ok_or_else(|| InputError::new("ttl", "is too large; use 0 for never").into())
}

fn not_found(namespace: &Namespace, id: MemoryId) -> ServiceError {
    ServiceError::NotFound { id: id.to_string(), namespace: namespace.to_string() }
}
