//! The audit log: one structured event per tool call on every transport (MCP, the design's
//! `/mcp/tools/call`, REST), and the request metrics recorded with it.
//!
//! Events go to `tracing` under the target `rearview::audit` at info level, which servers enable
//! by default (`--log-format json`, `--log-file PATH` choose where and how). They carry the key
//! id, never a secret; input and output are cut to [`EXCERPT_CHARS`] characters.

use std::time::Duration;

/// Characters of input and output kept in an event.
pub const EXCERPT_CHARS: usize = 300;

/// The `tracing` target of audit events.
pub const TARGET: &str = "rearview::audit";

/// Whether audit events are logged (the filter lets `rearview::audit` info through). Callers
/// skip rendering input and output when not: a recall's answer can be tens of kilobytes.
pub fn enabled() -> bool {
    tracing::enabled!(target: TARGET, tracing::Level::INFO)
}

/// One tool call, as logged.
#[derive(Debug, Clone, Copy)]
pub struct AuditEvent<'a> {
    /// `mcp`, `http-tools` or `rest`.
    pub transport: &'a str,
    /// Tool name or REST operation; also the metrics' operation label, so it must come from a
    /// fixed set (unknown tools are `unknown`).
    pub tool: &'a str,
    /// The namespace the call worked in, once resolved.
    pub namespace: Option<&'a str>,
    /// The API key's id, when the call carried one.
    pub key_id: Option<&'a str>,
    /// `ok`, `invalid_params`, `forbidden`, `tool_error`, `internal_error`, or an HTTP status.
    pub outcome: &'a str,
    /// How long the call took.
    pub duration: Duration,
    /// The arguments or request body.
    pub input: &'a str,
    /// The result or error.
    pub output: &'a str,
}

/// Logs `event` (when [`enabled`]) and counts it in the request metrics.
pub fn record(event: &AuditEvent<'_>) {
    crate::metrics::observe(event.transport, event.tool, event.outcome, event.duration);
    if !enabled() {
        return;
    }
    tracing::info!(
        target: TARGET,
        transport = event.transport,
        tool = event.tool,
        namespace = event.namespace,
        key_id = event.key_id,
        outcome = event.outcome,
        ms = event.duration.as_secs_f64() * 1000.0,
        input = %rearview_core::truncate_chars(event.input, EXCERPT_CHARS),
        output = %rearview_core::truncate_chars(event.output, EXCERPT_CHARS),
        "tool call"
    );
}
