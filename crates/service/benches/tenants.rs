#![allow(
    missing_docs,
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "a benchmark program: progress on stderr, one JSON result per run on stdout"
)]
//! The tenants series: many namespaces in one database, as a shared service holds them.
//!
//! For each shape (`namespaces`×`memories_per_namespace`, `REARVIEW_TENANTS`, default
//! `1000x1000,10000x100`), the database is filled once through `MemoryService::import` (as
//! `rearview import` writes: batches of 500), then measured in a fresh process per index mode,
//! so peak RSS belongs to that run alone:
//!
//! - `on-demand` (the default, `index_memory = auto`: a quarter of the machine's memory):
//!   namespaces load when first used;
//! - `all` (`index_memory = all`, the behaviour before): every namespace loaded at start-up.
//!
//! Each run: `start_ms` (`MemoryService::open` with the server's defaults); the first recall in
//! 50 namespaces never used before (`cold_first_recall_ms`, median); 300 recalls in one warm
//! namespace (`warm_recall_p50_ms`, `_p99_ms`); a mixed load that recalls in 10 % of the tenants
//! and stores in every tenth of those; 100 stores with the defaults (`store_p50_ms`); then the
//! disk (database, WAL, saved indexes) and peak resident memory (`VmHWM`).
//!
//! Text is real chat (MemDaily zh + LoCoMo en, `corpus.rs`); vectors are the deterministic
//! 384-dimensional test embedder's (multilingual-e5-small's dimension; a real model would take
//! hours to embed millions of texts). Run: `cargo bench -p rearview-service --bench tenants`;
//! `REARVIEW_TENANTS_OUT` (default `bench/tenants.json`), `REARVIEW_SCALE_DIR` (scratch),
//! `REARVIEW_TENANTS_MODES` (default `on-demand,all`).
//!
//! `REARVIEW_TENANTS_PG=postgres://…` measures the PostgreSQL backend instead: each shape is
//! filled into a fresh schema on that server (kept afterwards; `REARVIEW_TENANTS_REUSE=<schema>`
//! measures one again without filling it), `disk_bytes` is that schema's tables and indexes, and
//! peak RSS is this process's only, not the server's. There, `on-demand` keeps namespaces'
//! keyword indexes in memory (pgvector searches the vectors) and `all` runs BM25 in SQL.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use rearview_core::{Namespace, SystemClock};
use rearview_embed::{Embedder, TestEmbedder};
use rearview_service::{MemoryService, RecallRequest, RememberRequest, ServiceConfig};
use serde_json::{Value, json};

mod corpus;
mod measure;

use measure::{auto_index_memory, commit, imported, machine, ms, open_store, peak_rss, percentile};

const CHILD_ENV: &str = "REARVIEW_TENANTS_CHILD";

fn main() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        let (db, rest) = spec.split_once('|').expect("db|schema|mode");
        let (schema, mode) = rest.split_once('|').expect("db|schema|mode");
        let target = Target { path: PathBuf::from(db), schema: schema.to_owned() };
        let result = runtime().block_on(measure(&target, mode));
        println!("{result}");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let shapes: Vec<(usize, usize)> = std::env::var("REARVIEW_TENANTS")
        .unwrap_or_else(|_| "1000x1000,10000x100".into())
        .split(',')
        .filter_map(|s| {
            let (n, m) = s.trim().split_once('x')?;
            Some((n.parse().ok()?, m.parse().ok()?))
        })
        .collect();
    let out =
        root.join(std::env::var("REARVIEW_TENANTS_OUT").unwrap_or("bench/tenants.json".into()));
    let scratch = std::env::var_os("REARVIEW_SCALE_DIR").unwrap_or(".".into());
    // `all` at 10M memories would hold ~20 GB of indexes: such a shape runs `on-demand` alone.
    let modes: Vec<String> = std::env::var("REARVIEW_TENANTS_MODES")
        .unwrap_or_else(|_| "on-demand,all".into())
        .split(',')
        .map(|m| m.trim().to_owned())
        .filter(|m| m == "on-demand" || m == "all")
        .collect();
    let exe = std::env::current_exe().unwrap();
    let mut rows = Vec::new();
    for (namespaces, per) in shapes {
        let dir = tempfile::tempdir_in(&scratch).expect("a scratch directory");
        let reuse = std::env::var("REARVIEW_TENANTS_REUSE").ok().filter(|_| postgres().is_some());
        let target = Target {
            path: dir.path().join("tenants.db"),
            schema: reuse.clone().unwrap_or_else(|| {
                format!("tenants_{namespaces}x{per}_{}", uuid::Uuid::now_v7().simple())
            }),
        };
        let fill_per_sec = if reuse.is_some() {
            None
        } else {
            eprintln!("tenants: filling {namespaces} × {per} …");
            Some(runtime().block_on(fill(&target, namespaces, per)))
        };
        if postgres().is_some() {
            eprintln!("  schema {}", target.schema);
        }
        for mode in modes.iter().map(String::as_str) {
            let output = Command::new(&exe)
                .env(CHILD_ENV, format!("{}|{}|{mode}", target.path.display(), target.schema))
                .stderr(std::process::Stdio::inherit())
                .output()
                .expect("run the measuring child");
            assert!(output.status.success(), "the {mode} child failed: {}", output.status);
            let mut row: Value = serde_json::from_slice(&output.stdout).expect("JSON");
            row["namespaces"] = json!(namespaces);
            row["memories_per_namespace"] = json!(per);
            row["fill_per_sec"] = json!(fill_per_sec);
            if postgres().is_some() {
                row["schema"] = json!(target.schema);
            }
            eprintln!("{row}");
            rows.push(row);
        }
    }
    let report = json!({ "machine": machine(), "commit": commit(&root), "rows": rows });
    std::fs::write(&out, serde_json::to_string_pretty(&report).unwrap() + "\n").unwrap();
    eprintln!("wrote {}", out.display());
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap()
}

/// The PostgreSQL server to measure instead of SQLite (`REARVIEW_TENANTS_PG`).
fn postgres() -> Option<String> {
    std::env::var("REARVIEW_TENANTS_PG").ok().filter(|u| !u.is_empty())
}

/// Where one shape's memories live: a SQLite file, or a schema on the PostgreSQL server.
struct Target {
    path: PathBuf,
    schema: String,
}

impl Target {
    async fn open(&self, fill: bool) -> Arc<dyn rearview_store::MemoryStore> {
        open_store(postgres().as_deref(), &self.path, &self.schema, fill).await
    }
}

fn tenant(i: usize) -> Namespace {
    format!("tenant-{i:05}").parse().unwrap()
}

fn embedder() -> Arc<dyn Embedder> {
    Arc::new(TestEmbedder::new(384))
}

/// The server's configuration in `mode` (`on-demand`: a quarter of the machine's memory, as
/// `index_memory = auto`; `all`: every namespace at start).
fn config(db: &Path, mode: &str) -> ServiceConfig {
    ServiceConfig {
        // As `rearview serve` runs: graphs saved next to a SQLite database, none on PostgreSQL.
        graph_dir: postgres().is_none().then(|| rearview_service::graph_dir_for(db)),
        index_memory: (mode == "on-demand").then(auto_index_memory),
        ..ServiceConfig::default()
    }
}

/// Fills `namespaces` × `per` memories; returns memories written per second.
async fn fill(target: &Target, namespaces: usize, per: usize) -> f64 {
    let corpus = corpus::load();
    let store = target.open(true).await;
    let fill_config = ServiceConfig { index_memory: Some(1), ..config(&target.path, "on-demand") };
    let service = MemoryService::open(store, Some(embedder()), Arc::new(SystemClock), fill_config)
        .await
        .unwrap();
    let started = Instant::now();
    let mut text = 0;
    for n in 0..namespaces {
        let ns = tenant(n);
        for first in (0..per).step_by(500) {
            let batch = (first..per.min(first + 500))
                .map(|_| {
                    text += 1;
                    service.check_import(&ns, imported(&ns, corpus.memory(text)), Vec::new())
                })
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            service.import_many(batch).await.unwrap();
        }
        if n > 0 && n % (namespaces / 10).max(1) == 0 {
            eprintln!("  {n} namespaces ({:.0}/s)", text as f64 / started.elapsed().as_secs_f64());
        }
    }
    service.finish_import().await;
    text as f64 / started.elapsed().as_secs_f64()
}

async fn measure(target: &Target, mode: &str) -> Value {
    let corpus = corpus::load();
    let query = |i: usize| corpus.queries[i * 7 % corpus.queries.len()].as_str();
    let started = Instant::now();
    let store = target.open(false).await;
    let config = config(&target.path, mode);
    let service =
        MemoryService::open(store, Some(embedder()), Arc::new(SystemClock), config).await.unwrap();
    let start = started.elapsed();
    let tiers = service.stats().await.unwrap().store.tiers;
    let namespaces = tiers.iter().map(|t| &t.namespace).collect::<HashSet<_>>().len();

    // The first recall in namespaces nobody used yet (the last ones: the mixed load below
    // touches the first tenth).
    let mut cold = Vec::new();
    for i in 0..50.min(namespaces) {
        let ns = tenant(namespaces - 1 - i);
        let started = Instant::now();
        std::hint::black_box(service.recall(&ns, RecallRequest::new(query(i))).await.unwrap());
        cold.push(started.elapsed());
    }
    let warm_ns = tenant(0);
    service.recall(&warm_ns, RecallRequest::new(query(0))).await.unwrap();
    let mut warm = Vec::new();
    for i in 0..300 {
        let started = Instant::now();
        std::hint::black_box(service.recall(&warm_ns, RecallRequest::new(query(i))).await.unwrap());
        warm.push(started.elapsed());
    }
    // Mixed load over a tenth of the tenants.
    let touched = (namespaces / 10).max(1);
    for i in 0..touched {
        let ns = tenant(i);
        service.recall(&ns, RecallRequest::new(query(i))).await.unwrap();
        if i % 10 == 0 {
            let text = format!("{} [mixed {i}]", corpus.memory(i));
            service.remember(&ns, RememberRequest::new(text)).await.unwrap();
        }
    }
    let mut stores = Vec::new();
    for i in 0..100 {
        let ns = tenant(i * touched / 100);
        let text = format!("{} [store {i} {mode}]", corpus.memory(i + 7));
        let started = Instant::now();
        service.remember(&ns, RememberRequest::new(text)).await.unwrap();
        stores.push(started.elapsed());
    }
    service.flush_access_counts().await;
    let stats = service.stats().await.unwrap();
    let usage = stats.indexes;
    drop(service);
    let disk_bytes = if postgres().is_some() { stats.store.size_bytes } else { disk(&target.path) };
    json!({
        "backend": if postgres().is_some() { "postgres" } else { "sqlite" },
        "mode": mode,
        "start_ms": ms(start),
        "peak_rss_bytes": peak_rss(),
        "disk_bytes": disk_bytes,
        "warm_recall_p50_ms": ms(percentile(&mut warm, 0.50)),
        "warm_recall_p99_ms": ms(percentile(&mut warm, 0.99)),
        "cold_first_recall_ms": ms(percentile(&mut cold, 0.50)),
        "cold_first_recall_p99_ms": ms(percentile(&mut cold, 0.99)),
        "store_p50_ms": ms(percentile(&mut stores, 0.50)),
        "namespaces_loaded_at_end": usage.namespaces,
        "index_bytes_at_end": usage.bytes,
        "text": corpus.source,
        "vectors": "test embedder, 384 dimensions",
    })
}

/// The database, its WAL and shared memory, and the saved indexes beside it.
fn disk(db: &Path) -> u64 {
    let files: u64 = ["", "-wal", "-shm"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", db.display())).ok())
        .map(|m| m.len())
        .sum();
    let saved: u64 = std::fs::read_dir(rearview_service::graph_dir_for(db))
        .map(|d| d.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
        .unwrap_or(0);
    files + saved
}
