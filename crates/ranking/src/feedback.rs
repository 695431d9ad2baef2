//! Pseudo-relevance feedback on the query vector (Rocchio, 1971; applied to dense retrieval by
//! Li et al., "Pseudo Relevance Feedback with Deep Language Models and Dense Retrievers", 2021).
//!
//! A first ranking's best memories say what the query is about in the memories' own words: the
//! query vector moved toward their mean finds the memories near them that the question alone
//! was too short or too differently worded to reach.
//!
//! ```text
//! q' = normalise(q + weight · mean(v₁ … v_top))
//! ```
//!
//! The candidates are then scored again against `q'` (the searches are not repeated); the
//! relevance floor still compares the question's own cosines. Pure: the caller fetches the
//! vectors.
//!
//! By default only a dialogue query (three or more turns, [`mod@rearview_language::focus`]) is moved, toward
//! its single best memory by 0.3 ([`Feedback::DEFAULT`]): a dialogue's vector blends many turns
//! and sits between topics, and the best memory it found anchors it; a single question's vector
//! is already specific, and moving it cost LoCoMo and MemDaily a little (`BENCHMARKS.md`,
//! "Feedback for dialogue queries").

use std::collections::HashMap;

use rearview_core::{Embedding, MemoryId};

use crate::Candidate;

/// How the query vector follows the first ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Feedback {
    /// How many of the first ranking's best memories the query moves toward.
    pub top: usize,
    /// How far: the weight of their mean against the query's 1.
    pub weight: f32,
    /// Only dialogue queries (those focusing gave a tail) are moved; questions are left alone.
    pub dialogues_only: bool,
}

impl Feedback {
    /// The default: a dialogue query moved toward its best memory by 0.3.
    pub const DEFAULT: Feedback = Feedback { top: 1, weight: 0.3, dialogues_only: true };

    /// Whether a query is moved: `dialogue` says focusing found it a dialogue.
    pub fn applies(&self, dialogue: bool) -> bool {
        self.top > 0 && self.weight > 0.0 && (dialogue || !self.dialogues_only)
    }
}

/// `normalise(query + weight · mean(feedback))`; the query unchanged when no feedback vector
/// has its dimensions, `None` when the sum is degenerate.
pub fn feedback_query(query: &Embedding, feedback: &[&[f32]], weight: f32) -> Option<Embedding> {
    let q = query.as_slice();
    let usable: Vec<&[f32]> = feedback.iter().copied().filter(|v| v.len() == q.len()).collect();
    if usable.is_empty() || weight <= 0.0 {
        return Some(query.clone());
    }
    let scale = weight / usable.len() as f32;
    let mut moved = q.to_vec();
    for v in usable {
        for (m, x) in moved.iter_mut().zip(v) {
            *m += scale * x;
        }
    }
    Embedding::new(moved).ok()
}

/// `candidates` with the cosines of the moved query (`None` where a memory has no vector in
/// its spaces; each shifted by its [`Candidate::cosine_shift`]) and their vector ranks renumbered by them: the memories that were vector matches
/// keep being the vector matches, in their new order (what [`Fusion::Rrf`](crate::Fusion::Rrf)
/// and the explanation read).
pub fn rescored(candidates: &[Candidate], cosines: &HashMap<MemoryId, f32>) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = candidates
        .iter()
        .map(|c| Candidate {
            cosine: cosines.get(&c.id).map(|cos| cos + c.cosine_shift),
            ..c.clone()
        })
        .collect();
    let mut matches: Vec<usize> =
        (0..out.len()).filter(|i| out[*i].vector_rank.is_some()).collect();
    let key = |c: &Candidate| c.cosine.unwrap_or(f32::NEG_INFINITY);
    matches
        .sort_by(|a, b| key(&out[*b]).total_cmp(&key(&out[*a])).then(out[*a].id.cmp(&out[*b].id)));
    for (rank, i) in matches.into_iter().enumerate() {
        out[i].vector_rank = Some(rank + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rearview_core::{MemoryType, Timestamp};

    fn candidate(n: u128, cosine: f32, vector_rank: Option<usize>) -> Candidate {
        Candidate {
            id: MemoryId(uuid::Uuid::from_u128(n)),
            memory_type: MemoryType::Episodic,
            cosine: Some(cosine),
            vector_rank,
            bm25: None,
            keyword_rank: None,
            bm25_full: None,
            occurred_at: Timestamp::default(),
            access_count: 0,
            cosine_shift: 0.0,
        }
    }

    #[test]
    fn rescoring_takes_the_new_cosines_and_renumbers_the_vector_matches() {
        let old = [candidate(1, 0.9, Some(1)), candidate(2, 0.8, Some(2)), candidate(3, 0.7, None)];
        let new: HashMap<MemoryId, f32> =
            [(old[0].id, 0.6), (old[1].id, 0.95), (old[2].id, 0.99)].into_iter().collect();
        let got = rescored(&old, &new);
        let summary: Vec<(f32, Option<usize>)> =
            got.iter().map(|c| (c.cosine.unwrap(), c.vector_rank)).collect();
        // The keyword-only candidate gets its new cosine but does not become a vector match.
        assert_eq!(summary, [(0.6, Some(2)), (0.95, Some(1)), (0.99, None)]);
        let without: HashMap<MemoryId, f32> = HashMap::new();
        assert!(rescored(&old, &without).iter().all(|c| c.cosine.is_none()));
    }

    fn unit(v: &[f32]) -> Embedding {
        Embedding::new(v.to_vec()).unwrap()
    }

    #[test]
    fn moves_toward_the_mean_of_the_feedback() {
        let q = unit(&[1.0, 0.0, 0.0]);
        let moved = feedback_query(&q, &[&[0.0, 1.0, 0.0], &[0.0, 0.0, 1.0]], 1.0).unwrap();
        // q + (0, 0.5, 0.5), normalised.
        let norm = (1.0f32 + 0.25 + 0.25).sqrt();
        let expected = [1.0 / norm, 0.5 / norm, 0.5 / norm];
        for (got, want) in moved.as_slice().iter().zip(expected) {
            assert!((got - want).abs() < 1e-6, "{got} vs {want}");
        }
    }

    #[test]
    fn no_usable_feedback_leaves_the_query_as_it_is() {
        let q = unit(&[0.6, 0.8]);
        assert_eq!(feedback_query(&q, &[], 0.5).unwrap(), q);
        assert_eq!(feedback_query(&q, &[&[1.0, 0.0, 0.0]], 0.5).unwrap(), q);
        assert_eq!(feedback_query(&q, &[&[1.0, 0.0]], 0.0).unwrap(), q);
    }

    #[test]
    fn by_default_only_dialogues_are_moved() {
        assert!(Feedback::DEFAULT.applies(true));
        assert!(!Feedback::DEFAULT.applies(false));
        let everywhere = Feedback { dialogues_only: false, ..Feedback::DEFAULT };
        assert!(everywhere.applies(false));
        assert!(!Feedback { weight: 0.0, ..everywhere }.applies(true));
        assert!(!Feedback { top: 0, ..everywhere }.applies(true));
    }

    #[test]
    fn a_degenerate_sum_is_none() {
        let q = unit(&[1.0, 0.0]);
        assert!(feedback_query(&q, &[&[-1.0, 0.0]], 1.0).is_none());
    }
}
