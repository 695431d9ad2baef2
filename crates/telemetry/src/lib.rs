//! What the transports record about the calls they serve: Prometheus metrics ([`metrics`],
//! scraped at `GET /metrics`) and the audit log ([`audit`], one line per tool call or REST
//! request, to its own tracing target).
//!
//! MCP (stdio and HTTP) and REST record into the same process-wide registry, so a count or a
//! latency means the same whichever door a call came through.

pub mod audit;
pub mod metrics;
