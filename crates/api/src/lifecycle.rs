//! Parameters and results of the lifecycle operations (archive, restore, end a session,
//! distill, suggest), shared by MCP tools and REST endpoints.

use rearview_core::{InputError, MemoryId, Namespace};
use rearview_service::{DistillPreview, DistillRequest, Distilled, Originals};
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `archive_memory` / `restore_memory` (`POST /v1/archive`, `/v1/restore`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdsParams {
    /// Ids of the memories (UUIDs), 1 to 200.
    pub ids: Vec<String>,
    /// Tenant (user, agent or memory bank). Over REST it overrides `X-Rearview-Namespace`,
    /// over MCP the connection's; default the key's only namespace, else `default`. Refused
    /// outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
    pub namespace: Option<String>,
}

impl IdsParams {
    /// The ids, parsed; an error names the bad entry (`ids[2]`).
    pub fn ids(&self) -> Result<Vec<MemoryId>, InputError> {
        memory_ids("ids", &self.ids)
    }
}

/// Arguments of `cleanup_expired` (`POST /v1/cleanup`, whose body may also be empty).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NamespaceParams {
    /// Tenant (user, agent or memory bank). Over REST it overrides `X-Rearview-Namespace`,
    /// over MCP the connection's; default the key's only namespace, else `default`. Refused
    /// outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
    pub namespace: Option<String>,
}

/// Arguments of `end_session` (`POST /v1/sessions/end`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EndSessionParams {
    /// The session whose working memories become episodes.
    pub session_id: String,
    /// Tenant (user, agent or memory bank). Over REST it overrides `X-Rearview-Namespace`,
    /// over MCP the connection's; default the key's only namespace, else `default`. Refused
    /// outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
    pub namespace: Option<String>,
}

/// What becomes of distilled episodes.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OriginalsParam {
    /// Move them to the archive (restorable); the default.
    Archive,
    /// Delete them.
    Delete,
    /// Leave them.
    Keep,
}

/// Arguments of `summarize_episodes` (`POST /v1/summarize`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SummarizeEpisodesParams {
    /// Ids of the memories to distil into one semantic memory (usually episodes), 1 to 200.
    pub episode_ids: Vec<String>,
    /// What to keep or focus on, e.g. "only the user's food preferences".
    pub instruction: Option<String>,
    /// What becomes of the originals once the semantic memory is stored: `archive` (default),
    /// `delete` or `keep`.
    #[schemars(with = "Option<OriginalsParam>")]
    pub originals: Option<String>,
    /// Only show what would be stored (`{"preview": {"content", "method", "model",
    /// "sources"}}`) and write nothing; default false.
    pub dry_run: Option<bool>,
    /// Tenant (user, agent or memory bank). Over REST it overrides `X-Rearview-Namespace`,
    /// over MCP the connection's; default the key's only namespace, else `default`. Refused
    /// outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
    pub namespace: Option<String>,
}

/// What `summarize_episodes` did (rendered as [`SummarizeAnswer`](crate::SummarizeAnswer)).
#[derive(Debug)]
pub enum Summarized {
    /// The distillation, stored.
    Distilled(Box<Distilled>),
    /// With `dry_run`: what would be stored; nothing was written.
    Preview(DistillPreview),
}

/// `summarize_episodes` on any transport: the distillation, or with `dry_run` its preview.
pub async fn summarize(
    service: &rearview_service::MemoryService,
    namespace: &rearview_core::Namespace,
    params: &SummarizeEpisodesParams,
) -> Result<Summarized, rearview_service::ServiceError> {
    let request = params.to_request()?;
    if params.dry_run.unwrap_or(false) {
        return Ok(Summarized::Preview(service.preview_distillation(namespace, request).await?));
    }
    Ok(Summarized::Distilled(Box::new(service.summarize_episodes(namespace, request).await?)))
}

impl SummarizeEpisodesParams {
    /// The service request (the namespace is the caller's to resolve).
    pub fn to_request(&self) -> Result<DistillRequest, InputError> {
        let originals = match self.originals.as_deref().map(str::trim) {
            None | Some("archive") => Originals::Archive,
            Some("delete") => Originals::Delete,
            Some("keep") => Originals::Keep,
            Some(other) => {
                return Err(InputError::new(
                    "originals",
                    format!("{other:?} is not allowed; use archive, delete or keep"),
                ));
            }
        };
        Ok(DistillRequest {
            ids: memory_ids("episode_ids", &self.episode_ids)?,
            instruction: self.instruction.clone(),
            originals,
        })
    }
}

/// Arguments of `suggest_distillations` (`POST /v1/suggest-distillations`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuggestParams {
    /// Cosine a member must have to the group's first episode; default the server's (0.88).
    pub threshold: Option<f32>,
    /// Smallest group worth distilling; default 3.
    #[schemars(range(min = 2, max = 200))]
    pub min_size: Option<u32>,
    /// Most groups to return; default 10.
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
    /// Tenant (user, agent or memory bank). Over REST it overrides `X-Rearview-Namespace`,
    /// over MCP the connection's; default the key's only namespace, else `default`. Refused
    /// outside the key's grant.
    #[schemars(length(min = 1, max = Namespace::MAX_CHARS), pattern(Namespace::PATTERN))]
    pub namespace: Option<String>,
}

impl SuggestParams {
    /// `(threshold, min_size, limit)` with defaults applied and ranges checked.
    pub fn resolve(&self) -> Result<(Option<f32>, usize, usize), InputError> {
        let min_size = self.min_size.unwrap_or(3);
        if !(2..=200).contains(&min_size) {
            return Err(InputError::new("min_size", "must be between 2 and 200"));
        }
        let limit = self.limit.unwrap_or(10);
        if !(1..=100).contains(&limit) {
            return Err(InputError::new("limit", "must be between 1 and 100"));
        }
        Ok((self.threshold, min_size as usize, limit as usize))
    }
}

/// Memory ids sent as strings under `field`; an error names the bad entry (`supersedes[1]`).
pub fn memory_ids(field: &'static str, ids: &[String]) -> Result<Vec<MemoryId>, InputError> {
    ids.iter()
        .enumerate()
        .map(|(i, s)| {
            s.parse::<MemoryId>().map_err(|e| InputError::new(format!("{field}[{i}]"), e.message))
        })
        .collect()
}
