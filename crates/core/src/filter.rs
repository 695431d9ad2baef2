//! Which memories a read may see.

use crate::{MemoryType, Timestamp};

/// The attributes of a memory that filters look at, kept next to each vector in the in-memory
/// index so the vector scan can skip ineligible memories without touching the store.
#[derive(Debug, Clone, PartialEq)]
pub struct Facets {
    /// Tier.
    pub memory_type: MemoryType,
    /// In the cold tier.
    pub archived: bool,
    /// Invisible from this instant on.
    pub expires_at: Option<Timestamp>,
    /// Event time (start of validity).
    pub occurred_at: Timestamp,
    /// End of validity (superseded); history from this instant on.
    pub invalid_at: Option<Timestamp>,
    /// Conversation.
    pub session_id: Option<String>,
    /// `metadata.tags`.
    pub tags: Vec<String>,
}

/// Selects memories within one namespace. The empty filter selects every live, unarchived, current
/// memory.
///
/// Expired memories are never selected: a memory is visible at `now` only while
/// `now < expires_at`. Superseded memories (history) are selected only while `now < invalid_at`,
/// unless `include_superseded`; a recall `as_of` an earlier instant passes that instant as `now`,
/// so it sees what was current then. Store backends translate this filter into their query language; the
/// in-memory index uses [`MemoryFilter::matches`]. The store contract suite checks that both agree.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemoryFilter {
    /// Only these tiers; empty means all.
    pub memory_types: Vec<MemoryType>,
    /// Only this conversation.
    pub session_id: Option<String>,
    /// Only memories carrying every one of these tags.
    pub tags: Vec<String>,
    /// Only memories whose event time is at or after this instant.
    pub occurred_after: Option<Timestamp>,
    /// Only memories whose event time is at or before this instant.
    pub occurred_before: Option<Timestamp>,
    /// Include the cold tier.
    pub include_archived: bool,
    /// Include superseded memories (history): those whose validity ended at or before `now`.
    pub include_superseded: bool,
}

impl MemoryFilter {
    /// Whether a memory with these facets is visible to this filter at `now`.
    pub fn matches(&self, facets: &Facets, now: Timestamp) -> bool {
        if facets.expires_at.is_some_and(|e| now >= e) {
            return false;
        }
        if facets.archived && !self.include_archived {
            return false;
        }
        if !self.include_superseded && facets.invalid_at.is_some_and(|t| now >= t) {
            return false;
        }
        if !self.memory_types.is_empty() && !self.memory_types.contains(&facets.memory_type) {
            return false;
        }
        if let Some(session) = &self.session_id
            && facets.session_id.as_deref() != Some(session.as_str())
        {
            return false;
        }
        if self.occurred_after.is_some_and(|t| facets.occurred_at < t)
            || self.occurred_before.is_some_and(|t| facets.occurred_at > t)
        {
            return false;
        }
        self.tags.iter().all(|t| facets.tags.contains(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> Timestamp {
        chrono::DateTime::from_timestamp(1_750_000_000 + secs, 0).expect("valid instant")
    }

    #[test]
    fn superseded_memories_are_history_from_invalid_at_on() {
        let facets = Facets {
            memory_type: MemoryType::Semantic,
            archived: false,
            expires_at: None,
            occurred_at: at(0),
            invalid_at: Some(at(100)),
            session_id: None,
            tags: Vec::new(),
        };
        let current = MemoryFilter::default();
        assert!(current.matches(&facets, at(99)), "still current just before the change");
        assert!(!current.matches(&facets, at(100)), "history from the change on");
        let history = MemoryFilter { include_superseded: true, ..MemoryFilter::default() };
        assert!(history.matches(&facets, at(100)));
        let never = Facets { invalid_at: None, ..facets };
        assert!(current.matches(&never, at(1_000_000)));
    }
}
