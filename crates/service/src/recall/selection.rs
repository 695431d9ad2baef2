//! Stage 5 of recall: the relevance floor, then the top k within the token budget.

use std::collections::HashMap;

use rearview_core::{Memory, MemoryId};
use rearview_ranking::{Candidate, Floor, Scored};

use super::MAX_CHAIN;
use crate::requests::{Shown, estimate_tokens};
use crate::{RecallHit, RecallRequest};

/// Stage 5a: drops what scores under the relevance floor; returns the rest (in order) and what
/// was dropped. A memory placed instead of another (`lifted`: it, the other one: a newer
/// statement before an older one, a current memory instead of what it superseded) passes when
/// that one does.
pub(super) fn above_floor(
    ranked: Vec<Scored>,
    candidates: &[Candidate],
    floor: Option<&Floor>,
    lifted: &HashMap<MemoryId, MemoryId>,
) -> (Vec<Scored>, Vec<MemoryId>) {
    let Some(floor) = floor else { return (ranked, Vec::new()) };
    let by_id: HashMap<MemoryId, &Candidate> = candidates.iter().map(|c| (c.id, c)).collect();
    let passes =
        |id: &MemoryId| by_id.get(id).is_some_and(|c| rearview_ranking::passes_floor(c, floor));
    // A memory placed instead of another passes as that one does, along the chain.
    let passes_via = |id: &MemoryId| {
        let mut at = *id;
        for _ in 0..=MAX_CHAIN {
            if passes(&at) {
                return true;
            }
            match lifted.get(&at) {
                Some(older) => at = *older,
                None => return false,
            }
        }
        false
    };
    let (kept, dropped): (Vec<Scored>, Vec<Scored>) =
        ranked.into_iter().partition(|s| passes_via(&s.id));
    (kept, dropped.into_iter().map(|s| s.id).collect())
}

/// Stage 5b: the top `top_k`, and with `max_tokens`, the best that fit the budget (a long
/// memory shown by its summary when only that fits), with how many better-ranked memories did
/// not fit.
pub(super) fn select(
    ranked: Vec<Scored>,
    memories: &HashMap<MemoryId, Memory>,
    request: &RecallRequest,
) -> (Vec<RecallHit>, usize) {
    let mut budget = request.max_tokens;
    let mut hits = Vec::new();
    let mut over_budget = 0;
    for scored in ranked {
        if hits.len() == request.top_k {
            break;
        }
        let Some(memory) = memories.get(&scored.id) else { continue };
        let shown = match budget.as_mut() {
            None => Shown::Content,
            Some(left) => {
                let full = estimate_tokens(&memory.content);
                let short = memory.summary.as_deref().map(estimate_tokens);
                if full <= *left {
                    *left -= full;
                    Shown::Content
                } else if let Some(short) = short.filter(|s| *s <= *left) {
                    *left -= short;
                    Shown::Summary
                } else {
                    over_budget += 1;
                    continue;
                }
            }
        };
        hits.push(RecallHit {
            memory: memory.clone(),
            score: scored.score,
            explanation: Some(scored.explanation),
            shown,
        });
    }
    (hits, over_budget)
}
