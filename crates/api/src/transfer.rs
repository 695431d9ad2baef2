//! The export format: JSON Lines, a header line, then one memory per line.
//!
//! ```text
//! {"rearview_export":1,"namespace":"alice","exported_at":"2026-11-30T05:00:00Z","vectors":true}
//! {"id":"…","namespace":"alice","memory_type":"episodic","content":"…", …, "vectors":[{"model_id":"…","embedding":[…]}]}
//! ```
//!
//! Each memory line has every field of the memory as the REST API shows it, plus `vectors` when
//! exported with them. Timestamps are RFC 3339 UTC with the stored (microsecond) precision and
//! vectors are the stored f32 values printed exactly, so an export → import round trip changes
//! nothing.

use rearview_core::{
    Embedding, InputError, Memory, MemoryId, MemoryType, Metadata, Namespace, Timestamp,
    content_hash, parse_timestamp,
};
use rearview_store::StoredVector;
use serde::{Deserialize, Serialize};

use crate::links::{LinkView, PossibleUpdateView};

use crate::time;

/// The version this build writes and reads.
pub const EXPORT_VERSION: u32 = 1;

/// The first line of an export.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportHeader {
    /// Format version ([`EXPORT_VERSION`]).
    pub rearview_export: u32,
    /// The namespace exported.
    pub namespace: String,
    /// When.
    pub exported_at: String,
    /// Whether memory lines carry vectors.
    pub vectors: bool,
}

/// One vector of one model.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportedVector {
    /// Embedding model id.
    pub model_id: String,
    /// The unit vector as stored.
    pub embedding: Vec<f32>,
}

/// One memory line.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportedMemory {
    /// UUID.
    pub id: String,
    /// Namespace it was exported from.
    pub namespace: String,
    /// Tier.
    pub memory_type: String,
    /// The text.
    pub content: String,
    /// Recall summary of a long memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// JSON object.
    #[serde(default)]
    pub metadata: Metadata,
    /// Conversation.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Seconds to live; 0 = never.
    pub ttl: u64,
    /// Creation time.
    pub timestamp: String,
    /// Event time.
    pub occurred_at: String,
    /// Last change.
    pub updated_at: String,
    /// Last recall that returned it.
    #[serde(default)]
    pub last_accessed_at: Option<String>,
    /// Expiry.
    #[serde(default)]
    pub expires_at: Option<String>,
    /// Recalls that returned it.
    #[serde(default)]
    pub access_count: u64,
    /// In the cold tier.
    #[serde(default)]
    pub archived: bool,
    /// Provenance.
    #[serde(default)]
    pub source_ids: Vec<String>,
    /// SHA-256 of the normalised content; recomputed when absent, checked when present.
    #[serde(default)]
    pub content_hash: Option<String>,
    /// The memory that replaced this one, for history; absent while it is current.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// End of validity of a superseded memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_at: Option<String>,
    /// Who linked a superseded memory, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkView>,
    /// Older memories it may change, not yet confirmed or dismissed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub possible_updates: Vec<PossibleUpdateView>,
    /// Vectors, when exported with them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vectors: Option<Vec<ExportedVector>>,
}

impl ExportedMemory {
    /// The line for `memory` (with `vectors` if `Some`).
    pub fn new(memory: &Memory, vectors: Option<&[StoredVector]>) -> Self {
        Self {
            id: memory.id.to_string(),
            namespace: memory.namespace.as_str().to_owned(),
            memory_type: memory.memory_type.as_str().to_owned(),
            content: memory.content.clone(),
            summary: memory.summary.clone(),
            metadata: memory.metadata.clone(),
            session_id: memory.session_id.clone(),
            ttl: memory.ttl_secs,
            timestamp: time(memory.timestamp),
            occurred_at: time(memory.occurred_at),
            updated_at: time(memory.updated_at),
            last_accessed_at: memory.last_accessed_at.map(time),
            expires_at: memory.expires_at.map(time),
            access_count: memory.access_count,
            archived: memory.archived,
            source_ids: memory.source_ids.iter().map(ToString::to_string).collect(),
            content_hash: Some(memory.content_hash.clone()),
            superseded_by: memory.superseded_by.map(|id| id.to_string()),
            invalid_at: memory.invalid_at.map(time),
            link: memory.link.as_ref().map(LinkView::from),
            possible_updates: memory
                .possible_updates
                .iter()
                .map(PossibleUpdateView::from)
                .collect(),
            vectors: vectors.map(|vs| {
                vs.iter()
                    .map(|v| ExportedVector {
                        model_id: v.model_id.clone(),
                        embedding: v.embedding.as_slice().to_vec(),
                    })
                    .collect()
            }),
        }
    }

    /// The memory and its vectors back, every field validated; errors name the field.
    pub fn into_memory(self) -> Result<(Memory, Vec<StoredVector>), InputError> {
        let opt_time =
            |field: &'static str, v: Option<String>| -> Result<Option<Timestamp>, InputError> {
                v.map(|t| parse_timestamp(field, &t)).transpose()
            };
        let namespace: Namespace = self.namespace.parse()?;
        let hash = content_hash(&self.content);
        let memory = Memory {
            id: self.id.parse()?,
            namespace,
            memory_type: self.memory_type.parse::<MemoryType>()?,
            content_hash: self.content_hash.unwrap_or(hash),
            content: self.content,
            metadata: self.metadata,
            session_id: self.session_id,
            ttl_secs: self.ttl,
            timestamp: parse_timestamp("timestamp", &self.timestamp)?,
            occurred_at: parse_timestamp("occurred_at", &self.occurred_at)?,
            updated_at: parse_timestamp("updated_at", &self.updated_at)?,
            last_accessed_at: opt_time("last_accessed_at", self.last_accessed_at)?,
            expires_at: opt_time("expires_at", self.expires_at)?,
            access_count: self.access_count,
            archived: self.archived,
            source_ids: self
                .source_ids
                .iter()
                .map(|s| s.parse::<MemoryId>())
                .collect::<Result<_, _>>()?,
            summary: self.summary,
            superseded_by: self
                .superseded_by
                .map(|id| {
                    id.parse::<MemoryId>().map_err(|e| InputError::new("superseded_by", e.message))
                })
                .transpose()?,
            invalid_at: opt_time("invalid_at", self.invalid_at)?,
            link: self.link.map(LinkView::into_note).transpose()?,
            possible_updates: self
                .possible_updates
                .into_iter()
                .map(PossibleUpdateView::into_update)
                .collect::<Result<_, _>>()?,
        };
        let vectors = self
            .vectors
            .unwrap_or_default()
            .into_iter()
            .map(|v| {
                let embedding = Embedding::from_normalized(v.embedding).map_err(|e| {
                    InputError::new("vectors", format!("{} for {}: {e}", memory.id, v.model_id))
                })?;
                Ok(StoredVector { model_id: v.model_id, embedding })
            })
            .collect::<Result<_, InputError>>()?;
        Ok((memory, vectors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_links_survive_an_export_line_and_old_lines_still_import() {
        let at = chrono::DateTime::from_timestamp(1_750_000_000, 123_456_000).unwrap();
        let memory = Memory {
            id: MemoryId::new_v7(at),
            namespace: "alice".parse().unwrap(),
            memory_type: MemoryType::Semantic,
            content: "我住在北京".into(),
            metadata: Metadata::new(),
            session_id: None,
            ttl_secs: 0,
            timestamp: at,
            occurred_at: at,
            updated_at: at,
            last_accessed_at: None,
            expires_at: None,
            access_count: 0,
            archived: false,
            source_ids: Vec::new(),
            content_hash: content_hash("我住在北京"),
            summary: None,
            superseded_by: Some(MemoryId::new_v7(at)),
            invalid_at: Some(at + chrono::TimeDelta::days(30)),
            link: Some(rearview_core::LinkNote::new(
                rearview_core::LinkMaker::Rule,
                "states a change from \"北京\"",
            )),
            possible_updates: vec![rearview_core::PossibleUpdate {
                id: MemoryId::new_v7(at),
                similarity: Some(0.9),
                why: "near in meaning".into(),
            }],
        };
        let line = serde_json::to_string(&ExportedMemory::new(&memory, None)).unwrap();
        let back: ExportedMemory = serde_json::from_str(&line).unwrap();
        assert_eq!(back.into_memory().unwrap().0, memory);

        let current = Memory {
            superseded_by: None,
            invalid_at: None,
            link: None,
            possible_updates: Vec::new(),
            ..memory
        };
        let line = serde_json::to_string(&ExportedMemory::new(&current, None)).unwrap();
        assert!(!line.contains("superseded_by"), "a current memory's line is as before: {line}");
        let back: ExportedMemory = serde_json::from_str(&line).unwrap();
        assert_eq!(back.into_memory().unwrap().0, current);
    }
}
