//! `rearview-model.json`: what rearview knows about a model directory beyond the Hugging Face
//! files (its vector-space id, prefixes, pooling, and the digests it was verified against).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::ModelError;

/// File name of the manifest inside a model directory.
pub const MANIFEST_FILE: &str = "rearview-model.json";

/// How token vectors become one text vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// Average of the token vectors, padding excluded (e5, MiniLM).
    #[default]
    Mean,
    /// The first token's vector (bge).
    Cls,
}

/// A model directory's manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelManifest {
    /// The vector-space id stored next to every vector this model makes. Different weights must
    /// have different ids.
    pub id: String,
    /// Prepended to queries (e5: `query: `).
    #[serde(default)]
    pub query_prefix: String,
    /// Prepended to stored memories (e5: `passage: `).
    #[serde(default)]
    pub passage_prefix: String,
    /// Pooling over token vectors.
    #[serde(default)]
    pub pooling: Pooling,
    /// Tokens per window (the model's position limit); longer texts are embedded in windows.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: usize,
    /// Where the files came from, for `rearview models list`.
    #[serde(default)]
    pub source: String,
    /// File name → (size in bytes, sha256) as verified when the model was installed.
    #[serde(default)]
    pub files: BTreeMap<String, FileDigest>,
}

/// Size and digest of one installed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    /// Bytes.
    pub size: u64,
    /// Lower-case hex sha256.
    pub sha256: String,
}

fn default_max_tokens() -> usize {
    512
}

impl ModelManifest {
    /// Reads `dir/rearview-model.json`, or `None` when the directory has none.
    pub fn read(dir: &Path) -> Result<Option<Self>, ModelError> {
        let path = dir.join(MANIFEST_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ModelError::io("reading", &path)(e)),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| ModelError::format(&path, format!("not a valid manifest: {e}")))
    }

    /// Writes `dir/rearview-model.json` atomically (temp file + rename).
    pub fn write(&self, dir: &Path) -> Result<(), ModelError> {
        let path = dir.join(MANIFEST_FILE);
        let tmp = dir.join(format!("{MANIFEST_FILE}.tmp"));
        let text = serde_json::to_string_pretty(self).expect("manifest serialises");
        std::fs::write(&tmp, text).map_err(ModelError::io("writing", &tmp))?;
        std::fs::rename(&tmp, &path).map_err(ModelError::io("renaming", &path))
    }

    /// Checks that every recorded file is present with its recorded size: a cheap start-up
    /// check that catches truncated or replaced files (the full digest is checked at install).
    pub fn check_sizes(&self, dir: &Path) -> Result<(), ModelError> {
        for (name, digest) in &self.files {
            let path = dir.join(name);
            let meta = match std::fs::metadata(&path) {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(ModelError::Missing { path });
                }
                Err(e) => return Err(ModelError::io("reading", &path)(e)),
            };
            if meta.len() != digest.size {
                return Err(ModelError::format(
                    &path,
                    format!(
                        "has {} bytes but was installed with {}; delete the directory and fetch the model again",
                        meta.len(),
                        digest.size
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Lower-case hex sha256 and size of a file, streamed.
pub fn digest_file(path: &Path) -> Result<FileDigest, ModelError> {
    use sha2::Digest;
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(ModelError::io("reading", path))?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(ModelError::io("reading", path))?;
        if n == 0 {
            break;
        }
        size += n as u64;
        hasher.update(&buf[..n]);
    }
    Ok(FileDigest { size, sha256: hex(&hasher.finalize()) })
}

/// Lower-case hex of bytes.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
