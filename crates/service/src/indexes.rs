//! The in-memory search structures of every namespace, kept in step with the store.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use rearview_core::{Embedding, Facets, Memory, MemoryFilter, MemoryId, Namespace, Timestamp};
use rearview_index::{TextHit, TextIndex, VectorHit};
use rearview_store::{MemoryStore, StoreError, VectorEntry};

use crate::keywords::{self, RestoredKeywords};
use crate::lookup::Reach;
use crate::saved::{self, LogPoint, SaveState, SavedIndexes};
use crate::vectors::ModelVectors;

/// Per-namespace keyword and vector indexes.
///
/// Both are caches of the store, updated after each committed write. Either every namespace is
/// loaded at start-up, or (with a memory budget, `residency.rs`) a namespace is loaded when first
/// used and the least recently used ones are dropped past the budget; a namespace not in memory
/// is simply not here, and writes to it only go to the store. If the process dies between a
/// commit and the update, the next load heals the difference.
#[derive(Debug)]
pub(crate) struct Indexes {
    /// Shared with graph builds running off the lock (`vectors.rs`).
    namespaces: Arc<RwLock<HashMap<Namespace, NamespaceIndex>>>,
    /// Vectors per namespace and model above which search goes to a graph.
    exact_limit: usize,
    /// Whether vectors are kept here at all (not when the store searches them, `lookup.rs`).
    holds_vectors: bool,
    /// Bytes of indexes kept in memory when namespaces are loaded on demand; `None` when every
    /// namespace is loaded at start-up and kept.
    budget: Option<usize>,
    /// Ticks of use, for the least-recently-used order.
    ticks: AtomicU64,
    /// Namespaces dropped from memory so far (`stats`, `/metrics`).
    evictions: AtomicU64,
}

#[derive(Debug, Default)]
pub(crate) struct NamespaceIndex {
    /// BM25 over the namespace's terms; `None` when keyword search goes to the store.
    text: Option<TextIndex>,
    /// Whether `text` is as last saved or loaded (`keywords.rs`).
    text_save: SaveState,
    /// Vectors per embedding model id: spaces of different models never share an index.
    pub(crate) vectors: HashMap<String, ModelVectors>,
    /// The tick of its last use (on-demand loading).
    last_used: AtomicU64,
    /// Roughly the bytes it holds, as loaded plus what was added since.
    bytes: AtomicUsize,
    /// Held by each request using the namespace ([`Pin`]): a pinned namespace is never evicted.
    pins: Arc<()>,
}

/// Keeps a namespace's indexes in memory while held ([`Indexes::pin`]).
#[derive(Debug)]
pub(crate) struct Pin(#[allow(dead_code)] Arc<()>);

/// What the indexes hold now: for `stats` and `/metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexUsage {
    /// Namespaces whose indexes are in memory.
    pub namespaces: usize,
    /// Roughly the bytes they hold.
    pub bytes: u64,
    /// The budget when namespaces are loaded on demand; `None` when all are loaded at start.
    pub budget: Option<u64>,
    /// Namespaces dropped from memory since start, least recently used first.
    pub evictions: u64,
}

impl Indexes {
    /// Empty indexes; namespaces past `exact_limit` vectors of a model are searched by a graph.
    pub(crate) fn new(exact_limit: usize) -> Self {
        Self {
            namespaces: Arc::default(),
            exact_limit: exact_limit.max(1),
            holds_vectors: true,
            budget: None,
            ticks: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
        }
    }

    /// Loads namespaces when first used and keeps at most about `budget` bytes of them.
    pub(crate) fn on_demand_within(mut self, budget: usize) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Whether namespaces are loaded when first used (else all at start-up).
    pub(crate) fn on_demand(&self) -> bool {
        self.budget.is_some()
    }

    /// The vector count from which a namespace's vectors are searched through a graph.
    pub(crate) fn exact_limit(&self) -> usize {
        self.exact_limit
    }

    /// Marks `namespace` used and keeps it in memory while the pin is held; `None` when it is
    /// not in memory.
    pub(crate) fn pin(&self, namespace: &Namespace) -> Option<Pin> {
        let map = self.read();
        let entry = map.get(namespace)?;
        entry.last_used.store(self.ticks.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        Some(Pin(Arc::clone(&entry.pins)))
    }

    /// Puts a namespace loaded from the store in memory, pinned for the caller.
    pub(crate) fn insert_loaded(&self, namespace: &Namespace, mut entry: NamespaceIndex) -> Pin {
        entry.recount();
        *entry.last_used.get_mut() = self.ticks.fetch_add(1, Ordering::Relaxed);
        let pin = Pin(Arc::clone(&entry.pins));
        self.write().insert(namespace.clone(), entry);
        pin
    }

    /// Drops the least recently used namespaces until the rest fit the budget, sparing those in
    /// use (pinned), those searched through a graph and those with a graph build running (large
    /// ones: reloading them costs a graph build). Returns how many were dropped.
    pub(crate) fn evict_over_budget(&self) -> usize {
        let Some(budget) = self.budget else { return 0 };
        let mut map = self.write();
        let mut total: usize = map.values().map(|e| e.bytes.load(Ordering::Relaxed)).sum();
        if total <= budget {
            return 0;
        }
        let mut candidates: Vec<(u64, Namespace, usize)> = map
            .iter()
            .filter(|(_, e)| Arc::strong_count(&e.pins) == 1 && !e.is_large(self.exact_limit))
            .map(|(ns, e)| {
                (e.last_used.load(Ordering::Relaxed), ns.clone(), e.bytes.load(Ordering::Relaxed))
            })
            .collect();
        candidates.sort_unstable_by_key(|(tick, _, _)| *tick);
        let mut dropped = 0;
        for (_, namespace, bytes) in candidates {
            if total <= budget {
                break;
            }
            map.remove(&namespace);
            total = total.saturating_sub(bytes);
            dropped += 1;
        }
        self.evictions.fetch_add(dropped as u64, Ordering::Relaxed);
        dropped
    }

    /// Whether `namespace` is in memory (without marking it used).
    pub(crate) fn is_in_memory(&self, namespace: &Namespace) -> bool {
        self.read().contains_key(namespace)
    }

    /// The namespaces in memory now.
    pub(crate) fn namespaces_in_memory(&self) -> Vec<Namespace> {
        self.read().keys().cloned().collect()
    }

    /// What is in memory now.
    pub(crate) fn usage(&self) -> IndexUsage {
        let map = self.read();
        IndexUsage {
            namespaces: map.len(),
            bytes: map.values().map(|e| e.bytes.load(Ordering::Relaxed) as u64).sum(),
            budget: self.budget.map(|b| b as u64),
            evictions: self.evictions.load(Ordering::Relaxed),
        }
    }

    /// Keeps only the namespaces with a saved index restored at start-up (on-demand loading:
    /// the others load when first used).
    fn keep_restored_only(&self, restored: &[Namespace]) {
        self.write().retain(|ns, _| restored.contains(ns));
    }

    /// Indexes that keep no vectors (the store searches them); keyword terms only if given.
    pub(crate) fn without_vectors() -> Self {
        Self { holds_vectors: false, ..Self::new(usize::MAX) }
    }

    /// Replaces the keyword indexes: by the `restored` ones (loaded from saved files, up to
    /// date) and, for every other namespace, by one of the store's entries. Those are built as
    /// the store streams them, on its reading thread (a large namespace takes seconds, which
    /// must not stall the async workers), and swapped in under the lock, so searches never see
    /// a half-built or empty index.
    pub(crate) async fn load_text(
        &self,
        store: &dyn MemoryStore,
        restored: Vec<RestoredKeywords>,
    ) -> Result<(), StoreError> {
        let building: Arc<Mutex<HashMap<Namespace, TextIndex>>> = Arc::default();
        let sink = Arc::clone(&building);
        let except: Vec<Namespace> = restored.iter().map(|r| r.namespace.clone()).collect();
        if self.on_demand() {
            // The others load when first used (`residency.rs`).
            self.keep_restored_only(&except);
            let mut map = self.write();
            for r in restored {
                let entry = map.entry(r.namespace).or_default();
                *entry.bytes.get_mut() = r.index.approx_bytes();
                entry.text = Some(r.index);
                entry.text_save = SaveState::loaded(r.files, r.clean);
            }
            return Ok(());
        }
        store
            .visit_keyword_entries(
                &except,
                Box::new(move |e| {
                    let mut per_namespace = sink.lock().unwrap_or_else(|p| p.into_inner());
                    per_namespace.entry(e.namespace).or_default().upsert(e.id, e.facets, &e.terms);
                }),
            )
            .await?;
        let built = std::mem::take(&mut *building.lock().unwrap_or_else(|p| p.into_inner()));
        let mut map = self.write();
        for entry in map.values_mut() {
            // A namespace whose memories are all gone from the store.
            if entry.text.is_some() {
                entry.text = Some(TextIndex::new());
                entry.text_save = SaveState::default();
            }
        }
        for (namespace, text) in built {
            let entry = map.entry(namespace).or_default();
            entry.text = Some(text);
            entry.text_save = SaveState::default();
        }
        for r in restored {
            let entry = map.entry(r.namespace).or_default();
            entry.text = Some(r.index);
            entry.text_save = SaveState::loaded(r.files, r.clean);
        }
        map.values_mut().for_each(NamespaceIndex::recount);
        Ok(())
    }

    /// (Re)fills `model`'s vector indexes: the `restored` graphs (loaded from saved files) and
    /// the stored vectors of the other namespaces; returns how many had the wrong dimension.
    /// Namespaces at or past the exact-scan limit get their graph built here.
    pub(crate) async fn load_vectors(
        &self,
        model: &str,
        entries: Vec<VectorEntry>,
        dims: usize,
        restored: crate::graph_files::Restored,
    ) -> usize {
        let limit = self.exact_limit;
        // Built on the blocking pool and before taking the lock: a graph over a large namespace
        // takes minutes, which must stall neither the async workers nor other namespaces.
        let build = move || {
            let mut per_namespace: HashMap<Namespace, Vec<(MemoryId, Facets, Embedding)>> =
                HashMap::new();
            for e in entries {
                per_namespace.entry(e.namespace).or_default().push((e.id, e.facets, e.embedding));
            }
            per_namespace
                .into_iter()
                .map(|(ns, entries)| {
                    let (vectors, skipped) = ModelVectors::loaded(dims, entries, limit);
                    (ns, vectors, skipped)
                })
                .collect::<Vec<(Namespace, ModelVectors, usize)>>()
        };
        let mut built = off_the_workers(build).await;
        built.extend(
            restored
                .into_iter()
                .map(|r| (r.namespace, ModelVectors::restored(r.graph, r.clean, r.files), 0)),
        );
        let mut map = self.write();
        map.values_mut().for_each(|ns| {
            ns.vectors.remove(model);
        });
        let mut skipped = 0;
        for (ns, vectors, s) in built {
            skipped += s;
            if self.on_demand() {
                // Only namespaces in memory; the others get theirs when loaded.
                if let Some(entry) = map.get_mut(&ns) {
                    entry.bytes.fetch_add(vectors.approx_bytes(), Ordering::Relaxed);
                    entry.vectors.insert(model.to_owned(), vectors);
                }
                continue;
            }
            map.entry(ns).or_default().vectors.insert(model.to_owned(), vectors);
        }
        if !self.on_demand() {
            map.values_mut().for_each(NamespaceIndex::recount);
        }
        skipped
    }

    /// A job that saves every index changed since its last save to `dir`, at `at` (graphs, and
    /// keyword indexes of namespaces past the exact-scan limit), moves the saves of unchanged
    /// ones on to `at`, and returns how many it wrote (run it off the async workers: a large
    /// index takes seconds).
    pub(crate) fn saver(
        &self,
        dir: std::path::PathBuf,
        at: LogPoint,
    ) -> impl FnOnce() -> SavedIndexes + Send + 'static {
        let namespaces = Arc::clone(&self.namespaces);
        let limit = self.exact_limit;
        move || {
            let map = namespaces.read().unwrap_or_else(|p| p.into_inner());
            let mut written = SavedIndexes::default();
            for (namespace, entry) in map.iter() {
                if let Some(text) = entry.text.as_ref().filter(|t| t.len() >= limit) {
                    written.keywords += usize::from(keywords::save_if_changed(
                        &dir,
                        namespace,
                        text,
                        &entry.text_save,
                        &at,
                    ));
                }
                for (model, vectors) in &entry.vectors {
                    let Some((graph, save)) = vectors.unsaved_graph() else {
                        if let Some(files) = vectors.saved_files() {
                            let stem = saved::stem(namespace, model);
                            if let Err(e) = saved::touch(&dir, &stem, &files, &at) {
                                tracing::warn!(namespace = %namespace, model, error = %e, "moving a saved graph on failed");
                            }
                        }
                        continue;
                    };
                    match crate::graph_files::save_logged(&dir, namespace, model, graph, &at) {
                        Some(files) => {
                            save.set_files(files);
                            written.graphs += 1;
                        }
                        None => save.save_failed(),
                    }
                }
            }
            written
        }
    }

    /// A handle on the indexes for lookups that outlive a borrow of the service.
    pub(crate) fn clone_handle(&self) -> IndexesHandle {
        IndexesHandle(Arc::clone(&self.namespaces))
    }

    /// Drops the vector indexes of models not in `models`.
    pub(crate) fn retain_models(&self, models: &[String]) {
        self.write().values_mut().for_each(|ns| ns.vectors.retain(|m, _| models.contains(m)));
    }

    /// Adds a just-committed memory. `terms` is `None` when keywords are served by the store;
    /// `vectors` are (model id, vector) pairs.
    pub(crate) fn add(
        &self,
        memory: &Memory,
        terms: Option<&[String]>,
        vectors: &[(&str, &Embedding)],
    ) {
        let vectors = if self.holds_vectors { vectors } else { &[] };
        let mut map = self.write();
        let Some(entry) = self.entry_to_change(&mut map, &memory.namespace) else { return };
        let added = terms.map_or(0, |t| t.len() * 12 + 160)
            + vectors.iter().map(|(_, e)| e.dimensions() * 4 + 96).sum::<usize>();
        entry.bytes.fetch_add(added, Ordering::Relaxed);
        if let Some(terms) = terms {
            entry.text_mut().upsert(memory.id, memory.facets(), terms);
        }
        for (model, embedding) in vectors {
            entry
                .vectors
                .entry((*model).to_owned())
                .or_insert_with(|| ModelVectors::new(embedding.dimensions()))
                .upsert(memory.id, memory.facets(), embedding);
        }
        self.start_due_builds(entry, &memory.namespace);
    }

    /// The entry a write to `namespace` changes: created if need be when every namespace is in
    /// memory; `None` when namespaces load on demand and this one is not in memory (the store has
    /// the write, and the namespace's next load reads it).
    fn entry_to_change<'m>(
        &self,
        map: &'m mut HashMap<Namespace, NamespaceIndex>,
        namespace: &Namespace,
    ) -> Option<&'m mut NamespaceIndex> {
        if self.on_demand() {
            map.get_mut(namespace)
        } else {
            Some(map.entry(namespace.clone()).or_default())
        }
    }

    /// Starts a graph build for each model of `entry` that grew past the exact-scan limit.
    fn start_due_builds(&self, entry: &mut NamespaceIndex, namespace: &Namespace) {
        for (model, vectors) in &mut entry.vectors {
            if let Some(job) = vectors.build_due(namespace, model, self.exact_limit) {
                let namespaces = Arc::clone(&self.namespaces);
                job.spawn(Box::new(move |namespace, model, install| {
                    let mut map = namespaces.write().unwrap_or_else(|p| p.into_inner());
                    if let Some(vectors) =
                        map.get_mut(namespace).and_then(|ns| ns.vectors.get_mut(model))
                    {
                        install(vectors);
                    }
                }));
            }
        }
    }

    /// Adds one model's vector to a memory already indexed for keywords (backfill).
    pub(crate) fn add_vector(&self, memory: &Memory, model: &str, embedding: &Embedding) {
        if !self.holds_vectors {
            return;
        }
        self.add(memory, None, &[(model, embedding)]);
    }

    /// Brings an updated memory's entries up to date: new terms when its content changed (and
    /// keywords are indexed here); when its content changed (`Some`), its old vectors go and
    /// the given ones (possibly none) come in; new facets either way.
    pub(crate) fn replace(
        &self,
        memory: &Memory,
        terms: Option<&[String]>,
        vectors: Option<&[(&str, &Embedding)]>,
    ) {
        let vectors = vectors.filter(|_| self.holds_vectors);
        let mut map = self.write();
        let Some(entry) = self.entry_to_change(&mut map, &memory.namespace) else { return };
        match terms {
            Some(terms) => entry.text_mut().upsert(memory.id, memory.facets(), terms),
            None if entry.text.is_some() => {
                entry.text_mut().set_facets(memory.id, memory.facets());
            }
            None => {}
        }
        match vectors {
            Some(vectors) => {
                entry.vectors.values_mut().for_each(|index| {
                    index.remove(memory.id);
                });
                for (model, embedding) in vectors {
                    entry
                        .vectors
                        .entry((*model).to_owned())
                        .or_insert_with(|| ModelVectors::new(embedding.dimensions()))
                        .upsert(memory.id, memory.facets(), embedding);
                }
                self.start_due_builds(entry, &memory.namespace);
            }
            None => entry.vectors.values_mut().for_each(|index| {
                index.set_facets(memory.id, memory.facets());
            }),
        }
    }

    /// Forgets a memory everywhere.
    pub(crate) fn remove(&self, namespace: &Namespace, id: MemoryId) {
        if let Some(entry) = self.write().get_mut(namespace) {
            if entry.text.is_some() {
                entry.text_mut().remove(id);
            }
            entry.vectors.values_mut().for_each(|index| {
                index.remove(id);
            });
        }
    }

    /// Best keyword matches in the namespace (none if keywords are not indexed in memory),
    /// searched on tokio's blocking pool: scoring a large namespace takes milliseconds, which
    /// must not stall the async workers serving other requests (and `/healthz`).
    pub(crate) async fn search_text(
        &self,
        namespace: &Namespace,
        terms: &[(String, f32)],
        k: usize,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Vec<TextHit> {
        let parts = {
            let map = self.read();
            let len = map.get(namespace).and_then(|e| e.text.as_ref()).map_or(0, |t| t.len());
            if len >= SPLIT_KEYWORDS_FROM { *PARALLELISM } else { 1 }
        };
        let (terms, filter) = (Arc::new(terms.to_vec()), Arc::new(filter.clone()));
        // Every part starts on its blocking thread before any is awaited.
        let searches: Vec<_> = (0..parts)
            .map(|part| {
                let map = Arc::clone(&self.namespaces);
                let (namespace, terms, filter) = (namespace.clone(), terms.clone(), filter.clone());
                off_the_workers(move || {
                    let map = map.read().unwrap_or_else(|p| p.into_inner());
                    let Some(text) = map.get(&namespace).and_then(|e| e.text.as_ref()) else {
                        return Vec::new();
                    };
                    let accept = |f: &Facets| filter.matches(f, now);
                    text.search_part(&terms, k, &accept, (part, parts))
                })
            })
            .collect();
        let mut found = Vec::with_capacity(parts);
        for search in searches {
            found.push(search.await);
        }
        TextIndex::merge(found, k)
    }

    /// The BM25 score of a full match of `terms` in the namespace (`TextIndex::full_match`);
    /// `None` without an in-memory keyword index.
    pub(crate) fn full_match(&self, namespace: &Namespace, terms: &[(String, f32)]) -> Option<f32> {
        let map = self.read();
        map.get(namespace).and_then(|e| e.text.as_ref()).map(|t| t.full_match(terms))
    }

    /// Best vector matches in the namespace, in `model`'s space, searched on tokio's blocking
    /// pool (an exact scan or a graph search takes milliseconds at size).
    pub(crate) async fn search_vectors(
        &self,
        namespace: &Namespace,
        model: &str,
        query: &Embedding,
        (k, reach): (usize, Reach),
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Vec<VectorHit> {
        let map = Arc::clone(&self.namespaces);
        let (namespace, model) = (namespace.clone(), model.to_owned());
        let (query, filter) = (query.clone(), filter.clone());
        off_the_workers(move || {
            let map = map.read().unwrap_or_else(|p| p.into_inner());
            let Some(vectors) = map.get(&namespace).and_then(|e| e.vectors.get(&model)) else {
                return Vec::new();
            };
            vectors.search(&query, (k, reach), &|f: &Facets| filter.matches(f, now))
        })
        .await
    }

    /// Cosine similarity in `model`'s space of each of `ids` to `query` (`None` where there is
    /// no vector).
    pub(crate) fn similarities(
        &self,
        namespace: &Namespace,
        model: &str,
        ids: &[MemoryId],
        query: &Embedding,
    ) -> Vec<Option<f32>> {
        let map = self.read();
        let vectors = map.get(namespace).and_then(|e| e.vectors.get(model));
        ids.iter().map(|id| vectors.and_then(|v| v.similarity(*id, query))).collect()
    }

    /// The vectors of `ids` in `model`'s space (`None` where there is none).
    pub(crate) fn vectors_of(
        &self,
        namespace: &Namespace,
        model: &str,
        ids: &[MemoryId],
    ) -> Vec<Option<Vec<f32>>> {
        let map = self.read();
        let vectors = map.get(namespace).and_then(|e| e.vectors.get(model));
        ids.iter().map(|id| vectors.and_then(|v| v.vector(*id))).collect()
    }

    /// Vectors indexed, and of those the vectors in graphs, over all namespaces and models.
    pub(crate) fn vector_counts(&self) -> (usize, usize) {
        let map = self.read();
        let all = map.values().flat_map(|e| e.vectors.values());
        all.fold((0, 0), |(n, g), v| (n + v.len(), g + if v.is_graph() { v.len() } else { 0 }))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<Namespace, NamespaceIndex>> {
        // Index updates cannot leave the maps half-changed in a way a reader could observe as
        // corrupt, so a panic elsewhere (poison) does not make them unusable.
        self.namespaces.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<Namespace, NamespaceIndex>> {
        self.namespaces.write().unwrap_or_else(|p| p.into_inner())
    }
}

/// Shared access to the per-namespace indexes ([`Indexes::clone_handle`]).
#[derive(Debug, Clone)]
pub(crate) struct IndexesHandle(Arc<RwLock<HashMap<Namespace, NamespaceIndex>>>);

/// Looks up the facets of a memory of one namespace.
pub(crate) type FacetLookup = Box<dyn FnMut(MemoryId) -> Option<Facets> + Send>;

impl IndexesHandle {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<Namespace, NamespaceIndex>> {
        self.0.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The facets of `namespace`'s memories as its keyword index holds them (every memory, as
    /// currently stored); `None` if it has no keyword index or an empty one.
    pub(crate) fn facets_lookup(&self, namespace: &Namespace) -> Option<FacetLookup> {
        self.read().get(namespace)?.text.as_ref().filter(|t| !t.is_empty())?;
        let (handle, namespace) = (self.clone(), namespace.clone());
        Some(Box::new(move |id| {
            let map = handle.read();
            map.get(&namespace)?.text.as_ref()?.facets(id).cloned()
        }))
    }

    /// The namespaces whose keyword index holds a memory.
    pub(crate) fn keyword_namespaces(&self) -> Vec<Namespace> {
        let map = self.read();
        let holding = map.iter().filter(|(_, e)| e.text.as_ref().is_some_and(|t| !t.is_empty()));
        holding.map(|(ns, _)| ns.clone()).collect()
    }
}

impl NamespaceIndex {
    /// A namespace's indexes as loaded from the store.
    pub(crate) fn loaded(text: Option<TextIndex>, vectors: HashMap<String, ModelVectors>) -> Self {
        Self { text, vectors, ..Self::default() }
    }

    /// Counts the bytes it holds afresh.
    fn recount(&mut self) {
        let text = self.text.as_ref().map_or(0, TextIndex::approx_bytes);
        let vectors: usize = self.vectors.values().map(ModelVectors::approx_bytes).sum();
        *self.bytes.get_mut() = text + vectors + 256;
    }

    /// Whether it is kept however long unused: searched through a graph, a graph build running,
    /// or as many keyword documents (reloading it would cost a graph build or seconds).
    fn is_large(&self, exact_limit: usize) -> bool {
        self.text.as_ref().is_some_and(|t| t.len() >= exact_limit)
            || self.vectors.values().any(|v| v.is_graph() || v.len() >= exact_limit)
    }

    /// The keyword index, to change (created if there is none); it then differs from its save.
    fn text_mut(&mut self) -> &mut TextIndex {
        self.text_save.changed();
        self.text.get_or_insert_with(TextIndex::new)
    }
}

/// A namespace with at least this many keyword documents is searched in [`PARALLELISM`] parts
/// on as many blocking threads at once (`TextIndex::search_part`; the same answer): at 1M
/// memories a keyword search takes ~10 ms on one thread, while the vector search beside it
/// takes ~5.
const SPLIT_KEYWORDS_FROM: usize = 100_000;

/// The threads one keyword search may use: the machine's, at most 4.
static PARALLELISM: std::sync::LazyLock<usize> =
    std::sync::LazyLock::new(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)));

/// Runs a search on tokio's blocking pool, started at once (before the answer is awaited). A
/// search that panicked finds nothing (the panic is logged by tokio); the caller goes on with
/// the other signal.
fn off_the_workers<T: Send + 'static>(
    search: impl FnOnce() -> Vec<T> + Send + 'static,
) -> impl std::future::Future<Output = Vec<T>> {
    let started = tokio::task::spawn_blocking(search);
    async move {
        started.await.unwrap_or_else(|e| {
            tracing::error!(error = %e, "an index search failed");
            Vec::new()
        })
    }
}
