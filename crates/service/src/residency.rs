//! Namespaces in memory on demand, within a budget ([`ServiceConfig::index_memory`]).
//!
//! A shared server holds many tenants, most of them small and idle. Instead of building every
//! namespace's keyword index and vectors at start-up, a namespace is loaded from the store when a
//! request first needs it, and the least recently used ones are dropped once the indexes hold
//! more than the budget. Start-up then costs nothing per namespace. On a store that searches
//! vectors itself (PostgreSQL), only the keyword index is held this way (BM25 in SQL
//! reads a namespace's terms whole, `rearview-store-postgres`'s `keyword.rs`), while pgvector's
//! index serves the vectors; the servers keep their keyword indexes in step through the change
//! log (`follow.rs`), as processes on one SQLite file do.
//!
//! Why a namespace is never wrongly empty or stale:
//!
//! - A load holds the namespace's write lock (`locks.rs`), as every in-process writer and the
//!   change-log follower (`follow.rs`) do for their read-write-index sequence: no write of this
//!   process and no refresh from another's interleaves with it. What the store holds when the
//!   load reads it is therefore at least as new as anything an index update could have brought.
//! - Writes to a namespace that is not in memory only go to the store (`Indexes::add` finds no
//!   entry); its next load reads them. The follower likewise skips such namespaces.
//! - A request keeps the namespace pinned ([`Pin`]) from the moment it is loaded or found until
//!   it is done: writers through their [`WriteGuard`], readers through the pin
//!   [`MemoryService::resident`] returns. Pinned namespaces are never dropped, nor are those
//!   searched through a graph (large ones, whose graphs are saved and restored at start-up).
//!
//! [`ServiceConfig::index_memory`]: crate::ServiceConfig::index_memory

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rearview_core::Namespace;
use rearview_index::TextIndex;

use crate::indexes::{NamespaceIndex, Pin};
use crate::locks::WriteGuard;
use crate::vectors::ModelVectors;
use crate::{KeywordSearch, MemoryService, ServiceError};

impl MemoryService {
    /// Keeps `namespace`'s indexes in memory while the returned pin is held, loading them from
    /// the store first if they are not there; `None` when every namespace is always in memory
    /// (or the store searches).
    pub(crate) async fn resident(
        &self,
        namespace: &Namespace,
    ) -> Result<Option<Pin>, ServiceError> {
        if !self.loads_on_demand() {
            return Ok(None);
        }
        if let Some(pin) = self.indexes.pin(namespace) {
            return Ok(Some(pin));
        }
        let guard = self.writes.write(namespace).await;
        Ok(Some(self.load_under(&guard).await?))
    }

    /// The namespace's write lock (`locks.rs`), with its indexes in memory while it is held.
    pub(crate) async fn write_lock(
        &self,
        namespace: &Namespace,
    ) -> Result<WriteGuard<'_>, ServiceError> {
        let mut guard = self.writes.write(namespace).await;
        if self.loads_on_demand() {
            let pin = self.load_under(&guard).await?;
            guard.keep_loaded(pin);
        }
        Ok(guard)
    }

    fn loads_on_demand(&self) -> bool {
        self.indexes.on_demand()
    }

    /// Loads the namespace `guard` holds, unless it is in memory already (another request loaded
    /// it while this one waited for the lock); then drops what the budget cannot keep.
    async fn load_under(&self, guard: &WriteGuard<'_>) -> Result<Pin, ServiceError> {
        let namespace = guard.namespace();
        if let Some(pin) = self.indexes.pin(namespace) {
            return Ok(pin);
        }
        let started = std::time::Instant::now();
        let text = match self.config.keyword_search {
            KeywordSearch::InMemory => Some(self.load_keywords(namespace).await?),
            KeywordSearch::Store => None,
        };
        let mut vectors = HashMap::new();
        // A store that searches vectors keeps them; only keywords are held here then.
        for embedder in self.embedders().into_iter().filter(|_| !self.in_store) {
            let (model, dims) = (embedder.model_id().to_owned(), embedder.dimensions());
            let entries = self.store.namespace_vectors(&model, namespace).await?;
            let limit = self.indexes.exact_limit();
            let built = tokio::task::spawn_blocking(move || {
                let entries = entries.into_iter().map(|e| (e.id, e.facets, e.embedding)).collect();
                ModelVectors::loaded(dims, entries, limit)
            })
            .await
            .map_err(|e| {
                ServiceError::Store(rearview_store::StoreError::Backend {
                    context: format!("loading {namespace}'s vectors"),
                    source: Box::new(e),
                })
            })?;
            let (model_vectors, skipped) = built;
            if skipped > 0 {
                tracing::warn!(skipped, model, %namespace, "stored vectors with the wrong dimension were not indexed");
            }
            vectors.insert(model, model_vectors);
        }
        let pin = self.indexes.insert_loaded(namespace, NamespaceIndex::loaded(text, vectors));
        let evicted = self.indexes.evict_over_budget();
        tracing::debug!(
            %namespace,
            ms = started.elapsed().as_secs_f64() * 1e3,
            evicted,
            "namespace loaded"
        );
        Ok(pin)
    }

    /// The namespace's keyword index, built from the store's terms on its reading thread.
    async fn load_keywords(&self, namespace: &Namespace) -> Result<TextIndex, ServiceError> {
        let building = Arc::new(Mutex::new(TextIndex::new()));
        let sink = Arc::clone(&building);
        self.store
            .visit_namespace_keyword_entries(
                namespace,
                Box::new(move |e| {
                    let mut index = sink.lock().unwrap_or_else(|p| p.into_inner());
                    index.upsert(e.id, e.facets, &e.terms);
                }),
            )
            .await?;
        let index = std::mem::take(&mut *building.lock().unwrap_or_else(|p| p.into_inner()));
        Ok(index)
    }
}

/// The index memory `auto` stands for: a quarter of the machine's physical memory (from
/// `/proc/meminfo`; 2 GiB where it cannot be read).
pub fn default_index_memory() -> usize {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|info| {
        let line = info.lines().find(|l| l.starts_with("MemTotal:"))?.to_owned();
        line.split_whitespace().nth(1)?.parse::<usize>().ok()
    });
    total.map_or(2 << 30, |kib| kib.saturating_mul(1024) / 4)
}
