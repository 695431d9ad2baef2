//! A compound question's answers, one per part, as one answer before selection.

use std::collections::HashSet;

use rearview_ranking::{TierOrder, merge_parts};

use super::Answer;

/// The parts' answers merged: their lists by [`merge_parts`] (in tiers first under
/// `order`), their memories, what the floor left out of every list, the embedding time of all
/// parts, the first part's vector search (every part embeds with the same models) and every
/// part's terms once.
pub(super) fn merge(parts: &[&str], answers: Vec<Answer>, order: TierOrder) -> Answer {
    let mut merged = Answer {
        kept: Vec::new(),
        memories: Default::default(),
        below_floor: Vec::new(),
        embed: Default::default(),
        vector_search: crate::VectorSearch::NoModel,
        terms: Vec::new(),
    };
    let mut lists = Vec::with_capacity(answers.len());
    for (i, answer) in answers.into_iter().enumerate() {
        lists.push(answer.kept);
        merged.memories.extend(answer.memories);
        merged.below_floor.extend(answer.below_floor);
        merged.embed += answer.embed;
        if i == 0 {
            merged.vector_search = answer.vector_search;
        }
        for term in answer.terms {
            if !merged.terms.contains(&term) {
                merged.terms.push(term);
            }
        }
    }
    let memories = &merged.memories;
    let priority = |id| memories.get(&id).map_or(u8::MAX, |m| m.memory_type.priority());
    merged.kept = merge_parts(parts, lists, order, priority);
    // A memory under the floor for one part and above it for another is not left out.
    let kept: HashSet<_> = merged.kept.iter().map(|s| s.id).collect();
    let mut seen = HashSet::new();
    merged.below_floor.retain(|id| !kept.contains(id) && seen.insert(*id));
    merged
}
