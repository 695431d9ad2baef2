//! Prometheus metrics: request counts and latencies per transport and operation (MCP tool or
//! REST route), memories per tier and state, and the embedding backlog.
//!
//! One process-wide registry, as Prometheus clients keep: adapters record into it with
//! [`observe`], and `GET /metrics` renders it with [`render`] (OpenMetrics text, which
//! Prometheus scrapes natively). Gauges are read from the service at scrape time, so they are
//! never stale and cost nothing between scrapes.

use std::collections::VecDeque;
use std::sync::{LazyLock, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use rearview_core::Timestamp;
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
    index_namespaces: Gauge,
    index_bytes: Gauge,
    index_evictions: Gauge,
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
    let index_namespaces = Gauge::default();
    let index_bytes = Gauge::default();
    let index_evictions = Gauge::default();
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
    registry.register(
        "index_namespaces",
        "Namespaces whose search indexes are in memory (loaded when first used, when a budget is set)",
        index_namespaces.clone(),
    );
    registry.register(
        "index_bytes",
        "Approximate bytes of the in-memory search indexes",
        index_bytes.clone(),
    );
    registry.register(
        "index_evictions",
        "Namespaces dropped from memory since start to stay within --index-memory",
        index_evictions.clone(),
    );
    Metrics {
        registry: Mutex::new(registry),
        requests,
        latency,
        memories,
        vectors,
        queue,
        index_namespaces,
        index_bytes,
        index_evictions,
    }
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
    if is_recall(&operation) {
        RECENT.record(elapsed);
    }
    m.latency.get_or_create(&LatencyLabels { transport, operation }).observe(elapsed.as_secs_f64());
}

/// Recalls on every transport: the MCP tool (also over `/mcp/tools/call`) and the REST route.
fn is_recall(operation: &str) -> bool {
    matches!(operation, "retrieve_memory" | "POST /v1/recall")
}

/// Minutes of recall latency kept for [`recall_latency`].
pub const RECENT_MINUTES: usize = 60;

/// Latencies kept per minute (a uniform sample of that minute's recalls beyond this).
const SAMPLES_PER_MINUTE: usize = 2048;

/// Recall latencies of the last [`RECENT_MINUTES`] minutes, by minute of this process's life.
struct Recent {
    started: Instant,
    minutes: Mutex<VecDeque<Minute>>,
}

struct Minute {
    /// Minutes since `started`.
    index: u64,
    count: u64,
    /// Seconds; a reservoir sample once `count` passes [`SAMPLES_PER_MINUTE`].
    samples: Vec<f32>,
}

static RECENT: LazyLock<Recent> =
    LazyLock::new(|| Recent { started: Instant::now(), minutes: Mutex::new(VecDeque::new()) });

impl Recent {
    fn record(&self, elapsed: Duration) {
        let index = self.started.elapsed().as_secs() / 60;
        let mut minutes = self.minutes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if minutes.back().is_none_or(|m| m.index != index) {
            minutes.push_back(Minute { index, count: 0, samples: Vec::new() });
            while minutes.len() > RECENT_MINUTES {
                minutes.pop_front();
            }
        }
        let minute = minutes.back_mut().expect("pushed above");
        minute.count += 1;
        let value = elapsed.as_secs_f32();
        if minute.samples.len() < SAMPLES_PER_MINUTE {
            minute.samples.push(value);
        } else {
            // Reservoir sampling (Algorithm R) with a hash of the count as the random draw.
            let draw = splitmix(minute.count) % minute.count;
            if let Some(slot) = minute.samples.get_mut(draw as usize) {
                *slot = value;
            }
        }
    }
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Recalls served in one minute and their latency.
#[derive(Debug, Clone, PartialEq)]
pub struct MinuteLatency {
    /// When the minute began (to the second).
    pub minute: Timestamp,
    /// Recalls completed in it.
    pub count: u64,
    /// Median latency, milliseconds.
    pub p50_ms: f64,
    /// 99th percentile latency, milliseconds.
    pub p99_ms: f64,
}

/// The latency of recalls in this process, per minute over the last hour (minutes without a
/// recall left out), oldest first; `now` dates the minutes.
pub fn recall_latency(now: Timestamp) -> Vec<MinuteLatency> {
    let recent = &*RECENT;
    let alive = recent.started.elapsed();
    let minutes = recent.minutes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    minutes
        .iter()
        .map(|m| {
            let ago = alive.saturating_sub(Duration::from_secs(m.index * 60));
            let start = now - chrono::TimeDelta::seconds(ago.as_secs() as i64);
            let mut sorted = m.samples.clone();
            sorted.sort_by(f32::total_cmp);
            MinuteLatency {
                minute: start,
                count: m.count,
                p50_ms: quantile(&sorted, 0.50) * 1000.0,
                p99_ms: quantile(&sorted, 0.99) * 1000.0,
            }
        })
        .collect()
}

/// The `q` quantile of `sorted` (nearest rank); 0 when empty.
fn quantile(sorted: &[f32], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    f64::from(sorted[rank - 1])
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
    let gauge = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    m.index_namespaces.set(gauge(stats.indexes.namespaces as u64));
    m.index_bytes.set(gauge(stats.indexes.bytes));
    m.index_evictions.set(gauge(stats.indexes.evictions));
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = prometheus_client::encoding::text::encode(&mut out, &registry);
    out
}

fn sum(stats: &ServiceStats, tier: &str, field: impl Fn(&rearview_store::TierCount) -> u64) -> u64 {
    stats.store.tiers.iter().filter(|t| t.memory_type.as_str() == tier).map(field).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recall_latency_counts_recalls_per_minute_and_takes_quantiles() {
        for ms in [1, 2, 3, 100] {
            observe("rest", "POST /v1/recall", "ok", Duration::from_millis(ms));
        }
        observe("mcp", "retrieve_memory", "ok", Duration::from_millis(4));
        observe("mcp", "store_memory", "ok", Duration::from_secs(3));
        let now = chrono::DateTime::from_timestamp(1_750_000_000, 0).expect("valid");
        let minutes = recall_latency(now);
        // Both recalls may straddle a minute boundary; together they are all five.
        assert_eq!(minutes.iter().map(|m| m.count).sum::<u64>(), 5);
        let last = minutes.last().expect("a minute with recalls");
        assert!(last.minute <= now && last.minute > now - chrono::TimeDelta::seconds(61));
        if minutes.len() == 1 {
            assert!((last.p50_ms - 3.0).abs() < 0.01, "{last:?}");
            assert!((last.p99_ms - 100.0).abs() < 0.01, "{last:?}");
        }
    }

    #[test]
    fn quantiles_take_the_nearest_rank() {
        let sorted: Vec<f32> = (1..=100).map(|v| v as f32).collect();
        assert_eq!(quantile(&sorted, 0.5), 50.0);
        assert_eq!(quantile(&sorted, 0.99), 99.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }
}
