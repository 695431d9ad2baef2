//! Memories and the names they live under.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::{Facets, InputError, LinkNote, PossibleUpdate, Timestamp};

/// Free-form metadata of a memory: a JSON object (source, confidence, tags, …; design §3.1).
///
/// The key `tags`, when it holds an array of strings, is what tag filters match against.
pub type Metadata = serde_json::Map<String, serde_json::Value>;

/// Identity of a memory: a UUID v7, so ids sort by creation time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemoryId(pub Uuid);

impl MemoryId {
    /// A fresh time-ordered id for a memory created at `at`.
    pub fn new_v7(at: Timestamp) -> Self {
        let secs = at.timestamp().max(0) as u64;
        let nanos = at.timestamp_subsec_nanos();
        let ts = uuid::Timestamp::from_unix(uuid::NoContext, secs, nanos);
        Self(Uuid::new_v7(ts))
    }
}

impl fmt::Display for MemoryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.hyphenated().fmt(f)
    }
}

impl MemoryId {
    /// A memory id as a JSON Schema pattern for API descriptions: a hyphenated UUID (the parser
    /// also takes the other forms `Uuid::parse_str` does).
    pub const PATTERN: &'static str =
        r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
}

impl FromStr for MemoryId {
    type Err = InputError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Uuid::parse_str(s.trim()).map(MemoryId).map_err(|_| {
            InputError::new(
                "id",
                format!(
                    "{s:?} is not a UUID; expected the form 0190a5d2-7c3e-7b1a-9f00-1c2d3e4f5a6b"
                ),
            )
        })
    }
}

/// The tenant a memory belongs to: a user, an agent or a memory bank.
///
/// Every read and every write is scoped to exactly one namespace and can never see another's data.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Namespace(String);

impl Namespace {
    /// Longest namespace we accept, in characters.
    pub const MAX_CHARS: usize = 128;

    /// What a namespace may be, as a JSON Schema (ECMA-262) pattern for API descriptions: no
    /// control characters, no white space at either end. (A little stricter than the parser at
    /// the edges of Unicode's white space, never looser.)
    pub const PATTERN: &'static str =
        r"^[^\s\x00-\x1f\x7f-\x9f]([^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f])?$";

    /// The namespace used when a client names none.
    pub fn default_namespace() -> Self {
        Self("default".to_owned())
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Namespace {
    fn default() -> Self {
        Self::default_namespace()
    }
}

impl fmt::Display for Namespace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Namespace {
    type Err = InputError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.is_empty() {
            return Err(InputError::new(
                "namespace",
                "must not be empty (the default is \"default\")",
            ));
        }
        if s.chars().count() > Self::MAX_CHARS {
            return Err(InputError::new(
                "namespace",
                format!("is longer than {} characters", Self::MAX_CHARS),
            ));
        }
        if s.chars().any(|c| c.is_control()) || s.trim() != s {
            return Err(InputError::new(
                "namespace",
                "must not contain control characters or leading/trailing spaces",
            ));
        }
        Ok(Self(s.to_owned()))
    }
}

/// The three memory tiers of the design (§2.2), from most transient to most distilled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemoryType {
    /// The current turns and what was just retrieved for them. Default TTL 1 hour.
    Working,
    /// Concrete events with time and context. Default TTL 30 days.
    Episodic,
    /// Knowledge distilled from many episodes. Never expires by default.
    Semantic,
}

impl MemoryType {
    /// All tiers, in the order the design retrieves them when tier priority is asked for.
    pub const PRIORITY_ORDER: [MemoryType; 3] =
        [MemoryType::Semantic, MemoryType::Episodic, MemoryType::Working];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryType::Working => "working",
            MemoryType::Episodic => "episodic",
            MemoryType::Semantic => "semantic",
        }
    }

    /// Rank under tier priority: 0 is retrieved first.
    pub fn priority(self) -> u8 {
        match self {
            MemoryType::Semantic => 0,
            MemoryType::Episodic => 1,
            MemoryType::Working => 2,
        }
    }
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for MemoryType {
    type Err = InputError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "working" => Ok(MemoryType::Working),
            "episodic" => Ok(MemoryType::Episodic),
            "semantic" => Ok(MemoryType::Semantic),
            _ => Err(InputError::new(
                "memory_type",
                format!("{s:?} is not a tier; allowed: working, episodic, semantic"),
            )),
        }
    }
}

/// Default time-to-live per tier (design §3.1). `None` means "never expires".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TierTtls {
    /// Working memory: 1 hour by default.
    pub working: Option<Duration>,
    /// Episodic memory: 30 days by default.
    pub episodic: Option<Duration>,
    /// Semantic memory: never expires by default.
    pub semantic: Option<Duration>,
}

impl Default for TierTtls {
    fn default() -> Self {
        Self {
            working: Some(Duration::from_secs(3600)),
            episodic: Some(Duration::from_secs(30 * 86_400)),
            semantic: None,
        }
    }
}

impl TierTtls {
    /// The default TTL of `tier`.
    pub fn for_tier(&self, tier: MemoryType) -> Option<Duration> {
        match tier {
            MemoryType::Working => self.working,
            MemoryType::Episodic => self.episodic,
            MemoryType::Semantic => self.semantic,
        }
    }
}

/// What a client asks to remember. Validated by the service before anything is written.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMemory {
    /// The text to remember. Must not be empty or only whitespace.
    pub content: String,
    /// Tier; `episodic` when the client names none.
    pub memory_type: MemoryType,
    /// Free-form JSON object.
    pub metadata: Metadata,
    /// Seconds to live; `Some(0)` means never expire; `None` takes the tier default.
    pub ttl_secs: Option<u64>,
    /// Conversation the memory came from, if any.
    pub session_id: Option<String>,
    /// When the event happened; defaults to the time of storing. Imports of old chats set it.
    pub occurred_at: Option<Timestamp>,
    /// Memories of the same namespace this one replaces: they become history, superseded by it.
    pub supersedes: Vec<MemoryId>,
}

impl NewMemory {
    /// An episodic memory with no metadata, TTL default, no session.
    pub fn new(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            memory_type: MemoryType::Episodic,
            metadata: Metadata::new(),
            ttl_secs: None,
            session_id: None,
            occurred_at: None,
            supersedes: Vec::new(),
        }
    }
}

/// A stored memory: every field of the design's record (§3.1) plus what a server needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Memory {
    /// Identity (UUID v7).
    pub id: MemoryId,
    /// Tenant; reads never cross it.
    pub namespace: Namespace,
    /// Tier.
    pub memory_type: MemoryType,
    /// The text.
    pub content: String,
    /// Free-form JSON object (source, confidence, tags, …).
    pub metadata: Metadata,
    /// Conversation the memory came from.
    pub session_id: Option<String>,
    /// Time to live in seconds; 0 = never expires. `expires_at` is derived from it.
    pub ttl_secs: u64,
    /// When the record was created (the design's `timestamp`), UTC.
    pub timestamp: Timestamp,
    /// When the remembered event happened, or the stated fact became true: the start of the
    /// memory's validity (`valid_from`) and what time decay is measured from.
    pub occurred_at: Timestamp,
    /// Last change to content, metadata, tier or TTL.
    pub updated_at: Timestamp,
    /// Last time a recall returned this memory.
    pub last_accessed_at: Option<Timestamp>,
    /// `timestamp + ttl`; `None` when the memory never expires. Invisible from this instant on.
    pub expires_at: Option<Timestamp>,
    /// How many recalls returned this memory ("heat").
    pub access_count: u64,
    /// In the cold tier: excluded from recall unless asked for.
    pub archived: bool,
    /// Provenance: the memories a derived memory was made from.
    pub source_ids: Vec<MemoryId>,
    /// Hex SHA-256 of the normalised content; equal hashes mean exact duplicates.
    pub content_hash: String,
    /// For long memories: the short text recall shows and embeds instead of `content` (design
    /// §6). `content` keeps the full original; both are searchable by keywords.
    pub summary: Option<String>,
    /// The memory that replaced this one: a newer statement of the same fact (`I moved to
    /// Paris` after `I live in Berlin`), or, for an earlier text kept by an update, the updated
    /// memory. `None` while nothing has replaced it.
    pub superseded_by: Option<MemoryId>,
    /// The end of the memory's validity (its start is `occurred_at`): from this instant on it is
    /// history, left out of recall and listings unless they include superseded memories or look
    /// at an earlier instant (`as_of`). Reading it by id always works.
    pub invalid_at: Option<Timestamp>,
    /// Who linked this memory to `superseded_by`, and why; `None` while it is current, and for
    /// history made before links recorded it.
    pub link: Option<LinkNote>,
    /// Older memories this one may change, found when it was stored and not linked: for the
    /// caller to confirm (a link) or dismiss.
    pub possible_updates: Vec<PossibleUpdate>,
}

impl Memory {
    /// Tags from `metadata.tags` (strings only; other values are ignored).
    pub fn tags(&self) -> Vec<String> {
        tags_of(&self.metadata)
    }

    /// The attributes filters look at.
    pub fn facets(&self) -> Facets {
        Facets {
            memory_type: self.memory_type,
            archived: self.archived,
            expires_at: self.expires_at,
            occurred_at: self.occurred_at,
            invalid_at: self.invalid_at,
            session_id: self.session_id.clone(),
            tags: self.tags(),
        }
    }

    /// What recall shows and embeds: the summary of a long memory, else the content.
    pub fn recall_text(&self) -> &str {
        self.summary.as_deref().unwrap_or(&self.content)
    }

    /// Whether the memory has expired at `now` (it is invisible from `expires_at` on).
    pub fn is_expired_at(&self, now: Timestamp) -> bool {
        self.expires_at.is_some_and(|e| now >= e)
    }

    /// Whether the memory is history at `now`: superseded, with its validity ended at or before
    /// `now`.
    pub fn is_superseded_at(&self, now: Timestamp) -> bool {
        self.invalid_at.is_some_and(|t| now >= t)
    }
}

/// Tags from a metadata object's `tags` array.
pub fn tags_of(metadata: &Metadata) -> Vec<String> {
    match metadata.get("tags") {
        Some(serde_json::Value::Array(items)) => {
            items.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()
        }
        _ => Vec::new(),
    }
}

/// Hex SHA-256 of `content` with surrounding whitespace trimmed and inner runs of whitespace
/// collapsed, so that re-sending the same sentence with a trailing newline is an exact duplicate.
pub fn content_hash(content: &str) -> String {
    let normalised = content.split_whitespace().collect::<Vec<_>>().join(" ");
    let digest = Sha256::digest(normalised.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_type_errors_list_allowed_values() {
        let err = "longterm".parse::<MemoryType>().unwrap_err();
        assert_eq!(err.field, "memory_type");
        assert!(err.message.contains("working, episodic, semantic"), "{err}");
        assert_eq!("Semantic".parse::<MemoryType>().unwrap(), MemoryType::Semantic);
    }

    #[test]
    fn bad_uuid_names_the_field() {
        let err = "not-a-uuid".parse::<MemoryId>().unwrap_err();
        assert_eq!(err.field, "id");
    }

    #[test]
    fn namespace_validation() {
        assert!("user:42".parse::<Namespace>().is_ok());
        assert!("用户甲".parse::<Namespace>().is_ok());
        assert!(" x".parse::<Namespace>().is_err());
        assert!("a\nb".parse::<Namespace>().is_err());
        assert!("x".repeat(129).parse::<Namespace>().is_err());
    }

    #[test]
    fn content_hash_ignores_whitespace_layout() {
        assert_eq!(content_hash("端口 8765\n"), content_hash("  端口   8765"));
        assert_ne!(content_hash("端口 8765"), content_hash("端口 8766"));
    }

    #[test]
    fn v7_ids_sort_by_time() {
        let t0 = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let a = MemoryId::new_v7(t0);
        let b = MemoryId::new_v7(t0 + chrono::TimeDelta::seconds(1));
        assert!(a < b);
    }
}
