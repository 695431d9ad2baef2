//! Stage 4c of recall: the reply to a question placed right after it
//! (`rearview_ranking::replies`); the lookup of each reply is here.

use std::collections::HashMap;

use chrono::TimeDelta;
use rearview_core::{Memory, MemoryFilter, MemoryId, Namespace};
use rearview_ranking::{Scored, asks, passes_floor, place_replies};
use rearview_store::Page;

use super::{Found, Plan, Query};
use crate::{MemoryService, ServiceError};

/// Memories looked at after a question to find its reply.
const LOOKAHEAD: u64 = 64;

impl MemoryService {
    /// Places after each question among the first `among_first` (at most `top_k`) memories of
    /// `ranked` that passes the relevance floor its reply: the next memory after it that the
    /// request may see, within `within_secs`.
    /// - A question with a session: the next memory of that session, looked up in the store;
    ///   it joins `found.memories`, and `lifted` maps it to its question so that it passes the
    ///   floor as the question does.
    /// - A question without one: the next memory of the namespace, only when it is a candidate
    ///   of this recall (the searches found it too); it must pass the floor on its own. Without
    ///   a session, the next memory may belong to another conversation.
    pub(super) async fn with_replies(
        &self,
        namespace: &Namespace,
        ranked: Vec<Scored>,
        found: &mut Found,
        (query, plan, top_k): (&Query, &Plan, usize),
        lifted: &mut HashMap<MemoryId, MemoryId>,
    ) -> Result<Vec<Scored>, ServiceError> {
        let Some(config) = plan.ranking.replies else { return Ok(ranked) };
        let within = TimeDelta::seconds(i64::from(config.within_secs));
        let candidates: HashMap<MemoryId, _> = found.candidates.iter().map(|c| (c.id, c)).collect();
        let mut pairs = Vec::new();
        for scored in ranked.iter().take(config.among_first.min(top_k)) {
            let Some(question) = found.memories.get(&scored.id) else { continue };
            let relevant = candidates
                .get(&question.id)
                .is_some_and(|c| query.floor.as_ref().is_none_or(|f| passes_floor(c, f)));
            if !relevant || !asks(&question.content) {
                continue;
            }
            let Some(reply) = self.reply_to(namespace, question, within, plan).await? else {
                continue;
            };
            if question.session_id.is_some() {
                lifted.entry(reply.id).or_insert(question.id);
            } else if !candidates.contains_key(&reply.id) {
                continue;
            }
            pairs.push((question.id, reply.id));
            found.memories.entry(reply.id).or_insert(reply);
        }
        Ok(place_replies(ranked, &pairs))
    }

    /// The first memory after `question` (later, or at the same instant with a greater id; at
    /// most `within` later; in its session when it has one) that the request's filter lets
    /// through; `None` when there is none, or when so many follow within `within` that the
    /// first is not among those read.
    async fn reply_to(
        &self,
        namespace: &Namespace,
        question: &Memory,
        within: TimeDelta,
        plan: &Plan,
    ) -> Result<Option<Memory>, ServiceError> {
        // Within the request's own bounds (`as_of` among them: a reply not yet given is not
        // one).
        let (after, before) = (question.occurred_at, question.occurred_at + within);
        let filter = MemoryFilter {
            occurred_after: Some(plan.filter.occurred_after.map_or(after, |a| a.max(after))),
            occurred_before: Some(plan.filter.occurred_before.map_or(before, |b| b.min(before))),
            session_id: question.session_id.clone().or(plan.filter.session_id.clone()),
            ..plan.filter.clone()
        };
        let page = Page { offset: 0, limit: LOOKAHEAD };
        let later = self.store.list(namespace, &filter, plan.now, page).await?;
        if later.len() as u64 == LOOKAHEAD {
            // Newest first: the earliest may be beyond the page.
            return Ok(None);
        }
        let asked = (question.occurred_at, question.id.0);
        Ok(later
            .into_iter()
            .filter(|m| (m.occurred_at, m.id.0) > asked)
            .min_by_key(|m| (m.occurred_at, m.id.0)))
    }
}
