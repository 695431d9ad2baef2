#![allow(
    missing_docs,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark program: progress on stderr, one JSON line per run on stdout"
)]
//! Exact scan against the HNSW index at one size: build rate, recall@10 against the exact scan,
//! and search latency (p50/p99 over 300 queries, k = 50 as recall asks, and k = 10); then the
//! same for the second candidate crate, `hnsw_rs`, with the same graph parameters (M 16,
//! ef_construction 128, the same ef values), side by side (`"hnsw_rs"` in the JSON line).
//!
//! Run: `cargo bench -p rearview-index --bench ann` with `REARVIEW_ANN_SIZE` (default 100000),
//! `REARVIEW_ANN_DATA` = `random` (uniform on the sphere: the worst case for any graph index),
//! `clustered` (the default, centres plus noise, shaped like text embeddings), or a file of
//! little-endian f32 384-d unit vectors (`REARVIEW_ANN_FILE`, e.g. real e5 vectors; queries are
//! its last 300 rows, held out of the index). `REARVIEW_ANN_HNSW_RS=0` leaves out the hnsw_rs side.

use std::time::Instant;

use rearview_core::{Embedding, Facets, MemoryId, MemoryType};
use rearview_index::{AnnIndex, FlatIndex, VectorIndex};

const DIMS: usize = 384;
const QUERIES: usize = 300;

fn main() {
    let size: usize =
        std::env::var("REARVIEW_ANN_SIZE").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let kind = std::env::var("REARVIEW_ANN_DATA").unwrap_or_else(|_| "clustered".into());
    let (data, queries) = match std::env::var("REARVIEW_ANN_FILE") {
        Ok(path) => from_file(&path, size),
        Err(_) => {
            let all = synthetic(size + QUERIES, kind == "random");
            let queries = all[size..].to_vec();
            (all[..size].to_vec(), queries)
        }
    };
    let size = data.len();
    let facets = Facets {
        memory_type: MemoryType::Episodic,
        archived: false,
        expires_at: None,
        occurred_at: chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
        invalid_at: None,
        session_id: None,
        tags: Vec::new(),
    };
    let id = |i: usize| MemoryId(uuid::Uuid::from_u128(i as u128 + 1));
    let mut exact = FlatIndex::new(DIMS);
    for (i, v) in data.iter().enumerate() {
        exact.upsert(id(i), facets.clone(), v);
    }
    eprintln!("ann bench: building the graph over {size} vectors …");
    let started = Instant::now();
    let ann = AnnIndex::build(
        DIMS,
        data.iter().enumerate().map(|(i, v)| (id(i), facets.clone(), v.as_slice())),
        std::thread::available_parallelism().map_or(2, |n| n.get()),
    )
    .expect("build");
    let build_secs = started.elapsed().as_secs_f64();
    let all = |_: &Facets| true;
    let mut result = serde_json::json!({
        "size": size, "data": std::env::var("REARVIEW_ANN_FILE").unwrap_or(kind),
        "build_secs": build_secs, "build_per_sec": size as f64 / build_secs,
    });
    // The exact answers once; then each search expansion (`ef`) against them.
    let mut exact_ms = Vec::new();
    let want: Vec<Vec<MemoryId>> = queries
        .iter()
        .map(|q| {
            let t = Instant::now();
            let hits = exact.search(q, 50, &all);
            exact_ms.push(t.elapsed().as_secs_f64() * 1e3);
            hits.iter().map(|h| h.id).collect()
        })
        .collect();
    result["exact_p50_ms"] = percentile(&mut exact_ms, 0.5).into();
    result["exact_p99_ms"] = percentile(&mut exact_ms, 0.99).into();
    let expansions: Vec<usize> = std::env::var("REARVIEW_ANN_EF")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![rearview_index::ann::EXPANSION_SEARCH, 256, 512]);
    for &ef in &expansions {
        ann.set_expansion(ef);
        for k in [10, 50] {
            let (mut ann_ms, mut found) = (Vec::new(), 0usize);
            for (q, want) in queries.iter().zip(&want) {
                let t = Instant::now();
                let got = ann.search(q, k, &all);
                ann_ms.push(t.elapsed().as_secs_f64() * 1e3);
                found += got.iter().filter(|h| want[..k].contains(&h.id)).count();
            }
            result[format!("ef{ef}_k{k}")] = serde_json::json!({
                "recall": found as f64 / (k * queries.len()) as f64,
                "p50_ms": percentile(&mut ann_ms, 0.5), "p99_ms": percentile(&mut ann_ms, 0.99),
            });
        }
    }
    ann.set_expansion(rearview_index::ann::EXPANSION_SEARCH);
    result["near_duplicates"] = near_duplicates(&ann, &exact, &data);
    // `REARVIEW_ANN_HNSW_RS=0` skips the second candidate (at 1M it takes longer than the graph).
    if std::env::var("REARVIEW_ANN_HNSW_RS").map_or(true, |v| v != "0") {
        result["hnsw_rs"] = hnsw_rs_side(&data, &queries, &want, &expansions);
    }
    println!("{result}");
}

/// The second candidate on the same vectors and queries: build rate, recall and latency.
fn hnsw_rs_side(
    data: &[Embedding],
    queries: &[Embedding],
    want: &[Vec<MemoryId>],
    expansions: &[usize],
) -> serde_json::Value {
    use hnsw_rs::prelude::{DistDot, Hnsw};
    eprintln!("ann bench: building hnsw_rs over {} vectors …", data.len());
    let started = Instant::now();
    let graph: Hnsw<f32, DistDot> = Hnsw::new(16, data.len(), 16, 128, DistDot {});
    let rows: Vec<(&[f32], usize)> =
        data.iter().enumerate().map(|(i, v)| (v.as_slice(), i)).collect();
    graph.parallel_insert_slice(&rows);
    let build_secs = started.elapsed().as_secs_f64();
    let mut out = serde_json::json!({
        "build_secs": build_secs, "build_per_sec": data.len() as f64 / build_secs,
    });
    let id = |i: usize| MemoryId(uuid::Uuid::from_u128(i as u128 + 1));
    for &ef in expansions {
        for k in [10, 50] {
            let (mut ms, mut found) = (Vec::new(), 0usize);
            for (q, want) in queries.iter().zip(want) {
                let t = Instant::now();
                let got = graph.search(q.as_slice(), k, ef.max(k));
                ms.push(t.elapsed().as_secs_f64() * 1e3);
                found += got.iter().filter(|n| want[..k].contains(&id(n.d_id))).count();
            }
            out[format!("ef{ef}_k{k}")] = serde_json::json!({
                "recall": found as f64 / (k * queries.len()) as f64,
                "p50_ms": percentile(&mut ms, 0.5), "p99_ms": percentile(&mut ms, 0.99),
            });
        }
    }
    out
}

/// A store's look for memories close to the new one (`search_near`, the near-duplicate check and
/// the detection of updated facts): each query is an indexed vector moved to a cosine between
/// 0.80 and 0.99 from where it was, and the answer is every vector at cosine ≥ 0.8 among the
/// exact top 5. The share of that answer found and the latency, for `search_near` and for
/// recall's `search`.
fn near_duplicates(ann: &AnnIndex, exact: &FlatIndex, data: &[Embedding]) -> serde_json::Value {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 2_000_003) as f32 / 1_000_001.5 - 1.0
    };
    let all = |_: &Facets| true;
    let mut cases = Vec::new();
    for i in 0..QUERIES {
        let base = data[(i * 104_729) % data.len()].as_slice();
        let noise = Embedding::new((0..DIMS).map(|_| next()).collect()).expect("non-zero");
        // Nearly orthogonal to `base` in 384 dimensions: base + t·noise has cosine 1/√(1+t²).
        let cosine = 0.80 + 0.19 * (i as f32 / QUERIES as f32);
        let t = (1.0 / (cosine * cosine) - 1.0).sqrt();
        let moved = base.iter().zip(noise.as_slice()).map(|(b, n)| b + t * n).collect();
        let query = Embedding::new(moved).expect("non-zero");
        let truth: Vec<MemoryId> = exact
            .search(&query, 5, &all)
            .into_iter()
            .filter(|h| h.cosine >= 0.8)
            .map(|h| h.id)
            .collect();
        cases.push((query, truth));
    }
    let wanted: usize = cases.iter().map(|(_, truth)| truth.len()).sum();
    let mut out = serde_json::json!({ "queries": QUERIES, "close_vectors": wanted });
    let near: &dyn Fn(&Embedding) -> Vec<rearview_index::VectorHit> =
        &|q| ann.search_near(q, 5, &all);
    let recall: &dyn Fn(&Embedding) -> Vec<rearview_index::VectorHit> = &|q| ann.search(q, 5, &all);
    for (name, search) in [("search_near", near), ("search", recall)] {
        let (mut ms, mut found) = (Vec::new(), 0usize);
        for (query, truth) in &cases {
            let t = Instant::now();
            let got = search(query);
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            found += truth.iter().filter(|id| got.iter().any(|h| h.id == **id)).count();
        }
        out[name] = serde_json::json!({
            "found": found as f64 / wanted.max(1) as f64,
            "p50_ms": percentile(&mut ms, 0.5), "p99_ms": percentile(&mut ms, 0.99),
        });
    }
    out
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * p).round() as usize]
}

/// Deterministic vectors: uniform on the sphere, or 1,000 centres plus noise.
fn synthetic(n: usize, random: bool) -> Vec<Embedding> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        // Sum of two uniforms: roughly bell-shaped, so directions are close to uniform.
        let a = (state % 1_000_003) as f32 / 1_000_003.0;
        let b = ((state >> 32) % 1_000_003) as f32 / 1_000_003.0;
        a + b - 1.0
    };
    let centres: Vec<Vec<f32>> = (0..1000).map(|_| (0..DIMS).map(|_| next()).collect()).collect();
    (0..n)
        .map(|i| {
            let v: Vec<f32> = if random {
                (0..DIMS).map(|_| next()).collect()
            } else {
                centres[(i * 7919) % centres.len()].iter().map(|c| c + 0.8 * next()).collect()
            };
            Embedding::new(v).expect("non-zero")
        })
        .collect()
}

fn from_file(path: &str, size: usize) -> (Vec<Embedding>, Vec<Embedding>) {
    let bytes = std::fs::read(path).expect("REARVIEW_ANN_FILE readable");
    let mut all: Vec<Embedding> = bytes
        .chunks_exact(DIMS * 4)
        .map(|row| {
            let v = row.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            Embedding::new(v.collect()).expect("non-zero vector")
        })
        .collect();
    let queries = all.split_off(all.len().saturating_sub(QUERIES));
    all.truncate(size);
    (all, queries)
}
