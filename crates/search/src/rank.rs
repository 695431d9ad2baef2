//! Hybrid ranking: fuse vector and keyword signals, then weigh by recency and heat.
//!
//! The default is the design's formula (§3.3) with one measured change, BM25 saturating at 20
//! instead of 10 ([`Fusion::DEFAULT`]; [`Fusion::DESIGN`] is the article's exact formula):
//!
//! ```text
//! score = relevance × decay × heat
//! relevance = 0.7 · max(cos, 0) + 0.3 · min(bm25 / 20, 1)      (Fusion::Weighted)
//! decay     = exp(−λ · days),  λ = 0.01 per day                 (halves at ln 2 / λ ≈ 69.3 days)
//! heat      = 1 + 0.1 · ln(1 + access_count)
//! ```
//!
//! - `cos` is the cosine similarity of the memory's vector to the query vector (0 when there is no
//!   vector: stored while no model was available, or no model configured). Negative cosines are
//!   clamped to 0 so the multiplicative factors cannot flip a bad match into a good one.
//! - `bm25` is the Okapi BM25 score of the keyword match (0 when no query term matches). It is
//!   divided by a saturation constant (20) and capped at 1, so one very keyword-heavy match cannot
//!   swamp semantic similarity. In a haystack of hundreds of turns, good keyword matches often
//!   score above 10, and the design's constant flattened them all to 1: on LoCoMo dev, 20 lifts
//!   frac@5 from 59.4 to 60.8 (no decay; `BENCHMARKS.md`). The raw BM25 scale depends on the corpus; with
//!   [`Fusion::Rrf`] it does not matter.
//! - `days` is the time from the memory's event time (`occurred_at`) to `now`, never negative.
//!   `λ = 0` disables decay.
//! - `access_count` is how often recalls returned the memory. A heat weight of 0 disables heat.
//!
//! Reciprocal-rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009) replaces `relevance` with
//! `Σ wᵢ / (k + rankᵢ)` over the lists the memory appears in (rank 1 = best, k = 60), which needs
//! no score normalisation.
//!
//! Ties break by memory id ascending, so the same inputs always give the same order. Every
//! [`Scored`] carries an [`Explanation`] of how its score was computed.

use rearview_core::{MemoryId, MemoryType, Timestamp};
use serde::Serialize;

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

impl Fusion {
    /// The design's weights: 0.7 / 0.3, BM25 saturating at 10.
    pub const DESIGN: Fusion =
        Fusion::Weighted { vector: 0.7, keyword: 0.3, bm25_saturation: 10.0 };
    /// The default: the design's weights with BM25 saturating at 20 (measured better on long
    /// haystacks; see the module docs).
    pub const DEFAULT: Fusion =
        Fusion::Weighted { vector: 0.7, keyword: 0.3, bm25_saturation: 20.0 };
    /// Plain RRF with k = 60 and equal weights.
    pub const RRF: Fusion = Fusion::Rrf { k: 60.0, vector: 1.0, keyword: 1.0 };
}

/// Every knob of ranking, as plain data. Defaults are the design's (§3.3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankingConfig {
    /// How vector and keyword relevance are combined.
    pub fusion: Fusion,
    /// Decay rate λ per day; 0.01 halves a score in ~69.3 days. 0 disables decay.
    pub decay_per_day: f32,
    /// Weight of `ln(1 + access_count)`; 0.1 by default. 0 disables heat.
    pub heat_weight: f32,
    /// How many vector matches become candidates (design: 20).
    pub vector_candidates: usize,
    /// How many keyword matches become candidates (design: 20).
    pub keyword_candidates: usize,
}

impl Default for RankingConfig {
    fn default() -> Self {
        Self {
            fusion: Fusion::DEFAULT,
            decay_per_day: 0.01,
            heat_weight: 0.1,
            vector_candidates: 20,
            keyword_candidates: 20,
        }
    }
}

/// Whether tiers take precedence over score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TierOrder {
    /// Order by score alone.
    #[default]
    ByScore,
    /// Semantic memories first, then episodic, then working (design §2.2); by score within a tier.
    SemanticFirst,
}

/// What we know about one candidate memory. Built by the service from the searches and the store.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Memory id.
    pub id: MemoryId,
    /// Tier, for [`TierOrder::SemanticFirst`].
    pub memory_type: MemoryType,
    /// Cosine similarity to the query, if the memory has a vector in the query's space.
    pub cosine: Option<f32>,
    /// 1-based rank in the vector candidate list, if it was in it.
    pub vector_rank: Option<usize>,
    /// BM25 score, if a query term matched and the memory was in the keyword candidate list.
    pub bm25: Option<f32>,
    /// 1-based rank in the keyword candidate list, if it was in it.
    pub keyword_rank: Option<usize>,
    /// Event time, for decay.
    pub occurred_at: Timestamp,
    /// Past recalls, for heat.
    pub access_count: u64,
}

/// A ranked candidate. `score` is ≥ 0; higher is better.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    /// Memory id.
    #[serde(serialize_with = "serialize_id")]
    pub id: MemoryId,
    /// Final score.
    pub score: f32,
    /// How `score` was computed.
    pub explanation: Explanation,
}

/// A score and how it was computed: a tree whose root is the final score (after tantivy's
/// `Explanation`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// The value of this node.
    pub value: f32,
    /// What the value is, with the formula and its inputs.
    pub description: String,
    /// The values this one was computed from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<Explanation>,
}

impl Explanation {
    fn leaf(value: f32, description: impl Into<String>) -> Self {
        Self { value, description: description.into(), details: Vec::new() }
    }
}

/// Scores `candidates` at instant `now` and sorts them best first. Pure.
///
/// Every candidate is returned (callers truncate to top-k). Order: tier first when `order` is
/// [`TierOrder::SemanticFirst`], then score descending, then id ascending.
pub fn rank(
    candidates: &[Candidate],
    config: &RankingConfig,
    now: Timestamp,
    order: TierOrder,
) -> Vec<Scored> {
    let mut scored: Vec<(u8, Scored)> = candidates
        .iter()
        .map(|c| {
            let relevance = relevance(c, &config.fusion);
            let decay = decay(c.occurred_at, now, config.decay_per_day);
            let heat = heat(c.access_count, config.heat_weight);
            let score = relevance.value * decay.value * heat.value;
            let explanation = Explanation {
                value: score,
                description: "score = relevance × decay × heat".to_owned(),
                details: vec![relevance, decay, heat],
            };
            let tier = match order {
                TierOrder::ByScore => 0,
                TierOrder::SemanticFirst => c.memory_type.priority(),
            };
            (tier, Scored { id: c.id, score, explanation })
        })
        .collect();
    scored.sort_by(|(ta, a), (tb, b)| {
        ta.cmp(tb).then_with(|| b.score.total_cmp(&a.score)).then_with(|| a.id.cmp(&b.id))
    });
    scored.into_iter().map(|(_, s)| s).collect()
}

/// The fused relevance of one candidate.
fn relevance(c: &Candidate, fusion: &Fusion) -> Explanation {
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

/// `exp(−λ · days)`, days from `occurred_at` to `now`, clamped at 0 for future events.
fn decay(occurred_at: Timestamp, now: Timestamp, per_day: f32) -> Explanation {
    let days = ((now - occurred_at).num_milliseconds() as f64 / 86_400_000.0).max(0.0) as f32;
    let value = (-per_day * days).exp();
    Explanation::leaf(value, format!("decay = exp(−{per_day} · {days:.2} days)"))
}

/// `1 + w · ln(1 + access_count)`.
fn heat(access_count: u64, weight: f32) -> Explanation {
    let value = 1.0 + weight * (access_count as f32).ln_1p();
    Explanation::leaf(value, format!("heat = 1 + {weight} · ln(1 + {access_count} accesses)"))
}

fn cosine_description(c: &Candidate) -> String {
    match (c.cosine, c.vector_rank) {
        (Some(_), Some(r)) => format!("cos: vector similarity (rank {r} among vector matches)"),
        (Some(_), None) => "cos: vector similarity (outside the vector candidate list)".to_owned(),
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

fn serialize_id<S: serde::Serializer>(id: &MemoryId, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(id)
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, TimeDelta};
    use proptest::prelude::*;

    use super::*;

    fn now() -> Timestamp {
        DateTime::from_timestamp(1_750_000_000, 0).unwrap()
    }

    fn id(n: u128) -> MemoryId {
        MemoryId(uuid::Uuid::from_u128(n))
    }

    fn candidate(n: u128, cosine: f32, bm25: f32) -> Candidate {
        Candidate {
            id: id(n),
            memory_type: MemoryType::Episodic,
            cosine: Some(cosine),
            vector_rank: Some(1),
            bm25: Some(bm25),
            keyword_rank: Some(1),
            occurred_at: now(),
            access_count: 0,
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
        let config = RankingConfig { fusion: Fusion::DESIGN, ..RankingConfig::default() };
        // 0.7 · 0.8 + 0.3 · min(5 / 10, 1) = 0.56 + 0.15.
        assert!(close(score(candidate(1, 0.8, 5.0), &config), 0.71));
        // The default saturates at 20: 0.56 + 0.3 · 0.25.
        assert!(close(score(candidate(1, 0.8, 5.0), &RankingConfig::default()), 0.635));
        // BM25 saturates at 10: 0.7 · 0.5 + 0.3 · 1.
        assert!(close(score(candidate(1, 0.5, 25.0), &config), 0.65));
        // Negative cosine counts as 0.
        assert!(close(score(candidate(1, -0.4, 10.0), &config), 0.3));
    }

    #[test]
    fn decay_halves_the_score_at_about_69_3_days() {
        let config = RankingConfig::default();
        let fresh = score(candidate(1, 0.8, 5.0), &config);
        let mut old = candidate(1, 0.8, 5.0);
        // ln 2 / 0.01 = 69.3147 days.
        old.occurred_at = now() - TimeDelta::milliseconds((69.3147 * 86_400_000.0) as i64);
        assert!(close(score(old.clone(), &config) / fresh, 0.5), "{}", score(old, &config) / fresh);
        let mut future = candidate(1, 0.8, 5.0);
        future.occurred_at = now() + TimeDelta::days(3);
        assert!(close(score(future, &config), fresh), "future events do not get a boost");
        let no_decay = RankingConfig { decay_per_day: 0.0, ..config };
        let mut ancient = candidate(1, 0.8, 5.0);
        ancient.occurred_at = now() - TimeDelta::days(5000);
        assert!(close(score(ancient, &no_decay), fresh));
    }

    #[test]
    fn heat_multiplies_by_one_plus_weighted_log_accesses() {
        let config = RankingConfig { fusion: Fusion::DESIGN, ..RankingConfig::default() };
        let mut hot = candidate(1, 0.8, 5.0);
        hot.access_count = 9;
        let expected = 0.71 * (1.0 + 0.1 * 10f32.ln());
        assert!(close(score(hot.clone(), &config), expected));
        let no_heat = RankingConfig { heat_weight: 0.0, ..config };
        assert!(close(score(hot, &no_heat), 0.71));
    }

    #[test]
    fn weights_are_respected() {
        let vector_only = RankingConfig {
            fusion: Fusion::Weighted { vector: 1.0, keyword: 0.0, bm25_saturation: 10.0 },
            ..Default::default()
        };
        assert!(close(score(candidate(1, 0.42, 99.0), &vector_only), 0.42));
        let keyword_only = RankingConfig {
            fusion: Fusion::Weighted { vector: 0.0, keyword: 1.0, bm25_saturation: 4.0 },
            ..Default::default()
        };
        assert!(close(score(candidate(1, 0.9, 2.0), &keyword_only), 0.5));
    }

    #[test]
    fn rrf_sums_reciprocal_ranks() {
        let config = RankingConfig { fusion: Fusion::RRF, ..Default::default() };
        let mut c = candidate(1, 0.9, 3.0);
        c.vector_rank = Some(2);
        c.keyword_rank = None;
        assert!(close(score(c.clone(), &config), 1.0 / 62.0));
        c.keyword_rank = Some(1);
        assert!(close(score(c, &config), 1.0 / 62.0 + 1.0 / 61.0));
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
        assert_eq!(names, ["relevance", "decay", "heat"]);
        assert!(close(e.details.iter().map(|d| d.value).product(), scored.score));
        assert!(close(e.details[0].details[0].value, 0.8));
        assert!(close(e.details[0].details[1].value, 5.0));
    }

    #[test]
    fn semantic_first_puts_tiers_before_scores() {
        let mut working = candidate(1, 0.99, 10.0);
        working.memory_type = MemoryType::Working;
        let mut semantic = candidate(2, 0.1, 0.0);
        semantic.memory_type = MemoryType::Semantic;
        let ranked =
            rank(&[working, semantic], &RankingConfig::default(), now(), TierOrder::SemanticFirst);
        assert_eq!(ranked.iter().map(|s| s.id).collect::<Vec<_>>(), vec![id(2), id(1)]);
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
                occurred_at: now() - TimeDelta::days(days),
                access_count: hits,
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
