//! Links between memories on the wire: who made a memory history and why, the possible updates
//! a store found, and the parameters of linking, unlinking and dismissing.

use rearview_core::{InputError, LinkMaker, LinkNote, MemoryId, Namespace, PossibleUpdate};
use rearview_service::{Linked, MAX_LINKED, MemoryService, PossibleChange, ServiceError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::memory_ids;

/// How a memory became history: who linked it to the memory that replaced it (`superseded_by`),
/// and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "Link")]
pub struct LinkView {
    /// `caller` (a `supersedes` on store, or a link asked for later), `llm`, `rule` (the new
    /// memory's own words state the change) or `update` (an earlier text kept by an update).
    #[schemars(with = "LinkMakerName")]
    pub made_by: String,
    /// Why, in a sentence.
    pub reason: String,
}

/// Who made a link.
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code, reason = "only its schema is used")]
pub(crate) enum LinkMakerName {
    Caller,
    Llm,
    Rule,
    Update,
}

impl From<&LinkNote> for LinkView {
    fn from(note: &LinkNote) -> Self {
        Self { made_by: note.made_by.as_str().to_owned(), reason: note.reason.clone() }
    }
}

impl LinkView {
    /// The note back; an unknown maker is an invalid `link.made_by`.
    pub fn into_note(self) -> Result<LinkNote, InputError> {
        let made_by: LinkMaker = self
            .made_by
            .parse()
            .map_err(|e: InputError| InputError::new("link.made_by", e.message))?;
        Ok(LinkNote { made_by, reason: self.reason })
    }
}

/// An older memory the memory may change: found when it was stored, not linked, for the caller
/// to confirm (`link_memories`) or dismiss.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "PossibleUpdate")]
pub struct PossibleUpdateView {
    /// The older memory's id.
    pub id: String,
    /// The cosine of the two memories' vectors, when both have one.
    pub similarity: Option<f32>,
    /// What the texts say (a word of change, a different value, only near in meaning).
    pub why: String,
    /// The older memory's text (in a store's answer; not kept on the record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

impl From<&PossibleUpdate> for PossibleUpdateView {
    fn from(u: &PossibleUpdate) -> Self {
        Self { id: u.id.to_string(), similarity: u.similarity, why: u.why.clone(), content: None }
    }
}

impl PossibleUpdateView {
    /// The possible update back; a bad id names `possible_updates`.
    pub fn into_update(self) -> Result<PossibleUpdate, InputError> {
        let id: MemoryId = self
            .id
            .parse()
            .map_err(|e: InputError| InputError::new("possible_updates", e.message))?;
        Ok(PossibleUpdate { id, similarity: self.similarity, why: self.why })
    }
}

/// Arguments of `link_memories` and the body of `POST /v1/link`: confirm possible updates (or
/// link any older memories) and dismiss others, for one newer memory.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    /// The newer memory (UUID).
    #[schemars(pattern(MemoryId::PATTERN))]
    pub id: String,
    /// Older memories it replaces (UUIDs): they become its history, left out of recall. Usually
    /// ids from its `possible_updates` that the caller confirms.
    #[serde(default)]
    #[schemars(length(max = MAX_LINKED), inner(pattern(MemoryId::PATTERN)))]
    pub supersedes: Vec<String>,
    /// Possible updates (UUIDs) that are not updates: taken off its `possible_updates`.
    #[serde(default)]
    #[schemars(length(max = MAX_LINKED), inner(pattern(MemoryId::PATTERN)))]
    pub dismiss: Vec<String>,
    /// Why the older memories are replaced, kept on each link (at most 500 characters).
    #[schemars(length(max = 500))]
    pub reason: Option<String>,
    /// Tenant (user, agent or memory bank). Over REST it overrides `X-Rearview-Namespace`,
    /// over MCP the connection's; default the key's only namespace, else `default`. Refused
    /// outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
    pub namespace: Option<String>,
}

/// Arguments of `unlink_memory` and the body of `POST /v1/unlink`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnlinkParams {
    /// The memory to make current again (UUID): a superseded one.
    #[schemars(pattern(MemoryId::PATTERN))]
    pub id: String,
    /// Tenant (user, agent or memory bank). Over REST it overrides `X-Rearview-Namespace`,
    /// over MCP the connection's; default the key's only namespace, else `default`. Refused
    /// outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
    pub namespace: Option<String>,
}

/// Links and dismissals through the service, on any transport: the newer memory as it is now,
/// and the memories that became its history (rendered as [`LinkedAnswer`](crate::LinkedAnswer)).
pub async fn link(
    service: &MemoryService,
    namespace: &Namespace,
    params: LinkParams,
) -> Result<Linked, ServiceError> {
    let id: MemoryId = params.id.parse()?;
    let supersedes = memory_ids("supersedes", &params.supersedes)?;
    let dismiss = memory_ids("dismiss", &params.dismiss)?;
    if supersedes.is_empty() && dismiss.is_empty() {
        return Err(InputError::new(
            "supersedes",
            "name at least one memory to link (supersedes) or to dismiss (dismiss)",
        )
        .into());
    }
    if let Some(both) = supersedes.iter().find(|s| dismiss.contains(s)) {
        let why = format!("{both} is also in dismiss: a memory is linked or dismissed, not both");
        return Err(InputError::new("supersedes", why).into());
    }
    let mut superseded = Vec::new();
    let mut memory = None;
    if !supersedes.is_empty() {
        let linked = service.link(namespace, id, &supersedes, params.reason).await?;
        superseded = linked.superseded;
        memory = Some(linked.memory);
    }
    if !dismiss.is_empty() {
        memory = Some(service.dismiss(namespace, id, &dismiss).await?);
    }
    let memory = memory.expect("one of the two ran");
    Ok(Linked { memory, superseded })
}

/// A possible update with the older memory's text.
pub fn possible_json(p: &PossibleChange) -> PossibleUpdateView {
    PossibleUpdateView { content: Some(p.content.clone()), ..PossibleUpdateView::from(&p.update) }
}
