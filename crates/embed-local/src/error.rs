//! Errors of loading, fetching and converting local models.

use std::path::PathBuf;

/// Why a local model could not be loaded, fetched or converted.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A file could not be read or written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done ("reading", "writing", …).
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A model file is present but not what the loader expects.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The model directory lacks a required file.
    #[error(
        "{path} is missing; fetch the model with `rearview models fetch` or point at a directory with config.json, tokenizer.json and model.safetensors"
    )]
    Missing {
        /// The missing file.
        path: PathBuf,
    },
    /// The tensor runtime failed (shape mismatch, wrong weights).
    #[error("model runtime: {0}")]
    Runtime(String),
    /// A download failed (network, HTTP status, short body).
    #[error("download {url}: {message}")]
    Download {
        /// What was being fetched.
        url: String,
        /// Why it failed.
        message: String,
    },
    /// The tokenizer failed to load or encode.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// Every source of a model failed; each attempt is listed.
    #[error("could not obtain model `{model}`:\n{}", attempts.join("\n"))]
    Unobtainable {
        /// The catalog name.
        model: String,
        /// One line per source tried: where, and why it failed.
        attempts: Vec<String>,
    },
    /// A downloaded file does not have the pinned or announced checksum.
    #[error(
        "{what} has sha256 {actual}, expected {expected}; the download is corrupt or was tampered with"
    )]
    Checksum {
        /// The file or URL.
        what: String,
        /// Pinned or announced digest.
        expected: String,
        /// Digest of what arrived.
        actual: String,
    },
    /// The name is not in the model catalog.
    #[error("unknown model `{name}`; known models: {known}")]
    UnknownModel {
        /// The name given.
        name: String,
        /// Comma-separated catalog names.
        known: String,
    },
}

impl ModelError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| ModelError::Io { action, path, source }
    }

    pub(crate) fn format(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        ModelError::Format { path: path.into(), message: message.into() }
    }
}
