//! Hybrid ranking: fuse vector and keyword evidence, then nudge by recency and heat.
//!
//! The default ([`RankingConfig::default`]), chosen on the shared dev data (`BENCHMARKS.md`,
//! "The default ranking"), is what `recall` and `retrieve_memory` do with no options:
//!
//! ```text
//! score     = relevance × recency × heat
//! relevance = 0.55 · v + 0.45 · k                                   (Fusion::Relative)
//! v         = (cos − min cos) / (max cos − min cos)   over this query's candidates
//! k         = min(bm25 / max(best bm25, 0.3 · full), 1)
//! recency   = 1 + 0.05 · 2^(−days / 30)        semantic memories: 1 + 0.05 (they do not age)
//! heat      = 1 + 0.05 · min(ln(1 + uses) / ln(1 + 20), 1)
//! ```
//!
//! - Both relevance signals are scaled against the query's own candidates (vector top-50 ∪
//!   keyword top-50), because their raw scales say little: e5 cosines of related and unrelated
//!   text differ by ~0.1, and BM25 grows with the corpus. The best keyword match scores 1 in a
//!   namespace of five memories as in one of a million, so an exact rare token (a port, a name,
//!   an id) carries its full weight; the design's `min(bm25 / 20, 1)` made it worth ~0.01.
//! - `full` is the BM25 of a memory containing every term of what is asked now (the whole
//!   query; for a dialogue its latest turn): a best match covering less than 30 % of it is not
//!   a full keyword match, so one common character shared with an unrelated memory cannot
//!   outweigh the vectors.
//! - Recency is a bounded prior, not a multiplier that erases old memories: a fresh memory gains
//!   at most 5 %, which decides near-ties only. The design's `exp(−0.01 · days)` (still
//!   available: [`Recency::Decay`], [`RankingConfig::DESIGN`]) cut LoCoMo frac@5 from 60 to 18.
//! - Heat is bounded (+5 % at most, reached at 20 uses) and earned: the service counts a use
//!   only for memories a recall returned above its relevance floor.
//!
//! Dialogue-shaped queries are focused on their latest turns first ([`mod@rearview_language::focus`]), and
//! ranked twice: the second time with the query vector moved toward the first ranking's best
//! memory, `normalise(q + 0.3 · v₁)` ([`mod@crate::feedback`]). Reciprocal-rank fusion ([`Fusion::Rrf`], Cormack, Clarke & Büttcher, SIGIR 2009) and the
//! design's weighted formula ([`Fusion::Weighted`]) remain for comparison.
//!
//! Ties break by event time, newer first (the recency the issue asks for as a near-tie breaker,
//! and what decides RRF's frequent exact ties: ranks 3 + 10 and 10 + 3 sum alike), then by
//! memory id ascending, so the same inputs always give the same order. Every
//! [`Scored`] carries an [`Explanation`] of how its score was computed.

use rearview_core::{MemoryId, MemoryType, Timestamp};

use rearview_language::QueryFocus;

use crate::feedback::Feedback;
use crate::replies::Replies;
pub use crate::scored::{Explanation, Scored};

/// How the relevance signals are combined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// `vector · max(cos, 0) + keyword · min(bm25 / bm25_saturation, 1)` (design §3.3).
    Weighted {
        /// Weight of cosine similarity; the design uses 0.7.
        vector: f32,
        /// Weight of the saturated BM25 score; the design uses 0.3.
        keyword: f32,
        /// BM25 score that counts as a full keyword match; the design uses 10.
        bm25_saturation: f32,
    },
    /// Each signal scaled against the candidates of this query, then weighted:
    /// `vector · v + keyword · bm25 / max_bm25`, where `v` is the cosine scaled by
    /// [`VectorScale`]. The best keyword match of the query scores 1 whatever the corpus size, so
    /// an exact rare token (a port, a name, an id) carries its full weight in a namespace of five
    /// memories as in one of a million.
    Relative {
        /// Weight of the vector signal.
        vector: f32,
        /// Weight of the keyword signal.
        keyword: f32,
        /// How the cosine is scaled.
        scale: VectorScale,
        /// How the BM25 score is scaled.
        keyword_scale: KeywordScale,
    },
    /// Reciprocal-rank fusion: `vector / (k + rank_v) + keyword / (k + rank_k)`.
    Rrf {
        /// Damping constant; 60 in the original paper. Larger values flatten the rank curve.
        k: f32,
        /// Weight of the vector list.
        vector: f32,
        /// Weight of the keyword list.
        keyword: f32,
    },
}

/// How [`Fusion::Relative`] scales a BM25 score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeywordScale {
    /// `bm25 / best bm25` among the query's candidates: the best match scores 1, however weak.
    Max,
    /// `min(bm25 / max(best bm25, share · full), 1)`, `full` the score of a memory matching
    /// every query term ([`Candidate::bm25_full`]; as `Max` when unknown). The best match of
    /// the query scores 1 as with `Max` as long as it covers at least `share` of the query;
    /// one common character out of a long query then no longer counts as a full keyword match,
    /// while the one rare token of a short query still does.
    Coverage {
        /// The share of a full match that counts as a full keyword match.
        share: f32,
    },
}

/// How [`Fusion::Relative`] scales a cosine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum VectorScale {
    /// `max(cos, 0)` as it is.
    Raw,
    /// `(cos − min) / (max − min)` over the query's candidates: the best vector match scores 1,
    /// the worst 0.
    MinMax,
}

impl Fusion {
    /// The design's weights: 0.7 / 0.3, BM25 saturating at 10.
    pub const DESIGN: Fusion =
        Fusion::Weighted { vector: 0.7, keyword: 0.3, bm25_saturation: 10.0 };
    /// The default (measured on the shared dev data; `BENCHMARKS.md`).
    pub const DEFAULT: Fusion = Fusion::Relative {
        vector: 0.55,
        keyword: 0.45,
        scale: VectorScale::MinMax,
        keyword_scale: KeywordScale::Coverage { share: 0.3 },
    };
    /// Plain RRF with k = 60 and equal weights.
    pub const RRF: Fusion = Fusion::Rrf { k: 60.0, vector: 1.0, keyword: 1.0 };
}

/// How the age of a memory weighs on its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Recency {
    /// None: age does not matter.
    Off,
    /// The design's multiplier `exp(−per_day · days)` (§3.3). It erases old memories: at
    /// 0.01/day, a memory from four months ago keeps 30 % of its score and loses to any recent
    /// chit-chat. Kept to reproduce the design.
    Decay {
        /// λ per day.
        per_day: f32,
    },
    /// A bounded prior `1 + weight · 2^(−days / half_life_days)`: a fresh memory gains at most
    /// `weight`, an old one loses nothing of its relevance, so recency decides near-ties only.
    /// Semantic memories (distilled knowledge) count as fresh.
    Prior {
        /// Largest boost, for a memory from right now.
        weight: f32,
        /// Days after which the boost halves.
        half_life_days: f32,
    },
}

/// Every knob of ranking, as plain data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankingConfig {
    /// How vector and keyword relevance are combined.
    pub fusion: Fusion,
    /// How age weighs.
    pub recency: Recency,
    /// Largest boost from heat (`access_count`): `1 + heat_weight · min(ln(1 + n) / ln(1 +
    /// heat_saturation), 1)`. 0 disables heat.
    pub heat_weight: f32,
    /// Accesses at which heat stops growing; `None`: it never does (the design's
    /// `1 + heat_weight · ln(1 + n)`).
    pub heat_saturation: Option<u64>,
    /// How a dialogue-shaped query is focused on its latest turns.
    pub focus: QueryFocus,
    /// How many vector matches become candidates.
    pub vector_candidates: usize,
    /// How many keyword matches become candidates.
    pub keyword_candidates: usize,
    /// A superseded memory (history) that matches is answered by the current memory that
    /// replaced it ([`current_first`](crate::links::current_first)); off: history never takes
    /// part in a recall that leaves it out.
    pub answer_history: bool,
    /// A query that asks several questions (`…？另外，…？`) answered part by part
    /// ([`mod@crate::compound`]); off: as one question.
    pub compound: bool,
    /// Pseudo-relevance feedback: the candidates scored again against the query vector moved
    /// toward the first ranking's best memories ([`mod@crate::feedback`]); `None`: off.
    pub feedback: Option<Feedback>,
    /// A question's reply placed right after it ([`mod@crate::replies`]); `None`: off.
    pub replies: Option<Replies>,
}

impl RankingConfig {
    /// The design's §3.3 exactly: `(0.7·cos + 0.3·min(bm25/10, 1)) × exp(−0.01·days) × (1 +
    /// 0.1·ln(1 + accesses))`, 20 candidates per side.
    pub const DESIGN: RankingConfig = RankingConfig {
        fusion: Fusion::DESIGN,
        recency: Recency::Decay { per_day: 0.01 },
        heat_weight: 0.1,
        heat_saturation: None,
        focus: QueryFocus::OFF,
        vector_candidates: 20,
        keyword_candidates: 20,
        answer_history: false,
        compound: false,
        feedback: None,
        replies: None,
    };
}

impl Default for RankingConfig {
    fn default() -> Self {
        Self {
            fusion: Fusion::DEFAULT,
            recency: Recency::Prior { weight: 0.05, half_life_days: 30.0 },
            heat_weight: 0.05,
            heat_saturation: Some(20),
            focus: QueryFocus {
                min_turns: 3,
                tail_turns: 1,
                tail_weight: 0.3,
                turn_decay: 0.5,
                bare_tail: true,
            },
            vector_candidates: 50,
            keyword_candidates: 50,
            answer_history: true,
            compound: true,
            feedback: Some(Feedback::DEFAULT),
            replies: Some(Replies::DEFAULT),
        }
    }
}

/// Whether tiers take precedence over score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TierOrder {
    /// Order by score alone.
    #[default]
    ByScore,
    /// Semantic memories first, then episodic, then working (design §2.2), by score within a
    /// tier, among the memories that score at least [`TIER_BAND`] of the best score; the rest
    /// follow by score. An unrelated semantic memory does not jump ahead of the one that answers.
    SemanticFirst,
}

/// With [`TierOrder::SemanticFirst`], the share of the best score within which tiers decide.
pub const TIER_BAND: f32 = 0.9;

impl TierOrder {
    /// The sort key that goes before the score: a memory of tier `priority`
    /// ([`MemoryType::priority`]) scoring `score` where the best scores `best`. Lower sorts first.
    pub fn key(self, score: f32, best: f32, priority: u8) -> u8 {
        match self {
            TierOrder::SemanticFirst if score >= TIER_BAND * best => priority,
            TierOrder::SemanticFirst => u8::MAX,
            TierOrder::ByScore => 0,
        }
    }
}

/// What we know about one candidate memory. Built by the service from the searches and the store.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Memory id.
    pub id: MemoryId,
    /// Tier, for [`TierOrder::SemanticFirst`] and recency.
    pub memory_type: MemoryType,
    /// Cosine similarity to the query, if the memory has a vector in the query's space.
    pub cosine: Option<f32>,
    /// 1-based rank in the vector candidate list, if it was in it.
    pub vector_rank: Option<usize>,
    /// BM25 score, if a query term matched and the memory was in the keyword candidate list.
    pub bm25: Option<f32>,
    /// 1-based rank in the keyword candidate list, if it was in it.
    pub keyword_rank: Option<usize>,
    /// The BM25 score a memory matching every query term would get (the same for every
    /// candidate of a query; `TextIndex::full_match`), when known.
    pub bm25_full: Option<f32>,
    /// Event time, for recency.
    pub occurred_at: Timestamp,
    /// Past recalls that used it, for heat.
    pub access_count: u64,
    /// What was added to the measured cosine to read it on the scale of text in the query's
    /// script (`cosine` includes it): a multilingual model puts an English memory lower for a
    /// Chinese question than a Chinese one of the same relevance. 0 in one script.
    pub cosine_shift: f32,
}

/// What [`Fusion::Relative`] scales against: the query's candidates.
#[derive(Debug, Clone, Copy)]
struct Extremes {
    max_bm25: f32,
    min_cos: f32,
    max_cos: f32,
}

impl Extremes {
    fn of(candidates: &[Candidate]) -> Self {
        let bm25 = candidates.iter().filter_map(|c| c.bm25);
        let cos = candidates.iter().filter_map(|c| c.cosine).map(|c| c.max(0.0));
        Extremes {
            max_bm25: bm25.fold(0.0, f32::max),
            min_cos: cos.clone().fold(f32::INFINITY, f32::min),
            max_cos: cos.fold(0.0, f32::max),
        }
    }
}

/// Scores `candidates` at instant `now` and sorts them best first. Pure.
///
/// Every candidate is returned (callers truncate to top-k). Order: score descending, then
/// event time descending (newer first), then id ascending; with [`TierOrder::SemanticFirst`],
/// tier first among those within [`TIER_BAND`] of the best score.
pub fn rank(
    candidates: &[Candidate],
    config: &RankingConfig,
    now: Timestamp,
    order: TierOrder,
) -> Vec<Scored> {
    let extremes = Extremes::of(candidates);
    let mut scored: Vec<(u8, Timestamp, Scored)> = candidates
        .iter()
        .map(|c| {
            let relevance = relevance(c, &config.fusion, extremes);
            let recency = recency(c, now, config.recency);
            let heat = heat(c.access_count, config.heat_weight, config.heat_saturation);
            let score = relevance.value * recency.value * heat.value;
            let scored = Scored {
                id: c.id,
                score,
                relevance: relevance.value,
                explanation: Explanation {
                    value: score,
                    description: format!("score = relevance × {} × heat", recency_name(config)),
                    details: vec![relevance, recency, heat],
                },
            };
            (c.memory_type.priority(), c.occurred_at, scored)
        })
        .collect();
    let best = scored.iter().map(|(_, _, s)| s.score).fold(0.0, f32::max);
    let tier_of = |(tier, _, s): &(u8, Timestamp, Scored)| order.key(s.score, best, *tier);
    scored.sort_by(|a, b| {
        let (sa, sb) = (&a.2, &b.2);
        tier_of(a)
            .cmp(&tier_of(b))
            .then_with(|| sb.score.total_cmp(&sa.score))
            .then_with(|| b.1.cmp(&a.1))
            .then_with(|| sa.id.cmp(&sb.id))
    });
    scored.into_iter().map(|(_, _, s)| s).collect()
}

/// What a memory must reach to count as relevant at all, whatever the other candidates are
/// (relative scores cannot tell: the best of unrelated memories still scores 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Floor {
    /// Cosine similarity to the query ([`Candidate::cosine`]: on the query's script's scale),
    /// in the embedding model's own scale.
    pub similarity: f32,
    /// Or this share of a full keyword match ([`Candidate::bm25_full`]): a memory holding the
    /// query's rare tokens (a port, a name, an id) passes however the vectors see it.
    pub keyword_coverage: f32,
}

/// Whether `c` reaches `floor`: its cosine does, or its keyword coverage does. When the
/// coverage cannot be known (no term statistics), the best keyword match of the query counts as
/// covered; a memory without a vector passes on its keywords alone.
pub fn passes_floor(c: &Candidate, floor: &Floor) -> bool {
    let covered = match (c.bm25, c.bm25_full) {
        (Some(bm25), Some(full)) if full > 0.0 => bm25 / full >= floor.keyword_coverage,
        (Some(bm25), _) => bm25 > 0.0 && c.keyword_rank == Some(1),
        (None, _) => false,
    };
    match c.cosine {
        Some(cos) => cos >= floor.similarity || covered,
        None => covered,
    }
}

fn recency_name(config: &RankingConfig) -> &'static str {
    match config.recency {
        Recency::Decay { .. } => "decay",
        Recency::Off | Recency::Prior { .. } => "recency",
    }
}

/// The fused relevance of one candidate.
fn relevance(c: &Candidate, fusion: &Fusion, extremes: Extremes) -> Explanation {
    match *fusion {
        Fusion::Weighted { vector, keyword, bm25_saturation } => {
            let cos = c.cosine.unwrap_or(0.0).max(0.0);
            let bm25 = c.bm25.unwrap_or(0.0).max(0.0);
            let keyword_part =
                if bm25_saturation > 0.0 { (bm25 / bm25_saturation).min(1.0) } else { 0.0 };
            let value = vector * cos + keyword * keyword_part;
            Explanation {
                value,
                description: format!(
                    "relevance = {vector} · max(cos, 0) + {keyword} · min(bm25 / {bm25_saturation}, 1)"
                ),
                details: vec![
                    Explanation::leaf(cos, cosine_description(c)),
                    Explanation::leaf(bm25, bm25_description(c)),
                ],
            }
        }
        Fusion::Relative { vector, keyword, scale, keyword_scale } => {
            relative(c, (vector, keyword), scale, keyword_scale, extremes)
        }
        Fusion::Rrf { k, vector, keyword } => {
            let part =
                |weight: f32, rank: Option<usize>| rank.map_or(0.0, |r| weight / (k + r as f32));
            let (v, kw) = (part(vector, c.vector_rank), part(keyword, c.keyword_rank));
            Explanation {
                value: v + kw,
                description: format!(
                    "relevance = {vector} / ({k} + vector_rank) + {keyword} / ({k} + keyword_rank)"
                ),
                details: vec![
                    Explanation::leaf(
                        v,
                        rank_description("vector", c.vector_rank, c.cosine, "cos"),
                    ),
                    Explanation::leaf(
                        kw,
                        rank_description("keyword", c.keyword_rank, c.bm25, "bm25"),
                    ),
                ],
            }
        }
    }
}

/// [`Fusion::Relative`]: each signal scaled against the query's candidates.
fn relative(
    c: &Candidate,
    (vector, keyword): (f32, f32),
    scale: VectorScale,
    keyword_scale: KeywordScale,
    e: Extremes,
) -> Explanation {
    let cos = c.cosine.map(|c| c.max(0.0));
    let (v, v_formula) = match (scale, cos) {
        (_, None) => (0.0, "0 (no vector)".to_owned()),
        (VectorScale::Raw, Some(cos)) => (cos, "max(cos, 0)".to_owned()),
        (VectorScale::MinMax, Some(cos)) => {
            let spread = e.max_cos - e.min_cos;
            // One candidate, or all alike: nothing to tell them apart by.
            let v = if spread > 1e-6 { (cos - e.min_cos) / spread } else { 1.0 };
            (
                v,
                format!(
                    "(cos {cos:.4} − {:.4}) / ({:.4} − {:.4})",
                    e.min_cos, e.max_cos, e.min_cos
                ),
            )
        }
    };
    let bm25 = c.bm25.unwrap_or(0.0).max(0.0);
    let (scale_to, scale_formula) = match (keyword_scale, c.bm25_full) {
        (KeywordScale::Coverage { share }, Some(full)) if share * full > e.max_bm25 => {
            (share * full, format!("{share} · full match {full:.3}"))
        }
        _ => (e.max_bm25, format!("best bm25 {:.3}", e.max_bm25)),
    };
    let (k, k_formula) = if scale_to > 0.0 {
        ((bm25 / scale_to).min(1.0), format!("min(bm25 {bm25:.3} / {scale_formula}, 1)"))
    } else {
        (0.0, "0 (no keyword match)".to_owned())
    };
    Explanation {
        value: vector * v + keyword * k,
        description: format!(
            "relevance = {vector} · v + {keyword} · k, scaled against this query's candidates"
        ),
        details: vec![
            Explanation::leaf(v, format!("v = {v_formula} = {v:.4}; {}", cosine_description(c))),
            Explanation::leaf(k, format!("k = {k_formula} = {k:.4}; {}", bm25_description(c))),
        ],
    }
}

/// The age factor: the design's decay, a bounded prior, or 1.
fn recency(c: &Candidate, now: Timestamp, recency: Recency) -> Explanation {
    let days = ((now - c.occurred_at).num_milliseconds() as f64 / 86_400_000.0).max(0.0) as f32;
    match recency {
        Recency::Off => Explanation::leaf(1.0, "recency = 1 (off)"),
        Recency::Decay { per_day } => Explanation::leaf(
            (-per_day * days).exp(),
            format!("decay = exp(−{per_day} · {days:.2} days)"),
        ),
        Recency::Prior { weight, .. } if c.memory_type == MemoryType::Semantic => {
            Explanation::leaf(1.0 + weight, format!("recency = 1 + {weight} (semantic: no decay)"))
        }
        Recency::Prior { weight, half_life_days } => {
            let fresh = if half_life_days > 0.0 { (-days / half_life_days).exp2() } else { 0.0 };
            Explanation::leaf(
                1.0 + weight * fresh,
                format!("recency = 1 + {weight} · 2^(−{days:.2} days / {half_life_days})"),
            )
        }
    }
}

/// `1 + w · min(ln(1 + n) / ln(1 + saturation), 1)`, or the design's `1 + w · ln(1 + n)`.
fn heat(access_count: u64, weight: f32, saturation: Option<u64>) -> Explanation {
    let Some(saturation) = saturation else {
        let value = 1.0 + weight * (access_count as f32).ln_1p();
        return Explanation::leaf(
            value,
            format!("heat = 1 + {weight} · ln(1 + {access_count} accesses)"),
        );
    };
    let full = (saturation as f32).ln_1p();
    let share = if full > 0.0 { ((access_count as f32).ln_1p() / full).min(1.0) } else { 0.0 };
    let value = 1.0 + weight * share;
    Explanation::leaf(
        value,
        format!("heat = 1 + {weight} · min(ln(1 + {access_count} uses) / ln(1 + {saturation}), 1)"),
    )
}

fn cosine_description(c: &Candidate) -> String {
    let shift = if c.cosine_shift == 0.0 {
        String::new()
    } else {
        format!(
            "; {:+.2} to read it on the scale of the query's script (the memory is in another)",
            c.cosine_shift
        )
    };
    match (c.cosine, c.vector_rank) {
        (Some(_), Some(r)) => {
            format!("cos: vector similarity (rank {r} among vector matches{shift})")
        }
        (Some(_), None) => {
            format!("cos: vector similarity (outside the vector candidate list{shift})")
        }
        (None, _) => "cos: no vector for this memory in the query's model space".to_owned(),
    }
}

fn bm25_description(c: &Candidate) -> String {
    match (c.bm25, c.keyword_rank) {
        (Some(_), Some(r)) => format!("bm25: keyword match (rank {r} among keyword matches)"),
        _ => "bm25: not among the keyword matches".to_owned(),
    }
}

fn rank_description(list: &str, rank: Option<usize>, raw: Option<f32>, raw_name: &str) -> String {
    match (rank, raw) {
        (Some(r), Some(v)) => format!("{list} list: rank {r} ({raw_name} {v:.4})"),
        (Some(r), None) => format!("{list} list: rank {r}"),
        (None, _) => format!("{list} list: absent"),
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, TimeDelta};
    use proptest::prelude::*;

    use super::*;
    use crate::testing::{id, ids};

    fn now() -> Timestamp {
        DateTime::from_timestamp(1_750_000_000, 0).unwrap()
    }

    fn candidate(n: u128, cosine: f32, bm25: f32) -> Candidate {
        Candidate {
            id: id(n),
            memory_type: MemoryType::Episodic,
            cosine: Some(cosine),
            vector_rank: Some(1),
            bm25: Some(bm25),
            keyword_rank: Some(1),
            bm25_full: None,
            occurred_at: now(),
            access_count: 0,
            cosine_shift: 0.0,
        }
    }

    fn score(c: Candidate, config: &RankingConfig) -> f32 {
        rank(&[c], config, now(), TierOrder::ByScore)[0].score
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-5
    }

    #[test]
    fn design_formula_numerically() {
        let config = RankingConfig::DESIGN;
        // 0.7 · 0.8 + 0.3 · min(5 / 10, 1) = 0.56 + 0.15.
        assert!(close(score(candidate(1, 0.8, 5.0), &config), 0.71));
        // BM25 saturates at 10: 0.7 · 0.5 + 0.3 · 1.
        assert!(close(score(candidate(1, 0.5, 25.0), &config), 0.65));
        // Negative cosine counts as 0.
        assert!(close(score(candidate(1, -0.4, 10.0), &config), 0.3));
    }

    #[test]
    fn design_decay_halves_the_score_at_about_69_3_days() {
        let config = RankingConfig::DESIGN;
        let fresh = score(candidate(1, 0.8, 5.0), &config);
        let mut old = candidate(1, 0.8, 5.0);
        // ln 2 / 0.01 = 69.3147 days.
        old.occurred_at = now() - TimeDelta::milliseconds((69.3147 * 86_400_000.0) as i64);
        assert!(close(score(old.clone(), &config) / fresh, 0.5), "{}", score(old, &config) / fresh);
        let mut future = candidate(1, 0.8, 5.0);
        future.occurred_at = now() + TimeDelta::days(3);
        assert!(close(score(future, &config), fresh), "future events do not get a boost");
    }

    #[test]
    fn default_recency_is_a_bounded_prior_and_semantic_memories_do_not_age() {
        let config = RankingConfig::default();
        let Recency::Prior { weight, half_life_days } = config.recency else { panic!() };
        let fresh = score(candidate(1, 0.8, 5.0), &config);
        let mut old = candidate(1, 0.8, 5.0);
        old.occurred_at = now() - TimeDelta::days(400);
        let ratio = score(old.clone(), &config) / fresh;
        assert!(ratio >= 1.0 / (1.0 + weight) - 1e-6, "an old memory keeps its relevance: {ratio}");
        let mut half = candidate(1, 0.8, 5.0);
        half.occurred_at = now() - TimeDelta::days(half_life_days as i64);
        assert!(close(score(half, &config) / fresh, (1.0 + weight / 2.0) / (1.0 + weight)));
        old.memory_type = MemoryType::Semantic;
        assert!(close(score(old, &config), fresh), "semantic memories do not decay");
        let off = RankingConfig { recency: Recency::Off, ..config };
        let mut ancient = candidate(1, 0.8, 5.0);
        ancient.occurred_at = now() - TimeDelta::days(5000);
        assert!(close(score(ancient, &off), score(candidate(1, 0.8, 5.0), &off)));
    }

    #[test]
    fn design_heat_is_unbounded_default_heat_is_capped() {
        let mut hot = candidate(1, 0.8, 5.0);
        hot.access_count = 9;
        let expected = 0.71 * (1.0 + 0.1 * 10f32.ln());
        assert!(close(score(hot.clone(), &RankingConfig::DESIGN), expected));
        let config = RankingConfig::default();
        let cold = score(candidate(1, 0.8, 5.0), &config);
        hot.access_count = 1_000_000;
        let capped = score(hot.clone(), &config);
        assert!(close(capped / cold, 1.0 + config.heat_weight), "{}", capped / cold);
        let no_heat = RankingConfig { heat_weight: 0.0, ..RankingConfig::DESIGN };
        hot.access_count = 9;
        assert!(close(score(hot, &no_heat), 0.71));
    }

    #[test]
    fn weights_are_respected() {
        let vector_only = RankingConfig {
            fusion: Fusion::Weighted { vector: 1.0, keyword: 0.0, bm25_saturation: 10.0 },
            ..RankingConfig::DESIGN
        };
        assert!(close(score(candidate(1, 0.42, 99.0), &vector_only), 0.42));
        let keyword_only = RankingConfig {
            fusion: Fusion::Weighted { vector: 0.0, keyword: 1.0, bm25_saturation: 4.0 },
            ..RankingConfig::DESIGN
        };
        assert!(close(score(candidate(1, 0.9, 2.0), &keyword_only), 0.5));
    }

    #[test]
    fn relative_fusion_scales_against_the_query_candidates() {
        let config = RankingConfig {
            recency: Recency::Off,
            heat_weight: 0.0,
            fusion: Fusion::Relative {
                vector: 0.5,
                keyword: 0.5,
                scale: VectorScale::MinMax,
                keyword_scale: KeywordScale::Max,
            },
            ..RankingConfig::default()
        };
        // BM25 scores of a five-memory namespace are small; the best one still counts fully.
        let mut port = candidate(1, 0.84, 1.4);
        port.keyword_rank = Some(1);
        let mut postgres = candidate(2, 0.86, 0.3);
        postgres.keyword_rank = Some(2);
        let mut unrelated = candidate(3, 0.80, 0.0);
        unrelated.bm25 = None;
        let ranked = rank(&[postgres, unrelated, port], &config, now(), TierOrder::ByScore);
        assert_eq!(ranked.iter().map(|s| s.id).collect::<Vec<_>>(), vec![id(1), id(2), id(3)]);
        // port: 0.5 · (0.84 − 0.80) / 0.06 + 0.5 · 1.
        assert!(close(ranked[0].score, 0.5 * (0.04 / 0.06) + 0.5), "{}", ranked[0].score);
        assert!(close(ranked[2].score, 0.0), "the least similar, with no keyword match");
    }

    #[test]
    fn rrf_sums_reciprocal_ranks() {
        let config = RankingConfig { fusion: Fusion::RRF, ..RankingConfig::DESIGN };
        let mut c = candidate(1, 0.9, 3.0);
        c.vector_rank = Some(2);
        c.keyword_rank = None;
        assert!(close(score(c.clone(), &config), 1.0 / 62.0));
        c.keyword_rank = Some(1);
        assert!(close(score(c, &config), 1.0 / 62.0 + 1.0 / 61.0));
    }

    #[test]
    fn exact_ties_go_to_the_newer_memory_then_to_the_lower_id() {
        // RRF ties exactly when the ranks swap: vector 3 + keyword 10 = vector 10 + keyword 3.
        // (Age must not weigh here, or the newer memory would win on its score.)
        let config =
            RankingConfig { fusion: Fusion::RRF, recency: Recency::Off, ..RankingConfig::DESIGN };
        let at = |n: u128, ranks: (usize, usize), days_ago: i64| {
            let mut c = candidate(n, 0.5, 1.0);
            (c.vector_rank, c.keyword_rank) = (Some(ranks.0), Some(ranks.1));
            c.occurred_at = now() - chrono::TimeDelta::days(days_ago);
            c
        };
        let ranked =
            |candidates: &[Candidate]| ids(&rank(candidates, &config, now(), TierOrder::ByScore));
        let (older, newer) = (at(1, (3, 10), 30), at(2, (10, 3), 1));
        assert_eq!(ranked(&[older.clone(), newer.clone()]), [2, 1]);
        assert_eq!(ranked(&[newer, older]), [2, 1], "whatever the input order");
        // Of one time, the lower id first.
        assert_eq!(ranked(&[at(4, (3, 10), 5), at(3, (10, 3), 5)]), [3, 4]);
    }

    #[test]
    fn explanation_names_every_signal() {
        let mut c = candidate(1, 0.8, 5.0);
        c.access_count = 3;
        let scored = &rank(&[c], &RankingConfig::default(), now(), TierOrder::ByScore)[0];
        let e = &scored.explanation;
        assert_eq!(e.value, scored.score);
        let names: Vec<&str> =
            e.details.iter().map(|d| d.description.split(' ').next().unwrap()).collect();
        assert_eq!(names, ["relevance", "recency", "heat"]);
        assert!(close(e.details.iter().map(|d| d.value).product(), scored.score));
        assert!(close(scored.relevance, e.details[0].value));
        let design =
            &rank(&[candidate(1, 0.8, 5.0)], &RankingConfig::DESIGN, now(), TierOrder::ByScore)[0];
        assert!(close(design.explanation.details[0].details[0].value, 0.8));
        assert!(close(design.explanation.details[0].details[1].value, 5.0));
    }

    #[test]
    fn semantic_first_orders_tiers_only_among_near_ties() {
        let mut working = candidate(1, 0.99, 10.0);
        working.memory_type = MemoryType::Working;
        let mut close_semantic = candidate(2, 0.97, 10.0);
        close_semantic.memory_type = MemoryType::Semantic;
        let mut unrelated_semantic = candidate(3, 0.1, 0.0);
        unrelated_semantic.memory_type = MemoryType::Semantic;
        let config = RankingConfig::DESIGN;
        let ranked = rank(
            &[working, close_semantic, unrelated_semantic],
            &config,
            now(),
            TierOrder::SemanticFirst,
        );
        assert_eq!(ranked.iter().map(|s| s.id).collect::<Vec<_>>(), vec![id(2), id(1), id(3)]);
    }

    #[test]
    fn the_floor_is_absolute() {
        let floor = Floor { similarity: 0.8, keyword_coverage: 0.5 };
        assert!(passes_floor(&candidate(1, 0.85, 0.0), &floor));
        let mut lesser = candidate(1, 0.75, 9.0);
        lesser.keyword_rank = Some(2);
        assert!(!passes_floor(&lesser, &floor), "coverage unknown, not the best keyword match");
        assert!(passes_floor(&candidate(1, 0.75, 9.0), &floor), "the best keyword match");
        let mut rare_token = candidate(1, 0.75, 6.0);
        rare_token.bm25_full = Some(10.0);
        assert!(passes_floor(&rare_token, &floor), "covers 60 % of the query");
        rare_token.bm25 = Some(2.0);
        assert!(!passes_floor(&rare_token, &floor), "covers 20 %");
        let mut no_vector = candidate(1, 0.0, 2.0);
        no_vector.cosine = None;
        assert!(passes_floor(&no_vector, &floor), "best keyword match, coverage unknown");
        no_vector.keyword_rank = Some(2);
        assert!(!passes_floor(&no_vector, &floor), "a lesser match, coverage unknown");
        no_vector.bm25_full = Some(3.0);
        assert!(passes_floor(&no_vector, &floor), "covers two thirds");
        no_vector.bm25_full = Some(30.0);
        assert!(!passes_floor(&no_vector, &floor), "one common character of a long query");
        no_vector.bm25 = None;
        assert!(!passes_floor(&no_vector, &floor));
    }

    fn arb_candidate() -> impl Strategy<Value = Candidate> {
        (0u128..1000, 0.0f32..1.0, 0.0f32..30.0, 0i64..400, 0u64..50, any::<bool>()).prop_map(
            |(n, cos, bm25, days, hits, has_kw)| Candidate {
                id: id(n),
                memory_type: MemoryType::Episodic,
                cosine: Some(cos),
                vector_rank: Some((n % 20) as usize + 1),
                bm25: has_kw.then_some(bm25),
                keyword_rank: has_kw.then_some((n % 7) as usize + 1),
                bm25_full: None,
                occurred_at: now() - TimeDelta::days(days),
                access_count: hits,
                cosine_shift: 0.0,
            },
        )
    }

    fn dedup_ids(mut cs: Vec<Candidate>) -> Vec<Candidate> {
        let mut seen = std::collections::HashSet::new();
        cs.retain(|c| seen.insert(c.id));
        cs
    }

    proptest! {
        #[test]
        fn order_does_not_depend_on_input_order(cs in prop::collection::vec(arb_candidate(), 0..30)) {
            let cs = dedup_ids(cs);
            let mut reversed = cs.clone();
            reversed.reverse();
            let config = RankingConfig::default();
            let a: Vec<MemoryId> = rank(&cs, &config, now(), TierOrder::ByScore).iter().map(|s| s.id).collect();
            let b: Vec<MemoryId> = rank(&reversed, &config, now(), TierOrder::ByScore).iter().map(|s| s.id).collect();
            prop_assert_eq!(a, b);
        }

        #[test]
        fn scores_are_sorted_finite_and_non_negative(cs in prop::collection::vec(arb_candidate(), 0..30)) {
            let ranked = rank(&dedup_ids(cs), &RankingConfig::default(), now(), TierOrder::ByScore);
            for pair in ranked.windows(2) {
                prop_assert!(pair[0].score >= pair[1].score);
            }
            for s in &ranked {
                prop_assert!(s.score.is_finite() && s.score >= 0.0);
            }
        }

        #[test]
        fn each_signal_is_monotone(c in arb_candidate(), bump in 0.01f32..0.5) {
            let config = RankingConfig::default();
            let base = score(c.clone(), &config);
            let mut more_similar = c.clone();
            more_similar.cosine = Some((c.cosine.unwrap() + bump).min(1.0));
            prop_assert!(score(more_similar, &config) >= base);
            let mut more_keyword = c.clone();
            more_keyword.bm25 = Some(c.bm25.unwrap_or(0.0) + bump * 10.0);
            prop_assert!(score(more_keyword, &config) >= base);
            let mut hotter = c.clone();
            hotter.access_count += 1;
            prop_assert!(score(hotter, &config) >= base);
            let mut older = c.clone();
            older.occurred_at -= TimeDelta::days(1);
            prop_assert!(score(older, &config) <= base);
        }
    }
}
