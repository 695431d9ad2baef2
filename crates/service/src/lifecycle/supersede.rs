//! Facts that change (issues 15 and 40): when a new memory updates an older one (a moved city, a
//! changed port, a preference given up, a new e-mail address), the older one becomes history. It
//! keeps everything it had and gains `superseded_by` (the new memory), `invalid_at` (the end of
//! its validity; its start is `occurred_at`) and `link` (who linked it and why), so recall and
//! listings leave it out from then on, unless they include superseded memories or look at an
//! earlier instant (`as_of`). Reading it by id always works, and a link can be undone
//! (`MemoryService::unlink`). Recall makes no guess of its own: it applies these links.
//!
//! Decided once, when the new memory is stored, in this order:
//! - **The caller says so**: `RememberRequest::supersedes` lists ids (an id that is not a memory
//!   of the namespace is an invalid `supersedes`, and nothing is stored), or a later
//!   `MemoryService::link`.
//! - **The LLM decides**, when one is configured: shown the new memory and the candidates below,
//!   it names those the new one updates (`rearview_llm::updated_by`, any number). It is asked
//!   before the namespace is locked (`prepare`); under the lock its verdict applies to the
//!   candidates it saw, and the rule to any that appeared meanwhile. If it fails, the rule decides.
//! - **The rule decides** otherwise (`LifecycleConfig::supersede_by_rule`, on by default), only
//!   where the new text itself says that what the older one states has changed
//!   (`rearview_language::extract::stated_change`): a change from the value the older memory holds
//!   (`从 MySQL 换成 PostgreSQL` after `数据库用 MySQL`), the same statement with another value
//!   (`port 8766` after `port 8765`), or a change or contradiction about two or more subject
//!   terms both share. It links at most one memory, the nearest, and only short statements (two
//!   clauses, 25 words or 45 Han characters at most, read without session stamps): a dialogue
//!   turn or a story states many things, and one changed fact must not make the rest history.
//! - **Otherwise no link**, but the candidates the rule did not link are **possible updates**:
//!   listed in the store's answer and kept on the new memory (`Memory::possible_updates`), each
//!   with its similarity and what the texts say, for the caller (usually an agent, itself an
//!   LLM) to confirm with a link or dismiss. With no vector (keyword-only), a candidate needs a
//!   word of change or a different value to be listed.
//!
//! **Candidates**: the three current, unarchived memories of the new memory's tier (and session,
//! for working memory) nearest to it in the primary model's space with a cosine of at least
//! `supersede_threshold` (0.82), or 0.06 more when both texts are mostly Han (multilingual-e5 puts
//! Chinese pairs that much higher); without a vector (keyword-only mode, or the model failed for
//! this text), its three best keyword matches. Memories made from any of the new memory's
//! sources are left out (another distillation of the same episodes is another view, not an
//! update). Measured on the facts-change sets and the precision sets (`BENCHMARKS.md`, "Facts
//! that change").
//!
//! **Time order**: only an older statement is superseded, at the newer one's event time. When a
//! candidate happened after the new memory (an old conversation imported late), the rule reads
//! the two in that order, and the new memory is the history: it is stored already superseded by
//! that candidate. Equal event times count the stored one as older.

use rearview_core::{
    LinkMaker, LinkNote, Memory, MemoryFilter, MemoryId, MemoryType, Namespace, NewMemory,
    PossibleUpdate, Timestamp,
};
use rearview_index::VectorHit;
use rearview_language::extract::{
    Reading, Update, is_statement, stated_change, strip_timestamps, update_evidence_of,
};
use rearview_llm::Episode;
use rearview_store::{MemoryUpdate, StoredVector, Superseding};

use super::{PossibleChange, Superseded};
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

/// How much higher a candidate's cosine must be when both texts are mostly Han:
/// multilingual-e5 puts Chinese pairs about that much higher than English ones.
const HAN_PAIR_OFFSET: f32 = 0.06;

/// A memory the new one may supersede.
struct Candidate {
    memory: Memory,
    /// Its cosine to the new memory, when found by vector.
    cosine: Option<f32>,
}

/// What storing a memory decided about the memories it may change.
#[derive(Debug, Default)]
pub(crate) struct Detection {
    /// The memories it supersedes, nearest first, each with who decided and why.
    pub links: Vec<(Memory, LinkNote)>,
    /// The candidates nobody linked: for the caller to confirm or dismiss.
    pub possible: Vec<PossibleChange>,
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
    /// decided and why, nearest first; and the candidates left for the caller.
    pub(crate) async fn detect_links(
        &self,
        guard: &WriteGuard<'_>,
        incoming: Incoming<'_>,
        judged: Option<&Judged>,
    ) -> Result<Detection, ServiceError> {
        if self.config.lifecycle.supersede_threshold.is_none() {
            return Ok(Detection::default());
        }
        let candidates = self.supersede_candidates(guard.namespace(), incoming).await?;
        let new = incoming.new;
        let occurred_at = new.occurred_at.unwrap_or(incoming.now);
        let mut detection = Detection::default();
        let mut by_rule = false;
        for c in candidates {
            if let Some(j) = judged.filter(|j| j.shown.contains(&c.memory.id)) {
                if j.updated.contains(&c.memory.id) {
                    let note = LinkNote::new(
                        LinkMaker::Llm,
                        "the LLM read the newer memory as an update of this one",
                    );
                    detection.links.push((c.memory, note));
                }
                continue;
            }
            match read_in_time_order(&c, new, occurred_at) {
                RuleReading::Change(reason)
                    if self.config.lifecycle.supersede_by_rule && !by_rule =>
                {
                    by_rule = true;
                    detection.links.push((c.memory, LinkNote::new(LinkMaker::Rule, reason)));
                }
                RuleReading::Change(why) => detection.possible.push(possible(c, why)),
                // Keyword matches without a sign of change are only words in common.
                RuleReading::Possible { why, sign } if sign || c.cosine.is_some() => {
                    detection.possible.push(possible(c, why));
                }
                RuleReading::Possible { .. } => {}
            }
        }
        Ok(detection)
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

    /// Marks each of `olders` superseded by `memory` with its note, from `memory`'s event time
    /// (or the older one's, if later: validity never ends before it starts), and updates the
    /// indexes. `memory` itself and memories that vanished are skipped.
    pub(crate) async fn supersede(
        &self,
        guard: &WriteGuard<'_>,
        olders: Vec<(Memory, LinkNote)>,
        memory: &Memory,
        now: Timestamp,
    ) -> Result<Vec<Superseded>, ServiceError> {
        let namespace = guard.namespace();
        let mut done: Vec<Superseded> = Vec::new();
        for (old, link) in olders {
            if old.id == memory.id || done.iter().any(|d| d.id == old.id) {
                continue;
            }
            let at = memory.occurred_at.max(old.occurred_at);
            let superseding = Superseding { by: memory.id, at, link: link.clone() };
            let update = MemoryUpdate {
                superseded: Some(Some(superseding)),
                at: now,
                ..MemoryUpdate::default()
            };
            if let Some(updated) = self.store.update(namespace, old.id, &update).await? {
                self.indexes.replace(&updated, None, None);
                tracing::debug!(namespace = %namespace, old = %old.id, new = %memory.id, by = %link.made_by, "superseded");
                done.push(Superseded { id: old.id, link });
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
            link: Some(LinkNote::new(
                LinkMaker::Update,
                "an earlier text of the memory, kept when its text was updated",
            )),
            possible_updates: Vec::new(),
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
            // History of what superseded the forgotten memory, as it was linked.
            let next = forgotten.superseded_by.map(|by| Superseding {
                by,
                at: p.invalid_at.unwrap_or(now),
                link: p.link.clone().unwrap_or_else(|| {
                    LinkNote::new(LinkMaker::Caller, "history of a memory that was deleted")
                }),
            });
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
        let new_han = rearview_core::mostly_han(&new.content);
        let mut out = Vec::new();
        for (id, cosine) in hits {
            let Some(memory) = memories.iter().find(|m| m.id == id) else { continue };
            let han_pair = new_han && rearview_core::mostly_han(&memory.content);
            let needed = if han_pair { floor + HAN_PAIR_OFFSET } else { floor };
            if cosine.is_some_and(|c| c < needed) {
                continue;
            }
            // A session's working memory stays whole for `end_session`, as with merges; and two
            // memories made from the same sources (two distillations of the same episodes with
            // different instructions) are two views of them, not an update of one another.
            if (new.memory_type == MemoryType::Working && memory.session_id != new.session_id)
                || memory.source_ids.iter().any(|id| source_ids.contains(id))
            {
                continue;
            }
            out.push(Candidate { memory: memory.clone(), cosine });
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

/// A memory with the note of the link that makes (or would make) it history.
pub(crate) type Noted = (Memory, LinkNote);

/// What the rule reads in a candidate and a new memory, in the order they happened.
enum RuleReading {
    /// The newer text states a change of what the older one states: a link by rule, and why.
    Change(String),
    /// No such change: why the two may still be one fact changing, and whether the texts show
    /// any sign of it (a word of change, a different value).
    Possible { why: String, sign: bool },
}

/// The rule (see the module docs) for one candidate, reading the two texts in the order they
/// happened (`new` happening at `occurred_at`).
fn read_in_time_order(c: &Candidate, new: &NewMemory, occurred_at: Timestamp) -> RuleReading {
    let (older, newer) = if c.memory.occurred_at <= occurred_at {
        (c.memory.content.as_str(), new.content.as_str())
    } else {
        (new.content.as_str(), c.memory.content.as_str())
    };
    // Session stamps (`(8 May 2023) Melanie:`) are not what a text states.
    let (older, newer) = (strip_timestamps(older), strip_timestamps(newer));
    if !is_statement(&older) || !is_statement(&newer) {
        let why = "near in meaning; not both short statements, which is all the rule reads";
        return RuleReading::Possible { why: why.to_owned(), sign: false };
    }
    let (older, newer) = (Reading::of(&older), Reading::of(&newer));
    if let Some(change) = stated_change(&older, &newer) {
        return RuleReading::Change(change.reason());
    }
    let evidence = update_evidence_of(&older, &newer);
    let why = match evidence {
        Update::Contradiction => {
            "contradicts it, but they share too little to be sure it is one fact"
        }
        Update::OnTopic => "states a change about a word both use, not clearly the same thing",
        Update::Stated => "states a change (a word of change), about nothing both name",
        Update::Marked => "marks a change (started, new, 开始…), about nothing both name",
        Update::Differs => "gives another value for something both name, with no word of change",
        Update::None => "near in meaning, with no word of change",
    };
    RuleReading::Possible { why: why.to_owned(), sign: evidence > Update::None }
}

/// A candidate as a possible update, with `why`.
fn possible(c: Candidate, why: String) -> PossibleChange {
    PossibleChange {
        update: PossibleUpdate { id: c.memory.id, similarity: c.cosine, why },
        content: c.memory.content,
    }
}

/// Splits what `new` (happening at `occurred`) updates into the older statements it supersedes
/// and, if a candidate happened after it, the earliest such: the memory `new` is history of.
pub(crate) fn by_time(found: Vec<Noted>, occurred: Timestamp) -> (Vec<Noted>, Option<Noted>) {
    let (older, later): (Vec<_>, Vec<_>) =
        found.into_iter().partition(|(m, _)| m.occurred_at <= occurred);
    let newest_truth = later.into_iter().min_by_key(|(m, _)| (m.occurred_at, m.id));
    (older, newest_truth)
}
