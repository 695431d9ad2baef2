//! Links made, undone and reviewed after the fact: a caller confirms a possible update (or links
//! any two memories) with [`MemoryService::link`], undoes a link with
//! [`MemoryService::unlink`], dismisses possible updates with [`MemoryService::dismiss`], and
//! reads what is left to review with [`MemoryService::pending_review`]. Every one runs under
//! the namespace's write lock, as stores do.

use rearview_core::{InputError, LinkMaker, LinkNote, Memory, MemoryId, Namespace};
use rearview_store::{MemoryUpdate, Page};

use super::{PossibleChange, Superseded};
use crate::locks::WriteGuard;
use crate::recall::MAX_CHAIN;
use crate::{MemoryService, ServiceError, not_found};

/// Most memories one link or dismissal names.
pub const MAX_LINKED: usize = 100;

/// What a link answered: the newer memory as it is now (its possible updates without those
/// linked or dismissed) and the memories that became its history.
#[derive(Debug, Clone)]
pub struct Linked {
    /// The newer memory.
    pub memory: Memory,
    /// The memories it now supersedes, with the note of each link.
    pub superseded: Vec<Superseded>,
}

/// A memory waiting for review: the possible updates it lists, each with the older memory's text
/// (possible updates of memories since deleted are left out).
#[derive(Debug, Clone)]
pub struct PendingReview {
    /// The newer memory.
    pub memory: Memory,
    /// What it may change.
    pub possible: Vec<PossibleChange>,
}

impl MemoryService {
    /// Links `newer` to each of `olders`: they become its history (`superseded_by`, from its
    /// event time), made by the caller, with `reason` (or a default one). Each is taken off
    /// `newer`'s possible updates. Refused, changing nothing, when an id is not a memory of the
    /// namespace, is `newer` itself, is listed twice, or when `newer` is already history of one
    /// of them (a link would make a cycle).
    pub async fn link(
        &self,
        namespace: &Namespace,
        newer: MemoryId,
        olders: &[MemoryId],
        reason: Option<String>,
    ) -> Result<Linked, ServiceError> {
        check_ids("supersedes", olders, newer)?;
        let reason = match reason.map(|r| r.trim().to_owned()) {
            Some(r) if r.chars().count() > 500 => {
                return Err(InputError::new("reason", "must be at most 500 characters").into());
            }
            Some(r) if !r.is_empty() => r,
            _ => "the caller linked them".to_owned(),
        };
        let guard = self.write_lock(namespace).await?;
        let now = self.clock.now();
        let memory = self.get(namespace, newer).await?;
        let found = self.requested_superseded(namespace, olders, now).await?;
        for older in &found {
            if self.is_history_of(namespace, &memory, older.id).await? {
                return Err(InputError::new(
                    "supersedes",
                    format!("{newer} is already history of {}: unlink it first", older.id),
                )
                .into());
            }
        }
        let note = LinkNote::new(LinkMaker::Caller, reason);
        let olders_noted = found.into_iter().map(|m| (m, note.clone())).collect();
        let superseded = self.supersede(&guard, olders_noted, &memory, now).await?;
        let memory = self.without_possible(&guard, memory, olders).await?;
        Ok(Linked { memory, superseded })
    }

    /// Makes `older` current again: its link to the memory that superseded it is removed
    /// (`superseded_by`, `invalid_at`, `link`), and it returns to recall and listings. It comes
    /// back among that memory's possible updates, so the review can still link it. A memory
    /// that is not history is refused as an invalid `id`.
    pub async fn unlink(
        &self,
        namespace: &Namespace,
        older: MemoryId,
    ) -> Result<Memory, ServiceError> {
        let guard = self.write_lock(namespace).await?;
        let now = self.clock.now();
        let memory = self.get(namespace, older).await?;
        let Some(newer) = memory.superseded_by else {
            return Err(InputError::new(
                "id",
                format!("{older} is current: it has no link to undo"),
            )
            .into());
        };
        let update = MemoryUpdate { superseded: Some(None), at: now, ..MemoryUpdate::default() };
        let updated = self
            .store
            .update(namespace, older, &update)
            .await?
            .ok_or_else(|| not_found(namespace, older))?;
        self.indexes.replace(&updated, None, None);
        tracing::debug!(namespace = %namespace, older = %older, newer = %newer, "unlinked");
        if let Some(newer) = self.store.get(namespace, newer, now).await?
            && !newer.possible_updates.iter().any(|p| p.id == older)
        {
            let mut possible = newer.possible_updates.clone();
            let why = match &memory.link {
                Some(link) => {
                    format!("was linked by {} ({}), then unlinked", link.made_by, link.reason)
                }
                None => "was linked, then unlinked".to_owned(),
            };
            possible.push(rearview_core::PossibleUpdate { id: older, similarity: None, why });
            self.set_possible(&guard, newer.id, possible).await?;
        }
        Ok(updated)
    }

    /// Takes `olders` off `newer`'s possible updates: the caller says they are not updates.
    /// Ids it does not list are refused as an invalid `dismiss`, changing nothing.
    pub async fn dismiss(
        &self,
        namespace: &Namespace,
        newer: MemoryId,
        olders: &[MemoryId],
    ) -> Result<Memory, ServiceError> {
        check_ids("dismiss", olders, newer)?;
        let guard = self.write_lock(namespace).await?;
        let memory = self.get(namespace, newer).await?;
        if let Some(id) =
            olders.iter().find(|id| !memory.possible_updates.iter().any(|p| p.id == **id))
        {
            return Err(InputError::new(
                "dismiss",
                format!("{id} is not a possible update of {newer}"),
            )
            .into());
        }
        self.without_possible(&guard, memory, olders).await
    }

    /// The memories of `namespace` that list possible updates, the latest stored first, one
    /// page, each with the older memories' texts.
    pub async fn pending_review(
        &self,
        namespace: &Namespace,
        page: Page,
    ) -> Result<Vec<PendingReview>, ServiceError> {
        if page.limit == 0 || page.limit > 1000 {
            return Err(InputError::new("limit", "must be between 1 and 1000").into());
        }
        let now = self.clock.now();
        let memories = self.store.pending_review(namespace, now, page).await?;
        let ids: Vec<MemoryId> =
            memories.iter().flat_map(|m| m.possible_updates.iter().map(|p| p.id)).collect();
        let olders = self.store.get_many(namespace, &ids, now).await?;
        Ok(memories
            .into_iter()
            .map(|memory| {
                let possible = memory
                    .possible_updates
                    .iter()
                    .filter_map(|p| {
                        let older = olders.iter().find(|m| m.id == p.id)?;
                        Some(PossibleChange { update: p.clone(), content: older.content.clone() })
                    })
                    .collect();
                PendingReview { memory, possible }
            })
            .collect())
    }

    /// `memory` with `ids` taken off its possible updates (written only if that changes them).
    async fn without_possible(
        &self,
        guard: &WriteGuard<'_>,
        memory: Memory,
        ids: &[MemoryId],
    ) -> Result<Memory, ServiceError> {
        let kept: Vec<_> =
            memory.possible_updates.iter().filter(|p| !ids.contains(&p.id)).cloned().collect();
        if kept.len() == memory.possible_updates.len() {
            return Ok(memory);
        }
        self.set_possible(guard, memory.id, kept).await
    }

    async fn set_possible(
        &self,
        guard: &WriteGuard<'_>,
        id: MemoryId,
        possible: Vec<rearview_core::PossibleUpdate>,
    ) -> Result<Memory, ServiceError> {
        let namespace = guard.namespace();
        let update = MemoryUpdate {
            possible_updates: Some(possible),
            at: self.clock.now(),
            ..MemoryUpdate::default()
        };
        self.store.update(namespace, id, &update).await?.ok_or_else(|| not_found(namespace, id))
    }

    /// Whether `memory` is (transitively, along `superseded_by`) history of `id`.
    async fn is_history_of(
        &self,
        namespace: &Namespace,
        memory: &Memory,
        id: MemoryId,
    ) -> Result<bool, ServiceError> {
        let now = self.clock.now();
        let mut next = memory.superseded_by;
        for _ in 0..=MAX_CHAIN {
            match next {
                Some(at) if at == id => return Ok(true),
                Some(at) => {
                    next = self.store.get(namespace, at, now).await?.and_then(|m| m.superseded_by)
                }
                None => return Ok(false),
            }
        }
        Ok(false)
    }
}

/// `ids` names 1 to [`MAX_LINKED`] memories, none twice and none `newer` itself.
fn check_ids(field: &'static str, ids: &[MemoryId], newer: MemoryId) -> Result<(), InputError> {
    if ids.is_empty() || ids.len() > MAX_LINKED {
        return Err(InputError::new(field, format!("must list 1 to {MAX_LINKED} memory ids")));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(dup) = ids.iter().find(|id| !seen.insert(**id)) {
        return Err(InputError::new(field, format!("lists {dup} twice")));
    }
    if ids.contains(&newer) {
        return Err(InputError::new(
            field,
            format!("names {newer} itself: a memory cannot replace itself"),
        ));
    }
    Ok(())
}
