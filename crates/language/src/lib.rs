//! How rearview reads text, for indexing, for querying and for the lifecycle:
//! - [`tokenize`]: text → keyword terms, Chinese-aware (jieba segmentation or CJK bigrams) and
//!   English lower-cased and stemmed, used both to index memories and to query them;
//! - [`mod@focus`]: a dialogue-shaped query focused on its latest turns;
//! - [`questions`]: a query that asks several questions split into them;
//! - [`extract`]: what a memory states (facts and the changes it announces), its sentences,
//!   timestamps and small talk, for merging, distillation and links.
//!
//! **Invariant:** pure. Nothing here does I/O or reads the clock.

pub mod extract;
pub mod focus;
pub mod questions;
pub mod tokenize;

pub use focus::{Focused, QueryFocus, focus};
pub use questions::question_parts;
pub use tokenize::Tokenizer;
