//! Recall in named stages: plan → focus and embed the query → candidates → ranking (pure, in
//! `rearview_ranking::rank`) → history answered by its successor (the links made when memories
//! were stored, `rearview_ranking::links`) → a question's reply placed after it
//! (`rearview_ranking::replies`) → relevance floor, per question (a compound query's parts
//! merged by `rearview_ranking::compound`) → selection (top-k, token budget) → use recording.

mod embedding;
mod feedback;
mod parts;
mod replies;
mod selection;

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use rearview_core::{Embedding, Memory, MemoryFilter, MemoryId, Namespace, Timestamp};
use rearview_language::{Focused, focus, question_parts};
use rearview_ranking::{Candidate, Floor, RankingConfig, Scored, current_first, rank};
use rearview_store::KeywordHit;

use self::selection::{above_floor, select};
use crate::{
    KeywordSearch, MemoryService, RecallRequest, RecallResponse, RecallTimings, ServiceError,
    VectorSearch,
};

/// `future`'s output and how long it took, for the stage timings in the debug log.
async fn timed<T, E>(
    future: impl std::future::Future<Output = Result<T, E>>,
) -> Result<(T, std::time::Duration), E> {
    let started = Instant::now();
    let out = future.await?;
    Ok((out, started.elapsed()))
}

/// Appends `note` to the vector signal's explanation of each of `ranked`: what the cosine was
/// measured against.
fn note_on_vector_signal(ranked: &mut [Scored], note: &str) {
    for scored in ranked {
        // The relevance's first detail is the vector signal in every fusion.
        if let Some(vector) =
            scored.explanation.details.first_mut().and_then(|r| r.details.first_mut())
        {
            vector.description.push_str(note);
        }
    }
}

/// What a recall will do, decided from the request and the configuration before any search.
struct Plan {
    now: Timestamp,
    /// What the answer may hold.
    filter: MemoryFilter,
    /// What the searches look at: the filter, and superseded memories when the request leaves
    /// them out but they are answered by their successors.
    search_filter: MemoryFilter,
    ranking: RankingConfig,
}

/// The focused query in each vector space that could embed it.
struct Query {
    focused: Focused,
    vectors: Vec<(String, Embedding)>,
    vector_search: VectorSearch,
    /// The relevance floor for these vectors ([`MemoryService::floor`]).
    floor: Option<Floor>,
    /// The query is mostly Han characters (its cosines are read on that script's scale).
    han: bool,
}

/// One question answered: what passed the floor, best first, and what it took.
struct Answer {
    kept: Vec<Scored>,
    memories: HashMap<MemoryId, Memory>,
    /// What the relevance floor left out.
    below_floor: Vec<MemoryId>,
    embed: std::time::Duration,
    vector_search: VectorSearch,
    terms: Vec<String>,
}

/// The memories worth ranking and what the searches said about them.
struct Found {
    candidates: Vec<Candidate>,
    memories: HashMap<MemoryId, Memory>,
}

impl MemoryService {
    /// Hybrid recall. See the crate docs and `rearview_ranking::rank` for the formula. A query
    /// that asks several questions (`rearview_ranking::compound`) is answered part by part and
    /// the lists merged before selection.
    pub async fn recall(
        &self,
        namespace: &Namespace,
        request: RecallRequest,
    ) -> Result<RecallResponse, ServiceError> {
        let started = Instant::now();
        request.validate(self.config.max_top_k, self.config.max_query_chars)?;
        // Its indexes stay in memory through every search of this recall (`residency.rs`).
        let _in_memory = self.resident(namespace).await?;
        let plan = self.plan(&request);
        let parts = if plan.ranking.compound {
            question_parts(&request.query)
        } else {
            vec![request.query.as_str()]
        };
        let answer = if let [_] = parts.as_slice() {
            self.answer(namespace, &request, &plan).await?
        } else {
            // The parts' vectors in one batch; each part then finds its own in the cache, so
            // this is where their embedding time goes.
            let embedding = Instant::now();
            if plan.ranking.vector_candidates > 0 {
                self.embed_parts(&parts, request.models.as_deref()).await;
            }
            let embedded = embedding.elapsed();
            let mut answers = Vec::with_capacity(parts.len());
            for part in &parts {
                let asked = RecallRequest { query: (*part).to_owned(), ..request.clone() };
                answers.push(self.answer(namespace, &asked, &plan).await?);
            }
            let mut answer = parts::merge(&parts, answers, request.tier_order);
            answer.embed += embedded;
            answer
        };
        let (mut hits, over_budget) = select(answer.kept, &answer.memories, &request);
        let used: Vec<MemoryId> = hits.iter().map(|h| h.memory.id).collect();
        if request.record_access && !used.is_empty() {
            // Only what passed the floor and was handed back counts as used: fill-ins do not
            // gain heat.
            self.access.record(namespace, used, self.clock.now()).await;
            for hit in &mut hits {
                hit.memory.access_count += 1;
            }
        }
        if !request.explain {
            for hit in &mut hits {
                hit.explanation = None;
            }
        }
        let search = started.elapsed().saturating_sub(answer.embed);
        Ok(RecallResponse {
            hits,
            as_of: plan.now,
            vector_search: answer.vector_search,
            query_terms: answer.terms,
            below_floor: answer.below_floor.len(),
            over_budget,
            budgeted: request.max_tokens.is_some(),
            timings: RecallTimings { embed: answer.embed, search },
        })
    }

    /// Stages 2 to 5a for one question: focus and embed it, find and rank the candidates, rank a
    /// dialogue again with feedback, answer history by its successors, place replies after
    /// their questions, apply the relevance floor.
    async fn answer(
        &self,
        namespace: &Namespace,
        request: &RecallRequest,
        plan: &Plan,
    ) -> Result<Answer, ServiceError> {
        let embed_started = Instant::now();
        let query = self.embed_focused(request, plan).await?;
        let embed = embed_started.elapsed();
        let candidates_started = Instant::now();
        let mut found = self.candidates(namespace, plan, &query).await?;
        let ranking_started = Instant::now();
        let ranked = rank(&found.candidates, &plan.ranking, plan.now, request.tier_order);
        let feedback_started = Instant::now();
        let mut ranked =
            self.with_feedback(namespace, ranked, &found, &query, plan, request).await?;
        if request.explain {
            embedding::explain_reading(&mut ranked, &query, &plan.ranking.focus);
        }
        let history_started = Instant::now();
        let (ranked, mut lifted) = self.answer_history(namespace, ranked, &mut found, plan).await?;
        let replies_started = Instant::now();
        let context = (&query, plan, request.top_k);
        let ranked = self.with_replies(namespace, ranked, &mut found, context, &mut lifted).await?;
        tracing::debug!(
            embed_ms = ms(embed),
            candidates_ms = ms(ranking_started - candidates_started),
            rank_ms = ms(feedback_started - ranking_started),
            feedback_ms = ms(history_started - feedback_started),
            history_ms = ms(replies_started - history_started),
            replies_ms = ms(replies_started.elapsed()),
            "recall stages"
        );
        let (kept, below_floor) =
            above_floor(ranked, &found.candidates, query.floor.as_ref(), &lifted);
        Ok(Answer {
            kept,
            memories: found.memories,
            below_floor,
            embed,
            vector_search: query.vector_search,
            terms: query.focused.terms.into_iter().map(|(t, _)| t).collect(),
        })
    }

    /// The relevance floor: the request's, else the configuration's, else the calibrated one
    /// of the model that embedded the query ([`calibrated_floor`]); none without a vector.
    fn floor(&self, request: &RecallRequest, vectors: &[(String, Embedding)]) -> Option<Floor> {
        let similarity = match (request.min_relevance, self.config.min_relevance) {
            (Some(floor), _) | (None, Some(floor)) => floor,
            // Cosines of several models are averaged: no one model's calibration applies.
            (None, None) => match vectors {
                [(model, _)] => calibrated_floor(model, &request.query)?,
                _ => return None,
            },
        };
        (similarity > 0.0).then_some(Floor { similarity, keyword_coverage: KEYWORD_COVERAGE_FLOOR })
    }

    /// Stage 1: the instant, the filter (`as_of` hides later events) and the ranking.
    fn plan(&self, request: &RecallRequest) -> Plan {
        let now = request.as_of.unwrap_or_else(|| self.clock.now());
        let mut filter = request.filter.clone();
        if request.as_of.is_some() {
            // Replaying the past: what happened after `as_of` had not happened yet.
            filter.occurred_before = Some(filter.occurred_before.map_or(now, |b| b.min(now)));
        }
        let mut ranking = request.ranking.unwrap_or(self.config.ranking);
        // Asking for more than the candidate counts must not come back short: each side that is
        // on contributes at least `top_k` candidates.
        for side in [&mut ranking.vector_candidates, &mut ranking.keyword_candidates] {
            if *side > 0 {
                *side = (*side).max(request.top_k);
            }
        }
        // History takes part in the searches when its successors answer it.
        let mut search_filter = filter.clone();
        search_filter.include_superseded |= ranking.answer_history;
        Plan { now, filter, search_filter, ranking }
    }

    /// Stage 2: the query focused on its latest turns (a dialogue) and its vector in each space
    /// asked for.
    async fn embed_focused(
        &self,
        request: &RecallRequest,
        plan: &Plan,
    ) -> Result<Query, ServiceError> {
        let focused = focus(&request.query, self.config.tokenizer, &plan.ranking.focus);
        let spaces = self.query_spaces(request.models.as_deref())?;
        let (vectors, vector_search) = if spaces.is_empty() {
            (Vec::new(), VectorSearch::NoModel)
        } else if plan.ranking.vector_candidates == 0 {
            (Vec::new(), VectorSearch::Disabled)
        } else {
            let reading = embedding::reading(&focused, &plan.ranking.focus);
            self.embed_query(&request.query, reading, &spaces).await
        };
        let floor = self.floor(request, &vectors);
        let han = rearview_core::mostly_han(&request.query);
        Ok(Query { focused, vectors, vector_search, floor, han })
    }

    /// Stage 3: vector top-N ∪ keyword top-N, loaded, each with its exact cosine (the mean over
    /// the spaces where it has a vector) and its keyword score.
    async fn candidates(
        &self,
        namespace: &Namespace,
        plan: &Plan,
        query: &Query,
    ) -> Result<Found, ServiceError> {
        let now = &plan.now;
        let started = Instant::now();
        // The two searches run side by side (each on a blocking thread when in memory).
        let ((vector_ids, vectors_took), ((keyword_hits, full_of_all), keywords_took)) = tokio::try_join!(
            timed(self.vector_candidates(namespace, plan, query)),
            timed(self.keyword_candidates(namespace, plan, &query.focused))
        )?;
        let searched = started.elapsed();
        let mut ids = vector_ids.clone();
        let mut seen: HashSet<MemoryId> = ids.iter().copied().collect();
        ids.extend(keyword_hits.iter().map(|h| h.id).filter(|id| seen.insert(*id)));
        let memories: HashMap<MemoryId, Memory> = self
            .store
            .get_many(namespace, &ids, *now)
            .await?
            .into_iter()
            .map(|m| (m.id, m))
            .collect();
        let loaded = started.elapsed();
        let mut cosines = self.cosines(namespace, &query.vectors, &memories).await?;
        // Each cosine read on the scale of the query's script.
        let shifts: HashMap<MemoryId, f32> = memories
            .values()
            .map(|m| {
                let text = m.summary.as_deref().unwrap_or(&m.content);
                (m.id, script_shift(&query.vectors, query.han, rearview_core::mostly_han(text)))
            })
            .filter(|(_, shift)| *shift != 0.0)
            .collect();
        for (id, shift) in &shifts {
            if let Some(cos) = cosines.get_mut(id) {
                *cos += shift;
            }
        }
        let mut by_cosine: Vec<MemoryId> =
            vector_ids.into_iter().filter(|id| cosines.contains_key(id)).collect();
        by_cosine.sort_by(|a, b| cosines[b].total_cmp(&cosines[a]).then(a.cmp(b)));
        let vector_rank: HashMap<MemoryId, usize> =
            by_cosine.iter().enumerate().map(|(i, id)| (*id, i + 1)).collect();
        // A full match of what is asked now: the latest turn's terms for a dialogue.
        let asked_now: Vec<(String, f32)> =
            query.focused.terms.iter().filter(|(_, w)| *w >= 1.0).cloned().collect();
        // In memory, or from the store when it searches (its keyword search gave the full match
        // of every term: the same unless a dialogue's earlier turns weigh less); none from a
        // plain full-text index.
        let bm25_full = match full_of_all {
            Some(full) if asked_now.len() == query.focused.terms.len() => Some(full),
            _ => self.full_match(namespace, &asked_now, *now).await?,
        };
        let keyword: HashMap<MemoryId, (usize, f32)> =
            keyword_hits.iter().enumerate().map(|(i, h)| (h.id, (i + 1, h.bm25))).collect();
        let candidates: Vec<Candidate> = memories
            .values()
            .map(|m| Candidate {
                id: m.id,
                memory_type: m.memory_type,
                cosine: cosines.get(&m.id).copied(),
                vector_rank: vector_rank.get(&m.id).copied(),
                bm25: keyword.get(&m.id).map(|(_, s)| *s),
                keyword_rank: keyword.get(&m.id).map(|(r, _)| *r),
                bm25_full,
                occurred_at: m.occurred_at,
                access_count: m.access_count,
                cosine_shift: shifts.get(&m.id).copied().unwrap_or(0.0),
            })
            .collect();
        tracing::debug!(
            vectors_ms = ms(vectors_took),
            keywords_ms = ms(keywords_took),
            searches_ms = ms(searched),
            rows_ms = ms(loaded - searched),
            rest_ms = ms(started.elapsed() - loaded),
            candidates = candidates.len(),
            "recall candidates"
        );
        Ok(Found { candidates, memories })
    }

    /// Stage 4a: each superseded candidate (history, searched only to be answered this way)
    /// replaced by the current memory that superseded it, followed along the chain
    /// (`rearview_ranking::current_first`); a successor that is no candidate is read from the
    /// store into `found`, and one the request's filter does not select answers nothing.
    async fn answer_history(
        &self,
        namespace: &Namespace,
        ranked: Vec<Scored>,
        found: &mut Found,
        plan: &Plan,
    ) -> Result<(Vec<Scored>, HashMap<MemoryId, MemoryId>), ServiceError> {
        if plan.filter.include_superseded {
            // History asked for is shown as it is.
            return Ok((ranked, HashMap::new()));
        }
        let now = plan.now;
        let superseded: Vec<MemoryId> =
            found.memories.values().filter(|m| m.is_superseded_at(now)).map(|m| m.id).collect();
        if superseded.is_empty() {
            return Ok((ranked, HashMap::new()));
        }
        // Every superseded candidate answers nothing unless its chain ends at a visible memory.
        let mut current_of: HashMap<MemoryId, Option<MemoryId>> =
            superseded.iter().map(|id| (*id, None)).collect();
        // Where each superseded candidate's chain has got to.
        let mut at: Vec<(MemoryId, MemoryId)> = superseded
            .iter()
            .filter_map(|id| Some((*id, found.memories[id].superseded_by?)))
            .collect();
        for _ in 0..MAX_CHAIN {
            let missing: Vec<MemoryId> = at
                .iter()
                .map(|(_, next)| *next)
                .filter(|next| !found.memories.contains_key(next))
                .collect();
            if !missing.is_empty() {
                for m in self.store.get_many(namespace, &missing, now).await? {
                    found.memories.insert(m.id, m);
                }
            }
            let mut further = Vec::new();
            for (from, next) in at {
                let Some(m) = found.memories.get(&next) else { continue };
                if !m.is_superseded_at(now) {
                    if plan.filter.matches(&m.facets(), now) {
                        current_of.insert(from, Some(next));
                    }
                } else if let Some(after) = m.superseded_by {
                    further.push((from, after));
                }
            }
            if further.is_empty() {
                break;
            }
            at = further;
        }
        // Who linked each superseded candidate, and why, for the explanation.
        let links: HashMap<MemoryId, String> = superseded
            .iter()
            .filter_map(|id| {
                let link = found.memories.get(id)?.link.as_ref()?;
                Some((*id, format!("{}: {}", link.made_by, link.reason)))
            })
            .collect();
        Ok(current_first(ranked, &current_of, &links))
    }

    /// The nearest memories to the query in each of its spaces, deduplicated, in the order found.
    async fn vector_candidates(
        &self,
        namespace: &Namespace,
        plan: &Plan,
        query: &Query,
    ) -> Result<Vec<MemoryId>, ServiceError> {
        let mut ids: Vec<MemoryId> = Vec::new();
        let mut seen: HashSet<MemoryId> = HashSet::new();
        for (model, vector) in &query.vectors {
            let k = plan.ranking.vector_candidates;
            let filter = &plan.search_filter;
            let hits = self.nearest(namespace, model, vector, k, filter, plan.now).await?;
            ids.extend(hits.into_iter().map(|hit| hit.id).filter(|id| seen.insert(*id)));
        }
        Ok(ids)
    }

    /// The best keyword matches: in memory with the focused term weights, from a store that
    /// searches (with the weights, and the full-match score of all the terms), or from the
    /// store's full-text index (which cannot weigh terms: every term counts fully there).
    async fn keyword_candidates(
        &self,
        namespace: &Namespace,
        plan: &Plan,
        focused: &Focused,
    ) -> Result<(Vec<KeywordHit>, Option<f32>), ServiceError> {
        let k = plan.ranking.keyword_candidates;
        if k == 0 {
            return Ok((Vec::new(), None));
        }
        if self.keywords_in_store() {
            let filter = &plan.search_filter;
            return self.store_keywords(namespace, &focused.terms, filter, plan.now, k).await;
        }
        let _in_memory = self.resident(namespace).await?;
        Ok((
            match self.config.keyword_search {
                KeywordSearch::InMemory => self
                    .indexes
                    .search_text(namespace, &focused.terms, k, &plan.search_filter, plan.now)
                    .await
                    .into_iter()
                    .map(|h| KeywordHit { id: h.id, bm25: h.bm25 })
                    .collect(),
                KeywordSearch::Store => {
                    let terms: Vec<String> = focused.terms.iter().map(|(t, _)| t.clone()).collect();
                    let filter = &plan.search_filter;
                    self.store.keyword_search(namespace, &terms, filter, plan.now, k).await?
                }
            },
            None,
        ))
    }

    /// Every candidate's cosine, also those found only by keywords: with several models, the
    /// mean over the spaces where it has a vector.
    async fn cosines(
        &self,
        namespace: &Namespace,
        vectors: &[(String, Embedding)],
        memories: &HashMap<MemoryId, Memory>,
    ) -> Result<HashMap<MemoryId, f32>, ServiceError> {
        let ids: Vec<MemoryId> = memories.keys().copied().collect();
        let mut sums = vec![(0f32, 0u32); ids.len()];
        for (model, vector) in vectors {
            let similarities = self.similarities(namespace, model, &ids, vector).await?;
            for (sum, similarity) in sums.iter_mut().zip(similarities) {
                if let Some(c) = similarity {
                    *sum = (sum.0 + c, sum.1 + 1);
                }
            }
        }
        Ok(ids
            .into_iter()
            .zip(sums)
            .filter(|(_, (_, n))| *n > 0)
            .map(|(id, (sum, n))| (id, sum / n as f32))
            .collect())
    }
}

/// How far [`MemoryService::answer_history`] follows a chain of supersessions (Berlin → Paris →
/// Lisbon → …) to the current memory.
pub(crate) const MAX_CHAIN: usize = 8;

/// A memory holding this share of a full keyword match of the query passes the floor whatever
/// its cosine.
const KEYWORD_COVERAGE_FLOOR: f32 = 0.5;

/// The floor measured for a model (`BENCHMARKS.md`, "Relevance floor"): the cosine (on the
/// scale of the query's script, [`script_shift`]) under which the best match of a query about
/// something never stored falls, while the answers to real questions stay above. Its scale is
/// the model's own, and for the multilingual e5 models it depends on the script: Chinese text
/// pairs sit ~0.06 higher than English ones. Other models get no default floor (set
/// `min_relevance`).
fn calibrated_floor(model: &str, query: &str) -> Option<f32> {
    if !is_e5_small(model) {
        return None;
    }
    Some(if rearview_core::mostly_han(query) { E5_FLOOR_HAN } else { E5_FLOOR_OTHER })
}

const E5_FLOOR_HAN: f32 = 0.82;
const E5_FLOOR_OTHER: f32 = 0.76;

fn is_e5_small(model: &str) -> bool {
    model.contains("multilingual-e5-small")
}

/// What to add to a memory's cosine to read it on the scale of text in the query's script, for
/// the model that embedded the query (`rearview_ranking::Candidate::cosine_shift`): the typical
/// cosine of unrelated pairs in the query's script less that of unrelated pairs of the query's
/// and the memory's scripts. Measured for multilingual-e5-small on the precision dev set
/// (`crates/eval/data/precision_dev.jsonl`, medians of the cosines of each question to the
/// memories that do not answer it): Chinese question to Chinese memory 0.83, to English 0.74;
/// English question to English memory 0.76, to Chinese 0.76. So an English memory gains 0.09
/// for a Chinese question, and nothing else moves. 0 for other models, and with several.
fn script_shift(vectors: &[(String, Embedding)], query_han: bool, memory_han: bool) -> f32 {
    match vectors {
        [(model, _)] if is_e5_small(model) && query_han && !memory_han => {
            E5_TYPICAL_HAN_HAN - E5_TYPICAL_HAN_OTHER
        }
        _ => 0.0,
    }
}

const E5_TYPICAL_HAN_HAN: f32 = 0.83;
const E5_TYPICAL_HAN_OTHER: f32 = 0.74;

/// A duration in milliseconds, for the debug events.
fn ms(took: std::time::Duration) -> f64 {
    took.as_secs_f64() * 1e3
}
