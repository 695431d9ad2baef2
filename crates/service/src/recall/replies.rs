//! Stage 4c of recall: the reply to a question placed right after it
//! (`rearview_search::replies`); the lookup of each reply is here.

use std::collections::HashMap;

use chrono::TimeDelta;
use rearview_core::{Memory, MemoryFilter, MemoryId, Namespace};
use rearview_search::{Scored, asks, place_replies};
use rearview_store::Page;

use super::{Found, Plan};
use crate::{MemoryService, ServiceError};

/// Turns of one conversation looked at after a question to find its reply.
const LOOKAHEAD: u64 = 64;

impl MemoryService {
    /// Places after each question among the first `among_first` memories of `ranked` its
    /// reply, the next memory after it that the request may see (same session when it has one,
    /// within `within_secs`). A reply found by the lookup joins `found.memories`; `lifted` maps
    /// it to its question, so that it passes the relevance floor when the question does.
    pub(super) async fn with_replies(
        &self,
        namespace: &Namespace,
        ranked: Vec<Scored>,
        found: &mut Found,
        plan: &Plan,
        lifted: &mut HashMap<MemoryId, MemoryId>,
    ) -> Result<Vec<Scored>, ServiceError> {
        let Some(config) = plan.ranking.replies else { return Ok(ranked) };
        let mut pairs = Vec::new();
        for scored in ranked.iter().take(config.among_first) {
            let Some(question) = found.memories.get(&scored.id) else { continue };
            if !asks(&question.content) {
                continue;
            }
            let within = TimeDelta::seconds(i64::from(config.within_secs));
            let Some(reply) = self.reply_to(namespace, question, within, plan).await? else {
                continue;
            };
            pairs.push((question.id, reply.id));
            lifted.entry(reply.id).or_insert(question.id);
            found.memories.entry(reply.id).or_insert(reply);
        }
        Ok(place_replies(ranked, &pairs))
    }

    /// The first memory after `question` (strictly later, at most `within` later, in its
    /// session when it has one) that the request's filter lets through; `None` when there is
    /// none, or when so many follow within `within` that the first is not among those read.
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
        Ok(later
            .into_iter()
            .filter(|m| m.id != question.id && m.occurred_at > question.occurred_at)
            .min_by_key(|m| (m.occurred_at, m.id.0)))
    }
}
