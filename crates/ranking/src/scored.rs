//! A ranked memory and how its score was computed: what every ranking stage takes and returns.

use rearview_core::MemoryId;
use serde::Serialize;

/// A ranked candidate. `score` is ≥ 0; higher is better.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    /// Memory id.
    #[serde(serialize_with = "serialize_id")]
    pub id: MemoryId,
    /// Final score.
    pub score: f32,
    /// The fused relevance alone, before recency and heat (what a relevance floor compares).
    pub relevance: f32,
    /// How `score` was computed.
    pub explanation: Explanation,
}

/// A score and how it was computed: a tree whose root is the final score (after tantivy's
/// `Explanation`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// The value of this node.
    pub value: f32,
    /// What the value is, with the formula and its inputs.
    pub description: String,
    /// The values this one was computed from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<Explanation>,
}

impl Explanation {
    pub(crate) fn leaf(value: f32, description: impl Into<String>) -> Self {
        Self { value, description: description.into(), details: Vec::new() }
    }
}

fn serialize_id<S: serde::Serializer>(id: &MemoryId, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(id)
}
