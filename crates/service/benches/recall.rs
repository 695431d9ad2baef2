#![allow(
    missing_docs,
    clippy::print_stderr,
    reason = "criterion generates the entry point; the bench reports its data source"
)]
//! Recall latency at 1k, 10k and 100k memories in one namespace, and store throughput.
//!
//! Run: `cargo bench -p rearview-service --bench recall` (`REARVIEW_BENCH_SIZES=1000,10000` to
//! pick sizes). Memories and queries are real chat text (see `corpus.rs`); vectors are
//! 384-dimensional (the size of multilingual-e5-small) from the deterministic
//! test embedder, whose cost (a few microseconds of hashing) is included. The store is a real
//! SQLite file. Each recall counts access (a write), as in production.

use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rearview_core::{Namespace, SystemClock};
use rearview_embed::{Embedder, TestEmbedder};
use rearview_service::{MemoryService, RecallRequest, RememberRequest, ServiceConfig};
use rearview_store::MemoryStore;
use rearview_store_sqlite::{Durability, SqliteConfig, SqliteStore};

mod corpus;

use corpus::Corpus;

async fn filled_service(n: usize, dir: &std::path::Path, corpus: &Corpus) -> MemoryService {
    let mut config = SqliteConfig::new(dir.join(format!("bench-{n}.db")));
    // Setup only: the timed recalls below write access counts with the default durability.
    config.durability = Durability::Normal;
    let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::open(&config).unwrap());
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(384));
    let service = MemoryService::open(
        Arc::clone(&store),
        Some(Arc::clone(&embedder)),
        Arc::new(SystemClock),
        ServiceConfig::default(),
    )
    .await
    .unwrap();
    let ns: Namespace = "bench".parse().unwrap();
    for i in 0..n {
        service.remember(&ns, RememberRequest::new(corpus.memory(i))).await.unwrap();
    }
    drop(service);
    // Reopen with full durability, as the server runs; this also exercises the index load.
    let store: Arc<dyn MemoryStore> =
        Arc::new(SqliteStore::open(&SqliteConfig::new(&config.path)).unwrap());
    MemoryService::open(store, Some(embedder), Arc::new(SystemClock), ServiceConfig::default())
        .await
        .unwrap()
}

fn recall_latency(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sizes: Vec<usize> = std::env::var("REARVIEW_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let corpus = corpus::load();
    eprintln!("benchmark text: {}", corpus.source);
    let queries = &corpus.queries;
    let ns: Namespace = "bench".parse().unwrap();
    let mut group = c.benchmark_group("recall");
    group.sample_size(50).measurement_time(Duration::from_secs(8));
    for n in sizes {
        let service = rt.block_on(filled_service(n, dir.path(), &corpus));
        for (label, count) in [("counted", true), ("uncounted", false)] {
            let mut qi = 0;
            group.bench_with_input(BenchmarkId::new(label, n), &n, |b, _| {
                b.iter(|| {
                    qi += 1;
                    let request = RecallRequest {
                        record_access: count,
                        ..RecallRequest::new(queries[qi % queries.len()].as_str())
                    };
                    rt.block_on(service.recall(&ns, request)).unwrap()
                })
            });
        }
    }
    group.finish();
}

fn store_throughput(c: &mut Criterion) {
    let corpus = corpus::load();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ns: Namespace = "bench".parse().unwrap();
    let mut group = c.benchmark_group("store");
    group
        .throughput(Throughput::Elements(1))
        .sample_size(30)
        .measurement_time(Duration::from_secs(8));
    for (label, durability) in [("full", Durability::Full), ("normal", Durability::Normal)] {
        let mut config = SqliteConfig::new(dir.path().join(format!("store-{label}.db")));
        config.durability = durability;
        let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::open(&config).unwrap());
        for (embed_label, embedder) in [
            ("keywords", None),
            ("test-embedder-384", Some(Arc::new(TestEmbedder::new(384)) as Arc<dyn Embedder>)),
        ] {
            let service = rt
                .block_on(MemoryService::open(
                    Arc::clone(&store),
                    embedder,
                    Arc::new(SystemClock),
                    ServiceConfig::default(),
                ))
                .unwrap();
            let mut i = 0;
            group.bench_function(
                BenchmarkId::new(format!("{label}/{embed_label}"), "one memory"),
                |b| {
                    b.iter(|| {
                        i += 1;
                        rt.block_on(service.remember(&ns, RememberRequest::new(corpus.memory(i))))
                            .unwrap()
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, recall_latency, store_throughput);
criterion_main!(benches);
