//! Facts that change (issue 15): when a new memory updates an older one (a moved city, a changed
//! port, a preference given up, a new e-mail address), the older one becomes history. It keeps
//! everything it had and gains `superseded_by` (the new memory) and `invalid_at` (the end of its
//! validity; its start is `occurred_at`), so recall and listings leave it out from then on,
//! unless they include superseded memories or look at an earlier instant (`as_of`). Reading it by
//! id always works.
//!
//! Three ways a store supersedes:
//! - **The request says so**: `RememberRequest::supersedes` lists ids; an id that is not a memory
//!   of the namespace is an invalid `supersedes`, and nothing is stored.
//! - **The LLM decides**, when one is configured: shown the new memory and the candidates below,
//!   it names those the new one updates (`rearview_llm::updated_by`, any number). It is asked
//!   before the namespace is locked (`prepare`); under the lock its verdict applies to the
//!   candidates it saw, and the rule to any that appeared meanwhile. If it fails, the rule decides.
//!   (It is asked in the order of storing; which of two conflicting memories is history is then
//!   decided by their event times, as below.)
//! - **The rule decides** otherwise, if `LifecycleConfig::supersede_by_rule` is on (off by
//!   default), from `rearview_search::extract::update_evidence`, asking more of a candidate the
//!   weaker the other evidence that it is about the same thing:
//!   - the nearest candidate by vector, if the new text states a change and the older one says
//!     something it does not ([`Update::Stated`]: `I moved to Lisbon` after `I live in Berlin`);
//!   - any candidate, if that change is about a subject both share, or they contradict each
//!     other ([`Update::OnTopic`]); in keyword-only mode this is the only case.
//!
//!   A different value without a word of change ([`Update::Differs`]: `port 8765` / `port 8766`)
//!   is not enough, however close the vectors: templated facts about different things look just
//!   like it (`A 论坛的规模是六千人` / `B 论坛的规模是一百人`). Such near duplicates are kept
//!   side by side, never merged.
//!
//!   The rule supersedes at most one memory, the one with the strongest evidence (the nearest of
//!   equals): it reads surface forms, and a second match is more often a look-alike than a
//!   second copy of the old fact. A plan (`I'm going to move`, `今年要去换驾照`) is no change yet. It reads the
//!   texts without session stamps and only judges statements (two clauses, 25 words or 45 Han
//!   characters at most, both texts): a dialogue turn or a story states many things, and one
//!   changed fact must not make the rest history.
//!
//! **Candidates**: the three current, unarchived memories of the new memory's tier (and session,
//! for working memory) nearest to it in the primary model's space with a cosine of at least
//! `supersede_threshold`; without a vector (keyword-only mode, or the model failed for this
//! text), its three best keyword matches. Memories made from any of the new memory's sources are
//! left out (another distillation of the same episodes is another view, not an update).
//!
//! **Time order**: only an older statement is superseded, at the newer one's event time. When a
//! candidate happened after the new memory (an old conversation imported late), the rule reads
//! the two in that order, and the new memory is the history: it is stored already superseded by
//! that candidate. Equal event times count the stored one as older.
//!
//! Measured on the bilingual facts-change evaluation (`crates/eval/data/facts_change.jsonl`, 128
//! scenarios; `crates/eval/tests/facts_change.rs`): see that test for the figures.

use rearview_core::{Memory, MemoryFilter, MemoryId, MemoryType, Namespace, NewMemory, Timestamp};
use rearview_llm::Episode;
use rearview_search::VectorHit;
use rearview_search::extract::{Update, is_statement, strip_timestamps, update_evidence};
use rearview_store::{MemoryUpdate, StoredVector};

use super::Superseded;
use crate::locks::WriteGuard;
use crate::lookup::Reach;
use crate::{KeywordSearch, MemoryService, ServiceError};

/// Candidates a new memory is compared with.
pub(crate) const CANDIDATES: usize = 3;

/// Most memories [`MemoryService::history`] returns.
const MAX_HISTORY: usize = 200;

/// The metadata key of an earlier text kept by an update: the id of the memory it was the text
/// of. Forgetting that memory deletes it too.
pub(crate) const HISTORY_OF: &str = "history_of";

/// The LLM's verdict on a new memory's candidates, reached before the namespace was locked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Judged {
    /// The candidates it was shown.
    shown: Vec<MemoryId>,
    /// Those it said the new memory updates.
    updated: Vec<MemoryId>,
}

/// A new memory as `prepare` made it: what the search for what it supersedes needs.
#[derive(Clone, Copy)]
pub(crate) struct Incoming<'a> {
    /// The request.
    pub new: &'a NewMemory,
    /// What it was made from (distillations, episodes).
    pub source_ids: &'a [MemoryId],
    /// Its keyword terms.
    pub terms: &'a [String],
    /// Its vectors.
    pub vectors: &'a [StoredVector],
    /// Its nearest memories of its tier by the primary model (at least [`CANDIDATES`]), when
    /// already searched under the lock; `None`: search them here.
    pub neighbours: Option<&'a [VectorHit]>,
    /// The instant of the store.
    pub now: Timestamp,
}

/// A memory the new one may supersede.
struct Candidate {
    memory: Memory,
    /// 0 for the nearest.
    rank: usize,
    /// Its cosine to the new memory, when found by vector.
    cosine: Option<f32>,
}

impl MemoryService {
    /// Before the lock: the LLM's verdict on the memories `new` may supersede, or `None` (no
    /// LLM, detection off, no candidate, or the LLM failed: then the rule decides).
    pub(crate) async fn judge_supersession(
        &self,
        namespace: &Namespace,
        incoming: Incoming<'_>,
    ) -> Option<Judged> {
        let llm = self.llm()?;
        self.config.lifecycle.supersede_threshold?;
        let candidates = match self.supersede_candidates(namespace, incoming).await {
            Ok(candidates) if !candidates.is_empty() => candidates,
            // An error here surfaces again, under the lock, where the rule looks.
            _ => return None,
        };
        let older: Vec<Episode> = candidates
            .iter()
            .map(|c| Episode {
                when: c.memory.occurred_at.format("%Y-%m-%d %H:%M").to_string(),
                role: None,
                text: c.memory.content.clone(),
            })
            .collect();
        match rearview_llm::updated_by(llm.as_ref(), &incoming.new.content, &older).await {
            Ok((picked, _)) => Some(Judged {
                shown: candidates.iter().map(|c| c.memory.id).collect(),
                updated: picked.into_iter().map(|i| candidates[i].memory.id).collect(),
            }),
            Err(e) => {
                tracing::warn!(error = %e, "LLM could not judge whether a memory updates older ones; using the rule");
                None
            }
        }
    }

    /// Under the lock: the current memories `new` updates (see the module docs), each with who
    /// decided, nearest first.
    pub(crate) async fn detect_superseded(
        &self,
        guard: &WriteGuard<'_>,
        incoming: Incoming<'_>,
        judged: Option<&Judged>,
    ) -> Result<Vec<(Memory, &'static str)>, ServiceError> {
        if self.config.lifecycle.supersede_threshold.is_none() {
            return Ok(Vec::new());
        }
        let candidates = self.supersede_candidates(guard.namespace(), incoming).await?;
        let new = incoming.new;
        let occurred_at = new.occurred_at.unwrap_or(incoming.now);
        let mut found = Vec::new();
        // The rule's pick: the strongest evidence, the nearest of equals.
        let mut by_rule: Option<(Update, Memory)> = None;
        for c in candidates {
            match judged.filter(|j| j.shown.contains(&c.memory.id)) {
                Some(j) => {
                    if j.updated.contains(&c.memory.id) {
                        found.push((c.memory, "llm"));
                    }
                }
                None => {
                    if self.config.lifecycle.supersede_by_rule
                        && let Some(evidence) = self.rule_supersedes(&c, new, occurred_at)
                        && by_rule.as_ref().is_none_or(|(best, _)| evidence > *best)
                    {
                        by_rule = Some((evidence, c.memory));
                    }
                }
            }
        }
        found.extend(by_rule.map(|(_, memory)| (memory, "rules")));
        Ok(found)
    }

    /// The memories `ids` of the guard's namespace (the caller's `supersedes`), visible at `now`;
    /// an id that is not one is an invalid `supersedes`.
    pub(crate) async fn requested_superseded(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
        now: Timestamp,
    ) -> Result<Vec<Memory>, ServiceError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let found = self.store.get_many(namespace, ids, now).await?;
        ids.iter()
            .map(|id| {
                found.iter().find(|m| m.id == *id).cloned().ok_or_else(|| {
                    rearview_core::InputError::new(
                        "supersedes",
                        format!("{id} is not a memory of namespace {namespace}"),
                    )
                    .into()
                })
            })
            .collect()
    }

    /// Marks each of `olders` superseded by `memory`, from `memory`'s event time (or the older
    /// one's, if later: validity never ends before it starts), and updates the indexes. `memory`
    /// itself and memories that vanished are skipped.
    pub(crate) async fn supersede(
        &self,
        guard: &WriteGuard<'_>,
        olders: Vec<(Memory, &'static str)>,
        memory: &Memory,
        now: Timestamp,
    ) -> Result<Vec<Superseded>, ServiceError> {
        let namespace = guard.namespace();
        let mut done: Vec<Superseded> = Vec::new();
        for (old, by) in olders {
            if old.id == memory.id || done.iter().any(|d| d.id == old.id) {
                continue;
            }
            let at = memory.occurred_at.max(old.occurred_at);
            let update = MemoryUpdate {
                superseded: Some(Some((memory.id, at))),
                at: now,
                ..MemoryUpdate::default()
            };
            if let Some(updated) = self.store.update(namespace, old.id, &update).await? {
                self.indexes.replace(&updated, None, None);
                tracing::debug!(namespace = %namespace, old = %old.id, new = %memory.id, by, "superseded");
                done.push(Superseded { id: old.id, by });
            }
        }
        Ok(done)
    }

    /// Before `update` replaces the text of `before`: keeps that text as a memory of its own (a
    /// new id, everything else as it was, vectors from the index, `metadata.history_of` naming
    /// `before`), superseded by `before` from `now`. An update keeps the memory's id, so its
    /// earlier texts are its predecessors: `include_superseded` and `as_of` see them as they
    /// see any history, and [`MemoryService::history`] lists them.
    pub(crate) async fn keep_earlier_text(
        &self,
        guard: &WriteGuard<'_>,
        before: &Memory,
        now: Timestamp,
    ) -> Result<Memory, ServiceError> {
        let mut metadata = before.metadata.clone();
        metadata.insert(HISTORY_OF.into(), before.id.to_string().into());
        let earlier = Memory {
            id: MemoryId::new_v7(now),
            metadata,
            superseded_by: Some(before.id),
            invalid_at: Some(now.max(before.occurred_at)),
            ..before.clone()
        };
        let mut vectors = Vec::new();
        for embedder in self.embedders() {
            let model = embedder.model_id();
            let stored = self.vectors_of(guard.namespace(), model, &[before.id]).await?;
            if let Some(Some(values)) = stored.into_iter().next()
                && let Ok(embedding) = rearview_core::Embedding::from_normalized(values)
            {
                vectors.push(StoredVector { model_id: model.to_owned(), embedding });
            }
        }
        let terms = self.terms_of(&earlier.content, earlier.summary.as_deref());
        let record = rearview_store::MemoryRecord { memory: earlier, terms, vectors };
        self.store.insert(&record).await?;
        self.index_inserted(&record);
        Ok(record.memory)
    }

    /// Before `forgotten` is deleted: its earlier texts (kept by updates) go with it; the
    /// memories it superseded become current again, or, if it was itself superseded, history of
    /// what superseded it (a chain Berlin → Paris → Lisbon loses Paris, not its order).
    pub(crate) async fn release_predecessors(
        &self,
        guard: &WriteGuard<'_>,
        forgotten: &Memory,
        now: Timestamp,
    ) -> Result<(), ServiceError> {
        let namespace = guard.namespace();
        let own = forgotten.id.to_string();
        for p in self.store.predecessors(namespace, forgotten.id, now).await? {
            if p.metadata.get(HISTORY_OF).and_then(|v| v.as_str()) == Some(own.as_str()) {
                if self.store.delete(namespace, p.id).await? {
                    self.indexes.remove(namespace, p.id);
                }
                continue;
            }
            let next = forgotten.superseded_by.map(|by| (by, p.invalid_at.unwrap_or(now)));
            let update =
                MemoryUpdate { superseded: Some(next), at: now, ..MemoryUpdate::default() };
            if let Some(updated) = self.store.update(namespace, p.id, &update).await? {
                self.indexes.replace(&updated, None, None);
            }
        }
        Ok(())
    }

    /// What `id` replaced, transitively: the memories it superseded and their own predecessors,
    /// and the earlier texts updates kept; latest change first. Archived ones included.
    pub async fn history(
        &self,
        namespace: &Namespace,
        id: MemoryId,
    ) -> Result<Vec<Memory>, ServiceError> {
        let now = self.clock.now();
        self.get(namespace, id).await?;
        let mut out: Vec<Memory> = Vec::new();
        let mut frontier = vec![id];
        while let Some(next) = frontier.pop() {
            for p in self.store.predecessors(namespace, next, now).await? {
                if out.len() >= MAX_HISTORY {
                    break;
                }
                if p.id != id && !out.iter().any(|m| m.id == p.id) {
                    frontier.push(p.id);
                    out.push(p);
                }
            }
        }
        out.sort_by(|a, b| b.invalid_at.cmp(&a.invalid_at).then(b.id.cmp(&a.id)));
        Ok(out)
    }

    /// The rule (see the module docs) for one candidate, reading the two texts in the order
    /// they happened (`new` happening at `occurred_at`): the evidence, if it is enough.
    fn rule_supersedes(
        &self,
        c: &Candidate,
        new: &NewMemory,
        occurred_at: Timestamp,
    ) -> Option<Update> {
        let (older, newer) = if c.memory.occurred_at <= occurred_at {
            (c.memory.content.as_str(), new.content.as_str())
        } else {
            (new.content.as_str(), c.memory.content.as_str())
        };
        // Session stamps (`(8 May 2023) Melanie:`) are not what a text states.
        let (older, newer) = (strip_timestamps(older), strip_timestamps(newer));
        if !is_statement(&older) || !is_statement(&newer) {
            return None;
        }
        let evidence = update_evidence(&older, &newer);
        let nearest_by_vector = c.cosine.is_some() && c.rank == 0;
        let enough = if nearest_by_vector { Update::Stated } else { Update::OnTopic };
        (evidence >= enough).then_some(evidence)
    }

    /// The memories `new` may supersede, nearest first (see the module docs).
    async fn supersede_candidates(
        &self,
        namespace: &Namespace,
        incoming: Incoming<'_>,
    ) -> Result<Vec<Candidate>, ServiceError> {
        let Incoming { new, source_ids, terms, vectors, neighbours, now } = incoming;
        let lifecycle = &self.config.lifecycle;
        let Some(floor) = lifecycle.supersede_threshold else { return Ok(Vec::new()) };
        // A near duplicate is always a candidate, whichever bar is lower.
        let floor = lifecycle.dedup_threshold.map_or(floor, |dedup| floor.min(dedup));
        let filter = MemoryFilter { memory_types: vec![new.memory_type], ..Default::default() };
        let primary = self.embedder().and_then(|e| {
            vectors.iter().find(|v| v.model_id == e.model_id()).map(|v| (e, &v.embedding))
        });
        let hits: Vec<(MemoryId, Option<f32>)> = match primary {
            Some((embedder, vector)) => match neighbours {
                Some(found) => found.to_vec(),
                None => {
                    let within = (CANDIDATES, Reach::Close);
                    self.nearest_within(
                        namespace,
                        embedder.model_id(),
                        vector,
                        within,
                        &filter,
                        now,
                    )
                    .await?
                }
            }
            .into_iter()
            .take(CANDIDATES)
            .filter(|h| h.cosine >= floor)
            .map(|h| (h.id, Some(h.cosine)))
            .collect(),
            None => self
                .keyword_matches(namespace, terms, &filter, now)
                .await?
                .into_iter()
                .map(|id| (id, None))
                .collect(),
        };
        let ids: Vec<MemoryId> = hits.iter().map(|(id, _)| *id).collect();
        let memories = self.store.get_many(namespace, &ids, now).await?;
        let mut out = Vec::new();
        for (id, cosine) in hits {
            let Some(memory) = memories.iter().find(|m| m.id == id) else { continue };
            // A session's working memory stays whole for `end_session`, as with merges; and two
            // memories made from the same sources (two distillations of the same episodes with
            // different instructions) are two views of them, not an update of one another.
            if (new.memory_type == MemoryType::Working && memory.session_id != new.session_id)
                || memory.source_ids.iter().any(|id| source_ids.contains(id))
            {
                continue;
            }
            out.push(Candidate { memory: memory.clone(), rank: out.len(), cosine });
        }
        Ok(out)
    }

    /// The best keyword matches of `terms` (a new memory's index terms), in memory or in the
    /// store, whichever serves keyword search.
    async fn keyword_matches(
        &self,
        namespace: &Namespace,
        terms: &[String],
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<Vec<MemoryId>, ServiceError> {
        let mut unique: Vec<String> = Vec::new();
        for term in terms {
            if !unique.contains(term) {
                unique.push(term.clone());
            }
        }
        Ok(match self.config.keyword_search {
            KeywordSearch::InMemory => {
                let weighted: Vec<(String, f32)> = unique.into_iter().map(|t| (t, 1.0)).collect();
                self.indexes
                    .search_text(namespace, &weighted, CANDIDATES, filter, now)
                    .await
                    .into_iter()
                    .map(|h| h.id)
                    .collect()
            }
            KeywordSearch::Store => self
                .store
                .keyword_search(namespace, &unique, filter, now, CANDIDATES)
                .await?
                .into_iter()
                .map(|h| h.id)
                .collect(),
        })
    }
}

/// Splits what `new` (happening at `occurred`) updates into the older statements it supersedes
/// and, if a candidate happened after it, the earliest such: the memory `new` is history of.
pub(crate) fn by_time(
    found: Vec<(Memory, &'static str)>,
    occurred: Timestamp,
) -> (Vec<(Memory, &'static str)>, Option<Memory>) {
    let (older, later): (Vec<_>, Vec<_>) =
        found.into_iter().partition(|(m, _)| m.occurred_at <= occurred);
    let newest_truth = later.into_iter().map(|(m, _)| m).min_by_key(|m| (m.occurred_at, m.id));
    (older, newest_truth)
}
