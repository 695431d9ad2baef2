#![allow(
    missing_docs,
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "a benchmark program: progress on stderr, one JSON result per size on stdout"
)]
//! The scale series: one namespace at 1k, 10k, 100k and 1M memories.
//!
//! For each size, in a fresh process (so peak RSS belongs to that size alone):
//! 1. **fill** the namespace through `MemoryService::remember` (dedup off, `synchronous=NORMAL`),
//!    timing the whole fill: store throughput with synthetic embedding;
//! 2. **reopen** the database with the server's defaults, timing `MemoryService::open` (migrations
//!    check, the keyword index, and the vectors: a namespace past the exact-scan limit loads the
//!    graph the fill saved, as `rearview serve` saves it when it stops; the start-up cost);
//! 3. **store** 200 more memories one by one with the server's defaults (dedup on, full
//!    durability): per-write latency at this size, including the near-duplicate search;
//! 4. **recall** 300 real questions with the default fusion, counting access as production does:
//!    p50/p95/p99 latency, excluding query embedding only in the sense that the synthetic
//!    embedder costs microseconds;
//! 5. disk size (database, WAL and shared-memory files) and peak resident memory (`VmHWM`).
//!
//! Run: `cargo bench -p rearview-service --bench scale`. Environment (and
//! `REARVIEW_SCALE_QUERIES` for a longer recall phase to profile;
//! `REARVIEW_SCALE_FILL=import` to fill through `MemoryService::import` instead, as a restore
//! from an export does (no dedup, no detection of superseded facts, graph built once at the end
//! on all threads, as a start-up does): a 1M database in a fraction of the time, for profiling
//! the later steps; its `fill_per_sec` is then not the store throughput of a server, and the
//! row says `"fill": "import"`):
//! `REARVIEW_SCALE_SIZES=1000,10000` picks sizes; `REARVIEW_SCALE_OUT` (default
//! `bench/scale.json`) and `REARVIEW_SCALE_PLOT` (default `BENCHMARKS-scale.png`, next to
//! `BENCHMARKS.md`) name the outputs, both
//! relative to the workspace root. The plot needs a TrueType font: `REARVIEW_PLOT_FONT`, default
//! DejaVu Sans from Debian's `fonts-dejavu-core`.
//!
//! `REARVIEW_SCALE_PG=postgres://…` measures the PostgreSQL backend instead (a fresh schema on
//! that server per size; no saved graphs, as PostgreSQL servers keep none; disk is the schema's
//! tables and indexes; peak RSS is this process's only, not the server's). Schemas are kept;
//! `REARVIEW_SCALE_REUSE=scale_1000000_…` measures one of them again without filling it.
//!
//! Text is real chat (MemDaily zh + LoCoMo en, see `corpus.rs`), repeated with a counter suffix
//! past its end, so BM25 sees real term statistics (`REARVIEW_BENCH_TEXTS=N` keeps only the
//! first `N` texts: more near-copies of each at a given size, to tell what they cost the HNSW
//! index's recall from what size does). Vectors are the deterministic 384-dimensional
//! test embedder's (the dimension of multilingual-e5-small): the issue allows synthetic vectors
//! for the scale series, and a real model at 42 texts/s would need 7 hours to embed 1M texts.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rearview_core::{Clock, Namespace, SystemClock};
use rearview_embed::{Embedder, TestEmbedder, TextKind};
use rearview_service::{MemoryService, RecallRequest, RememberRequest, ServiceConfig};
use rearview_store::{MemoryStore, VectorStore};
use serde_json::{Value, json};

mod corpus;
mod measure;

use measure::{auto_index_memory, commit, imported, machine, ms, peak_rss, percentile};

const CHILD_ENV: &str = "REARVIEW_SCALE_CHILD";
const STORES: usize = 200;
const QUERIES: usize = 300;
/// Queries of the recall@10 of PostgreSQL's HNSW index (each one an exact scan of the namespace,
/// ~10 s at 1M on two cores): `REARVIEW_SCALE_RECALL_QUERIES`, default 100.
fn recall_queries() -> usize {
    std::env::var("REARVIEW_SCALE_RECALL_QUERIES").ok().and_then(|q| q.parse().ok()).unwrap_or(100)
}
/// The `hnsw.ef_search` values that recall@10 is measured at: the default and pgvector's most.
const RECALL_EF: [i32; 2] = [rearview_store_postgres::hnsw::EF_SEARCH, 1000];

/// Recalls timed per size: `REARVIEW_SCALE_QUERIES`, default [`QUERIES`] (more, for profiling).
fn queries() -> usize {
    std::env::var("REARVIEW_SCALE_QUERIES").ok().and_then(|q| q.parse().ok()).unwrap_or(QUERIES)
}

fn main() {
    if let Ok(size) = std::env::var(CHILD_ENV) {
        let size: usize = size.parse().expect("REARVIEW_SCALE_CHILD is a number");
        // `RUST_LOG=info` shows what each step of a start-up took, on stderr.
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
        let result = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(measure(size));
        println!("{result}");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let sizes: Vec<usize> = std::env::var("REARVIEW_SCALE_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000, 1_000_000]);
    let out = root.join(std::env::var("REARVIEW_SCALE_OUT").unwrap_or("bench/scale.json".into()));
    let plot =
        root.join(std::env::var("REARVIEW_SCALE_PLOT").unwrap_or("BENCHMARKS-scale.png".into()));
    let exe = std::env::current_exe().unwrap();
    let mut rows = Vec::new();
    for size in sizes {
        eprintln!("scale: {size} memories …");
        let output = Command::new(&exe)
            .env(CHILD_ENV, size.to_string())
            .stderr(std::process::Stdio::inherit())
            .output()
            .expect("run the measuring child");
        assert!(output.status.success(), "the child for {size} failed: {}", output.status);
        let row: Value = serde_json::from_slice(&output.stdout).expect("the child prints JSON");
        eprintln!("{row}");
        rows.push(row);
    }
    let report = json!({
        "machine": machine(),
        "commit": commit(&root),
        "rows": rows,
    });
    std::fs::write(&out, serde_json::to_string_pretty(&report).unwrap() + "\n").unwrap();
    eprintln!("wrote {}", out.display());
    match draw(&rows, &plot) {
        Ok(()) => eprintln!("wrote {}", plot.display()),
        Err(e) => eprintln!("no plot: {e}"),
    }
}

/// The PostgreSQL server to measure instead of SQLite (`REARVIEW_SCALE_PG`).
fn postgres() -> Option<String> {
    std::env::var("REARVIEW_SCALE_PG").ok().filter(|u| !u.is_empty())
}

/// A connection to the measured database (`measure::open_store`).
async fn open_store(path: &Path, schema: &str, fill: bool) -> Arc<dyn MemoryStore> {
    measure::open_store(postgres().as_deref(), path, schema, fill).await
}

async fn measure(size: usize) -> Value {
    let corpus = corpus::load();
    let dir = tempfile::tempdir_in(std::env::var_os("REARVIEW_SCALE_DIR").unwrap_or(".".into()))
        .expect("a scratch directory (REARVIEW_SCALE_DIR)");
    // `REARVIEW_SCALE_KEEP=1` leaves the database behind for inspection (its path on stderr).
    let keep = std::env::var_os("REARVIEW_SCALE_KEEP").is_some();
    let (_scratch, root) = if keep {
        let kept = dir.keep();
        eprintln!("  keeping {}", kept.display());
        (None, kept)
    } else {
        let root = dir.path().to_path_buf();
        (Some(dir), root)
    };
    let reuse = std::env::var_os("REARVIEW_SCALE_REUSE").map(PathBuf::from);
    let path = reuse.clone().unwrap_or_else(|| root.join("scale.db"));
    // On PostgreSQL `REARVIEW_SCALE_REUSE` names the schema of a kept run.
    let schema = match (&reuse, postgres()) {
        (Some(kept), Some(_)) => kept.to_string_lossy().into_owned(),
        _ => format!("scale_{size}_{}", uuid::Uuid::now_v7().simple()),
    };
    let ns: Namespace = "bench".parse().unwrap();
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(384));

    // As `rearview serve` runs: graphs saved next to a SQLite database.
    let graphs = rearview_service::graph_dir_for(&path);
    let graph_dir = postgres().is_none().then(|| graphs.clone());
    // `index_memory` as the CLI's default (`auto`: on PostgreSQL, keyword indexes in memory),
    // or `all` with `REARVIEW_SCALE_INDEX_MEMORY=all` (everything loaded at start; on
    // PostgreSQL, keywords searched in SQL), the behaviour before issue 42.
    let on_demand = std::env::var("REARVIEW_SCALE_INDEX_MEMORY").map_or(true, |v| v != "all");
    let config = || ServiceConfig {
        graph_dir: graph_dir.clone(),
        index_memory: on_demand.then(auto_index_memory),
        ..ServiceConfig::default()
    };

    // 1. Fill, unless `REARVIEW_SCALE_REUSE` names a database a kept run filled (to profile
    // the later steps at 1M without the fill's 45 minutes; its fill rate is not measured).
    let deferred = std::env::var("REARVIEW_SCALE_FILL").is_ok_and(|f| f == "import");
    let fill_secs = if reuse.is_none() {
        let store = open_store(&path, &schema, true).await;
        let fill_config = if deferred {
            ServiceConfig { exact_scan_limit: usize::MAX, ..config() }
        } else {
            config()
        };
        let service = MemoryService::open(
            store,
            Some(Arc::clone(&embedder)),
            Arc::new(SystemClock),
            fill_config,
        )
        .await
        .unwrap();
        let started = Instant::now();
        if deferred {
            // As `rearview import` writes: batches of 500, one transaction each.
            for first in (0..size).step_by(500) {
                let batch = (first..size.min(first + 500))
                    .map(|i| service.check_import(&ns, imported(&ns, corpus.memory(i)), Vec::new()))
                    .collect::<Result<Vec<_>, _>>()
                    .unwrap();
                service.import_many(batch).await.unwrap();
                if first > 0 && first % 100_000 == 0 {
                    let rate = first as f64 / started.elapsed().as_secs_f64();
                    eprintln!("  imported {first} ({rate:.0}/s)");
                }
            }
            service.finish_import().await;
        } else {
            for i in 0..size {
                let request = RememberRequest {
                    dedup: Some(false),
                    ..RememberRequest::new(corpus.memory(i))
                };
                service.remember(&ns, request).await.unwrap();
                if i > 0 && i % 100_000 == 0 {
                    let rate = i as f64 / started.elapsed().as_secs_f64();
                    eprintln!("  filled {i} ({rate:.0}/s)");
                }
            }
        }
        let fill_secs = started.elapsed().as_secs_f64();
        let service = if deferred {
            // Reopened with the defaults, the namespace past the limit gets its graph built from
            // the stored vectors on all threads.
            drop(service);
            let store = open_store(&path, &schema, true).await;
            let built = Instant::now();
            let service = MemoryService::open(
                store,
                Some(Arc::clone(&embedder)),
                Arc::new(SystemClock),
                config(),
            )
            .await
            .unwrap();
            eprintln!("  graph built in {:.0} s", built.elapsed().as_secs_f64());
            service
        } else {
            service
        };
        // A namespace past the exact-scan limit got its graph built in the background during the
        // fill; wait for it, then save as a server does when it stops.
        // (A service that searches in the store, on PostgreSQL, keeps no graph.)
        let has_graph = size >= rearview_service::EXACT_SCAN_LIMIT && !service.searches_in_store();
        let wanted = if has_graph { size } else { 0 };
        // Reopened with namespaces on demand, nothing is loaded until the namespace is first
        // used: one recall loads it (and starts its graph), as a server's first request would.
        if has_graph && deferred {
            service.recall(&ns, RecallRequest::new("warm up")).await.unwrap();
        }
        while service.stats().await.unwrap().graph_vectors < wanted {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        service.save_indexes().await.unwrap();
        drop(service);
        Some(fill_secs)
    } else {
        None
    };

    let (mut hnsw_build_secs, mut vector_recall) = (None, None);
    // PostgreSQL builds a large namespace's HNSW index on its first search, in the background
    // (exact scans meanwhile): measure once it is there, as a server runs after its first hour.
    if let Some(url) =
        postgres().filter(|_| size as i64 >= rearview_store_postgres::hnsw::HNSW_FROM)
    {
        let config = rearview_store_postgres::PgConfig {
            schema: Some(schema.clone()),
            ..rearview_store_postgres::PgConfig::new(url)
        };
        let pg = rearview_store_postgres::PgStore::connect(&config).await.unwrap();
        let started = Instant::now();
        while !pg.vector_index_ready(embedder.model_id(), 384).await.unwrap() {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        // A reused schema has its index already: no build was timed.
        hnsw_build_secs = reuse.is_none().then(|| started.elapsed().as_secs_f64());
        eprintln!("  HNSW index ready after {:.0} s", started.elapsed().as_secs_f64());
        let exact = rearview_store_postgres::PgConfig { hnsw_from: i64::MAX, ..config.clone() };
        let exact = rearview_store_postgres::PgStore::connect(&exact).await.unwrap();
        let mut indexed = Vec::new();
        for ef_search in RECALL_EF {
            let at = rearview_store_postgres::PgConfig { ef_search, ..config.clone() };
            indexed
                .push((ef_search, rearview_store_postgres::PgStore::connect(&at).await.unwrap()));
        }
        let measured = recall_at_10(&indexed, &exact, &ns, embedder.as_ref(), &corpus).await;
        vector_recall = Some(measured);
    }

    // 2. Reopen as the server does.
    let started = Instant::now();
    let store = open_store(&path, &schema, false).await;
    let service =
        MemoryService::open(store, Some(embedder), Arc::new(SystemClock), config()).await.unwrap();
    let open = started.elapsed();
    let graph_vectors = service.stats().await.unwrap().graph_vectors;

    let run = uuid::Uuid::now_v7().simple().to_string();
    // 3. Stores at this size with the defaults (dedup on, full durability).
    let mut stores = Vec::with_capacity(STORES);
    for i in 0..STORES {
        // A run's own texts: a reused database holds the earlier runs' (exact duplicates would
        // merge without the near-duplicate search a new memory costs).
        let text = format!("{} [new {i} {run}]", corpus.memory(size + i));
        let started = Instant::now();
        service.remember(&ns, RememberRequest::new(text)).await.unwrap();
        stores.push(started.elapsed());
    }

    // 4. Recall.
    let mut recalls = Vec::with_capacity(queries());
    for q in 0..queries() {
        let query = corpus.queries[q * 7 % corpus.queries.len()].as_str();
        let started = Instant::now();
        let hits = service.recall(&ns, RecallRequest::new(query)).await.unwrap();
        recalls.push(started.elapsed());
        std::hint::black_box(hits);
    }
    service.flush_access_counts().await;
    let store_stats = service.stats().await.unwrap().store;
    // Save as a server does when it stops, so a later run on this file (`REARVIEW_SCALE_REUSE`)
    // starts as a restarted server does, not replaying every earlier run's stores.
    service.save_indexes().await.unwrap();
    drop(service);

    // 5. Disk and memory.
    let disk: u64 = if postgres().is_some() {
        store_stats.size_bytes
    } else {
        ["", "-wal", "-shm"]
            .iter()
            .filter_map(|s| std::fs::metadata(format!("{}{s}", path.display())).ok())
            .map(|m| m.len())
            .sum()
    };
    let graph_bytes: u64 = std::fs::read_dir(&graphs)
        .map(|d| d.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
        .unwrap_or(0);
    json!({
        "backend": if postgres().is_some() { "postgres" } else { "sqlite" },
        "graph_vectors": graph_vectors,
        "graph_bytes": graph_bytes,
        "memories": size,
        "text": corpus.source,
        "fill_per_sec": fill_secs.map(|secs| size as f64 / secs),
        "fill": if reuse.is_some() { "reused" } else if deferred { "import" } else { "served" },
        "index_memory": if on_demand { "auto" } else { "all" },
        "open_ms": ms(open),
        "store_p50_ms": ms(percentile(&mut stores, 0.50)),
        "store_p95_ms": ms(percentile(&mut stores, 0.95)),
        "recall_p50_ms": ms(percentile(&mut recalls, 0.50)),
        "recall_p95_ms": ms(percentile(&mut recalls, 0.95)),
        "recall_p99_ms": ms(percentile(&mut recalls, 0.99)),
        "disk_bytes": disk,
        // The database and everything saved beside it (graphs, keyword snapshots).
        "total_disk_bytes": disk + graph_bytes,
        "peak_rss_bytes": peak_rss(),
        // PostgreSQL: the wait for the HNSW index after the fill (built by the server's first
        // search), and recall@10 of the search through it against the exact scan.
        "hnsw_build_secs": hnsw_build_secs,
        "vector_recall_at_10": vector_recall,
    })
}

/// Recall@10 of each `(ef_search, store)` of `indexed` (through its HNSW index, as recall
/// searches) against `exact` (the same schema with the index never used) over
/// [`recall_queries`] corpus questions, two ways: the share of the exact top 10's memories found
/// (`by_id`), and the share of answers as near as the exact 10th (`by_distance`: cosine distance
/// within 1e-3 of it, relative: stricter than ann-benchmarks' k-nn rule, 1e-3 absolute). They
/// differ when many memories tie:
/// the corpus repeats its ~32k texts with a counter suffix, so a question's nearest are often
/// near-copies a few thousandths apart.
async fn recall_at_10(
    indexed: &[(i32, rearview_store_postgres::PgStore)],
    exact: &dyn MemoryStore,
    ns: &Namespace,
    embedder: &dyn Embedder,
    corpus: &corpus::Corpus,
) -> Value {
    let filter = rearview_core::MemoryFilter::default();
    let now = SystemClock.now();
    let model = embedder.model_id();
    let mut found = vec![(0, 0, std::time::Duration::ZERO); indexed.len()];
    let queries = recall_queries();
    for q in 0..queries {
        let text = corpus.queries[q * 11 % corpus.queries.len()].as_str();
        let query = embedder.embed(&[text.to_owned()], TextKind::Query).await.unwrap().remove(0);
        let truth = exact.nearest_vectors(ns, model, &query, &filter, now, 10).await.unwrap();
        let truth = truth.expect("searched in PostgreSQL");
        let ids: HashSet<_> = truth.iter().map(|m| m.id).collect();
        let tenth = 1.0 - f64::from(truth.last().map_or(-1.0, |m| m.cosine));
        for ((_, store), (by_id, by_distance, took)) in indexed.iter().zip(&mut found) {
            let started = Instant::now();
            let hits = store.nearest_vectors(ns, model, &query, &filter, now, 10).await.unwrap();
            *took += started.elapsed();
            let hits = hits.expect("searched in PostgreSQL");
            *by_id += hits.iter().filter(|m| ids.contains(&m.id)).count();
            *by_distance +=
                hits.iter().filter(|m| 1.0 - f64::from(m.cosine) <= tenth * (1.0 + 1e-3)).count();
        }
        if q % 20 == 19 {
            let share = |n: usize| n as f64 / (10 * (q + 1)) as f64;
            for ((ef, _), (by_id, by_distance, _)) in indexed.iter().zip(&found) {
                let (id, distance) = (share(*by_id), share(*by_distance));
                eprintln!(
                    "  ef_search {ef}, {} queries: recall@10 by id {id:.3}, by distance {distance:.3}",
                    q + 1
                );
            }
        }
    }
    let share = |n: usize| n as f64 / (10 * queries) as f64;
    let rows: Vec<Value> = indexed
        .iter()
        .zip(&found)
        .map(|((ef, _), (by_id, by_distance, took))| {
            json!({
                "ef_search": ef,
                "by_id": share(*by_id),
                "by_distance": share(*by_distance),
                "mean_ms": ms(*took / queries as u32),
            })
        })
        .collect();
    json!({ "queries": queries, "at": rows })
}

/// Recall latency (p50, p95, p99) against namespace size, log-log, as a PNG.
fn draw(rows: &[Value], path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;

    let font = std::env::var("REARVIEW_PLOT_FONT")
        .unwrap_or_else(|_| "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf".into());
    let bytes = std::fs::read(&font).map_err(|e| format!("font {font}: {e}"))?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, Box::leak(bytes.into()))
        .map_err(|_| format!("font {font} is not a TrueType font"))?;

    let series = |key: &str| -> Vec<(f64, f64)> {
        rows.iter().filter_map(|r| Some((r["memories"].as_f64()?, r[key].as_f64()?))).collect()
    };
    let lines = [
        ("recall p50", series("recall_p50_ms"), BLUE),
        ("recall p95", series("recall_p95_ms"), GREEN),
        ("recall p99", series("recall_p99_ms"), RED),
        ("store p50 (dedup on)", series("store_p50_ms"), BLACK),
    ];
    let xs = lines[0].1.iter().map(|p| p.0);
    let (x_min, x_max) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let ys = lines.iter().flat_map(|l| l.1.iter().map(|p| p.1));
    let (y_min, y_max) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
    if x_min > x_max {
        return Err("no rows to plot".into());
    }

    let root = BitMapBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("rearview: latency vs memories in one namespace", ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (x_min * 0.8..x_max * 1.25).log_scale(),
            (y_min * 0.7..y_max * 1.5).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("memories in the namespace")
        .y_desc("milliseconds")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y}"))
        .draw()?;
    for (label, points, color) in lines {
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2)));
        chart.draw_series(points.into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
