//! Ranking: everything between "the candidates of a query" and "here is the ordered list".
//!
//! - [`mod@rank`]: hybrid fusion of vector and keyword signals with time decay and access heat,
//!   each score carrying an [`Explanation`];
//! - [`feedback`]: the query vector moved toward a first ranking's best memories;
//! - [`compound`]: the ranked lists of a compound question's parts
//!   (`rearview_language::question_parts`) merged into one;
//! - [`links`]: a superseded memory answered by the current one that replaced it (the links are
//!   made when memories are stored);
//! - [`replies`]: in a conversation, the reply to a question placed right after it.
//!
//! How a query is read (its focus, its questions, its terms) is `rearview-language`'s; where
//! the candidates come from is `rearview-index`'s or the store's.
//!
//! **Invariant:** nothing here does I/O or reads the clock. The query vector and "now" are inputs,
//! so the same inputs always give the same ranking.

pub mod compound;
pub mod feedback;
pub mod links;
pub mod rank;
pub mod replies;
pub mod scored;

pub use compound::merge_parts;
pub use feedback::{Feedback, feedback_query, rescored};
pub use links::current_first;
pub use rank::{
    Candidate, Explanation, Floor, Fusion, KeywordScale, RankingConfig, Recency, Scored, TIER_BAND,
    TierOrder, VectorScale, passes_floor, rank,
};
pub use replies::{Replies, asks, place_replies};

/// Helpers shared by the unit tests of the ranking stages.
#[cfg(test)]
pub(crate) mod testing {
    use rearview_core::MemoryId;

    use crate::scored::{Explanation, Scored};

    /// Memory id `n`.
    pub fn id(n: u128) -> MemoryId {
        MemoryId(uuid::Uuid::from_u128(n))
    }

    /// Memory `n` ranked with `score` (its relevance too).
    pub fn scored(n: u128, score: f32) -> Scored {
        Scored { id: id(n), score, relevance: score, explanation: Explanation::leaf(score, "test") }
    }

    /// The ids of `ranked` as numbers, in order.
    pub fn ids(ranked: &[Scored]) -> Vec<u128> {
        ranked.iter().map(|s| s.id.0.as_u128()).collect()
    }
}
