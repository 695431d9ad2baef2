//! Distillation (design §3.4): episodes condensed into one semantic memory, by an LLM or
//! extractively, and the suggestions of which episodes to condense.

use rearview_core::{
    InputError, Memory, MemoryFilter, MemoryId, MemoryType, Metadata, Namespace, NewMemory, dot,
    truncate_chars,
};
use rearview_embed::TextKind;
use rearview_llm::Episode;
use rearview_search::extract::{keyword_centrality, select_mmr, split_sentences, term_overlap};
use rearview_store::Page;

use super::session::episode_of;
use super::{DistillRequest, Distilled, MAX_SUGGEST_CANDIDATES, Originals, Suggestion, unchanged};
use crate::{MemoryService, ServiceError};

impl MemoryService {
    /// Distills memories (usually episodes) into one semantic memory (design §3.4): by the LLM
    /// when one is configured, following `instruction`; else extractively — the sentences most
    /// representative of the episodes (closest to their mean vector, or to the instruction when
    /// given, without repeating each other; by shared keywords when there is no embedding model).
    /// The result has `source_ids` and says in `metadata.distillation` how it was made. The
    /// originals are archived (or deleted, or kept) only after it is stored; if the LLM fails,
    /// nothing changes. If an original changes while it is being distilled (the LLM can take a
    /// while), nothing is written and the call fails as `Unavailable`, to be retried.
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
        let prepared = self.prepare(new, ids.clone(), false).await?;
        let guard = self.writes.write(namespace).await;
        // The originals must still say what was distilled (a concurrent distillation of the same
        // episodes archives them first, and this one then fails instead of writing a twin).
        let current = self.existing(namespace, &ids, "episode_ids").await?;
        if let Some((then, _)) = sources.iter().zip(&current).find(|(then, c)| !unchanged(then, c))
        {
            return Err(ServiceError::Unavailable(format!(
                "memory {} changed while it was being distilled; nothing was changed, try again",
                then.id
            )));
        }
        let stored = self.write_prepared(&guard, prepared).await?;
        let originals_changed = match request.originals {
            Originals::Keep => 0,
            Originals::Archive => self.set_archived_in(&guard, &ids, true).await?.len(),
            Originals::Delete => {
                for id in &ids {
                    self.forget_in(&guard, *id).await?;
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
    pub(super) fn keyword_extract(
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
