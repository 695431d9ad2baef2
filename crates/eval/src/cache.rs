//! Vectors computed once per distinct text, shared by every configuration of a run and kept on
//! disk between runs (`--embed-cache`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rearview_core::Embedding;
use rearview_embed::{EmbedError, Embedder, TextKind};

use crate::EvalError;

const CACHE_MAGIC: &[u8; 8] = b"RVVEC001";

/// `magic, then per entry: kind (1 = query), text length (u32 LE), text, dimensions (u32 LE),
/// components (f32 LE)`.
fn encode_cache(cache: &HashMap<(bool, String), Embedding>) -> Vec<u8> {
    let mut out = CACHE_MAGIC.to_vec();
    for ((query, text), vector) in cache {
        out.push(u8::from(*query));
        out.extend((text.len() as u32).to_le_bytes());
        out.extend(text.as_bytes());
        out.extend((vector.dimensions() as u32).to_le_bytes());
        for v in vector.as_slice() {
            out.extend(v.to_le_bytes());
        }
    }
    out
}

fn decode_cache(bytes: &[u8]) -> Option<Vec<((bool, String), Embedding)>> {
    let mut rest = bytes.strip_prefix(CACHE_MAGIC.as_slice())?;
    let mut take = |n: usize| -> Option<&[u8]> {
        let (head, tail) = rest.split_at_checked(n)?;
        rest = tail;
        Some(head)
    };
    let mut entries = Vec::new();
    while let Some(kind) = take(1) {
        let query = kind[0] == 1;
        let len = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
        let text = String::from_utf8(take(len)?.to_vec()).ok()?;
        let dims = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
        let values: Vec<f32> = take(dims * 4)?
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        entries.push(((query, text), Embedding::from_normalized(values).ok()?));
    }
    Some(entries)
}

/// An [`Embedder`] that remembers every vector it computed, so the same text is embedded once per
/// run (queries reappear in every configuration; benchmark records repeat).
pub struct CachingEmbedder {
    inner: Arc<dyn Embedder>,
    cache: Mutex<HashMap<(bool, String), Embedding>>,
}

impl std::fmt::Debug for CachingEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachingEmbedder")
            .field("model", &self.inner.model_id())
            .finish_non_exhaustive()
    }
}

impl CachingEmbedder {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn Embedder>) -> Self {
        Self { inner, cache: Mutex::new(HashMap::new()) }
    }

    /// Loads the vectors saved by [`CachingEmbedder::save`] into the cache; a missing file is an
    /// empty cache. Vectors of another model are never mixed in: the file name carries the model.
    pub fn load(&self, dir: &Path) -> Result<usize, EvalError> {
        let path = self.cache_file(dir);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(EvalError::io(&path, e)),
        };
        let entries = decode_cache(&bytes)
            .ok_or_else(|| EvalError::format(&path, "not a rearview embedding cache; delete it"))?;
        let n = entries.len();
        self.lock().extend(entries);
        Ok(n)
    }

    /// Writes every cached vector to a file under `dir` (atomically: a temporary file renamed).
    pub fn save(&self, dir: &Path) -> Result<(), EvalError> {
        std::fs::create_dir_all(dir).map_err(|e| EvalError::io(dir, e))?;
        let path = self.cache_file(dir);
        let bytes = encode_cache(&self.lock());
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, bytes).map_err(|e| EvalError::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| EvalError::io(&path, e))
    }

    fn cache_file(&self, dir: &Path) -> std::path::PathBuf {
        let model: String = self
            .inner
            .model_id()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' })
            .collect();
        dir.join(format!("{model}.vectors"))
    }

    /// Embeds the texts of `texts` not cached yet, in one batch.
    pub async fn warm(&self, texts: &[String], kind: TextKind) -> Result<(), EmbedError> {
        self.embed(texts, kind).await.map(drop)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(bool, String), Embedding>> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[async_trait]
impl Embedder for CachingEmbedder {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }

    async fn embed(&self, texts: &[String], kind: TextKind) -> Result<Vec<Embedding>, EmbedError> {
        let query = kind == TextKind::Query;
        let missing: Vec<String> = {
            let cache = self.lock();
            let mut seen = std::collections::HashSet::new();
            texts
                .iter()
                .filter(|t| {
                    !cache.contains_key(&(query, (*t).clone())) && seen.insert((*t).clone())
                })
                .cloned()
                .collect()
        };
        if !missing.is_empty() {
            let vectors = self.inner.embed(&missing, kind).await?;
            let mut cache = self.lock();
            for (text, v) in missing.into_iter().zip(vectors) {
                cache.insert((query, text), v);
            }
        }
        let cache = self.lock();
        texts
            .iter()
            .map(|t| {
                cache.get(&(query, t.clone())).cloned().ok_or_else(|| EmbedError::BadOutput {
                    message: "a vector went missing from the cache".into(),
                })
            })
            .collect()
    }
}
