//! Store errors.

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A write would duplicate an existing id.
    #[error("memory {id} already exists")]
    Conflict {
        /// The duplicated id.
        id: String,
    },
    /// The database cannot be reached or is busy beyond the configured timeout.
    #[error("store unavailable: {message}")]
    Unavailable {
        /// What the backend said.
        message: String,
    },
    /// Stored data could not be decoded: a bug or on-disk corruption.
    #[error("stored data is corrupt: {message}")]
    Corrupt {
        /// What could not be decoded.
        message: String,
    },
    /// The schema on disk is newer than this binary understands.
    #[error(
        "database schema version {found} is newer than this rearview supports ({supported}); upgrade rearview"
    )]
    SchemaTooNew {
        /// Version on disk.
        found: i64,
        /// Newest version this binary knows.
        supported: i64,
    },
    /// Any other backend failure, with its source.
    #[error("store backend failed: {context}")]
    Backend {
        /// What we were doing.
        context: String,
        /// The backend's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}
