//! Prometheus metrics: request counts and latencies per transport and operation (MCP tool or
//! REST route), memories per tier and state, and the embedding backlog.
//!
//! One process-wide registry, as Prometheus clients keep: adapters record into it with
//! [`observe`], and `GET /metrics` renders it with [`render`] (OpenMetrics text, which
//! Prometheus scrapes natively). Gauges are read from the service at scrape time, so they are
//! never stale and cost nothing between scrapes.

use std::sync::{LazyLock, Mutex, MutexGuard};
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use rearview_service::ServiceStats;

/// The content type of [`render`]'s output.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    transport: String,
    operation: String,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LatencyLabels {
    transport: String,
    operation: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TierLabels {
    tier: String,
    state: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ModelLabels {
    model: String,
}

type LatencyFamily = Family<LatencyLabels, Histogram, fn() -> Histogram>;

/// The families are shared handles (each locks internally); only rendering, which sets the
/// gauges and then encodes, takes the registry's lock, so recording never waits on a scrape.
struct Metrics {
    registry: Mutex<Registry>,
    requests: Family<RequestLabels, Counter>,
    latency: LatencyFamily,
    memories: Family<TierLabels, Gauge>,
    vectors: Family<ModelLabels, Gauge>,
    queue: Gauge,
}

fn latency_histogram() -> Histogram {
    // 0.25 ms … ~16 s: recall is sub-millisecond to tens of ms, LLM-backed tools take seconds.
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(0.000_25, 2.0, 17))
}

static METRICS: LazyLock<Metrics> = LazyLock::new(|| {
    let mut registry = Registry::with_prefix("rearview");
    let requests = Family::<RequestLabels, Counter>::default();
    let latency: LatencyFamily = Family::new_with_constructor(latency_histogram);
    let memories = Family::<TierLabels, Gauge>::default();
    let vectors = Family::<ModelLabels, Gauge>::default();
    let queue = Gauge::default();
    registry.register(
        "requests",
        "Requests by transport (mcp, http-tools, rest), operation (tool or route) and outcome",
        requests.clone(),
    );
    registry.register(
        "request_duration_seconds",
        "Request latency by transport and operation",
        latency.clone(),
    );
    registry.register(
        "memories",
        "Memories by tier and state (live, archived, superseded, expired awaiting the sweep), all namespaces",
        memories.clone(),
    );
    registry.register("vectors", "Stored vectors per embedding model", vectors.clone());
    registry.register(
        "embedding_queue_depth",
        "Vectors still to compute (memories stored while a model was unavailable, or before it was added)",
        queue.clone(),
    );
    Metrics { registry: Mutex::new(registry), requests, latency, memories, vectors, queue }
});

/// Records one request: `transport` (`mcp`, `http-tools`, `rest`), `operation` (tool name or
/// route pattern), `outcome` (`ok`, `tool_error`, `invalid_params`, or an HTTP status class).
pub fn observe(transport: &str, operation: &str, outcome: &str, elapsed: Duration) {
    let m = &*METRICS;
    let (transport, operation) = (transport.to_owned(), operation.to_owned());
    m.requests
        .get_or_create(&RequestLabels {
            transport: transport.clone(),
            operation: operation.clone(),
            outcome: outcome.to_owned(),
        })
        .inc();
    m.latency.get_or_create(&LatencyLabels { transport, operation }).observe(elapsed.as_secs_f64());
}

/// The registry as OpenMetrics text, with the gauges set from `stats`.
pub fn render(stats: &ServiceStats) -> String {
    let m = &*METRICS;
    // Held throughout: concurrent scrapes must not interleave clearing and setting the gauges.
    let registry: MutexGuard<'_, Registry> =
        m.registry.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    m.memories.clear();
    for tier in ["working", "episodic", "semantic"] {
        for (state, count) in [
            ("live", sum(stats, tier, |t| t.live)),
            ("archived", sum(stats, tier, |t| t.archived)),
            ("superseded", sum(stats, tier, |t| t.superseded)),
            ("expired", sum(stats, tier, |t| t.expired)),
        ] {
            let labels = TierLabels { tier: tier.to_owned(), state: state.to_owned() };
            m.memories.get_or_create(&labels).set(i64::try_from(count).unwrap_or(i64::MAX));
        }
    }
    m.vectors.clear();
    for (model, n) in &stats.store.vectors_per_model {
        let labels = ModelLabels { model: model.clone() };
        m.vectors.get_or_create(&labels).set(i64::try_from(*n).unwrap_or(i64::MAX));
    }
    m.queue.set(i64::try_from(stats.pending_embeddings).unwrap_or(i64::MAX));
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = prometheus_client::encoding::text::encode(&mut out, &registry);
    out
}

fn sum(stats: &ServiceStats, tier: &str, field: impl Fn(&rearview_store::TierCount) -> u64) -> u64 {
    stats.store.tiers.iter().filter(|t| t.memory_type.as_str() == tier).map(field).sum()
}
