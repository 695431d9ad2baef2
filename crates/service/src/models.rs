//! The embedding models in use: switching to them (their stored vectors into the indexes), a
//! memory's passage vectors, backfill and reindex of what lacks a model's vector, and the
//! models a recall queries.

use std::sync::Arc;

use rearview_core::{Embedding, InputError, MemoryId, Namespace};
use rearview_embed::{Embedder, TextKind};
use rearview_store::{PendingEmbedding, StoredVector};

use crate::{MemoryService, ServiceError};

impl MemoryService {
    /// (model, vector) pairs of `vectors` whose model is still in use: a model swapped out
    /// meanwhile must not get an index entry (its vectors stay stored for when it returns).
    pub(crate) fn current_vectors<'v>(
        &self,
        vectors: &'v [StoredVector],
    ) -> Vec<(&'v str, &'v Embedding)> {
        let models = self.embedders();
        vectors
            .iter()
            .filter(|v| models.iter().any(|e| e.model_id() == v.model_id))
            .map(|v| (v.model_id.as_str(), &v.embedding))
            .collect()
    }

    /// Switches to `embedder` alone (e.g. once a model finished downloading); see
    /// [`MemoryService::attach_embedders`].
    pub async fn attach_embedder(&self, embedder: Arc<dyn Embedder>) -> Result<(), ServiceError> {
        self.attach_embedders(vec![embedder]).await
    }

    /// Switches to `embedders` (primary first): loads each one's stored vectors into its own
    /// index, drops the indexes of models no longer used, then serves queries with them.
    /// Memories without a vector of some model are found by
    /// [`MemoryService::backfill_embeddings`].
    pub async fn attach_embedders(
        &self,
        embedders: Vec<Arc<dyn Embedder>>,
    ) -> Result<(), ServiceError> {
        let mut ids: Vec<String> = Vec::new();
        for embedder in &embedders {
            if ids.iter().any(|id| id == embedder.model_id()) {
                return Err(InputError::new(
                    "model",
                    format!("{} is configured twice; list each model once", embedder.model_id()),
                )
                .into());
            }
            ids.push(embedder.model_id().to_owned());
        }
        for embedder in embedders.iter().filter(|_| !self.in_store) {
            let started = std::time::Instant::now();
            let (model, dims) = (embedder.model_id(), embedder.dimensions());
            let load = self.restore_graphs(model, dims).await?;
            let entries = match &load.others {
                // Namespaces load when first used: only those in memory now get this model's
                // vectors (the others read them when they load).
                _ if self.indexes.on_demand() => {
                    let restored: Vec<&Namespace> =
                        load.restored.iter().map(|r| &r.namespace).collect();
                    let mut entries = Vec::new();
                    for namespace in self.indexes.namespaces_in_memory() {
                        if !restored.contains(&&namespace) {
                            entries.extend(self.store.namespace_vectors(model, &namespace).await?);
                        }
                    }
                    entries
                }
                None => self.store.vectors(model).await?,
                Some(namespaces) => {
                    let mut entries = Vec::new();
                    for namespace in namespaces {
                        entries.extend(self.store.namespace_vectors(model, namespace).await?);
                    }
                    entries
                }
            };
            let skipped = self.indexes.load_vectors(model, entries, dims, load.restored).await;
            if skipped > 0 {
                tracing::warn!(
                    skipped,
                    model = embedder.model_id(),
                    "stored vectors with the wrong dimension were not indexed"
                );
            }
            tracing::info!(
                model = embedder.model_id(),
                seconds = started.elapsed().as_secs_f32(),
                "embedding model attached"
            );
        }
        self.indexes.retain_models(&ids);
        *self.embedders.write().unwrap_or_else(|e| e.into_inner()) = embedders;
        if !ids.is_empty() {
            self.set_embedding_status(None);
        }
        Ok(())
    }

    /// Embeds up to `batch` memories that lack a vector of some model in use (the primary
    /// first), oldest first, in every namespace. Returns how many got one. Call repeatedly until
    /// it returns 0.
    pub async fn backfill_embeddings(&self, batch: usize) -> Result<usize, ServiceError> {
        self.reindex(None, batch).await
    }

    /// [`MemoryService::backfill_embeddings`] for one namespace (`Some`) or all: after a model
    /// is added or the default model changes, embeds what lacks its vectors. Resumable: the
    /// work left is whatever still has no vector, so an interrupted run just continues.
    pub async fn reindex(
        &self,
        namespace: Option<&Namespace>,
        batch: usize,
    ) -> Result<usize, ServiceError> {
        for embedder in self.embedders() {
            let pending =
                self.store.pending_embeddings(embedder.model_id(), namespace, batch).await?;
            if pending.is_empty() {
                continue;
            }
            let texts: Vec<String> = pending.iter().map(|p| p.content.clone()).collect();
            let vectors = embedder.embed(&texts, TextKind::Passage).await?;
            let mut done = 0;
            let now = self.clock.now();
            let model = embedder.model_id();
            for (namespace, batch) in by_namespace(pending.into_iter().zip(vectors)) {
                let _guard = self.writes.write(&namespace).await;
                let ids: Vec<MemoryId> = batch.iter().map(|(p, _)| p.id).collect();
                let current = self.store.get_many(&namespace, &ids, now).await?;
                for (p, embedding) in batch {
                    let memory = current.iter().find(|m| m.id == p.id);
                    if memory.is_some_and(|m| m.content != p.content) {
                        // Updated while we embedded: this vector is of the old text. The update
                        // brought its own, or the memory is pending again with its new text.
                        continue;
                    }
                    let embedding = embedding.to_half_precision();
                    let vector = StoredVector { model_id: model.to_owned(), embedding };
                    if self.store.put_vector(&namespace, p.id, &vector).await? {
                        done += 1;
                        // Expired memories get their vector too (so they leave the queue) but no
                        // index entry.
                        if let Some(memory) = memory {
                            self.indexes.add_vector(memory, model, &vector.embedding);
                        }
                    }
                }
            }
            return Ok(done);
        }
        Ok(0)
    }

    /// The passage vectors of `content`, one per working model, at the half precision stores
    /// keep (a failing model is logged and skipped: backfill adds its vector later).
    pub(crate) async fn embed_passage(&self, content: &str) -> Vec<StoredVector> {
        self.embed_passages(&[content.to_owned()]).await.pop().unwrap_or_default()
    }

    /// [`MemoryService::embed_passage`] of each of `contents`, one batch per model. A batch the
    /// model refuses is embedded one text at a time, so one bad text costs only its own vector.
    pub(crate) async fn embed_passages(&self, contents: &[String]) -> Vec<Vec<StoredVector>> {
        let mut vectors = vec![Vec::new(); contents.len()];
        for embedder in self.embedders() {
            let batch = match contents {
                [] => Vec::new(),
                [one] => vec![embed_one(embedder.as_ref(), one).await],
                many => match embedder.embed(many, TextKind::Passage).await {
                    Ok(v) if v.len() == many.len() => v.into_iter().map(Some).collect(),
                    _ => {
                        let mut one_by_one = Vec::with_capacity(many.len());
                        for text in many {
                            one_by_one.push(embed_one(embedder.as_ref(), text).await);
                        }
                        one_by_one
                    }
                },
            };
            for (out, e) in vectors.iter_mut().zip(batch) {
                if let Some(e) = e {
                    out.push(StoredVector {
                        model_id: embedder.model_id().to_owned(),
                        embedding: e.to_half_precision(),
                    });
                }
            }
        }
        vectors
    }

    /// The embedders a recall queries: those named in `models`, or all in use.
    pub(crate) fn query_spaces(
        &self,
        models: Option<&[String]>,
    ) -> Result<Vec<Arc<dyn Embedder>>, ServiceError> {
        let all = self.embedders();
        let Some(names) = models else { return Ok(all) };
        names
            .iter()
            .map(|name| {
                all.iter().find(|e| e.model_id() == name).cloned().ok_or_else(|| {
                    let in_use: Vec<&str> = all.iter().map(|e| e.model_id()).collect();
                    ServiceError::from(InputError::new(
                        "models",
                        format!(
                            "{name:?} is not a model in use; in use: {}",
                            if in_use.is_empty() {
                                "none (keyword-only)".to_owned()
                            } else {
                                in_use.join(", ")
                            }
                        ),
                    ))
                })
            })
            .collect()
    }
}

/// Backfill work grouped by namespace, in first-seen order.
fn by_namespace(
    items: impl IntoIterator<Item = (PendingEmbedding, Embedding)>,
) -> Vec<(Namespace, Vec<(PendingEmbedding, Embedding)>)> {
    let mut groups: Vec<(Namespace, Vec<(PendingEmbedding, Embedding)>)> = Vec::new();
    for item in items {
        match groups.iter_mut().find(|(ns, _)| *ns == item.0.namespace) {
            Some((_, group)) => group.push(item),
            None => groups.push((item.0.namespace.clone(), vec![item])),
        }
    }
    groups
}

/// `text`'s passage vector from `embedder`, or `None` (logged: backfill adds it later).
async fn embed_one(embedder: &dyn Embedder, text: &str) -> Option<Embedding> {
    match embedder.embed(&[text.to_owned()], TextKind::Passage).await {
        Ok(mut v) if v.len() == 1 => v.pop(),
        Ok(_) => None,
        Err(e) => {
            tracing::warn!(model = embedder.model_id(), error = %e, "storing memory without this model's vector; it will be backfilled");
            None
        }
    }
}
