//! Following the writes of other processes on the same store.
//!
//! Claude Desktop, Cursor and Claude Code each start their own `rearview mcp` on one database
//! file, next to a `rearview serve` and CLI commands. Each long-running process keeps in-memory
//! indexes built from the store at start-up, so without help it would never find what the others
//! stored, and would keep finding what they deleted until recall's row read dropped it.
//!
//! The store keeps a change log (`StoreMaintenance::changes_since`): every committed write that can
//! change a search result names the memory it touched. A process remembers the log position it
//! has caught up to, and [`MemoryService::follow_changes`] (called every fraction of a second by
//! the servers) reads what came after, re-reads those memories from the store and replaces their
//! index entries, or removes them where the memory is gone. This process's own writes are
//! refreshed too (idempotent; a graph re-insert of an unchanged vector only updates facets), so
//! an index update lost after its commit is repaired within a poll.
//!
//! Each namespace's refresh holds that namespace's write lock (`locks.rs`), so a refresh never
//! interleaves with this process's own read-write-index sequence: the state it reads is at least
//! as new as anything already indexed. If the log was pruned past our position (a process asleep
//! through more than [`CHANGE_LOG_KEEP`] changes), the indexes are rebuilt from the store.

use std::collections::BTreeMap;

use rearview_core::{MemoryId, Namespace};
use rearview_store::Change;

use crate::{KeywordSearch, MemoryService, ServiceError};

/// Changes read per page of the log.
const FOLLOW_PAGE: usize = 2_000;

/// Changes the sweep keeps in the log; a process further behind than this rebuilds its indexes.
pub(crate) const CHANGE_LOG_KEEP: u64 = 100_000;

/// What one [`MemoryService::follow_changes`] call did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Followed {
    /// Memories whose index entries were refreshed or removed.
    pub refreshed: usize,
    /// Whether the indexes were rebuilt from the store (the log no longer reached back).
    pub rebuilt: bool,
}

impl MemoryService {
    /// Brings the in-memory indexes up to date with every change committed to the store since the
    /// last call (by any process). Cheap when nothing changed: one indexed read.
    pub async fn follow_changes(&self) -> Result<Followed, ServiceError> {
        let mut position = self.followed.lock().await;
        let mut done = Followed::default();
        loop {
            let page = self.store.changes_since(*position, FOLLOW_PAGE).await?;
            if !page.complete {
                let head = self.store.change_position().await?;
                tracing::warn!(
                    position = *position,
                    head,
                    "the change log no longer reaches this process's position; rebuilding indexes"
                );
                // The indexes are replaced namespace by namespace from a read that starts after
                // `head`; changes committed meanwhile come after `head` and are refreshed by the
                // next call (refreshing is idempotent), so none is lost to the rebuild.
                self.load_indexes().await?;
                *position = head;
                return Ok(Followed { rebuilt: true, ..done });
            }
            let Some(last) = page.changes.last().map(|c| c.position) else { return Ok(done) };
            let full = page.changes.len() == FOLLOW_PAGE;
            done.refreshed += self.refresh(page.changes).await?;
            *position = last;
            if !full {
                return Ok(done);
            }
        }
    }

    /// Re-reads the memories named in `changes` and replaces their index entries.
    async fn refresh(&self, changes: Vec<Change>) -> Result<usize, ServiceError> {
        let mut by_namespace: BTreeMap<Namespace, Vec<MemoryId>> = BTreeMap::new();
        // This process's own writes are refreshed too: one whose index update never ran (a
        // request dropped between the commit and the update at shutdown, an error after the
        // commit) is repaired here, before a saved graph could make the miss permanent. A
        // refresh that finds the same vector only updates facets.
        for change in changes {
            let ids = by_namespace.entry(change.namespace).or_default();
            if !ids.contains(&change.id) {
                ids.push(change.id);
            }
        }
        let in_memory = self.config.keyword_search == KeywordSearch::InMemory;
        let mut refreshed = 0;
        for (namespace, ids) in by_namespace {
            // A namespace not in memory reads these changes from the store when it loads.
            if self.indexes.on_demand() && !self.indexes.is_in_memory(&namespace) {
                continue;
            }
            let _guard = self.writes.write(&namespace).await;
            let mut found = self.records_by_id(&namespace, &ids).await?;
            for id in ids {
                match found.remove(&id) {
                    Some(record) => self.indexes.replace(
                        &record.memory,
                        in_memory.then_some(record.terms.as_slice()),
                        Some(&self.current_vectors(&record.vectors)),
                    ),
                    None => self.indexes.remove(&namespace, id),
                }
                refreshed += 1;
            }
        }
        Ok(refreshed)
    }
}
