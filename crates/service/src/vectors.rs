//! One namespace's vectors of one model: an exact scan while small, an HNSW graph once large.
//!
//! Below [`ServiceConfig::exact_scan_limit`](crate::ServiceConfig) vectors a namespace is scanned
//! exactly ([`FlatIndex`]): at 20,000 × 384 that takes ~3 ms and costs no build. When a namespace
//! grows past it, the graph ([`AnnIndex`]) is built on a thread of its own from a copy of the
//! vectors, while searches go on against the exact index; changes made meanwhile are noted and
//! replayed onto the graph when it is installed, and the exact copy is then dropped (the graph
//! holds f16 vectors: about half the memory). Namespaces loaded at start-up above the limit get
//! their graph at once.

use rearview_core::{Embedding, Facets, MemoryId, Namespace};
use rearview_index::{AnnIndex, FlatIndex, VectorHit, VectorIndex};

use crate::lookup::Reach;
use crate::saved::SaveState;

/// The vectors of one model in one namespace.
#[derive(Debug)]
pub(crate) struct ModelVectors {
    /// The exact index, until a graph replaces it.
    exact: Option<FlatIndex>,
    /// The graph, once built.
    graph: Option<AnnIndex>,
    /// While a graph is being built: the build's number and the ids changed since its snapshot.
    building: Option<(u64, Vec<MemoryId>)>,
    /// A build failed: stay exact rather than retry on every write.
    failed: bool,
    /// Whether the graph is as last saved or loaded (`graphs.rs`).
    save: SaveState,
    dims: usize,
}

/// A graph to build off the lock: a copy of the exact index's entries.
pub(crate) struct BuildJob {
    /// Which build of the namespace's vectors this is.
    id: u64,
    pub namespace: Namespace,
    pub model: String,
    dims: usize,
    snapshot: Vec<(MemoryId, Facets, Vec<f32>)>,
}

impl ModelVectors {
    /// An empty exact index.
    pub(crate) fn new(dims: usize) -> Self {
        Self::with(Some(FlatIndex::new(dims)), None, dims)
    }

    /// An index of loaded entries: exact below `limit`, else a graph built now on every core.
    pub(crate) fn loaded(
        dims: usize,
        entries: Vec<(MemoryId, Facets, Embedding)>,
        limit: usize,
    ) -> (Self, usize) {
        let mut skipped = 0;
        if entries.len() >= limit {
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
            let rows = entries.iter().map(|(id, f, e)| (*id, f.clone(), e.as_slice()));
            match AnnIndex::build(dims, rows, threads) {
                Ok(graph) => {
                    skipped = entries.len() - graph.len();
                    return (Self::with(None, Some(graph), dims), skipped);
                }
                Err(e) => tracing::warn!(error = %e, "vector graph build failed; scanning exactly"),
            }
        }
        let mut exact = FlatIndex::new(dims);
        for (id, facets, embedding) in entries {
            if !exact.upsert(id, facets, &embedding) {
                skipped += 1;
            }
        }
        (Self::with(Some(exact), None, dims), skipped)
    }

    /// A graph loaded from its saved files; `clean` if it still equals them.
    pub(crate) fn restored(graph: AnnIndex, clean: bool, files: String) -> Self {
        let dims = graph.dimensions();
        Self { save: SaveState::loaded(files, clean), ..Self::with(None, Some(graph), dims) }
    }

    fn with(exact: Option<FlatIndex>, graph: Option<AnnIndex>, dims: usize) -> Self {
        Self { exact, graph, building: None, failed: false, save: SaveState::default(), dims }
    }

    /// The pair of files the graph equals, if it is unchanged since it was saved or loaded.
    pub(crate) fn saved_files(&self) -> Option<String> {
        self.graph.as_ref().and_then(|_| self.save.clean_files())
    }

    /// The graph, if it changed since its last save, with its save state (claimed: marked
    /// saved until the save fails).
    pub(crate) fn unsaved_graph(&self) -> Option<(&AnnIndex, &SaveState)> {
        let graph = self.graph.as_ref()?;
        self.save.claim_unsaved().then_some((graph, &self.save))
    }

    fn index(&self) -> &dyn VectorIndex {
        match (&self.graph, &self.exact) {
            (Some(graph), _) => graph,
            (None, Some(exact)) => exact,
            (None, None) => unreachable!("one of the two indexes always exists"),
        }
    }

    fn note(&mut self, id: MemoryId) {
        self.save.changed();
        if let Some((_, changed)) = &mut self.building {
            changed.push(id);
        }
    }

    pub(crate) fn upsert(&mut self, id: MemoryId, facets: Facets, embedding: &Embedding) -> bool {
        self.note(id);
        match (&mut self.graph, &mut self.exact) {
            (Some(graph), _) => graph.upsert(id, facets, embedding),
            (None, Some(exact)) => exact.upsert(id, facets, embedding),
            (None, None) => false,
        }
    }

    pub(crate) fn set_facets(&mut self, id: MemoryId, facets: Facets) -> bool {
        self.note(id);
        match (&mut self.graph, &mut self.exact) {
            (Some(graph), _) => graph.set_facets(id, facets),
            (None, Some(exact)) => exact.set_facets(id, facets),
            (None, None) => false,
        }
    }

    pub(crate) fn remove(&mut self, id: MemoryId) -> bool {
        self.note(id);
        match (&mut self.graph, &mut self.exact) {
            (Some(graph), _) => graph.remove(id),
            (None, Some(exact)) => exact.remove(id),
            (None, None) => false,
        }
    }

    /// Whether search goes to the graph.
    pub(crate) fn is_graph(&self) -> bool {
        self.graph.is_some()
    }

    pub(crate) fn len(&self) -> usize {
        self.index().len()
    }

    /// Roughly the heap bytes held: each vector as f32 with its id, facets and map entry (a
    /// graph adds its links, about as much again as an f16 copy of the vectors).
    pub(crate) fn approx_bytes(&self) -> usize {
        let per_vector = self.dims * 4 + std::mem::size_of::<(MemoryId, Facets)>() + 40;
        let graph = if self.is_graph() { self.dims * 2 + 160 } else { 0 };
        self.len() * (per_vector + graph)
    }

    /// The `k` best accepted vectors, looking as far as `reach` says.
    pub(crate) fn search(
        &self,
        query: &Embedding,
        (k, reach): (usize, Reach),
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Vec<VectorHit> {
        match reach {
            Reach::Wide => self.index().search(query, k, accept),
            Reach::Close => self.index().search_near(query, k, accept),
        }
    }

    pub(crate) fn similarity(&self, id: MemoryId, query: &Embedding) -> Option<f32> {
        self.index().similarity(id, query)
    }

    pub(crate) fn vector(&self, id: MemoryId) -> Option<Vec<f32>> {
        self.index().vector(id)
    }

    /// A build job if the exact index has reached `limit` and no graph exists or is underway.
    pub(crate) fn build_due(
        &mut self,
        namespace: &Namespace,
        model: &str,
        limit: usize,
    ) -> Option<BuildJob> {
        let exact = self.exact.as_ref().filter(|e| e.len() >= limit)?;
        if self.graph.is_some() || self.building.is_some() || self.failed {
            return None;
        }
        let snapshot =
            exact.entries().map(|(id, facets, v)| (id, facets.clone(), v.to_vec())).collect();
        // Numbered, so that a build finishing after its namespace's vectors were reloaded (and
        // perhaps another build started from a newer snapshot) is recognised and dropped.
        static BUILDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let id = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.building = Some((id, Vec::new()));
        Some(BuildJob {
            id,
            namespace: namespace.clone(),
            model: model.to_owned(),
            dims: self.dims,
            snapshot,
        })
    }

    /// Puts a built graph in place: replays what changed since its snapshot from the exact index,
    /// then drops the exact index.
    /// A graph of another build (the vectors were reloaded since it started) is dropped.
    fn install(&mut self, build: u64, mut graph: AnnIndex) {
        if self.building.as_ref().is_none_or(|(id, _)| *id != build) {
            return;
        }
        let (Some((_, changed)), Some(exact)) = (self.building.take(), self.exact.as_ref()) else {
            return;
        };
        for id in changed {
            match exact.entry(id) {
                Some((facets, vector)) => {
                    if let Ok(embedding) = Embedding::from_normalized(vector.to_vec()) {
                        graph.upsert(id, facets.clone(), &embedding);
                    }
                }
                None => {
                    graph.remove(id);
                }
            }
        }
        self.graph = Some(graph);
        self.exact = None;
    }
}

/// Finds the vectors a build is for (`namespace`, `model`) under the indexes' lock and hands
/// them to the closure it is given, or does nothing when they are gone.
pub(crate) type Installer =
    Box<dyn FnOnce(&Namespace, &str, &mut dyn FnMut(&mut ModelVectors)) + Send>;

impl BuildJob {
    /// Builds the graph on a thread of its own (one core: the other keeps serving), then installs
    /// it in the vectors `installer` finds (under the indexes' lock). If the namespace's vectors
    /// were reloaded meanwhile, the graph is dropped; if the build fails, the namespace stays
    /// exact (and is logged). Returns the build's thread (tests wait for it), `None` if it could
    /// not start.
    pub(crate) fn spawn(self, installer: Installer) -> Option<std::thread::JoinHandle<()>> {
        let spawned = std::thread::Builder::new().name("rearview-graph".into()).spawn(move || {
            let started = std::time::Instant::now();
            let rows = self.snapshot.iter().map(|(id, f, v)| (*id, f.clone(), v.as_slice()));
            let mut built = Some(AnnIndex::build(self.dims, rows, 1));
            installer(&self.namespace, &self.model, &mut |vectors| {
                if vectors.building.as_ref().is_none_or(|(id, _)| *id != self.id) {
                    return;
                }
                match built.take() {
                    Some(Ok(graph)) => {
                        vectors.install(self.id, graph);
                        tracing::info!(
                            namespace = %self.namespace,
                            model = self.model,
                            vectors = self.snapshot.len(),
                            seconds = started.elapsed().as_secs_f32(),
                            "vector graph built; the namespace is now searched approximately"
                        );
                    }
                    Some(Err(e)) => {
                        vectors.building = None;
                        vectors.failed = true;
                        tracing::warn!(namespace = %self.namespace, error = %e, "vector graph build failed; scanning exactly");
                    }
                    None => {}
                }
            });
        });
        spawned
            .inspect_err(|e| {
                tracing::warn!(error = %e, "could not start the vector graph build; scanning exactly");
            })
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use rearview_core::MemoryType;

    use super::*;

    /// An installer that finds `vectors` whatever the namespace and model.
    fn into(vectors: &Arc<Mutex<ModelVectors>>) -> Installer {
        let vectors = Arc::clone(vectors);
        Box::new(move |_, _, install| install(&mut vectors.lock().unwrap()))
    }

    fn facets() -> Facets {
        Facets {
            memory_type: MemoryType::Episodic,
            archived: false,
            expires_at: None,
            occurred_at: chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
            invalid_at: None,
            session_id: None,
            tags: Vec::new(),
        }
    }

    fn id(i: u128) -> MemoryId {
        MemoryId(uuid::Uuid::from_u128(i + 1))
    }

    /// A unit vector pointing mostly along axis `i % 16`.
    fn vector(i: u128) -> Embedding {
        let mut v = vec![0.05f32; 16];
        v[(i % 16) as usize] = 1.0 + (i / 16) as f32 * 0.01;
        Embedding::new(v).unwrap()
    }

    #[test]
    fn changes_made_during_a_build_are_replayed_onto_the_graph() {
        let namespace: Namespace = "n".parse().unwrap();
        let mut vectors = ModelVectors::new(16);
        for i in 0..30 {
            vectors.upsert(id(i), facets(), &vector(i));
        }
        let job = vectors.build_due(&namespace, "m", 30).expect("due at the limit");
        assert!(vectors.build_due(&namespace, "m", 30).is_none(), "one build at a time");
        // After the snapshot: one new memory, one moved, one removed.
        vectors.upsert(id(100), facets(), &vector(5));
        vectors.upsert(id(1), facets(), &vector(9));
        vectors.remove(id(2));
        let vectors = Arc::new(Mutex::new(vectors));
        job.spawn(into(&vectors)).expect("the build starts").join().unwrap();
        let graph = vectors.lock().unwrap();
        assert!(graph.is_graph(), "installed");
        assert_eq!(graph.len(), 30, "30 + 1 new − 1 removed");
        let all = |_: &Facets| true;
        let near_5: Vec<MemoryId> =
            graph.search(&vector(5), (3, Reach::Wide), &all).iter().map(|h| h.id).collect();
        assert!(near_5.contains(&id(100)), "the memory stored during the build: {near_5:?}");
        assert!(graph.vector(id(2)).is_none(), "the memory removed during the build");
        let moved = graph.similarity(id(1), &vector(9)).unwrap();
        assert!(moved > 0.99, "the vector changed during the build: {moved}");
    }

    #[test]
    fn a_build_of_vectors_since_reloaded_is_dropped_not_installed() {
        let namespace: Namespace = "n".parse().unwrap();
        let mut stale = ModelVectors::new(16);
        for i in 0..30 {
            stale.upsert(id(i), facets(), &vector(i));
        }
        let old_job = stale.build_due(&namespace, "m", 30).expect("due");
        // Reloaded meanwhile (a rebuild after a pruned change log): other vectors, another build.
        let mut fresh = ModelVectors::new(16);
        for i in 1000..1040 {
            fresh.upsert(id(i), facets(), &vector(i));
        }
        let new_job = fresh.build_due(&namespace, "m", 30).expect("due");
        let fresh = Arc::new(Mutex::new(fresh));
        // Finished, not merely given time: the old build ran to its end and was not installed.
        old_job.spawn(into(&fresh)).expect("the build starts").join().unwrap();
        assert!(!fresh.lock().unwrap().is_graph(), "the old build dropped");
        new_job.spawn(into(&fresh)).expect("the build starts").join().unwrap();
        let graph = fresh.lock().unwrap();
        assert!(graph.is_graph(), "its own build installed");
        assert_eq!(graph.len(), 40);
        assert!(graph.vector(id(3)).is_none(), "nothing of the stale snapshot");
    }
}
