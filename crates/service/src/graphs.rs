//! Saved graphs: a large namespace's HNSW graph survives a restart.
//!
//! Building the graph of a million vectors takes minutes; loading a saved one takes about a
//! second. With [`ServiceConfig::graph_dir`](crate::ServiceConfig) set (the CLI puts it next to the
//! SQLite file, `<db>.graphs/`), a server saves each graph when it shuts down and after each
//! sweep (only graphs changed since their last save), together with the store's change-log
//! position the graph reflects. At start-up a saved graph is loaded, its facets are looked up in
//! the namespace's keyword index, loaded just before (or read from the store when keywords are
//! searched there; they are not saved with the graph), and the changes committed since its position are replayed from
//! the change log, so a graph saved before a crash or before other processes wrote is brought up
//! to date. A graph whose changes the log no longer reaches (pruned), or whose files do not
//! agree, is ignored and rebuilt from the stored vectors.
//!
//! A saved position alone would not tell this database from another one at the same path (a
//! backup restored, a file replaced): each save also records the anchor, the memory id of the
//! change at that position, and a graph whose anchor is not the store's change at its position
//! belongs to another history and is rebuilt. Graphs that did not change since their last save
//! get their `.json` moved on to the new position, so a long-unchanged graph never falls behind
//! the pruned log.
//!
//! Files per namespace and model, named by a digest of both (the stem): `{stem}.json` (namespace,
//! model, dimensions, position, and which pair of files holds the graph), renamed into place
//! last, and that pair, `{stem}.{random}.graph` (the graph's links, without the vectors: loading
//! puts the store's back, `rearview_index::ann`'s graph file) and `{stem}.{random}.ids` (the
//! memory of each graph key). A save is complete once the `.json` names its pair.

use std::collections::HashMap;
use std::sync::Arc;

use rearview_core::{Facets, MemoryId, Namespace};
use rearview_index::{AnnError, AnnIndex, SavedGraph, VectorIndex};

use crate::graph_files::{Restored, RestoredGraph, saved};
use crate::indexes::{FacetLookup, IndexesHandle};
use crate::saved::LogPoint;
use crate::{KeywordSearch, MemoryService, ServiceError};

/// The facets of the memories in saved graphs ([`MemoryService::graph_facets`]).
enum GraphFacets {
    /// Read from the store: per namespace, its memories with a vector of the model.
    Store(HashMap<Namespace, Arc<HashMap<MemoryId, Facets>>>),
    /// Looked up in the keyword indexes, which hold every memory.
    Keywords(IndexesHandle),
}

impl GraphFacets {
    /// A lookup of `namespace`'s facets by memory, for loading its graph; `None` when it has no
    /// memory with a vector (nothing to load).
    fn lookup(&self, namespace: &Namespace) -> Option<FacetLookup> {
        match self {
            Self::Store(per_namespace) => {
                let known = Arc::clone(per_namespace.get(namespace).filter(|f| !f.is_empty())?);
                Some(Box::new(move |id| known.get(&id).cloned()))
            }
            Self::Keywords(indexes) => indexes.facets_lookup(namespace),
        }
    }

    /// The namespaces that have memories (with a vector of the model, when read from the store).
    fn namespaces(&self) -> Vec<Namespace> {
        match self {
            Self::Store(per_namespace) => per_namespace.keys().cloned().collect(),
            Self::Keywords(indexes) => indexes.keyword_namespaces(),
        }
    }
}

/// What [`MemoryService::restore_graphs`] found.
pub(crate) struct GraphLoad {
    /// Graphs loaded from their files, up to date.
    pub restored: Restored,
    /// The namespaces whose vectors are still to be read from the store; `None`: all of them.
    pub others: Option<Vec<Namespace>>,
}

impl MemoryService {
    /// Loads the saved graphs of `model` for namespaces with at least the exact-scan limit of
    /// its vectors, and brings them up to date from the change log.
    pub(crate) async fn restore_graphs(
        &self,
        model: &str,
        dims: usize,
    ) -> Result<GraphLoad, ServiceError> {
        let nothing = GraphLoad { restored: Vec::new(), others: None };
        let Some(dir) = self.config.graph_dir.clone() else { return Ok(nothing) };
        let candidates = saved(&dir, model, dims);
        if candidates.is_empty() {
            return Ok(nothing);
        }
        let facets = self.graph_facets(model).await?;
        let mut restored = Vec::new();
        for meta in candidates {
            if !self
                .is_on_log(&LogPoint { position: meta.position, anchor: meta.anchor.clone() })
                .await?
            {
                tracing::warn!(
                    namespace = %meta.namespace, model, position = meta.position,
                    "saved vector graph is from another database or an earlier state of this one; rebuilding it"
                );
                continue;
            }
            // A graph was saved because its namespace had passed the exact-scan limit; it is
            // used even where this process would not build one (one-shot CLI commands).
            let Some(known) = facets.lookup(&meta.namespace) else { continue };
            let loaded =
                self.load_graph(&dir, &meta.files, &meta.namespace, model, dims, known).await?;
            match loaded {
                Ok(graph) => restored.push(RestoredGraph {
                    namespace: meta.namespace,
                    graph,
                    position: meta.position,
                    clean: true,
                    files: meta.files,
                }),
                Err(e) => tracing::warn!(
                    namespace = %meta.namespace, model, error = %e,
                    "saved vector graph unusable; rebuilding it from the stored vectors"
                ),
            }
        }
        if !self.replay_onto(model, &mut restored).await? {
            tracing::warn!(model, "the change log no longer reaches the saved graphs; rebuilding");
            restored.clear();
        }
        let others = facets
            .namespaces()
            .into_iter()
            .filter(|ns| restored.iter().all(|r| r.namespace != *ns))
            .collect();
        Ok(GraphLoad { restored, others: Some(others) })
    }

    /// The saved graph of `namespace` in `files`, its vectors put back from the store (streamed
    /// as half precision: the graph file leaves them out); `Ok(Err(_))` when the files are
    /// unusable (the caller rebuilds).
    async fn load_graph(
        &self,
        dir: &std::path::Path,
        files: &str,
        namespace: &Namespace,
        model: &str,
        dims: usize,
        known: FacetLookup,
    ) -> Result<Result<AnnIndex, AnnError>, ServiceError> {
        let (dir, stem) = (dir.to_owned(), files.to_owned());
        let opened = tokio::task::spawn_blocking(move || SavedGraph::open(&dir, &stem, dims))
            .await
            .map_err(|e| ServiceError::Unavailable(format!("graph load task: {e}")))?;
        let saved = match opened {
            Ok(saved) => Arc::new(std::sync::Mutex::new(saved)),
            Err(e) => return Ok(Err(e)),
        };
        let sink = Arc::clone(&saved);
        let put = Box::new(move |id, half: &[u8]| {
            sink.lock().unwrap_or_else(|p| p.into_inner()).put(id, half);
        });
        self.store.visit_namespace_half_vectors(model, namespace, put).await?;
        let saved = Arc::into_inner(saved)
            .expect("the store dropped its visitor")
            .into_inner()
            .unwrap_or_else(|p| p.into_inner());
        tokio::task::spawn_blocking(move || saved.finish(known))
            .await
            .map_err(|e| ServiceError::Unavailable(format!("graph load task: {e}")))
    }

    /// Where a loaded graph's facets come from: the in-memory keyword indexes when keywords are
    /// searched here (they hold every memory's facets, current: no read), else the store.
    async fn graph_facets(&self, model: &str) -> Result<GraphFacets, ServiceError> {
        if self.config.keyword_search == KeywordSearch::InMemory {
            return Ok(GraphFacets::Keywords(self.indexes.clone_handle()));
        }
        let mut grouped: HashMap<Namespace, HashMap<MemoryId, Facets>> = HashMap::new();
        for e in self.store.vector_facets(model).await? {
            grouped.entry(e.namespace).or_default().insert(e.id, e.facets);
        }
        Ok(GraphFacets::Store(grouped.into_iter().map(|(ns, f)| (ns, Arc::new(f))).collect()))
    }

    /// Applies every change committed after each graph's position; `false` if the log no
    /// longer reaches that far back.
    async fn replay_onto(&self, model: &str, graphs: &mut Restored) -> Result<bool, ServiceError> {
        let points: Vec<(Namespace, u64)> =
            graphs.iter().map(|g| (g.namespace.clone(), g.position)).collect();
        let Some(mut changed) = self.changed_since(&points).await? else { return Ok(false) };
        for RestoredGraph { namespace, graph, clean, .. } in graphs.iter_mut() {
            let Some(ids) = changed.remove(namespace) else { continue };
            *clean = false;
            let ids: Vec<MemoryId> = ids.into_iter().collect();
            let mut records = self.records_by_id(namespace, &ids).await?;
            for id in ids {
                let vector = records.remove(&id).and_then(|r| {
                    let facets = r.memory.facets();
                    r.vectors.into_iter().find(|v| v.model_id == model).map(|v| (facets, v))
                });
                match vector {
                    Some((facets, v)) => {
                        graph.upsert(id, facets, &v.embedding);
                    }
                    None => {
                        graph.remove(id);
                    }
                }
            }
        }
        Ok(true)
    }
}
