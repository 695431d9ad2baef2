//! Stage 3b of recall: pseudo-relevance feedback (`rearview_ranking::feedback`) for the queries
//! the ranking moves (by default, dialogues).

use std::collections::HashMap;

use rearview_core::{MemoryId, Namespace};
use rearview_ranking::{Candidate, Floor, Scored, feedback_query, passes_floor, rank, rescored};

use super::{Found, Plan, Query, note_on_vector_signal};
use crate::{MemoryService, RecallRequest, ServiceError};

impl MemoryService {
    /// The query vector in each space moved toward the first ranking's best memories (the
    /// anchors: current ones that pass the floor), and the candidates ranked again by it; the
    /// ranking as it was when the query is not moved, no anchor is found or no space has the
    /// anchors' vectors. The relevance floor still compares the question's own cosines; with
    /// `explain`, each cosine says what it was measured against.
    pub(super) async fn with_feedback(
        &self,
        namespace: &Namespace,
        ranked: Vec<Scored>,
        found: &Found,
        query: &Query,
        plan: &Plan,
        request: &RecallRequest,
    ) -> Result<Vec<Scored>, ServiceError> {
        let Some(feedback) = plan.ranking.feedback else { return Ok(ranked) };
        if query.vectors.is_empty() || !feedback.applies(query.focused.dialogue) {
            return Ok(ranked);
        }
        let anchors = anchors(&ranked, found, plan, query.floor.as_ref(), feedback.top);
        if anchors.is_empty() {
            return Ok(ranked);
        }
        let mut moved = Vec::with_capacity(query.vectors.len());
        let mut any_moved = false;
        for (model, vector) in &query.vectors {
            let stored = self.vectors_of(namespace, model, &anchors).await?;
            let stored: Vec<&[f32]> = stored
                .iter()
                .flatten()
                .map(Vec::as_slice)
                .filter(|v| v.len() == vector.dimensions())
                .collect();
            let shifted = (!stored.is_empty())
                .then(|| feedback_query(vector, &stored, feedback.weight))
                .flatten();
            any_moved |= shifted.is_some();
            moved.push((model.clone(), shifted.unwrap_or_else(|| vector.clone())));
        }
        if !any_moved {
            return Ok(ranked);
        }
        let cosines = self.cosines(namespace, &moved, &found.memories).await?;
        let candidates = rescored(&found.candidates, &cosines);
        let mut reranked = rank(&candidates, &plan.ranking, plan.now, request.tier_order);
        if request.explain {
            let toward: Vec<String> = anchors.iter().map(MemoryId::to_string).collect();
            let note = format!(
                "; feedback: cos against the query moved toward {} by {}",
                toward.join(", "),
                feedback.weight
            );
            note_on_vector_signal(&mut reranked, &note);
        }
        Ok(reranked)
    }
}

/// The best `top` memories of the first ranking that are current (not superseded history) and
/// pass the relevance floor.
fn anchors(
    ranked: &[Scored],
    found: &Found,
    plan: &Plan,
    floor: Option<&Floor>,
    top: usize,
) -> Vec<MemoryId> {
    let by_id: HashMap<MemoryId, &Candidate> = found.candidates.iter().map(|c| (c.id, c)).collect();
    ranked
        .iter()
        .filter(|s| found.memories.get(&s.id).is_some_and(|m| !m.is_superseded_at(plan.now)))
        .filter(|s| floor.is_none_or(|f| by_id.get(&s.id).is_some_and(|c| passes_floor(c, f))))
        .take(top)
        .map(|s| s.id)
        .collect()
}
