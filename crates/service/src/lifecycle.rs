//! The memory lifecycle (design §2.2, §3.4, §5.3, §6): dedup-merge on store, long-content
//! summaries, the cold archive, sessions → episodes, distillation of episodes into semantic
//! memories, and the periodic sweep that ties expiry, archiving and (opt-in) distillation
//! together.
//!
//! Rules every operation here keeps:
//! - **Nothing is lost.** A merge only happens when one text adds no fact atom to the other
//!   (`rearview_search::extract::adds_nothing`: `port 8765` and `port 8766` never merge), and a
//!   replaced text is kept in the merge record. Originals are archived or deleted only after the
//!   memory made from them is committed. A failing or babbling LLM changes nothing.
//! - **Provenance.** Episodes and distillations carry `source_ids`; metadata says which method
//!   (and model) produced them.

use std::sync::Arc;
use std::time::Duration;

use chrono::SecondsFormat;
use rearview_core::{
    InputError, Memory, MemoryFilter, MemoryId, MemoryType, Metadata, Namespace, NewMemory,
    Timestamp, content_hash, dot, truncate_chars,
};
use rearview_embed::TextKind;
use rearview_llm::{Episode, LanguageModel};
use rearview_search::extract::{
    adds_nothing, keyword_centrality, select_mmr, split_sentences, term_overlap,
};
use rearview_store::{MemoryRecord, MemoryUpdate, Page, StoredVector};

use crate::{KeywordSearch, MemoryService, ServiceError, expiry, not_found};

/// Settings of the lifecycle. Defaults follow the design; see each field.
#[derive(Debug, Clone)]
pub struct LifecycleConfig {
    /// Merge a new memory into an existing one of the same namespace and tier whose vector has at
    /// least this cosine (design: 0.95) — if the merge loses no fact. `None` turns dedup off
    /// (exact duplicates included). The right value depends on the model: multilingual-e5 puts
    /// unrelated sentences near 0.8, so 0.95 only catches restatements.
    pub dedup_threshold: Option<f32>,
    /// Episodic memories neither written nor recalled for this long move to the archive on the
    /// sweep (design: 90 days). `None` turns archiving off.
    pub archive_after: Option<Duration>,
    /// Content longer than this many characters gets a summary as its recall text (design: 500).
    pub long_content_chars: usize,
    /// Length of those summaries, in characters.
    pub summary_chars: usize,
    /// Length of a distilled semantic memory, in characters.
    pub distill_chars: usize,
    /// Default cosine for grouping episodes in `suggest_distillations`.
    pub suggest_threshold: f32,
    /// Let the sweep distill the groups `suggest_distillations` finds. Off by default: the
    /// design's author warns that unsupervised distillation pollutes the store.
    pub auto_distill: bool,
}

impl Default for LifecycleConfig {
    fn default() -> Self {
        Self {
            dedup_threshold: Some(0.95),
            archive_after: Some(Duration::from_secs(90 * 86_400)),
            long_content_chars: 500,
            summary_chars: 200,
            distill_chars: 600,
            suggest_threshold: 0.88,
            auto_distill: false,
        }
    }
}

/// The outcome of storing a memory.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The memory as stored: the new one, or the existing one it was merged into.
    pub memory: Memory,
    /// Set when the new memory was merged into an existing one (`memory` is that one).
    pub merged: Option<Merge>,
}

/// How a new memory was merged.
#[derive(Debug, Clone, PartialEq)]
pub struct Merge {
    /// Same content hash: an exact duplicate, found without a vector.
    pub exact: bool,
    /// Cosine of the vectors, for a near-duplicate.
    pub similarity: Option<f32>,
    /// The new text said more than the old one (the old is a subset), so it replaced it; the
    /// old text is kept in the merge record.
    pub content_replaced: bool,
}

/// What ending a session did.
#[derive(Debug, Clone)]
pub struct SessionEnd {
    /// Working memories the session had.
    pub working_memories: usize,
    /// The episodic memories made from them (merged ones appear as the memory they merged into).
    pub episodes: Vec<Stored>,
    /// `llm` or `rules`.
    pub method: &'static str,
    /// The model that extracted the events, for `llm`.
    pub model: Option<String>,
}

/// What happens to the episodes a distillation was made from, once it is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Originals {
    /// Move them to the archive (restorable). The default.
    #[default]
    Archive,
    /// Delete them.
    Delete,
    /// Leave them as they are.
    Keep,
}

/// A distillation request.
#[derive(Debug, Clone, Default)]
pub struct DistillRequest {
    /// The memories to condense (1 to 200).
    pub ids: Vec<MemoryId>,
    /// What to focus on ("only the user's food preferences").
    pub instruction: Option<String>,
    /// What becomes of the originals.
    pub originals: Originals,
}

/// A stored distillation.
#[derive(Debug, Clone)]
pub struct Distilled {
    /// The new semantic memory (`source_ids` = the originals).
    pub memory: Memory,
    /// `llm`, `extractive-embeddings` or `extractive-keywords`.
    pub method: &'static str,
    /// The LLM that wrote it, for `llm`.
    pub model: Option<String>,
    /// Originals archived or deleted.
    pub originals_changed: usize,
}

/// A group of similar episodes worth distilling.
#[derive(Debug, Clone)]
pub struct Suggestion {
    /// The episodes, oldest first.
    pub ids: Vec<MemoryId>,
    /// Mean cosine of the members to the group's first episode.
    pub cohesion: f32,
    /// The first words of each member.
    pub previews: Vec<String>,
}

/// What one sweep did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Expired memories deleted.
    pub expired: usize,
    /// Idle episodic memories archived.
    pub archived: usize,
    /// Distillations written (only with `auto_distill`).
    pub distilled: usize,
}

/// Most memories one distillation may combine.
const MAX_DISTILL_SOURCES: usize = 200;
/// Most episodes `suggest_distillations` compares (the newest ones).
const MAX_SUGGEST_CANDIDATES: usize = 2000;
/// Merge records kept per memory (the newest).
const MAX_MERGE_RECORDS: usize = 20;

impl MemoryService {
    /// Uses `llm` for session extraction, distillation and long-content summaries (`None`:
    /// rule-based and extractive methods).
    pub fn set_llm(&self, llm: Option<Arc<dyn LanguageModel>>) {
        *self.llm.write().unwrap_or_else(|e| e.into_inner()) = llm;
    }

    /// The language model in use, if any.
    pub fn llm(&self) -> Option<Arc<dyn LanguageModel>> {
        self.llm.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Writes a validated memory: merges it into an exact or near duplicate when `dedup`, else
    /// inserts it (with a recall summary when it is long).
    pub(crate) async fn store_new(
        &self,
        namespace: &Namespace,
        new: NewMemory,
        source_ids: Vec<MemoryId>,
        dedup: bool,
    ) -> Result<Stored, ServiceError> {
        let now = self.clock.now();
        let ttl_secs = match new.ttl_secs {
            Some(secs) => secs,
            None => self.config.ttls.for_tier(new.memory_type).map_or(0, |d| d.as_secs()),
        };
        let expires_at = expiry(now, ttl_secs)?;
        let hash = content_hash(&new.content);
        let dedup = dedup && self.config.lifecycle.dedup_threshold.is_some();
        if dedup {
            let exact = self.store.find_by_hash(namespace, &hash, now).await?;
            if let Some(existing) = exact.into_iter().find(|m| mergeable(m, &new)) {
                let merge = Merge { exact: true, similarity: None, content_replaced: false };
                return self.merge_into(existing, &new, merge, None, now, expires_at).await;
            }
        }
        let summary = self.recall_summary(&new.content).await;
        let recall_text = summary.as_deref().unwrap_or(&new.content);
        let terms = self.terms_of(&new.content, summary.as_deref());
        let vectors = self.embed_passage(recall_text).await;
        if dedup
            && let Some((existing, similarity)) =
                self.near_duplicate(namespace, &new, &vectors, now).await?
        {
            let replace = adds_nothing(&existing.content, &new.content)
                && !adds_nothing(&new.content, &existing.content);
            let merge =
                Merge { exact: false, similarity: Some(similarity), content_replaced: replace };
            let replacement = replace.then(|| Replacement {
                content: new.content.clone(),
                terms: terms.clone(),
                hash: hash.clone(),
                vectors: vectors.clone(),
                summary: summary.clone(),
            });
            return self.merge_into(existing, &new, merge, replacement, now, expires_at).await;
        }
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
            occurred_at: new.occurred_at.unwrap_or(now),
            updated_at: now,
            last_accessed_at: None,
            expires_at,
            access_count: 0,
            archived: false,
            source_ids,
            summary,
        };
        let record = MemoryRecord { memory, terms, vectors };
        self.store.insert(&record).await?;
        let in_memory = self.config.keyword_search == KeywordSearch::InMemory;
        self.indexes.add(
            &record.memory,
            in_memory.then_some(record.terms.as_slice()),
            &self.current_vectors(&record.vectors),
        );
        tracing::debug!(namespace = %namespace, id = %record.memory.id, "stored memory");
        Ok(Stored { memory: record.memory, merged: None })
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

    /// The best visible memory of the same tier (and session, for working memory) whose vector
    /// is at least `dedup_threshold` similar in the primary model's space and that one of the
    /// two texts adds nothing to.
    async fn near_duplicate(
        &self,
        namespace: &Namespace,
        new: &NewMemory,
        vectors: &[StoredVector],
        now: Timestamp,
    ) -> Result<Option<(Memory, f32)>, ServiceError> {
        let Some(threshold) = self.config.lifecycle.dedup_threshold else { return Ok(None) };
        let Some(primary) = self.embedder() else { return Ok(None) };
        let Some(vector) = vectors.iter().find(|v| v.model_id == primary.model_id()) else {
            return Ok(None);
        };
        let filter = MemoryFilter { memory_types: vec![new.memory_type], ..Default::default() };
        let hits = self.indexes.search_vectors(
            namespace,
            primary.model_id(),
            &vector.embedding,
            5,
            &filter,
            now,
        );
        let close: Vec<(MemoryId, f32)> =
            hits.iter().filter(|h| h.cosine >= threshold).map(|h| (h.id, h.cosine)).collect();
        if close.is_empty() {
            return Ok(None);
        }
        let ids: Vec<MemoryId> = close.iter().map(|(id, _)| *id).collect();
        let memories = self.store.get_many(namespace, &ids, now).await?;
        for (id, cosine) in close {
            let Some(existing) = memories.iter().find(|m| m.id == id) else { continue };
            if mergeable(existing, new)
                && (adds_nothing(&new.content, &existing.content)
                    || adds_nothing(&existing.content, &new.content))
            {
                return Ok(Some((existing.clone(), cosine)));
            }
        }
        Ok(None)
    }

    /// Folds `new` into `existing`: newest event time, the later expiry, metadata and tags
    /// united (the newer value wins a clash), a merge record appended, and the content replaced
    /// when the new text is the fuller one.
    async fn merge_into(
        &self,
        existing: Memory,
        new: &NewMemory,
        merge: Merge,
        replacement: Option<Replacement>,
        now: Timestamp,
        expires_at: Option<Timestamp>,
    ) -> Result<Stored, ServiceError> {
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
        let namespace = existing.namespace.clone();
        let memory = self
            .store
            .update(&namespace, existing.id, &update)
            .await?
            .ok_or_else(|| not_found(&namespace, existing.id))?;
        let in_memory = self.config.keyword_search == KeywordSearch::InMemory;
        self.indexes.replace(
            &memory,
            terms.as_deref().filter(|_| in_memory),
            update.vectors.as_deref().map(|v| self.current_vectors(v)).as_deref(),
        );
        tracing::debug!(namespace = %namespace, into = %memory.id, exact = merge.exact, "merged memory");
        Ok(Stored { memory, merged: Some(merge) })
    }

    /// Moves memories to the archive: excluded from recall and listings unless
    /// `include_archived`, restorable with [`MemoryService::restore`]. Fails without changing
    /// anything if one of them does not exist.
    pub async fn archive(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
    ) -> Result<Vec<Memory>, ServiceError> {
        self.set_archived(namespace, ids, true).await
    }

    /// Brings archived memories back into recall.
    pub async fn restore(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
    ) -> Result<Vec<Memory>, ServiceError> {
        self.set_archived(namespace, ids, false).await
    }

    async fn set_archived(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
        archived: bool,
    ) -> Result<Vec<Memory>, ServiceError> {
        self.existing(namespace, ids, "ids").await?;
        let update =
            MemoryUpdate { archived: Some(archived), at: self.clock.now(), ..Default::default() };
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let memory = self
                .store
                .update(namespace, *id, &update)
                .await?
                .ok_or_else(|| not_found(namespace, *id))?;
            self.indexes.replace(&memory, None, None);
            out.push(memory);
        }
        Ok(out)
    }

    /// The visible memories `ids` (1 to 200, no repeats), in the order given; `NotFound` names
    /// the first that is missing.
    async fn existing(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
        field: &'static str,
    ) -> Result<Vec<Memory>, ServiceError> {
        if ids.is_empty() || ids.len() > MAX_DISTILL_SOURCES {
            return Err(InputError::new(
                field,
                format!("must list 1 to {MAX_DISTILL_SOURCES} memory ids"),
            )
            .into());
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = ids.iter().find(|id| !seen.insert(**id)) {
            return Err(InputError::new(field, format!("lists {dup} twice")).into());
        }
        let found = self.store.get_many(namespace, ids, self.clock.now()).await?;
        ids.iter()
            .map(|id| {
                found.iter().find(|m| m.id == *id).cloned().ok_or_else(|| not_found(namespace, *id))
            })
            .collect()
    }

    /// Archives the episodic memories of `namespace` (or all) idle for `archive_after` (not
    /// written or recalled since); returns how many.
    pub async fn archive_idle(&self, namespace: Option<&Namespace>) -> Result<usize, ServiceError> {
        let Some(after) = self.config.lifecycle.archive_after else { return Ok(0) };
        let now = self.clock.now();
        let cut = chrono::TimeDelta::from_std(after)
            .ok()
            .and_then(|d| now.checked_sub_signed(d))
            .unwrap_or(Timestamp::MIN_UTC);
        let moved = self.store.archive_idle(namespace, MemoryType::Episodic, cut, now).await?;
        for (ns, ids) in group_by_namespace(&moved) {
            for memory in self.store.get_many(&ns, &ids, now).await? {
                self.indexes.replace(&memory, None, None);
            }
        }
        if !moved.is_empty() {
            tracing::info!(archived = moved.len(), "idle episodic memories archived");
        }
        Ok(moved.len())
    }

    /// One lifecycle sweep over every namespace: delete expired memories, archive idle
    /// episodes, and, only with `auto_distill`, distill the groups
    /// [`MemoryService::suggest_distillations`] finds. Servers run it every sweep interval.
    pub async fn sweep(&self) -> Result<SweepReport, ServiceError> {
        let expired = self.cleanup_expired(None).await?;
        let archived = self.archive_idle(None).await?;
        let mut distilled = 0;
        if self.config.lifecycle.auto_distill && self.embedder().is_some() {
            let stats = self.store.stats(self.clock.now()).await?;
            let mut namespaces: Vec<Namespace> = stats
                .tiers
                .iter()
                .filter(|t| t.memory_type == MemoryType::Episodic && t.live > 0)
                .map(|t| t.namespace.clone())
                .collect();
            namespaces.dedup();
            for ns in namespaces {
                for group in self.suggest_distillations(&ns, None, 3, 10).await? {
                    let request = DistillRequest { ids: group.ids, ..Default::default() };
                    match self.summarize_episodes(&ns, request).await {
                        Ok(_) => distilled += 1,
                        Err(e) => {
                            tracing::warn!(namespace = %ns, error = %e, "automatic distillation skipped")
                        }
                    }
                }
            }
        }
        Ok(SweepReport { expired, archived, distilled })
    }

    /// Ends a session (design §2.2): its working memories become episodic memories — the key
    /// events an LLM extracts when one is configured, else by rule: every turn not spoken by the
    /// assistant (`metadata.role`), not a question, with at least three keyword terms, becomes an
    /// episode as it is — and the working memories expire now. If the LLM fails, nothing
    /// changes. Ending a session twice finds no working memories the second time.
    pub async fn end_session(
        &self,
        namespace: &Namespace,
        session_id: &str,
    ) -> Result<SessionEnd, ServiceError> {
        if session_id.trim().is_empty() {
            return Err(InputError::new("session_id", "must not be empty").into());
        }
        let now = self.clock.now();
        let filter = MemoryFilter {
            memory_types: vec![MemoryType::Working],
            session_id: Some(session_id.to_owned()),
            ..Default::default()
        };
        let mut turns = Vec::new();
        loop {
            let page = Page { offset: turns.len() as u64, limit: 1000 };
            let batch = self.store.list(namespace, &filter, now, page).await?;
            let done = batch.len() < 1000;
            turns.extend(batch);
            if done {
                break;
            }
        }
        turns.sort_by(|a, b| a.occurred_at.cmp(&b.occurred_at).then(a.id.cmp(&b.id)));
        let mut result = SessionEnd {
            working_memories: turns.len(),
            episodes: Vec::new(),
            method: "rules",
            model: None,
        };
        if turns.is_empty() {
            return Ok(result);
        }
        let mut planned: Vec<(NewMemory, Vec<MemoryId>)> = Vec::new();
        if let Some(llm) = self.llm() {
            let inputs: Vec<Episode> = turns.iter().map(episode_of).collect();
            let (events, completion) = rearview_llm::extract_events(
                llm.as_ref(),
                &inputs,
                self.config.max_content_chars.min(2000),
            )
            .await?;
            result.method = "llm";
            result.model = Some(completion.model.clone());
            let sources: Vec<MemoryId> = turns.iter().map(|t| t.id).collect();
            let last = turns.last().map_or(now, |t| t.occurred_at);
            for event in events {
                let mut metadata = Metadata::new();
                metadata.insert(
                    "promoted_by".into(),
                    serde_json::json!({"method": "llm", "model": completion.model, "session_id": session_id}),
                );
                let new = NewMemory {
                    metadata,
                    session_id: Some(session_id.to_owned()),
                    occurred_at: Some(last),
                    ..NewMemory::new(event)
                };
                planned.push((new, sources.clone()));
            }
        } else {
            for turn in &turns {
                if !worth_an_episode(turn, self.config.tokenizer.index_terms(&turn.content).len()) {
                    continue;
                }
                let mut metadata = turn.metadata.clone();
                metadata.insert(
                    "promoted_by".into(),
                    serde_json::json!({"method": "rules", "session_id": session_id}),
                );
                let new = NewMemory {
                    metadata,
                    session_id: Some(session_id.to_owned()),
                    occurred_at: Some(turn.occurred_at),
                    ..NewMemory::new(turn.content.clone())
                };
                planned.push((new, vec![turn.id]));
            }
        }
        for (new, sources) in planned {
            result.episodes.push(self.store_new(namespace, new, sources, true).await?);
        }
        // Only now that every episode is committed: the working memories expire.
        for turn in &turns {
            let secs = (now - turn.timestamp).num_seconds().max(1) as u64;
            let update =
                MemoryUpdate { ttl: Some((secs, Some(now))), at: now, ..Default::default() };
            if let Some(memory) = self.store.update(namespace, turn.id, &update).await? {
                self.indexes.replace(&memory, None, None);
            }
        }
        tracing::info!(namespace = %namespace, session_id, episodes = result.episodes.len(), method = result.method, "session ended");
        Ok(result)
    }

    /// Distills memories (usually episodes) into one semantic memory (design §3.4): by the LLM
    /// when one is configured, following `instruction`; else extractively — the sentences most
    /// representative of the episodes (closest to their mean vector, or to the instruction when
    /// given, without repeating each other; by shared keywords when there is no embedding model).
    /// The result has `source_ids` and says in `metadata.distillation` how it was made. The
    /// originals are archived (or deleted, or kept) only after it is stored; if the LLM fails,
    /// nothing changes.
    pub async fn summarize_episodes(
        &self,
        namespace: &Namespace,
        request: DistillRequest,
    ) -> Result<Distilled, ServiceError> {
        let mut sources = self.existing(namespace, &request.ids, "episode_ids").await?;
        sources.sort_by(|a, b| a.occurred_at.cmp(&b.occurred_at).then(a.id.cmp(&b.id)));
        let instruction = request.instruction.as_deref().map(str::trim).filter(|i| !i.is_empty());
        let budget = self.config.lifecycle.distill_chars;
        let (content, method, model) = match self.llm() {
            Some(llm) => {
                let episodes: Vec<Episode> = sources.iter().map(episode_of).collect();
                let out =
                    rearview_llm::distill(llm.as_ref(), &episodes, instruction, budget).await?;
                (out.content, "llm", Some(out.model))
            }
            None => self.extractive_distillation(&sources, instruction, budget).await,
        };
        let mut metadata = Metadata::new();
        let mut tags: Vec<String> = Vec::new();
        for source in &sources {
            for tag in source.tags() {
                if !tags.contains(&tag) {
                    tags.push(tag);
                }
            }
        }
        if !tags.is_empty() {
            metadata.insert("tags".into(), serde_json::json!(tags));
        }
        metadata.insert(
            "distillation".into(),
            serde_json::json!({"method": method, "model": model, "instruction": instruction, "sources": sources.len()}),
        );
        let new = NewMemory {
            memory_type: MemoryType::Semantic,
            metadata,
            occurred_at: sources.iter().map(|s| s.occurred_at).max(),
            ..NewMemory::new(content)
        };
        let ids: Vec<MemoryId> = sources.iter().map(|s| s.id).collect();
        let stored = self.store_new(namespace, new, ids.clone(), false).await?;
        let originals_changed = match request.originals {
            Originals::Keep => 0,
            Originals::Archive => self.set_archived(namespace, &ids, true).await?.len(),
            Originals::Delete => {
                for id in &ids {
                    self.forget(namespace, *id).await?;
                }
                ids.len()
            }
        };
        Ok(Distilled { memory: stored.memory, method, model, originals_changed })
    }

    /// Groups of at least `min_size` similar, unarchived episodes (cosine to the group's first
    /// member ≥ `threshold`, default `suggest_threshold`) among the newest 2,000, largest first,
    /// at most `limit`. Writes nothing. Needs an embedding model.
    pub async fn suggest_distillations(
        &self,
        namespace: &Namespace,
        threshold: Option<f32>,
        min_size: usize,
        limit: usize,
    ) -> Result<Vec<Suggestion>, ServiceError> {
        let threshold = threshold.unwrap_or(self.config.lifecycle.suggest_threshold);
        if !(-1.0..=1.0).contains(&threshold) {
            return Err(InputError::new("threshold", "must be a cosine between -1 and 1").into());
        }
        let Some(primary) = self.embedder() else {
            return Err(ServiceError::Unavailable(
                "suggesting distillations compares vectors; no embedding model is in use".into(),
            ));
        };
        let filter =
            MemoryFilter { memory_types: vec![MemoryType::Episodic], ..Default::default() };
        let page = Page { offset: 0, limit: MAX_SUGGEST_CANDIDATES as u64 };
        let mut episodes = self.store.list(namespace, &filter, self.clock.now(), page).await?;
        episodes.reverse(); // oldest first
        let ids: Vec<MemoryId> = episodes.iter().map(|m| m.id).collect();
        let vectors = self.indexes.vectors_of(namespace, primary.model_id(), &ids);
        let mut taken = vec![false; episodes.len()];
        let mut groups = Vec::new();
        for i in 0..episodes.len() {
            let Some(lead) = vectors[i].as_deref().filter(|_| !taken[i]) else { continue };
            let mut members = vec![(i, 1.0f32)];
            for j in i + 1..episodes.len() {
                if taken[j] {
                    continue;
                }
                if let Some(v) = vectors[j].as_deref() {
                    let cosine = dot(lead, v);
                    if cosine >= threshold {
                        members.push((j, cosine));
                    }
                }
            }
            if members.len() >= min_size.max(2) {
                members.iter().for_each(|(j, _)| taken[*j] = true);
                let cohesion = members.iter().map(|(_, c)| c).sum::<f32>() / members.len() as f32;
                groups.push(Suggestion {
                    ids: members.iter().map(|(j, _)| episodes[*j].id).collect(),
                    cohesion,
                    previews: members
                        .iter()
                        .map(|(j, _)| truncate_chars(episodes[*j].recall_text(), 60))
                        .collect(),
                });
            }
        }
        groups
            .sort_by(|a, b| b.ids.len().cmp(&a.ids.len()).then(b.cohesion.total_cmp(&a.cohesion)));
        groups.truncate(limit);
        Ok(groups)
    }

    /// Extractive distillation: representative sentences of `sources` within `budget`.
    async fn extractive_distillation(
        &self,
        sources: &[Memory],
        instruction: Option<&str>,
        budget: usize,
    ) -> (String, &'static str, Option<String>) {
        let sentences: Vec<&str> =
            sources.iter().flat_map(|m| split_sentences(m.recall_text())).collect();
        if let Some(embedder) = self.embedder() {
            let texts: Vec<String> = sentences.iter().map(|s| (*s).to_owned()).collect();
            let target = match instruction {
                Some(i) => embedder
                    .embed(&[i.to_owned()], TextKind::Query)
                    .await
                    .ok()
                    .and_then(|mut v| v.pop()),
                None => None,
            };
            if let Ok(vectors) = embedder.embed(&texts, TextKind::Passage).await {
                let dims = embedder.dimensions();
                let target: Vec<f32> = match target {
                    Some(t) => t.as_slice().to_vec(),
                    None => {
                        let mut mean = vec![0f32; dims];
                        for v in &vectors {
                            mean.iter_mut().zip(v.as_slice()).for_each(|(m, x)| *m += x);
                        }
                        mean
                    }
                };
                let relevance: Vec<f32> =
                    vectors.iter().map(|v| dot(v.as_slice(), &target)).collect();
                let lengths: Vec<usize> = sentences.iter().map(|s| s.chars().count()).collect();
                let picked = select_mmr(
                    &relevance,
                    |a, b| dot(vectors[a].as_slice(), vectors[b].as_slice()),
                    &lengths,
                    budget,
                    0.7,
                );
                let chosen: Vec<&str> = picked.iter().map(|&i| sentences[i]).collect();
                return (
                    join_within(&chosen, "\n", budget),
                    "extractive-embeddings",
                    Some(embedder.model_id().to_owned()),
                );
            }
            tracing::warn!("embedding the sentences failed; distilling by keywords");
        }
        (self.keyword_extract(&sentences, budget, "\n", false), "extractive-keywords", None)
    }

    /// The sentences most central by shared keywords, without repeats, within `budget`. With
    /// `lead`, earlier sentences weigh more (a long text usually says first what it is about);
    /// for a set of episodes, order means nothing.
    fn keyword_extract(
        &self,
        sentences: &[&str],
        budget: usize,
        separator: &str,
        lead: bool,
    ) -> String {
        let terms: Vec<Vec<String>> =
            sentences.iter().map(|s| self.config.tokenizer.index_terms(s)).collect();
        let centrality = keyword_centrality(&terms);
        let top = centrality.iter().copied().fold(0f32, f32::max).max(f32::EPSILON);
        let relevance: Vec<f32> = centrality
            .iter()
            .enumerate()
            .map(|(i, c)| if lead { 0.5 * c / top + 0.5 / (1.0 + i as f32) } else { c / top })
            .collect();
        let lengths: Vec<usize> = sentences.iter().map(|s| s.chars().count()).collect();
        let picked = select_mmr(
            &relevance,
            |a, b| term_overlap(&terms[a], &terms[b]),
            &lengths,
            budget,
            0.5,
        );
        let chosen: Vec<&str> = picked.iter().map(|&i| sentences[i]).collect();
        join_within(&chosen, separator, budget)
    }
}

/// Content, terms, hash, vectors and summary that replace a merged memory's.
struct Replacement {
    content: String,
    terms: Vec<String>,
    hash: String,
    vectors: Vec<StoredVector>,
    summary: Option<String>,
}

/// Whether `existing` may absorb `new`: same tier, not archived, and for working memory the same
/// session (a session's working memory must stay whole for `end_session`).
fn mergeable(existing: &Memory, new: &NewMemory) -> bool {
    existing.memory_type == new.memory_type
        && !existing.archived
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

/// The rule that promotes a working memory without an LLM: not the assistant's (or system's or
/// a tool's) turn, not a question, at least three keyword terms.
fn worth_an_episode(turn: &Memory, terms: usize) -> bool {
    let role = turn.metadata.get("role").and_then(|r| r.as_str()).unwrap_or("user");
    let text = turn.content.trim_end();
    !matches!(role.to_ascii_lowercase().as_str(), "assistant" | "system" | "tool")
        && !text.ends_with('?')
        && !text.ends_with('？')
        && terms >= 3
}

fn episode_of(memory: &Memory) -> Episode {
    Episode {
        when: memory.occurred_at.format("%Y-%m-%d %H:%M").to_string(),
        role: memory.metadata.get("role").and_then(|r| r.as_str()).map(str::to_owned),
        text: memory.recall_text().to_owned(),
    }
}

/// `parts` joined by `separator` (nothing after Chinese full stops), cut to `budget` characters
/// on a character boundary.
fn join_within(parts: &[&str], separator: &str, budget: usize) -> String {
    let mut out = String::new();
    for part in parts {
        if !out.is_empty() {
            let han_stop = out.ends_with(['。', '！', '？', '；']);
            out.push_str(if han_stop && separator == " " { "" } else { separator });
        }
        out.push_str(part);
    }
    if out.chars().count() > budget { truncate_chars(&out, budget.saturating_sub(1)) } else { out }
}

fn group_by_namespace(items: &[(Namespace, MemoryId)]) -> Vec<(Namespace, Vec<MemoryId>)> {
    let mut groups: Vec<(Namespace, Vec<MemoryId>)> = Vec::new();
    for (ns, id) in items {
        match groups.iter_mut().find(|(n, _)| n == ns) {
            Some((_, ids)) => ids.push(*id),
            None => groups.push((ns.clone(), vec![*id])),
        }
    }
    groups
}
