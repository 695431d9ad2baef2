//! The in-memory search structures of every namespace, kept in step with the store.

use std::collections::HashMap;
use std::sync::RwLock;

use rearview_core::{Embedding, Facets, Memory, MemoryFilter, MemoryId, Namespace, Timestamp};
use rearview_search::{FlatIndex, TextHit, TextIndex, VectorHit, VectorIndex};
use rearview_store::{KeywordEntry, VectorEntry};

/// Per-namespace keyword and vector indexes.
///
/// Both are caches of the store: rebuilt from it at start-up, updated after each committed write.
/// If the process dies between a commit and the update, the next start-up heals the difference.
#[derive(Debug, Default)]
pub(crate) struct Indexes {
    namespaces: RwLock<HashMap<Namespace, NamespaceIndex>>,
}

#[derive(Debug, Default)]
struct NamespaceIndex {
    /// BM25 over the namespace's terms; `None` when keyword search goes to the store.
    text: Option<TextIndex>,
    /// Vectors of the current embedding model; `None` without a model.
    vectors: Option<FlatIndex>,
}

impl Indexes {
    /// Fills the keyword indexes from stored entries.
    pub(crate) fn load_text(&self, entries: Vec<KeywordEntry>) {
        let mut map = self.write();
        for e in entries {
            map.entry(e.namespace)
                .or_default()
                .text
                .get_or_insert_with(TextIndex::new)
                .upsert(e.id, e.facets, &e.terms);
        }
    }

    /// Fills the vector indexes from stored vectors; returns how many had the wrong dimension.
    pub(crate) fn load_vectors(&self, entries: Vec<VectorEntry>, dims: usize) -> usize {
        let mut map = self.write();
        // Vectors of another model must never share an index with these.
        map.values_mut().for_each(|ns| ns.vectors = None);
        let mut skipped = 0;
        for e in entries {
            let index = map
                .entry(e.namespace)
                .or_default()
                .vectors
                .get_or_insert_with(|| FlatIndex::new(dims));
            if !index.upsert(e.id, e.facets, &e.embedding) {
                skipped += 1;
            }
        }
        skipped
    }

    /// Adds a just-committed memory. `terms` is `None` when keywords are served by the store.
    pub(crate) fn add(
        &self,
        memory: &Memory,
        terms: Option<&[String]>,
        vector: Option<(&Embedding, usize)>,
    ) {
        let mut map = self.write();
        let entry = map.entry(memory.namespace.clone()).or_default();
        if let Some(terms) = terms {
            entry.text.get_or_insert_with(TextIndex::new).upsert(memory.id, memory.facets(), terms);
        }
        if let Some((embedding, dims)) = vector {
            entry.vectors.get_or_insert_with(|| FlatIndex::new(dims)).upsert(
                memory.id,
                memory.facets(),
                embedding,
            );
        }
    }

    /// Adds a vector to a memory already indexed for keywords (backfill).
    pub(crate) fn add_vector(&self, memory: &Memory, embedding: &Embedding, dims: usize) {
        self.add(memory, None, Some((embedding, dims)));
    }

    /// Brings an updated memory's entries up to date: new terms when its content changed (and
    /// keywords are indexed here), a new vector or none (`Some(None)`) when its content changed,
    /// and new facets either way.
    pub(crate) fn replace(
        &self,
        memory: &Memory,
        terms: Option<&[String]>,
        vector: Option<Option<&Embedding>>,
    ) {
        let mut map = self.write();
        let Some(entry) = map.get_mut(&memory.namespace) else {
            drop(map);
            let dims = vector.flatten().map(Embedding::dimensions);
            self.add(memory, terms, vector.flatten().zip(dims));
            return;
        };
        if let Some(text) = &mut entry.text {
            match terms {
                Some(terms) => text.upsert(memory.id, memory.facets(), terms),
                None => {
                    text.set_facets(memory.id, memory.facets());
                }
            }
        }
        match vector {
            Some(Some(embedding)) => {
                entry.vectors.get_or_insert_with(|| FlatIndex::new(embedding.dimensions())).upsert(
                    memory.id,
                    memory.facets(),
                    embedding,
                );
            }
            Some(None) => {
                if let Some(vectors) = &mut entry.vectors {
                    vectors.remove(memory.id);
                }
            }
            None => {
                if let Some(vectors) = &mut entry.vectors {
                    vectors.set_facets(memory.id, memory.facets());
                }
            }
        }
    }

    /// Forgets a memory everywhere.
    pub(crate) fn remove(&self, namespace: &Namespace, id: MemoryId) {
        if let Some(entry) = self.write().get_mut(namespace) {
            if let Some(text) = &mut entry.text {
                text.remove(id);
            }
            if let Some(vectors) = &mut entry.vectors {
                vectors.remove(id);
            }
        }
    }

    /// Best keyword matches in the namespace, or `None` if keywords are not indexed in memory.
    pub(crate) fn search_text(
        &self,
        namespace: &Namespace,
        terms: &[String],
        k: usize,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Vec<TextHit> {
        let map = self.read();
        let Some(text) = map.get(namespace).and_then(|e| e.text.as_ref()) else {
            return Vec::new();
        };
        text.search(terms, k, &|f: &Facets| filter.matches(f, now))
    }

    /// Best vector matches in the namespace.
    pub(crate) fn search_vectors(
        &self,
        namespace: &Namespace,
        query: &Embedding,
        k: usize,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Vec<VectorHit> {
        let map = self.read();
        let Some(vectors) = map.get(namespace).and_then(|e| e.vectors.as_ref()) else {
            return Vec::new();
        };
        vectors.search(query, k, &|f: &Facets| filter.matches(f, now))
    }

    /// Cosine similarity of each of `ids` to `query` (`None` where there is no vector).
    pub(crate) fn similarities(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
        query: &Embedding,
    ) -> Vec<Option<f32>> {
        let map = self.read();
        let vectors = map.get(namespace).and_then(|e| e.vectors.as_ref());
        ids.iter().map(|id| vectors.and_then(|v| v.similarity(*id, query))).collect()
    }

    /// Vectors indexed, over all namespaces.
    pub(crate) fn vector_count(&self) -> usize {
        self.read().values().filter_map(|e| e.vectors.as_ref()).map(VectorIndex::len).sum()
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
