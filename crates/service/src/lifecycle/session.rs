//! Ending a session (design §2.2): a conversation's working memories become episodes.

use rearview_core::{
    InputError, Memory, MemoryFilter, MemoryId, MemoryType, Metadata, Namespace, NewMemory,
    Timestamp,
};
use rearview_language::extract::is_small_talk;
use rearview_llm::Episode;
use rearview_store::{MemoryUpdate, Page};

use super::{SessionEnd, unchanged};
use crate::{MemoryService, ServiceError};

impl MemoryService {
    /// Ends a session (design §2.2): its working memories become episodic memories — the key
    /// events an LLM extracts when one is configured, else by rule: every turn with at least
    /// three keyword terms that its writer marked (`metadata.episode: true`) or that is neither
    /// the assistant's (`metadata.role`) nor a question becomes an episode as it is — and the working memories expire now. Greetings and acknowledgements
    /// (`你好`, `好的`, `收到`, `thanks`, `got it`, `👍`…) are skipped either way and counted in
    /// `small_talk`; a session made only of them gives no episode (and asks no LLM), and is ended
    /// all the same. If the LLM fails, nothing changes. Ending a session twice finds no working memories the second time, also when the
    /// two calls overlap; if a turn changes while the session is being ended (the LLM can take a
    /// while), nothing is written and the call fails as `Unavailable`, to be retried.
    pub async fn end_session(
        &self,
        namespace: &Namespace,
        session_id: &str,
    ) -> Result<SessionEnd, ServiceError> {
        if session_id.trim().is_empty() {
            return Err(InputError::new("session_id", "must not be empty").into());
        }
        let now = self.clock.now();
        let turns = self.session_turns(namespace, session_id, now).await?;
        let statements: Vec<&Memory> =
            turns.iter().filter(|t| !is_small_talk(&t.content)).collect();
        let mut result = SessionEnd {
            working_memories: turns.len(),
            small_talk: turns.len() - statements.len(),
            episodes: Vec::new(),
            method: "rules",
            model: None,
        };
        if turns.is_empty() {
            return Ok(result);
        }
        let planned = match self.llm().filter(|_| !statements.is_empty()) {
            Some(llm) => {
                let (planned, model) =
                    self.episodes_by_llm(llm.as_ref(), &statements, session_id, now).await?;
                result.method = "llm";
                result.model = Some(model);
                planned
            }
            None => self.episodes_by_rules(&statements, session_id),
        };
        // The slow part (summaries, embeddings) before taking the namespace.
        let mut prepared = Vec::with_capacity(planned.len());
        for (new, sources) in planned {
            prepared.push(self.prepare(namespace, new, sources, true).await?);
        }
        let guard = self.write_lock(namespace).await?;
        // Another call may have ended the session, or changed a turn, since we read them (read
        // again at a fresh "now": a call that ended it expired its turns at its own "now").
        let current = self.session_turns(namespace, session_id, self.clock.now()).await?;
        if !turns.iter().any(|t| current.iter().any(|c| c.id == t.id)) {
            tracing::info!(namespace = %namespace, session_id, "session was ended meanwhile");
            return Ok(SessionEnd {
                working_memories: 0,
                small_talk: 0,
                episodes: Vec::new(),
                method: "rules",
                model: None,
            });
        }
        if !turns.iter().all(|t| current.iter().any(|c| unchanged(t, c))) {
            return Err(ServiceError::Unavailable(format!(
                "session {session_id:?} changed while it was being ended; nothing was changed, \
                 try again"
            )));
        }
        for p in prepared {
            result.episodes.push(self.write_prepared(&guard, p).await?);
        }
        // Only now that every episode is committed: the working memories expire.
        self.expire_turns(namespace, &turns, now).await?;
        tracing::info!(namespace = %namespace, session_id, episodes = result.episodes.len(), method = result.method, "session ended");
        Ok(result)
    }

    /// The episodes the LLM extracts from a session's statements, each sourced from all of
    /// them and dated at the last one, and the model that answered.
    async fn episodes_by_llm(
        &self,
        llm: &dyn rearview_llm::LanguageModel,
        statements: &[&Memory],
        session_id: &str,
        now: Timestamp,
    ) -> Result<(Vec<(NewMemory, Vec<MemoryId>)>, String), ServiceError> {
        let inputs: Vec<Episode> = statements.iter().map(|t| episode_of(t)).collect();
        let (events, completion) =
            rearview_llm::extract_events(llm, &inputs, self.config.max_content_chars.min(2000))
                .await?;
        let sources: Vec<MemoryId> = statements.iter().map(|t| t.id).collect();
        let last = statements.last().map_or(now, |t| t.occurred_at);
        let planned = events
            .into_iter()
            .map(|event| {
                let mut metadata = Metadata::new();
                metadata.insert(
                    "promoted_by".into(),
                    serde_json::json!({"method": "llm", "model": completion.model, "session_id": session_id}),
                );
                let new = NewMemory {
                    metadata,
                    session_id: Some(session_id.to_owned()),
                    occurred_at: Some(last),
                    ..NewMemory::new(event)
                };
                (new, sources.clone())
            })
            .collect();
        Ok((planned, completion.model))
    }

    /// Without an LLM: each statement worth an episode becomes one, as it was said.
    fn episodes_by_rules(
        &self,
        statements: &[&Memory],
        session_id: &str,
    ) -> Vec<(NewMemory, Vec<MemoryId>)> {
        statements
            .iter()
            .filter(|turn| {
                worth_an_episode(turn, self.config.tokenizer.index_terms(&turn.content).len())
            })
            .map(|turn| {
                let mut metadata = turn.metadata.clone();
                metadata.insert(
                    "promoted_by".into(),
                    serde_json::json!({"method": "rules", "session_id": session_id}),
                );
                let new = NewMemory {
                    metadata,
                    session_id: Some(session_id.to_owned()),
                    occurred_at: Some(turn.occurred_at),
                    ..NewMemory::new(turn.content.clone())
                };
                (new, vec![turn.id])
            })
            .collect()
    }

    /// Expires a session's working memories at `now` (their episodes are committed).
    async fn expire_turns(
        &self,
        namespace: &Namespace,
        turns: &[Memory],
        now: Timestamp,
    ) -> Result<(), ServiceError> {
        for turn in turns {
            let secs = (now - turn.timestamp).num_seconds().max(1) as u64;
            let update =
                MemoryUpdate { ttl: Some((secs, Some(now))), at: now, ..Default::default() };
            if let Some(memory) = self.store.update(namespace, turn.id, &update).await? {
                self.indexes.replace(&memory, None, None);
            }
        }
        Ok(())
    }

    /// The live working memories of a session, oldest first.
    async fn session_turns(
        &self,
        namespace: &Namespace,
        session_id: &str,
        now: Timestamp,
    ) -> Result<Vec<Memory>, ServiceError> {
        let filter = MemoryFilter {
            memory_types: vec![MemoryType::Working],
            session_id: Some(session_id.to_owned()),
            ..Default::default()
        };
        let mut turns = Vec::new();
        loop {
            let page = Page { offset: turns.len() as u64, limit: 1000 };
            let batch = self.store.list(namespace, &filter, now, page).await?;
            let done = batch.len() < 1000;
            turns.extend(batch);
            if done {
                break;
            }
        }
        turns.sort_by(|a, b| a.occurred_at.cmp(&b.occurred_at).then(a.id.cmp(&b.id)));
        Ok(turns)
    }
}

/// The rule that promotes a working memory without an LLM: at least three keyword terms, and
/// either marked by its writer (`metadata.episode: true`, as `rearview hook` marks the
/// conclusion of an agent's turn) or neither the assistant's (or system's or a tool's) turn nor
/// a question.
fn worth_an_episode(turn: &Memory, terms: usize) -> bool {
    if terms < 3 {
        return false;
    }
    if turn.metadata.get("episode").and_then(|e| e.as_bool()) == Some(true) {
        return true;
    }
    let role = turn.metadata.get("role").and_then(|r| r.as_str()).unwrap_or("user");
    let text = turn.content.trim_end();
    !matches!(role.to_ascii_lowercase().as_str(), "assistant" | "system" | "tool")
        && !text.ends_with('?')
        && !text.ends_with('？')
}

pub(super) fn episode_of(memory: &Memory) -> Episode {
    Episode {
        when: memory.occurred_at.format("%Y-%m-%d %H:%M").to_string(),
        role: memory.metadata.get("role").and_then(|r| r.as_str()).map(str::to_owned),
        text: memory.recall_text().to_owned(),
    }
}
