//! Errors for input the caller got wrong.

/// A value supplied by a client is not acceptable. Always the caller's fault.
///
/// `field` names the offending field as the client spelled it; `message` says what is allowed,
/// so the caller can fix the request without reading our code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {field}: {message}")]
pub struct InputError {
    /// The field, as named in the tool schema / CLI flag (`memory_type`, `top_k`, …).
    /// Usually a literal; an element of a list is named with its index (`ids[2]`).
    pub field: std::borrow::Cow<'static, str>,
    /// What was wrong and what is allowed.
    pub message: String,
}

impl InputError {
    /// Builds an error for `field`.
    pub fn new(
        field: impl Into<std::borrow::Cow<'static, str>>,
        message: impl Into<String>,
    ) -> Self {
        Self { field: field.into(), message: message.into() }
    }
}
