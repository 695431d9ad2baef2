//! Dedup-merge on store: an exact duplicate (same content hash) or a near duplicate (cosine at
//! least `dedup_threshold` and one text adding no fact atom to the other) is folded into the
//! existing memory instead of stored again; a long text gets a recall summary. A near duplicate
//! that states a changed fact (`端口从 8765 改成 8766` after `端口是 8765`: see [`conflicts`]) is
//! never merged: the new memory is stored and supersedes it (`supersede.rs`), as it supersedes
//! the memories the request names and those it is found to update. A superseded memory is never
//! a merge target: a text that repeats history is a new statement.
//!
//! A store runs in two steps. [`MemoryService::prepare`] does the slow work on the new text alone
//! (summary, keyword terms, one embedding per model) without any lock. Then, holding the
//! namespace's write lock (`locks.rs`), [`MemoryService::write_prepared`] looks for a duplicate
//! and merges or inserts, and updates the in-memory indexes before letting go: the next writer's
//! duplicate search sees this write, so concurrent identical stores give one memory and
//! concurrent merges into one memory each keep their record.

use chrono::SecondsFormat;
use rearview_core::{
    LinkMaker, LinkNote, Memory, MemoryFilter, MemoryId, MemoryType, Metadata, Namespace,
    NewMemory, Timestamp, content_hash,
};
use rearview_index::VectorHit;
use rearview_language::extract::{adds_nothing, contradicts, split_sentences};
use rearview_store::{MemoryRecord, MemoryUpdate, StoredVector};

use super::supersede::{Incoming, Judged, by_time};
use super::{MAX_MERGE_RECORDS, Merge, PossibleChange, Stored, Superseded};
use crate::locks::WriteGuard;
use crate::lookup::Reach;
use crate::{KeywordSearch, MemoryService, ServiceError, expiry, not_found};

/// How many nearest memories the near-duplicate check looks at.
const NEIGHBOURS: usize = 5;

/// A new memory with everything computed that can be computed without looking at the store:
/// what [`MemoryService::write_prepared`] needs under the namespace's lock.
pub(crate) struct Prepared {
    new: NewMemory,
    source_ids: Vec<MemoryId>,
    /// Merge into a duplicate if there is one (the request's wish and the configuration's).
    dedup: bool,
    now: Timestamp,
    ttl_secs: u64,
    expires_at: Option<Timestamp>,
    hash: String,
    summary: Option<String>,
    terms: Vec<String>,
    vectors: Vec<StoredVector>,
    /// The LLM's verdict on which memories the new one updates, when one was asked.
    judged: Option<Judged>,
}

impl MemoryService {
    /// Writes a validated memory: merges it into an exact or near duplicate when `dedup`, else
    /// inserts it (with a recall summary when it is long).
    pub(crate) async fn store_new(
        &self,
        namespace: &Namespace,
        new: NewMemory,
        source_ids: Vec<MemoryId>,
        dedup: bool,
    ) -> Result<Stored, ServiceError> {
        if dedup && self.config.lifecycle.dedup_threshold.is_some() && new.supersedes.is_empty() {
            // An exact duplicate needs neither summary nor embedding: look for one first.
            let guard = self.write_lock(namespace).await?;
            let now = self.clock.now();
            let hash = content_hash(&new.content);
            if let Some(existing) = self.exact_duplicate(&guard, &new, &hash, now).await? {
                return self.merge_into(&guard, existing, &new, EXACT, None, now).await;
            }
        }
        let prepared = self.prepare(namespace, new, source_ids, dedup).await?;
        let guard = self.write_lock(namespace).await?;
        self.write_prepared(&guard, prepared).await
    }

    /// The part of storing `new` in `namespace` that needs no lock: expiry, hash, summary, terms,
    /// vectors, and the LLM's verdict on what it supersedes.
    pub(crate) async fn prepare(
        &self,
        namespace: &Namespace,
        new: NewMemory,
        source_ids: Vec<MemoryId>,
        dedup: bool,
    ) -> Result<Prepared, ServiceError> {
        let now = self.clock.now();
        let (ttl_secs, expires_at) = self.lifetime(&new, now)?;
        let hash = content_hash(&new.content);
        let summary = self.recall_summary(&new.content).await;
        let terms = self.terms_of(&new.content, summary.as_deref());
        let vectors = self.embed_passage(summary.as_deref().unwrap_or(&new.content)).await;
        let dedup = dedup && self.config.lifecycle.dedup_threshold.is_some();
        let incoming = Incoming {
            new: &new,
            source_ids: &source_ids,
            terms: &terms,
            vectors: &vectors,
            neighbours: None,
            now,
        };
        let judged = self.judge_supersession(namespace, incoming).await;
        Ok(Prepared {
            new,
            source_ids,
            dedup,
            now,
            ttl_secs,
            expires_at,
            hash,
            summary,
            terms,
            vectors,
            judged,
        })
    }

    /// Writes `prepared` into the guard's namespace: merged into an exact duplicate or a near
    /// one when it dedups, else inserted, superseding what the request names and what it is found
    /// to update (`supersede.rs`); the indexes follow before the guard is released.
    pub(crate) async fn write_prepared(
        &self,
        guard: &WriteGuard<'_>,
        prepared: Prepared,
    ) -> Result<Stored, ServiceError> {
        let (namespace, now) = (guard.namespace(), prepared.now);
        // Checked before anything is written: an unknown id fails the whole store.
        let asked = LinkNote::new(LinkMaker::Caller, "the caller said the new memory replaces it");
        let requested: Vec<(Memory, LinkNote)> = self
            .requested_superseded(namespace, &prepared.new.supersedes, now)
            .await?
            .into_iter()
            .map(|m| (m, asked.clone()))
            .collect();
        let new = &prepared.new;
        if prepared.dedup
            && let Some(existing) = self.exact_duplicate(guard, new, &prepared.hash, now).await?
        {
            let stored = self.merge_into(guard, existing, new, EXACT, None, now).await?;
            return self.superseding(guard, stored, requested, now).await;
        }
        // One graph search, under the lock, for both the near-duplicate check and the detection
        // of what the new memory updates: at a million memories each search costs milliseconds.
        let neighbours =
            self.neighbours(namespace, new, &prepared.vectors, prepared.dedup, now).await?;
        if prepared.dedup
            && let Some((existing, similarity)) =
                self.mergeable_near_duplicate(new, neighbours.as_deref(), namespace, now).await?
        {
            let stored = self.merge_near(guard, existing, similarity, prepared).await?;
            return self.superseding(guard, stored, requested, now).await;
        }
        self.insert_new(guard, prepared, neighbours, requested).await
    }

    /// The near duplicate `new` merges into, with its cosine; `None` also when the nearest
    /// states a different fact (it is then found among what the new memory supersedes).
    async fn mergeable_near_duplicate(
        &self,
        new: &NewMemory,
        neighbours: Option<&[VectorHit]>,
        namespace: &Namespace,
        now: Timestamp,
    ) -> Result<Option<(Memory, f32)>, ServiceError> {
        match self.near_duplicate(new, neighbours, namespace, now).await? {
            Some(NearDuplicate::Merge(existing, similarity)) => Ok(Some((existing, similarity))),
            Some(NearDuplicate::Conflict(existing, similarity)) => {
                // Not merged: the detection finds it among the candidates (a near duplicate
                // that contradicts the new text), and the new memory supersedes it.
                tracing::debug!(
                    namespace = %namespace, existing = %existing.id, similarity,
                    "near duplicate states a different fact; not merged"
                );
                Ok(None)
            }
            None => Ok(None),
        }
    }

    /// `prepared` merged into its near duplicate `existing`; the new text replaces the old one
    /// when it says everything the old one says and more.
    async fn merge_near(
        &self,
        guard: &WriteGuard<'_>,
        existing: Memory,
        similarity: f32,
        prepared: Prepared,
    ) -> Result<Stored, ServiceError> {
        let Prepared { new, hash, summary, terms, vectors, now, .. } = prepared;
        let replace = adds_nothing(&existing.content, &new.content)
            && !adds_nothing(&new.content, &existing.content);
        let merge = Merge { exact: false, similarity: Some(similarity), content_replaced: replace };
        let replacement = replace.then(|| Replacement {
            content: new.content.clone(),
            terms,
            hash,
            vectors,
            summary,
        });
        self.merge_into(guard, existing, &new, merge, replacement, now).await
    }

    /// `prepared` inserted as a new memory, superseding `requested` and what it is found to
    /// update (or history from the start, when a current memory it contradicts is newer).
    async fn insert_new(
        &self,
        guard: &WriteGuard<'_>,
        prepared: Prepared,
        neighbours: Option<Vec<VectorHit>>,
        requested: Vec<(Memory, LinkNote)>,
    ) -> Result<Stored, ServiceError> {
        let Prepared {
            new,
            source_ids,
            now,
            ttl_secs,
            expires_at,
            hash,
            summary,
            terms,
            vectors,
            judged,
            ..
        } = prepared;
        let namespace = guard.namespace();
        let incoming = Incoming {
            new: &new,
            source_ids: &source_ids,
            terms: &terms,
            vectors: &vectors,
            neighbours: neighbours.as_deref(),
            now,
        };
        let detection = self.detect_links(guard, incoming, judged.as_ref()).await?;
        let occurred_at = new.occurred_at.unwrap_or(now);
        let (older, history_of) = by_time(detection.links, occurred_at);
        // What the caller named is linked, not offered again.
        let possible: Vec<PossibleChange> = detection
            .possible
            .into_iter()
            .filter(|p| !requested.iter().any(|(m, _)| m.id == p.update.id))
            .collect();
        let memory = Memory {
            id: MemoryId::new_v7(now),
            namespace: namespace.clone(),
            memory_type: new.memory_type,
            content_hash: hash,
            content: new.content,
            metadata: new.metadata,
            session_id: new.session_id,
            ttl_secs,
            timestamp: now,
            occurred_at,
            updated_at: now,
            last_accessed_at: None,
            expires_at,
            access_count: 0,
            archived: false,
            source_ids,
            summary,
            // A statement older than a current memory it contradicts is history from the start.
            superseded_by: history_of.as_ref().map(|(m, _)| m.id),
            invalid_at: history_of.as_ref().map(|(m, _)| m.occurred_at),
            link: history_of.map(|(_, note)| note),
            possible_updates: possible.iter().map(|p| p.update.clone()).collect(),
        };
        let record = MemoryRecord { memory, terms, vectors };
        self.store.insert(&record).await?;
        self.index_inserted(&record);
        tracing::debug!(namespace = %namespace, id = %record.memory.id, "stored memory");
        let mut olders = requested;
        olders.extend(older);
        let superseded = self.supersede(guard, olders, &record.memory, now).await?;
        Ok(Stored { memory: record.memory, merged: None, superseded, possible_updates: possible })
    }

    /// `stored` (a merge), superseding what the request named.
    async fn superseding(
        &self,
        guard: &WriteGuard<'_>,
        stored: Stored,
        requested: Vec<(Memory, LinkNote)>,
        now: Timestamp,
    ) -> Result<Stored, ServiceError> {
        let superseded: Vec<Superseded> =
            self.supersede(guard, requested, &stored.memory, now).await?;
        Ok(Stored { superseded, ..stored })
    }

    /// TTL in seconds (the request's, else the tier's default) and the expiry it gives at `now`.
    fn lifetime(
        &self,
        new: &NewMemory,
        now: Timestamp,
    ) -> Result<(u64, Option<Timestamp>), ServiceError> {
        let ttl_secs = match new.ttl_secs {
            Some(secs) => secs,
            None => self.config.ttls.for_tier(new.memory_type).map_or(0, |d| d.as_secs()),
        };
        Ok((ttl_secs, expiry(now, ttl_secs)?))
    }

    /// A visible memory of the guard's namespace with exactly this content that may absorb `new`.
    async fn exact_duplicate(
        &self,
        guard: &WriteGuard<'_>,
        new: &NewMemory,
        hash: &str,
        now: Timestamp,
    ) -> Result<Option<Memory>, ServiceError> {
        let same = self.store.find_by_hash(guard.namespace(), hash, now).await?;
        Ok(same.into_iter().find(|m| mergeable(m, new)))
    }

    /// Keyword terms of a memory: its content's and, for a long one, its summary's.
    pub(crate) fn terms_of(&self, content: &str, summary: Option<&str>) -> Vec<String> {
        let mut terms = self.config.tokenizer.index_terms(content);
        if let Some(summary) = summary {
            terms.extend(self.config.tokenizer.index_terms(summary));
        }
        terms
    }

    /// The recall summary of a long text: by the LLM when one is configured (falling back to
    /// the extractive summary if it fails: a store must not fail because of it), else the
    /// sentences most central to the text, up to `summary_chars`.
    pub(crate) async fn recall_summary(&self, content: &str) -> Option<String> {
        let config = &self.config.lifecycle;
        if content.chars().count() <= config.long_content_chars {
            return None;
        }
        if let Some(llm) = self.llm() {
            match rearview_llm::summarize(llm.as_ref(), content, config.summary_chars).await {
                Ok((summary, _)) => return Some(summary),
                Err(e) => {
                    tracing::warn!(error = %e, "LLM summary failed; using the extractive summary")
                }
            }
        }
        Some(self.keyword_extract(&split_sentences(content), config.summary_chars, " ", true))
    }

    /// The primary model's nearest memories of `new`'s tier, nearest first: the candidates of
    /// both [`MemoryService::near_duplicate`] (when `dedup`) and the detection of what `new`
    /// updates. `None` without an embedder or a vector of its model, or when neither check runs.
    async fn neighbours(
        &self,
        namespace: &Namespace,
        new: &NewMemory,
        vectors: &[StoredVector],
        dedup: bool,
        now: Timestamp,
    ) -> Result<Option<Vec<VectorHit>>, ServiceError> {
        if !dedup && self.config.lifecycle.supersede_threshold.is_none() {
            return Ok(None);
        }
        let Some(primary) = self.embedder() else { return Ok(None) };
        let Some(vector) = vectors.iter().find(|v| v.model_id == primary.model_id()) else {
            return Ok(None);
        };
        let filter = MemoryFilter { memory_types: vec![new.memory_type], ..Default::default() };
        // Both look only at memories at least 0.8 similar: a graph finds those with few
        // candidates (`VectorIndex::search_near`; benches/ann.rs "near duplicates").
        let within = (NEIGHBOURS.max(super::supersede::CANDIDATES), Reach::Close);
        Ok(Some(
            self.nearest_within(
                namespace,
                primary.model_id(),
                &vector.embedding,
                within,
                &filter,
                now,
            )
            .await?,
        ))
    }

    /// The best visible memory among `neighbours` (same tier, and session for working memory)
    /// whose vector is at least `dedup_threshold` similar and that one of the two texts adds
    /// nothing to; failing that, the best such memory that `new` [`conflicts`] with (stated a
    /// different value for the same thing).
    async fn near_duplicate(
        &self,
        new: &NewMemory,
        neighbours: Option<&[VectorHit]>,
        namespace: &Namespace,
        now: Timestamp,
    ) -> Result<Option<NearDuplicate>, ServiceError> {
        let Some(threshold) = self.config.lifecycle.dedup_threshold else { return Ok(None) };
        let Some(hits) = neighbours else { return Ok(None) };
        let hits = &hits[..hits.len().min(NEIGHBOURS)];
        let close: Vec<(MemoryId, f32)> =
            hits.iter().filter(|h| h.cosine >= threshold).map(|h| (h.id, h.cosine)).collect();
        if close.is_empty() {
            return Ok(None);
        }
        let ids: Vec<MemoryId> = close.iter().map(|(id, _)| *id).collect();
        let memories = self.store.get_many(namespace, &ids, now).await?;
        let mut conflict = None;
        for (id, cosine) in close {
            let Some(existing) = memories.iter().find(|m| m.id == id) else { continue };
            if !mergeable(existing, new) {
                continue;
            }
            if conflicts(existing, new) {
                conflict = conflict.or(Some(NearDuplicate::Conflict(existing.clone(), cosine)));
            } else if adds_nothing(&new.content, &existing.content)
                || adds_nothing(&existing.content, &new.content)
            {
                return Ok(Some(NearDuplicate::Merge(existing.clone(), cosine)));
            }
        }
        Ok(conflict)
    }

    /// Folds `new` into `existing`: newest event time, the later expiry, metadata and tags
    /// united (the newer value wins a clash), a merge record appended, and the content replaced
    /// when the new text is the fuller one. `existing` must have been read under `guard`.
    async fn merge_into(
        &self,
        guard: &WriteGuard<'_>,
        existing: Memory,
        new: &NewMemory,
        merge: Merge,
        replacement: Option<Replacement>,
        now: Timestamp,
    ) -> Result<Stored, ServiceError> {
        let (_, expires_at) = self.lifetime(new, now)?;
        let mut metadata = existing.metadata.clone();
        unite_metadata(&mut metadata, &new.metadata);
        let mut record = serde_json::json!({
            "at": now.to_rfc3339_opts(SecondsFormat::Micros, true),
            "exact": merge.exact,
            "similarity": merge.similarity,
        });
        if merge.content_replaced {
            record["replaced_content"] = existing.content.clone().into();
        } else if new.content != existing.content {
            record["content"] = new.content.clone().into();
        }
        let records = metadata.entry("merges").or_insert_with(|| serde_json::json!([]));
        if !records.is_array() {
            *records = serde_json::json!([]);
        }
        if let Some(list) = records.as_array_mut() {
            list.push(record);
            let excess = list.len().saturating_sub(MAX_MERGE_RECORDS);
            list.drain(..excess);
        }
        let occurred = new.occurred_at.unwrap_or(now).max(existing.occurred_at);
        let ttl = match (existing.expires_at, expires_at) {
            (Some(_), None) => Some((0, None)),
            (Some(old), Some(later)) if later > old => {
                let secs = (later - existing.timestamp).num_seconds().max(1) as u64;
                Some((secs, Some(later)))
            }
            _ => None,
        };
        let mut update = MemoryUpdate {
            metadata: Some(metadata),
            occurred_at: (occurred != existing.occurred_at).then_some(occurred),
            ttl,
            at: now,
            ..MemoryUpdate::default()
        };
        let mut terms = None;
        if let Some(r) = replacement {
            update.content = Some((r.content, r.terms.clone(), r.hash));
            update.summary = Some(r.summary);
            update.vectors = Some(r.vectors);
            terms = Some(r.terms);
        }
        let namespace = guard.namespace();
        let memory = self
            .store
            .update(namespace, existing.id, &update)
            .await?
            .ok_or_else(|| not_found(namespace, existing.id))?;
        let in_memory = self.config.keyword_search == KeywordSearch::InMemory;
        self.indexes.replace(
            &memory,
            terms.as_deref().filter(|_| in_memory),
            update.vectors.as_deref().map(|v| self.current_vectors(v)).as_deref(),
        );
        tracing::debug!(namespace = %namespace, into = %memory.id, exact = merge.exact, "merged memory");
        Ok(Stored {
            memory,
            merged: Some(merge),
            superseded: Vec::new(),
            possible_updates: Vec::new(),
        })
    }
}

/// A memory close enough by vector to a new one to be its duplicate, with the cosine.
enum NearDuplicate {
    /// One text adds nothing to the other: merge.
    Merge(Memory, f32),
    /// The new text states a different value for what the memory says: keep both.
    Conflict(Memory, f32),
}

/// Whether `new` states a different fact than its near duplicate `existing` (a negation, an
/// antonym, the direction of a change, a number, a name…; see
/// `rearview_language::extract::contradicts`), so that it must not be merged into it: merging
/// would either lose the new value or keep the old one as if it were still true.
fn conflicts(existing: &Memory, new: &NewMemory) -> bool {
    contradicts(&existing.content, &new.content)
}

/// The merge of an exact duplicate.
const EXACT: Merge = Merge { exact: true, similarity: None, content_replaced: false };

/// Content, terms, hash, vectors and summary that replace a merged memory's.
struct Replacement {
    content: String,
    terms: Vec<String>,
    hash: String,
    vectors: Vec<StoredVector>,
    summary: Option<String>,
}

/// Whether `existing` may absorb `new`: same tier, not archived, not superseded (history stays
/// as it was), and for working memory the same session (a session's working memory must stay
/// whole for `end_session`).
fn mergeable(existing: &Memory, new: &NewMemory) -> bool {
    existing.memory_type == new.memory_type
        && !existing.archived
        && existing.superseded_by.is_none()
        && (new.memory_type != MemoryType::Working || existing.session_id == new.session_id)
}

/// `tags` united in order; other keys from `new` win; `merges` is the service's own.
fn unite_metadata(into: &mut Metadata, new: &Metadata) {
    for (key, value) in new {
        match key.as_str() {
            "merges" => {}
            "tags" => {
                let mut tags = rearview_core::tags_of(into);
                for tag in rearview_core::tags_of(new) {
                    if !tags.contains(&tag) {
                        tags.push(tag);
                    }
                }
                into.insert("tags".into(), serde_json::json!(tags));
            }
            _ => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
}
