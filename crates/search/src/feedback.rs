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
//! By default only a dialogue query (one [`focus`](crate::focus) gives a tail) is moved, toward
//! its single best memory by 0.3 ([`Feedback::DEFAULT`]): a dialogue's vector blends many turns
//! and sits between topics, and the best memory it found anchors it; a single question's vector
//! is already specific, and moving it cost LoCoMo and MemDaily a little (`BENCHMARKS.md`,
//! "Feedback for dialogue queries").

use rearview_core::Embedding;

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

#[cfg(test)]
mod tests {
    use super::*;

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
