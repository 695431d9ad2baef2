//! The use cases of rearview. Every transport (CLI, MCP, REST) calls only this.
//!
//! [`MemoryService`] holds a store (`Arc<dyn MemoryStore>`), the embedders in use
//! (`Arc<dyn Embedder>`, none to several, one vector space each), a clock and the in-memory
//! indexes, and implements:
//! - [`MemoryService::remember`]: validate, tokenise, embed with each model, write row + keyword
//!   entry + vectors in one transaction, index the vectors;
//! - [`MemoryService::recall`]: hybrid retrieval (vector top-N ∪ keyword top-N → fused score ×
//!   decay × heat → top-k), then count the access in the background
//!   ([`MemoryService::flush_access_counts`] waits for it);
//! - [`MemoryService::update`]: correct content (re-tokenised, re-embedded), metadata, tier or
//!   TTL in one transaction;
//! - [`MemoryService::get`], [`MemoryService::list`], [`MemoryService::forget`],
//!   [`MemoryService::stats`], [`MemoryService::backfill_embeddings`] / [`MemoryService::reindex`],
//!   [`MemoryService::cleanup_expired`], [`MemoryService::attach_embedders`].
//!
//! **Degraded mode.** With no embedder, or while the embedder fails, memories are still stored and
//! are keyword-searchable at once; they get their vector later from
//! [`MemoryService::backfill_embeddings`]. A failing model never loses a write.
//!
//! **Concurrency.** Every method takes `&self` and may run concurrently. Calls that read memories,
//! decide and write (dedup and merges, update, archive, ending a session, distilling) hold their
//! namespace's write lock from the read through the write (`locks.rs`), so concurrent calls in one
//! namespace behave as if they ran one after another; embedding and LLM calls happen before the
//! lock is taken, and namespaces never wait for each other. Reads take no lock.
//!
//! **Time.** The service reads the clock once per call and passes that instant down; ranking and
//! stores never read it themselves. `as_of` replaces "now" for a recall, so old conversations can
//! be replayed: expiry and decay are evaluated at that instant, and memories whose event time is
//! after it are not visible.

mod access;
mod error;
mod follow;
mod graph_files;
mod graphs;
mod indexes;
mod keys;
mod keywords;
mod lifecycle;
mod locks;
mod lookup;
pub mod migrate;
mod models;
mod query_cache;
mod recall;
mod requests;
mod residency;
mod saved;
mod tenancy;
mod timeline;
mod transfer;
mod vectors;

use std::sync::Arc;

use rearview_core::{
    Clock, InputError, Memory, MemoryFilter, MemoryId, Namespace, TierTtls, Timestamp, content_hash,
};
use rearview_embed::Embedder;
use rearview_language::Tokenizer;
use rearview_ranking::RankingConfig;
use rearview_store::{MemoryRecord, MemoryStore, MemoryUpdate, Page, StoreStats, TierCount};

use crate::access::AccessRecorder;
use crate::indexes::Indexes;
use crate::locks::{WriteGuard, WriteLocks};

pub use error::{ErrorKind, ServiceError};
pub use follow::Followed;
pub use graph_files::graph_dir_for;
pub use indexes::IndexUsage;
pub use keys::{AuthError, CreatedKey, MIN_SEED_CHARS, NewKey};
pub use lifecycle::{
    DistillPreview, DistillRequest, Distilled, LifecycleConfig, Linked, MAX_LINKED, Merge,
    Originals, PendingReview, PossibleChange, SessionEnd, Stored, Suggestion, Superseded,
    SweepReport,
};
pub use requests::{
    RecallHit, RecallRequest, RecallResponse, RecallTimings, RememberRequest, Shown, UpdateRequest,
    VectorSearch, estimate_tokens,
};
pub use residency::default_index_memory;
pub use saved::SavedIndexes;
pub use tenancy::{Caller, Grant};
pub use timeline::MAX_TIMELINE_DAYS;
pub use transfer::{ImportItem, Imported};

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
    /// Longest recall query accepted, in characters (long queries cost embedding windows and
    /// keyword lookups for every caller of the server).
    pub max_query_chars: usize,
    /// Where keyword search runs.
    pub keyword_search: KeywordSearch,
    /// The relevance floor (a cosine) of a recall that sets none; `None`: the primary model's
    /// calibrated floor (`recall.rs`), none for a model without one.
    pub min_relevance: Option<f32>,
    /// Dedup-merge, archive, summaries, distillation.
    pub lifecycle: LifecycleConfig,
    /// Vectors of one model in one namespace up to which search scans them exactly; past it a
    /// namespace is searched by an HNSW graph (built in the background when a namespace grows
    /// past it, at start-up for one loaded past it). Default [`EXACT_SCAN_LIMIT`].
    pub exact_scan_limit: usize,
    /// Where large namespaces' vector graphs are saved between runs (`graphs.rs`); `None`: not
    /// saved, rebuilt at every start.
    pub graph_dir: Option<std::path::PathBuf>,
    /// Search in the store itself when it can (`VectorStore::searches_in_store`: PostgreSQL):
    /// no vectors are loaded into memory; keywords are searched as `keyword_search` says (the
    /// store's with per-term weights, `lookup.rs`, for `Store`). Ignored for a store that
    /// cannot. Default on.
    pub search_in_store: bool,
    /// Load a namespace's in-memory indexes when it is first used, and drop the least recently
    /// used ones once they hold more than this many bytes (`residency.rs`); `None`: load every
    /// namespace at start-up and keep it. Namespaces searched through a graph are never
    /// dropped.
    pub index_memory: Option<usize>,
}

/// Default [`ServiceConfig::exact_scan_limit`]: an exact scan of 20,000 × 384 takes ~3 ms on two
/// cores; past it the graph answers in ~1 ms at recall@10 ≥ 0.99 (BENCHMARKS.md).
pub const EXACT_SCAN_LIMIT: usize = 20_000;

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
            max_query_chars: 8_000,
            keyword_search: KeywordSearch::default(),
            min_relevance: None,
            lifecycle: LifecycleConfig::default(),
            exact_scan_limit: EXACT_SCAN_LIMIT,
            graph_dir: None,
            search_in_store: true,
            index_memory: None,
        }
    }
}

/// What the service holds and how it is doing.
#[derive(Debug, Clone)]
pub struct ServiceStats {
    /// Counts, vectors per model, size.
    pub store: StoreStats,
    /// The primary embedding model, or `None` in keyword-only mode.
    pub embedder: Option<EmbedderInfo>,
    /// Every embedding model in use, primary first.
    pub models: Vec<EmbedderInfo>,
    /// Vectors in the in-memory index (all namespaces).
    pub indexed_vectors: usize,
    /// Of those, the vectors searched through an HNSW graph (namespaces past
    /// [`ServiceConfig::exact_scan_limit`]); the rest are scanned exactly.
    pub graph_vectors: usize,
    /// The in-memory indexes: namespaces loaded, their bytes, the budget, evictions.
    pub indexes: IndexUsage,
    /// Missing vectors (memories × models in use without one), waiting for backfill.
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
    /// Embed memories and queries, the first being the primary model; none means keyword-only
    /// mode. Every memory is embedded by each (one vector space per model, design §3.2); a
    /// recall queries each space and merges. Swappable at run time
    /// ([`MemoryService::attach_embedders`]): a server starts keyword-only while its model loads.
    embedders: std::sync::RwLock<Vec<Arc<dyn Embedder>>>,
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
    /// Extracts, distills and summarises when set; rule-based and extractive methods otherwise.
    llm: std::sync::RwLock<Option<Arc<dyn rearview_llm::LanguageModel>>>,
    /// One write lock per namespace, held by every read-decide-write (see `locks.rs`).
    writes: WriteLocks,
    /// Vectors of recent queries, per model (see `query_cache.rs`).
    query_vectors: query_cache::QueryCache,
    /// The store's change-log position the indexes have caught up to (see `follow.rs`).
    followed: tokio::sync::Mutex<u64>,
    /// Searches go to the store (`lookup.rs`).
    in_store: bool,
}

impl std::fmt::Debug for MemoryService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryService")
            .field(
                "embedders",
                &self.embedders().iter().map(|e| e.model_id().to_owned()).collect::<Vec<_>>(),
            )
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
        let embedders = std::sync::RwLock::new(embedder.into_iter().collect());
        let in_store = config.search_in_store && store.searches_in_store();
        let indexes = if in_store {
            // Vectors are searched in the store; keywords in this process's indexes (on demand
            // within a budget, or every namespace's from the start), as BM25 in SQL reads a
            // namespace's terms whole: only one-shot commands (`KeywordSearch::Store`) search
            // keywords there.
            match config.index_memory {
                Some(budget) if config.keyword_search == KeywordSearch::InMemory => {
                    Indexes::without_vectors().on_demand_within(budget)
                }
                _ => Indexes::without_vectors(),
            }
        } else {
            let indexes = Indexes::new(config.exact_scan_limit);
            match config.index_memory {
                Some(budget) => indexes.on_demand_within(budget),
                None => indexes,
            }
        };
        let service = Self {
            indexes,
            store,
            embedders,
            embedding_status: std::sync::RwLock::new(None),
            clock,
            config,
            access,
            llm: std::sync::RwLock::new(None),
            writes: WriteLocks::default(),
            query_vectors: query_cache::QueryCache::default(),
            followed: tokio::sync::Mutex::new(0),
            in_store,
        };
        service.check_tokenizer().await?;
        // The position before loading: what commits during the load is replayed, never missed.
        *service.followed.lock().await = service.store.change_position().await?;
        service.load_indexes().await?;
        Ok(service)
    }

    /// The settings in force.
    pub fn config(&self) -> &ServiceConfig {
        &self.config
    }

    /// The primary embedder, or `None` in keyword-only mode.
    pub fn embedder(&self) -> Option<Arc<dyn Embedder>> {
        self.embedders().into_iter().next()
    }

    /// Every embedder, primary first.
    pub fn embedders(&self) -> Vec<Arc<dyn Embedder>> {
        self.embedders.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Records why recall is keyword-only or what is happening to the model ("fetching
    /// multilingual-e5-small"); shown by stats and health. Attaching an embedder clears it.
    pub fn set_embedding_status(&self, status: Option<String>) {
        *self.embedding_status.write().unwrap_or_else(|e| e.into_inner()) = status;
    }

    /// Stores a new memory, or merges it into an existing near-duplicate (see `lifecycle/dedup.rs`:
    /// same tier, exact same text or a vector at least `dedup_threshold` similar, and no fact
    /// lost), and returns what was stored.
    ///
    /// If the embedder fails, the memory is stored without a vector (keyword-searchable at once,
    /// vector added by [`MemoryService::backfill_embeddings`]) and a warning is logged.
    pub async fn remember(
        &self,
        namespace: &Namespace,
        request: RememberRequest,
    ) -> Result<Stored, ServiceError> {
        let dedup = request.dedup.unwrap_or(true);
        let new = request.validate(self.config.max_content_chars)?;
        self.store_new(namespace, new, Vec::new(), dedup).await
    }

    /// Waits until the access counts of every recall that has returned are committed. Call
    /// before exiting; reads see a recall's increments only after it (or a moment later).
    pub async fn flush_access_counts(&self) {
        self.access.flush().await;
    }

    /// Commits the access counts still queued, then lets go of the store: once this returns, no
    /// task of this service holds it (dropping the service lets go of it a moment later, on a
    /// background task). On SQLite the file can then be copied, moved or replaced, provided
    /// nothing else holds the store: the caller's own clone of it, or a request whose future was
    /// dropped while its SQLite work still ran on the blocking pool. PostgreSQL connections close
    /// on their own tasks shortly after.
    pub async fn close(self) {
        self.into_access().close().await;
    }

    /// The access writer, every other part of the service dropped.
    fn into_access(self) -> AccessRecorder {
        self.access
    }

    /// The service clock's "now".
    pub fn now(&self) -> Timestamp {
        self.clock.now()
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
    ///
    /// The memory keeps its id. A changed text keeps the earlier one as history: a memory of its
    /// own, superseded by this one from now, with `metadata.history_of` naming it (see
    /// [`MemoryService::history`]). It is written before the update, so a crash in between
    /// leaves an extra history entry, never a lost text.
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
        if let Some(content) = change.content {
            let summary = self.recall_summary(&content).await;
            let new_terms = self.terms_of(&content, summary.as_deref());
            update.vectors = Some(self.embed_passage(summary.as_deref().unwrap_or(&content)).await);
            update.content = Some((content.clone(), new_terms.clone(), content_hash(&content)));
            update.summary = Some(summary);
            terms = Some(new_terms);
        }
        update.metadata = change.metadata;
        update.memory_type = change.memory_type;
        if let Some(ttl) = change.ttl_secs {
            update.ttl = Some((ttl, expiry(now, ttl)?));
        }
        // Embedded above, unlocked; the write and the index update happen as one step.
        let guard = self.write_lock(namespace).await?;
        if let Some((_, _, hash)) = &update.content {
            let before = self.get(namespace, id).await?;
            if before.content_hash != *hash {
                self.keep_earlier_text(&guard, &before, now).await?;
            }
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
            update.vectors.as_deref().map(|v| self.current_vectors(v)).as_deref(),
        );
        Ok(memory)
    }

    /// Deletes a memory, its keyword entry and its vectors, with the earlier texts updates kept
    /// of it; the memories it superseded become current again (or history of what superseded
    /// it).
    pub async fn forget(&self, namespace: &Namespace, id: MemoryId) -> Result<(), ServiceError> {
        let guard = self.write_lock(namespace).await?;
        self.forget_in(&guard, id).await
    }

    /// [`MemoryService::forget`] for a caller that holds the namespace.
    async fn forget_in(&self, guard: &WriteGuard<'_>, id: MemoryId) -> Result<(), ServiceError> {
        let namespace = guard.namespace();
        let now = self.clock.now();
        // What it superseded is released first: a crash in between leaves both visible, never a
        // memory hidden behind one that is gone.
        if let Some(memory) = self.store.get(namespace, id, now).await? {
            self.release_predecessors(guard, &memory, now).await?;
        }
        if !self.store.delete(namespace, id).await? {
            return Err(not_found(namespace, id));
        }
        self.indexes.remove(namespace, id);
        Ok(())
    }

    /// Deletes every expired memory (row, keyword entry, vectors) of `namespace`, or of all
    /// namespaces, and drops them from the indexes; returns how many. Expired memories are
    /// already invisible to every read; this reclaims their space (design §5.3).
    pub async fn cleanup_expired(
        &self,
        namespace: Option<&Namespace>,
    ) -> Result<usize, ServiceError> {
        let started = std::time::Instant::now();
        let now = self.clock.now();
        let namespaces = match namespace {
            Some(ns) => vec![ns.clone()],
            None => self.namespaces_where(now, |t| t.expired > 0).await?,
        };
        let mut cleaned = 0;
        for ns in namespaces {
            // A merge must not fold a new text into a memory being deleted under it.
            let _guard = self.writes.write(&ns).await;
            let deleted = self.store.delete_expired(Some(&ns), now).await?;
            for (ns, id) in &deleted {
                self.indexes.remove(ns, *id);
            }
            cleaned += deleted.len();
        }
        tracing::info!(
            cleaned,
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "expired memories deleted"
        );
        Ok(cleaned)
    }

    /// The namespaces with a tier `pick` selects (from the store's counts at `now`), each once.
    async fn namespaces_where(
        &self,
        now: Timestamp,
        pick: impl Fn(&TierCount) -> bool,
    ) -> Result<Vec<Namespace>, ServiceError> {
        let stats = self.store.stats(now).await?;
        let mut namespaces: Vec<Namespace> =
            stats.tiers.iter().filter(|t| pick(t)).map(|t| t.namespace.clone()).collect();
        namespaces.dedup(); // the counts come sorted by namespace
        Ok(namespaces)
    }

    /// Counts per namespace and tier, vectors, size, and the embedding model's state.
    pub async fn stats(&self) -> Result<ServiceStats, ServiceError> {
        let store = self.store.stats(self.clock.now()).await?;
        let total: u64 =
            store.tiers.iter().map(|t| t.live + t.archived + t.superseded + t.expired).sum();
        let models: Vec<EmbedderInfo> = self
            .embedders()
            .iter()
            .map(|e| EmbedderInfo { model_id: e.model_id().to_owned(), dimensions: e.dimensions() })
            .collect();
        // Missing vectors summed over the models in use.
        let pending_embeddings = models
            .iter()
            .map(|e| {
                let embedded = store
                    .vectors_per_model
                    .iter()
                    .find(|(m, _)| *m == e.model_id)
                    .map_or(0, |(_, n)| *n);
                total.saturating_sub(embedded)
            })
            .sum();
        let (indexed_vectors, graph_vectors) = self.indexes.vector_counts();
        Ok(ServiceStats {
            graph_vectors,
            indexes: self.indexes.usage(),
            pending_embeddings,
            store,
            embedder: models.first().cloned(),
            models,
            indexed_vectors,
            embedding_status: self
                .embedding_status
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        })
    }

    /// [`MemoryService::stats`] as `caller` may see it: only granted namespaces' counts, and the
    /// database location, size and server-wide vector counts (which sum over every tenant) only
    /// for admins. The embedding model's identity and state stay.
    pub async fn stats_for(&self, caller: &Caller) -> Result<ServiceStats, ServiceError> {
        let mut stats = self.stats().await?;
        if !caller.is_admin() {
            stats.store.tiers.retain(|t| caller.may_use(&t.namespace));
            stats.store.location = "hidden (admin keys only)".to_owned();
            stats.store.size_bytes = 0;
            stats.store.vectors_per_model.clear();
            stats.indexed_vectors = 0;
            stats.graph_vectors = 0;
            stats.indexes = IndexUsage::default();
            stats.pending_embeddings = 0;
        }
        Ok(stats)
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
            let started = std::time::Instant::now();
            let restored = self.restore_keywords().await?;
            let loaded = restored.len();
            self.indexes.load_text(self.store.as_ref(), restored).await?;
            tracing::info!(
                saved = loaded,
                seconds = started.elapsed().as_secs_f32(),
                "keyword indexes loaded"
            );
        }
        let embedders = self.embedders();
        if !embedders.is_empty() {
            self.attach_embedders(embedders).await?;
        }
        Ok(())
    }

    /// Adds a memory just inserted into the store to the in-memory indexes: its keyword terms
    /// (when keywords are searched in memory) and its vectors in the models in use.
    pub(crate) fn index_inserted(&self, record: &MemoryRecord) {
        let in_memory = self.config.keyword_search == KeywordSearch::InMemory;
        self.indexes.add(
            &record.memory,
            in_memory.then_some(record.terms.as_slice()),
            &self.current_vectors(&record.vectors),
        );
    }
}

/// Store setting naming the tokenizer that produced the stored keyword terms.
pub(crate) const TOKENIZER_SETTING: &str = "tokenizer";

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
