//! Export and import of whole memories, for backup and migration between stores.
//!
//! An export is a lossless copy: every field of every memory (expired and archived ones too),
//! optionally with its vectors. An import writes those records back as they were (same id, same
//! timestamps, same access count), so a namespace can move from one database or backend to
//! another without any memory changing.

use rearview_core::{InputError, Memory, MemoryId, Namespace, content_hash};
use rearview_store::{MemoryRecord, StoreError, StoredVector};

use crate::{MemoryService, ServiceError};

/// What became of one imported memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Imported {
    /// Written, with this many vectors computed because the file had none for a model in use.
    Inserted {
        /// Vectors embedded during the import.
        embedded: usize,
    },
    /// A memory with this id already exists in the store; nothing was written.
    Skipped,
}

impl MemoryService {
    /// One page of `namespace`'s memories in id order after `after`, expired and archived ones
    /// included, with their vectors when `with_vectors` (see `MemoryStore::export_page`).
    pub async fn export_page(
        &self,
        namespace: &Namespace,
        after: Option<MemoryId>,
        limit: usize,
        with_vectors: bool,
    ) -> Result<Vec<(Memory, Vec<StoredVector>)>, ServiceError> {
        Ok(self.store.export_page(namespace, after, limit, with_vectors).await?)
    }

    /// Writes `memory` into `namespace` exactly as exported: id, timestamps, access count,
    /// archive flag and provenance kept. Vectors given for a model are stored at the half
    /// precision every stored vector has (`Embedding::to_half_precision`; a no-op for vectors
    /// this version exported); models in use with no vector given are embedded from the
    /// memory's recall text. A memory
    /// whose id exists is skipped. The content must match its `content_hash`, so a damaged or
    /// hand-edited line is refused rather than stored under a wrong hash.
    pub async fn import(
        &self,
        namespace: &Namespace,
        mut memory: Memory,
        mut vectors: Vec<StoredVector>,
    ) -> Result<Imported, ServiceError> {
        if memory.content.trim().is_empty() {
            return Err(InputError::new("content", "must not be empty or only whitespace").into());
        }
        if content_hash(&memory.content) != memory.content_hash {
            return Err(InputError::new(
                "content_hash",
                format!(
                    "does not match the content of memory {}; the line was edited or damaged (export it again, or drop content_hash to have it recomputed)",
                    memory.id
                ),
            )
            .into());
        }
        let models = self.embedders();
        for v in &vectors {
            if let Some(e) = models.iter().find(|e| e.model_id() == v.model_id)
                && e.dimensions() != 0
                && e.dimensions() != v.embedding.dimensions()
            {
                return Err(InputError::new(
                    "vectors",
                    format!(
                        "memory {} has a {}-dimensional vector for {}, which gives {}; export without --vectors to re-embed",
                        memory.id,
                        v.embedding.dimensions(),
                        v.model_id,
                        e.dimensions()
                    ),
                )
                .into());
            }
        }
        memory.namespace = namespace.clone();
        for v in &mut vectors {
            v.embedding = v.embedding.to_half_precision();
        }
        let missing = models.iter().any(|e| vectors.iter().all(|v| v.model_id != e.model_id()));
        let mut embedded = 0;
        if missing {
            for v in self.embed_passage(memory.recall_text()).await {
                if vectors.iter().all(|have| have.model_id != v.model_id) {
                    vectors.push(v);
                    embedded += 1;
                }
            }
        }
        let terms = self.terms_of(&memory.content, memory.summary.as_deref());
        let record = MemoryRecord { memory, terms, vectors };
        // Insert and index as one step, so a concurrent delete cannot leave an index entry behind.
        let _guard = self.writes.write(namespace).await;
        match self.store.insert(&record).await {
            Ok(()) => {}
            Err(StoreError::Conflict { .. }) => return Ok(Imported::Skipped),
            Err(e) => return Err(e.into()),
        }
        self.index_inserted(&record);
        Ok(Imported::Inserted { embedded })
    }
}
