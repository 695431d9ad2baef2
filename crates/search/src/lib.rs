//! Search structures and ranking: everything between "the user typed a query" and "here is the
//! ordered list", minus I/O.
//!
//! This crate owns three pure pieces (it is the merge of the `index` and `retrieval` crates the
//! style guide allows):
//! - [`tokenize`]: text → keyword terms, Chinese-aware (jieba segmentation or CJK bigrams) and
//!   English lower-cased, used both to index memories and to query them;
//! - [`vector`]: the [`VectorIndex`] trait and [`FlatIndex`], an exact cosine scan;
//! - [`text`]: [`TextIndex`], in-memory BM25 scored exactly as SQLite FTS5 scores it;
//! - [`mod@rank`]: hybrid fusion of vector and keyword signals with time decay and access heat,
//!   each score carrying an [`Explanation`];
//! - [`feedback`]: the query vector moved toward a first ranking's best memories;
//! - [`compound`]: a query that asks several questions split into them, their lists merged;
//! - [`links`]: a superseded memory answered by the current one that replaced it (the links are
//!   made when memories are stored);
//! - [`replies`]: in a conversation, the reply to a question placed right after it;
//!
//! **Invariant:** nothing here does I/O or reads the clock. The query vector and "now" are inputs,
//! so the same inputs always give the same ranking.

pub mod ann;
pub mod compound;
pub mod extract;
pub mod feedback;
pub mod focus;
pub mod links;
pub mod rank;
pub mod replies;
pub mod text;
pub mod tokenize;
pub mod vector;

pub use ann::{AnnError, AnnIndex};
pub use compound::{merge_parts, question_parts};
pub use feedback::{Feedback, feedback_query, rescored};
pub use focus::{Focused, QueryFocus, focus};
pub use links::current_first;
pub use rank::{
    Candidate, Explanation, Floor, Fusion, KeywordScale, RankingConfig, Recency, Scored, TIER_BAND,
    TierOrder, VectorScale, passes_floor, rank,
};
pub use replies::{Replies, asks, place_replies};
pub use text::{SnapshotError, TextHit, TextIndex};
pub use tokenize::Tokenizer;
pub use vector::{FlatIndex, VectorHit, VectorIndex};

/// Helpers shared by the unit tests of the ranking stages.
#[cfg(test)]
pub(crate) mod testing {
    use rearview_core::MemoryId;

    use crate::rank::{Explanation, Scored};

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
