//! Links between memories applied at recall: a memory that a newer one superseded (history) is
//! answered by its current successor. The links themselves are decided when memories are
//! stored (by the caller, an LLM, or a rule that reads a stated change: the service's
//! `lifecycle/supersede.rs`) and are visible and reversible on the records; recall makes no
//! guess of its own about which memory updates which. Pure.

use std::collections::{HashMap, HashSet};

use rearview_core::MemoryId;

use crate::scored::{Explanation, Scored};

/// `ranked` with each superseded memory (history: a newer one replaced it) answered by the
/// current memory that replaced it: that one takes the superseded one's place and score (or
/// keeps its own place if it ranks higher already), and the superseded one is left out.
/// `current_of` maps every superseded candidate to its current successor, or to `None` when no
/// visible one exists (then it is only left out). Returns the list and the memories so placed,
/// each with the superseded one it took the place of. Pure.
///
/// The question usually matches the older wording (`Which city does the user live in?` and `I
/// live in Berlin`): superseding `I live in Berlin` by `I moved to Lisbon` should make the
/// recall answer with Lisbon, not only stop answering with Berlin.
///
/// `links` says, for a superseded memory, who linked it and why (`caller: …`, `rule: …`); it
/// goes into the explanation of the memory placed instead of it.
pub fn current_first(
    ranked: Vec<Scored>,
    current_of: &HashMap<MemoryId, Option<MemoryId>>,
    links: &HashMap<MemoryId, String>,
) -> (Vec<Scored>, HashMap<MemoryId, MemoryId>) {
    if current_of.is_empty() {
        return (ranked, HashMap::new());
    }
    let mut by_id: HashMap<MemoryId, Scored> = ranked.iter().map(|s| (s.id, s.clone())).collect();
    let mut placed: HashSet<MemoryId> = HashSet::new();
    let mut out: Vec<Scored> = Vec::with_capacity(ranked.len());
    let mut lifted: HashMap<MemoryId, MemoryId> = HashMap::new();
    for s in ranked {
        let Some(successor) = current_of.get(&s.id) else {
            if placed.insert(s.id) {
                out.extend(by_id.remove(&s.id));
            }
            continue;
        };
        let Some(current) = successor.filter(|c| !current_of.contains_key(c)) else { continue };
        if !placed.insert(current) {
            continue;
        }
        let own = by_id.remove(&current);
        let explanation = Explanation {
            value: s.score,
            description: match links.get(&s.id) {
                Some(link) => format!(
                    "score of the superseded statement {}, which this current one replaced \
                     (linked by {link})",
                    s.id
                ),
                None => format!(
                    "score of the superseded statement {}, which this current one replaced",
                    s.id
                ),
            },
            details: own.as_ref().map_or_else(
                || vec![s.explanation.clone()],
                |o| vec![o.explanation.clone(), s.explanation.clone()],
            ),
        };
        let relevance = own.as_ref().map_or(s.relevance, |o| o.relevance.max(s.relevance));
        lifted.insert(current, s.id);
        out.push(Scored { id: current, score: s.score, relevance, explanation });
    }
    (out, lifted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{id, ids, scored};

    #[test]
    fn a_superseded_memory_is_answered_by_its_current_successor() {
        // 1 (superseded by 3) ranks first; 2 is unrelated; 4 is superseded with no visible
        // successor; 3 ranks last on its own words.
        let ranked = vec![scored(1, 0.9), scored(4, 0.7), scored(2, 0.5), scored(3, 0.2)];
        let current_of = HashMap::from([(id(1), Some(id(3))), (id(4), None)]);
        let links = HashMap::from([(id(1), "rule: states a change".to_owned())]);
        let (out, lifted) = current_first(ranked, &current_of, &links);
        assert_eq!(ids(&out), [3, 2]);
        assert_eq!(out[0].score, 0.9, "it takes the superseded one's score");
        assert!(out[0].explanation.description.contains(&id(1).to_string()));
        assert!(out[0].explanation.description.contains("linked by rule: states a change"));
        assert_eq!(out[0].explanation.details.len(), 2, "its own score stays explained");
        assert_eq!(lifted, HashMap::from([(id(3), id(1))]));

        // A successor that is not a candidate at all still answers; one that ranks higher
        // keeps its place, and the superseded memory is only left out.
        let (out, _) =
            current_first(vec![scored(1, 0.9), scored(2, 0.5)], &current_of, &HashMap::new());
        assert_eq!(ids(&out), [3, 2]);
        let ranked = vec![scored(3, 0.95), scored(1, 0.9), scored(2, 0.5)];
        let (out, lifted) = current_first(ranked, &current_of, &HashMap::new());
        assert_eq!((ids(&out), out[0].score), (vec![3, 2], 0.95));
        assert!(lifted.is_empty());
        let (out, _) = current_first(vec![scored(2, 0.5)], &HashMap::new(), &HashMap::new());
        assert_eq!(ids(&out), [2]);
    }
}
