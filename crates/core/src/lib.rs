//! The vocabulary of rearview: what a memory is, which tier it lives in, whose it is, and which
//! memories a filter selects.
//!
//! This crate owns the domain model and nothing else. It does no I/O, starts no runtime and never
//! reads the wall clock except inside [`SystemClock`]; every other crate receives "now" through a
//! [`Clock`] so that tests can control time.
//!
//! Key types: [`Memory`] (a stored record), [`NewMemory`] (what a client asks to store),
//! [`MemoryType`] (the three tiers), [`Namespace`] (the tenant), [`MemoryFilter`] (which memories
//! a read may see), [`Embedding`] (a unit-length vector that is never all zeros).
//!
//! ```
//! use rearview_core::{MemoryType, Namespace};
//! let tier: MemoryType = "episodic".parse().unwrap();
//! assert_eq!(tier.as_str(), "episodic");
//! assert!("".parse::<Namespace>().is_err());
//! ```

mod clock;
mod embedding;
mod error;
mod filter;
mod links;
mod memory;
mod text;

pub use clock::{Clock, ManualClock, SystemClock, Timestamp, parse_timestamp};
pub use embedding::{Embedding, dot, half_bytes};
pub use error::InputError;
pub use filter::{Facets, MemoryFilter};
pub use links::{LinkMaker, LinkNote, PossibleUpdate};
pub use memory::{
    Memory, MemoryId, MemoryType, Metadata, Namespace, NewMemory, TierTtls, content_hash, tags_of,
};
pub use text::{fact_atoms, is_han, mostly_han, truncate_chars};
