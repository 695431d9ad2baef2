//! The memory lifecycle (design §2.2, §3.4, §5.3, §6): dedup-merge on store, long-content
//! summaries, the cold archive, sessions → episodes, distillation of episodes into semantic
//! memories, and the periodic sweep that ties expiry, archiving and (opt-in) distillation
//! together.
//!
//! Rules every operation here keeps:
//! - **Nothing is lost.** A merge only happens when one text adds no fact atom to the other
//!   (`rearview_language::extract::adds_nothing`: `port 8765` and `port 8766` never merge, nor do
//!   `喜欢` and `不喜欢`, or `from Berlin to Paris` and its reverse), and never when the new text
//!   states a changed fact (`rearview_language::extract::contradicts`: both are kept); a replaced
//!   text is kept in the merge record. Originals are archived or deleted only after the
//!   memory made from them is committed. A failing or babbling LLM changes nothing.
//! - **Provenance.** Episodes and distillations carry `source_ids`; metadata says which method
//!   (and model) produced them.

mod dedup;
mod distill;
mod links;
mod session;
mod supersede;

pub use links::{Linked, MAX_LINKED, PendingReview};

use std::sync::Arc;
use std::time::Duration;

use rearview_core::{
    InputError, LinkNote, Memory, MemoryId, MemoryType, Namespace, PossibleUpdate, Timestamp,
};
use rearview_llm::LanguageModel;
use rearview_store::{MemoryUpdate, TierCount};

use crate::locks::WriteGuard;
use crate::{MemoryService, ServiceError, not_found};

/// Settings of the lifecycle. Defaults follow the design; see each field.
#[derive(Debug, Clone)]
pub struct LifecycleConfig {
    /// Merge a new memory into an existing one of the same namespace and tier whose vector has at
    /// least this cosine (design: 0.95) — if the merge loses no fact. `None` turns dedup off
    /// (exact duplicates included). The right value depends on the model: multilingual-e5 puts
    /// unrelated sentences near 0.8, so 0.95 only catches restatements.
    pub dedup_threshold: Option<f32>,
    /// Facts that change (`supersede.rs`): a new memory is compared with the three current
    /// memories of its tier nearest to it whose cosine is at least this (0.06 more when both
    /// texts are mostly Han), links one that it updates (the LLM decides when one is
    /// configured, else the rule: `rearview_language::extract::stated_change`), and lists the
    /// others as possible updates. `None` turns detection off; explicit `supersedes` still
    /// work. Default 0.82, for multilingual-e5: there, a changed fact and its older statement
    /// measured 0.80–0.97 (English 0.80–0.97, Chinese 0.90–0.97), but so did unrelated memories
    /// (English up to 0.89, Chinese up to 0.95), so the bar keeps candidates few and the text
    /// evidence decides. With the three nearest at 0.82 (0.88 in Chinese), the older statement
    /// of the facts-change sets is among the candidates in 95–99 % of their scenarios. Models
    /// with lower cosines (OpenAI's) need a lower bar.
    pub supersede_threshold: Option<f32>,
    /// Without an LLM, whether the rule may link (on by default); off, its readings are only
    /// listed as possible updates. With an LLM configured, the LLM decides regardless;
    /// explicit `supersedes` always work. The rule links only where the new text's own words
    /// say what changed (`BENCHMARKS.md`, "Facts that change": no false link on the precision
    /// sets).
    pub supersede_by_rule: bool,
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
            supersede_threshold: Some(0.82),
            supersede_by_rule: true,
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
    /// The memory as stored: the new one, or the existing one it was merged into. A memory
    /// stored as history (a statement older than the current one) carries `superseded_by`.
    pub memory: Memory,
    /// Set when the new memory was merged into an existing one (`memory` is that one).
    pub merged: Option<Merge>,
    /// The memories `memory` superseded with this store: they are history now.
    pub superseded: Vec<Superseded>,
    /// Older memories `memory` may change, not linked: for the caller to confirm (a link) or
    /// dismiss; also kept on the memory (`Memory::possible_updates`).
    pub possible_updates: Vec<PossibleChange>,
}

/// A memory a stored one may change ([`PossibleUpdate`]), with its text.
#[derive(Debug, Clone, PartialEq)]
pub struct PossibleChange {
    /// The older memory, how similar and why.
    pub update: PossibleUpdate,
    /// Its text.
    pub content: String,
}

/// A memory that a store made history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Superseded {
    /// Its id.
    pub id: MemoryId,
    /// Who decided and why (also on the memory: `Memory::link`).
    pub link: LinkNote,
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
    /// Of those, greetings and acknowledgements (`你好`, `thanks`…): never made into episodes.
    pub small_talk: usize,
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

/// What a distillation would store, written nowhere ([`MemoryService::preview_distillation`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistillPreview {
    /// The text the semantic memory would hold.
    pub content: String,
    /// `llm`, `extractive-embeddings` or `extractive-keywords`.
    pub method: &'static str,
    /// The LLM that wrote it, for `llm`.
    pub model: Option<String>,
    /// How many memories it condenses.
    pub sources: usize,
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
    /// The same memories had been distilled before (with the same instruction): `memory` is
    /// that distillation, and nothing was written, archived or deleted this time.
    pub already_existed: bool,
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
        let guard = self.write_lock(namespace).await?;
        self.set_archived_in(&guard, ids, archived).await
    }

    /// Archives or restores `ids` in the guard's namespace; fails before changing anything if
    /// one of them does not exist.
    async fn set_archived_in(
        &self,
        guard: &WriteGuard<'_>,
        ids: &[MemoryId],
        archived: bool,
    ) -> Result<Vec<Memory>, ServiceError> {
        let namespace = guard.namespace();
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
        let namespaces = match namespace {
            Some(ns) => vec![ns.clone()],
            None => self.namespaces_where(now, episodes_live).await?,
        };
        let mut archived = 0;
        for ns in namespaces {
            // A merge must not fold a new text into a memory that goes cold under it.
            let _guard = self.writes.write(&ns).await;
            let moved = self.store.archive_idle(Some(&ns), MemoryType::Episodic, cut, now).await?;
            let ids: Vec<MemoryId> = moved.into_iter().map(|(_, id)| id).collect();
            for memory in self.store.get_many(&ns, &ids, now).await? {
                self.indexes.replace(&memory, None, None);
            }
            archived += ids.len();
        }
        if archived > 0 {
            tracing::info!(archived, "idle episodic memories archived");
        }
        Ok(archived)
    }

    /// The periodic sweep of a server, run every `every`: the whole [`MemoryService::sweep`]
    /// if this server claims the interval (`StoreMaintenance::claim_sweep`: once per interval
    /// across every server and process sharing the store), else only this server's graph
    /// saves. `None` when another server swept this interval.
    pub async fn periodic_sweep(
        &self,
        every: std::time::Duration,
    ) -> Result<Option<SweepReport>, ServiceError> {
        // A little slack, so that ticks of one server that drift by milliseconds still claim.
        let every = every.mul_f64(0.95);
        let every = chrono::TimeDelta::from_std(every).unwrap_or(chrono::TimeDelta::MAX);
        if self.store.claim_sweep(self.clock.now(), every).await? {
            return Ok(Some(self.sweep().await?));
        }
        self.save_indexes().await?;
        Ok(None)
    }

    /// One lifecycle sweep over every namespace: delete expired memories, archive idle
    /// episodes, and, only with `auto_distill`, distill the groups
    /// [`MemoryService::suggest_distillations`] finds. Servers run it every sweep interval.
    pub async fn sweep(&self) -> Result<SweepReport, ServiceError> {
        let expired = self.cleanup_expired(None).await?;
        let archived = self.archive_idle(None).await?;
        let mut distilled = 0;
        if self.config.lifecycle.auto_distill && self.embedder().is_some() {
            for ns in self.namespaces_where(self.clock.now(), episodes_live).await? {
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
        // Indexes changed since their last save are saved now, so a crash loses at most one
        // sweep interval of index updates (replayed from the change log at the next start).
        self.save_indexes().await?;
        let pruned = self.store.prune_changes(crate::follow::CHANGE_LOG_KEEP).await?;
        if pruned > 0 {
            tracing::debug!(pruned, "change log pruned");
        }
        Ok(SweepReport { expired, archived, distilled })
    }
}

/// Tiers the archive sweep and automatic distillation look at: live episodes.
fn episodes_live(tier: &TierCount) -> bool {
    tier.memory_type == MemoryType::Episodic && tier.live > 0
}

/// Whether `now` is still the memory `then` was: nothing but its access statistics (which every
/// recall bumps) has changed. A derived memory made from `then` is still true to it.
fn unchanged(then: &Memory, now: &Memory) -> bool {
    let content_of = |m: &Memory| Memory { access_count: 0, last_accessed_at: None, ..m.clone() };
    content_of(then) == content_of(now)
}
