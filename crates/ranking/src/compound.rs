//! A compound question's parts (`rearview_language::question_parts`), each ranked on its own,
//! merged into one list by [`merge_parts`]: each part's best memory level with the best part's,
//! so neither question's answers drop out of the top k.

use std::collections::HashMap;

use rearview_core::MemoryId;

use crate::rank::TierOrder;
use crate::scored::{Explanation, Scored};

/// One ranked list per part of a compound question (each best first), as one list: every
/// part's scores scaled so its best equals the best part's best, each memory at its highest
/// scaled score, best first (ties in part order), in tiers first as [`rank`](crate::rank::rank)
/// orders them under `order` (`priority`: a memory's tier priority). `parts` names the parts for
/// the explanations.
pub fn merge_parts(
    parts: &[&str],
    lists: Vec<Vec<Scored>>,
    order: TierOrder,
    priority: impl Fn(MemoryId) -> u8,
) -> Vec<Scored> {
    let tops: Vec<f32> = lists.iter().map(|l| l.first().map_or(0.0, |s| s.score)).collect();
    let best = tops.iter().copied().fold(0.0_f32, f32::max);
    let n = lists.len();
    let mut merged: Vec<Scored> = Vec::new();
    let mut at: HashMap<MemoryId, usize> = HashMap::new();
    for (i, list) in lists.into_iter().enumerate() {
        let factor = if tops[i] > 0.0 { best / tops[i] } else { 1.0 };
        let part = parts.get(i).copied().unwrap_or_default();
        let description = format!(
            "part {} of {n} of a compound question ({part:?}): its score × {factor:.3}, which \
             levels this part's best memory with the best part's",
            i + 1
        );
        for scored in list {
            let value = scored.score * factor;
            let description = description.clone();
            let id = scored.id;
            let relevance = scored.relevance;
            let explanation = Explanation { value, description, details: vec![scored.explanation] };
            let scaled = Scored { id, score: value, relevance, explanation };
            match at.get(&id) {
                Some(&k) if merged[k].score >= value => {}
                Some(&k) => merged[k] = scaled,
                None => {
                    at.insert(id, merged.len());
                    merged.push(scaled);
                }
            }
        }
    }
    let tier = |s: &Scored| order.key(s.score, best, priority(s.id));
    // Stable: equal scores stay in part order.
    merged.sort_by(|a, b| tier(a).cmp(&tier(b)).then_with(|| b.score.total_cmp(&a.score)));
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{ids, scored};

    #[test]
    fn parts_are_levelled_at_their_best_and_each_memory_counted_once() {
        let first = vec![scored(1, 0.9), scored(2, 0.85), scored(3, 0.6)];
        let second = vec![scored(4, 0.6), scored(3, 0.5), scored(5, 0.3)];
        let merged = merge_parts(&["a?", "b?"], vec![first, second], TierOrder::ByScore, |_| 0);
        let order = ids(&merged);
        // Part 2 × 1.5: 4 → 0.9 (ties with 1, after it), 3 → 0.75 (its best), 5 → 0.45.
        assert_eq!(order, vec![1, 4, 2, 3, 5]);
        assert!((merged[3].score - 0.75).abs() < 1e-6);
        assert!(merged[1].explanation.description.starts_with("part 2 of 2"));
        assert_eq!(merged[1].explanation.details[0].value, 0.6, "the part's own score inside");
        assert_eq!(merged[1].relevance, 0.6, "relevance is the part's, unscaled");
        assert!(merge_parts(&["a?"], vec![vec![]], TierOrder::ByScore, |_| 0).is_empty());
        // With tiers first, a semantic memory (priority 0) within the band leads.
        let first = vec![scored(1, 0.9), scored(2, 0.85)];
        let second = vec![scored(4, 0.6)];
        let semantic_two = |id: MemoryId| u8::from(id != crate::testing::id(2));
        let merged =
            merge_parts(&["a?", "b?"], vec![first, second], TierOrder::SemanticFirst, semantic_two);
        assert_eq!(ids(&merged), vec![2, 1, 4]);
    }
}
