//! Export and import of whole memories, for backup and migration between stores.
//!
//! An export is a lossless copy: every field of every memory (expired and archived ones too),
//! optionally with its vectors. An import writes those records back as they were (same id, same
//! timestamps, same access count), so a namespace can move from one database or backend to
//! another without any memory changing.

use rearview_core::{InputError, Memory, MemoryId, Namespace, content_hash};
use rearview_store::{MemoryRecord, StoredVector};

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

/// A memory checked for import ([`MemoryService::check_import`]), ready to be written.
#[derive(Debug, Clone)]
pub struct ImportItem {
    memory: Memory,
    vectors: Vec<StoredVector>,
}

impl ImportItem {
    /// The namespace it goes into.
    pub fn namespace(&self) -> &Namespace {
        &self.memory.namespace
    }
}

impl MemoryService {
    /// One page of `namespace`'s memories in id order after `after`, expired and archived ones
    /// included, with their vectors when `with_vectors` (see `MemoryRecords::export_page`).
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
    /// memory's recall text. A memory whose id exists is skipped. The content must match its
    /// `content_hash`, so a damaged or hand-edited line is refused rather than stored under a
    /// wrong hash. For many memories, [`MemoryService::import_many`] writes them in batches.
    pub async fn import(
        &self,
        namespace: &Namespace,
        memory: Memory,
        vectors: Vec<StoredVector>,
    ) -> Result<Imported, ServiceError> {
        let item = self.check_import(namespace, memory, vectors)?;
        let mut done = self.import_many(vec![item]).await?;
        Ok(done.pop().unwrap_or(Imported::Skipped))
    }

    /// Checks one memory for [`MemoryService::import_many`] (the checks of
    /// [`MemoryService::import`]), moving it into `namespace`.
    pub fn check_import(
        &self,
        namespace: &Namespace,
        mut memory: Memory,
        mut vectors: Vec<StoredVector>,
    ) -> Result<ImportItem, ServiceError> {
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
        Ok(ImportItem { memory, vectors })
    }

    /// Call once a bulk load ([`MemoryService::import_many`] batches) is done: brings the
    /// store's planner statistics up to date (`StoreMaintenance::refresh_statistics`). Advisory: a
    /// failure is logged, and the database's own maintenance gets there later.
    pub async fn finish_import(&self) {
        if let Err(e) = self.store.refresh_statistics().await {
            tracing::warn!(error = %e, "refreshing the database's statistics after the import failed; autovacuum will");
        }
    }

    /// [`MemoryService::import`] of many checked memories: missing vectors embedded in one batch
    /// per model, then each run of one namespace written in one store transaction. What became
    /// of each, in order. Runs are committed one after another: on an error the runs before it
    /// are written (a re-run skips them); pass one namespace per call for all or nothing.
    pub async fn import_many(&self, items: Vec<ImportItem>) -> Result<Vec<Imported>, ServiceError> {
        let models = self.embedders();
        let lacking: Vec<usize> = (0..items.len())
            .filter(|&i| {
                models.iter().any(|e| items[i].vectors.iter().all(|v| v.model_id != e.model_id()))
            })
            .collect();
        let texts: Vec<String> =
            lacking.iter().map(|&i| items[i].memory.recall_text().to_owned()).collect();
        let mut embedded = vec![0; items.len()];
        let mut records: Vec<MemoryRecord> = items
            .into_iter()
            .map(|ImportItem { memory, vectors }| {
                let terms = self.terms_of(&memory.content, memory.summary.as_deref());
                MemoryRecord { memory, terms, vectors }
            })
            .collect();
        for (&i, computed) in lacking.iter().zip(self.embed_passages(&texts).await) {
            for v in computed {
                if records[i].vectors.iter().all(|have| have.model_id != v.model_id) {
                    records[i].vectors.push(v);
                    embedded[i] += 1;
                }
            }
        }
        let mut outcome = Vec::with_capacity(records.len());
        for run in records.chunk_by(|a, b| a.memory.namespace == b.memory.namespace) {
            // Insert and index as one step, so a concurrent delete cannot leave an index entry
            // behind.
            let _guard = self.writes.write(&run[0].memory.namespace).await;
            let written = self.store.insert_many(run).await?;
            for (record, &was_written) in run.iter().zip(&written) {
                outcome.push(if was_written {
                    self.index_inserted(record);
                    Imported::Inserted { embedded: embedded[outcome.len()] }
                } else {
                    Imported::Skipped
                });
            }
        }
        Ok(outcome)
    }
}
