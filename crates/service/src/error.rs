//! Service errors and whose fault they are.

use rearview_core::InputError;
use rearview_embed::EmbedError;
use rearview_llm::LlmError;
use rearview_store::StoreError;

/// Why a use case failed. [`ServiceError::kind`] says whose fault it is, which is all a transport
/// needs to pick an HTTP status or an MCP treatment.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The request was wrong; the message names the field and what is allowed.
    #[error(transparent)]
    InvalidInput(#[from] InputError),
    /// No visible memory with this id in this namespace.
    #[error("memory {id} not found in namespace {namespace:?}")]
    NotFound {
        /// The id asked for.
        id: String,
        /// The namespace searched.
        namespace: String,
    },
    /// The caller's credentials do not grant this namespace; nothing was read or written.
    #[error(
        "this API key does not grant namespace {namespace:?}; use a namespace the key grants, or ask an admin for a key that grants this one (rearview keys create --namespace ...)"
    )]
    Forbidden {
        /// The namespace asked for.
        namespace: String,
    },
    /// A dependency (embedding model, database lock) is unavailable; retrying later may work.
    #[error("{0}")]
    Unavailable(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The embedding model failed in a way retrying will not fix.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The language model failed or answered unusably; nothing was changed.
    #[error("{0}; nothing was changed")]
    Llm(LlmError),
}

// Not `#[from]`: that would also make the LLM error the `source`, and reports that print the
// chain would say it twice.
impl From<LlmError> for ServiceError {
    fn from(e: LlmError) -> Self {
        ServiceError::Llm(e)
    }
}

/// Whose fault an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The caller's: fix the request.
    InvalidInput,
    /// The caller's: the memory does not exist (or expired, or is another namespace's).
    NotFound,
    /// The caller's: the credentials do not allow this (a namespace outside the key's grant).
    Forbidden,
    /// Nobody's: try again later.
    Unavailable,
    /// Ours: a bug or corrupted data; logged with its cause.
    Internal,
}

impl ServiceError {
    /// Whose fault this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ServiceError::InvalidInput(_) => ErrorKind::InvalidInput,
            ServiceError::NotFound { .. } => ErrorKind::NotFound,
            ServiceError::Forbidden { .. } => ErrorKind::Forbidden,
            ServiceError::Unavailable(_) => ErrorKind::Unavailable,
            ServiceError::Store(StoreError::Unavailable { .. }) => ErrorKind::Unavailable,
            ServiceError::Store(_) => ErrorKind::Internal,
            ServiceError::Embed(EmbedError::Unavailable { .. }) => ErrorKind::Unavailable,
            ServiceError::Embed(_) => ErrorKind::Internal,
            ServiceError::Llm(_) => ErrorKind::Unavailable,
        }
    }
}
