//! The in-memory search structures recall reads candidates from:
//! - [`text`]: [`TextIndex`], BM25 over keyword terms, scored exactly as SQLite FTS5 scores it,
//!   with its snapshot on disk;
//! - [`vector`]: the [`VectorIndex`] trait and [`FlatIndex`], an exact cosine scan;
//! - [`ann`]: [`AnnIndex`], an HNSW graph (usearch) for namespaces past the exact-scan limit.
//!
//! The terms come from `rearview-language`'s tokenizer and the vectors from an embedder; this
//! crate only stores and searches them. **Invariant:** nothing here reads the clock or a store.

pub mod ann;
pub mod text;
pub mod vector;

pub use ann::{AnnError, AnnIndex, SavedGraph};
pub use text::{SnapshotError, TextHit, TextIndex};
pub use vector::{FlatIndex, VectorHit, VectorIndex};
