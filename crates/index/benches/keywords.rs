#![allow(
    missing_docs,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark program: progress on stderr, one JSON line per run on stdout"
)]
//! The in-memory BM25 search alone at one namespace size: the keyword stage of a recall,
//! without the store, the vectors or the service around it.
//!
//! The index is built from the scale series' text (`../../service/benches/corpus.rs`: MemDaily zh
//! and LoCoMo en messages, repeated with a counter past their end) exactly as the service indexes
//! a memory (`Tokenizer::index_terms` of the default tokenizer), and asked the scale series' 300
//! questions (every 7th), focused as a recall focuses them, for the 50 candidates a default
//! recall asks for, with the default filter's shape (live, not archived, not superseded). Each
//! question is searched whole on one thread and in two parts on two threads (what the service
//! does past 100,000 documents); p50 / p95 / p99 of both.
//!
//! Run: `cargo bench -p rearview-index --bench keywords` with `REARVIEW_KEYWORDS_SIZE`
//! (default 1000000) and `REARVIEW_KEYWORDS_ROUNDS` (times the questions are asked, default 3).

use std::time::{Duration, Instant};

use rearview_core::{Facets, MemoryId, MemoryType};
use rearview_index::{TextHit, TextIndex};
use rearview_language::{QueryFocus, Tokenizer, focus};
use rearview_ranking::RankingConfig;
use serde_json::json;

#[path = "../../service/benches/corpus.rs"]
mod corpus;

const QUERIES: usize = 300;
const CANDIDATES: usize = 50;

fn main() {
    let size: usize = std::env::var("REARVIEW_KEYWORDS_SIZE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let corpus = corpus::load();
    let tokenizer = Tokenizer::default();
    eprintln!("keywords bench: indexing {size} memories ({}) …", corpus.source);
    let started = Instant::now();
    let index = build(&corpus, size, tokenizer);
    let built = started.elapsed();
    eprintln!("  indexed in {:.1} s", built.as_secs_f64());
    let config: QueryFocus = RankingConfig::default().focus;
    let queries: Vec<Vec<(String, f32)>> = (0..QUERIES)
        .map(|q| focus(&corpus.queries[q * 7 % corpus.queries.len()], tokenizer, &config).terms)
        .collect();
    let accept = |f: &Facets| !f.archived && f.invalid_at.is_none();
    let rounds: usize =
        std::env::var("REARVIEW_KEYWORDS_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let mut whole = Vec::with_capacity(QUERIES * rounds);
    let mut parts = Vec::with_capacity(QUERIES * rounds);
    let (index, accept) = (&index, &accept);
    std::thread::scope(|scope| {
        // Two threads that live through the run, as the service's blocking pool does (a fresh
        // thread per search would allocate its accumulators anew every time).
        let (answers, found) = std::sync::mpsc::channel::<Vec<TextHit>>();
        let workers: Vec<std::sync::mpsc::Sender<&Vec<(String, f32)>>> = (0..2)
            .map(|i| {
                let (ask, asked) = std::sync::mpsc::channel::<&Vec<(String, f32)>>();
                let answers = answers.clone();
                scope.spawn(move || {
                    for terms in asked {
                        let hits = index.search_part(terms, CANDIDATES, accept, (i, 2));
                        answers.send(hits).expect("the bench is waiting");
                    }
                });
                ask
            })
            .collect();
        for terms in std::iter::repeat_n(&queries, rounds).flatten() {
            let started = Instant::now();
            let one = index.search_weighted(terms, CANDIDATES, accept);
            whole.push(started.elapsed());
            let started = Instant::now();
            for worker in &workers {
                worker.send(terms).expect("a worker");
            }
            let two = TextIndex::merge(
                (0..2).map(|_| found.recv().expect("a part")).collect(),
                CANDIDATES,
            );
            parts.push(started.elapsed());
            assert_eq!(one, two, "two parts answer as one search does");
        }
        drop(workers);
    });
    let terms: Vec<usize> = queries.iter().map(Vec::len).collect();
    let line = json!({
        "size": size,
        "rounds": rounds,
        "text": corpus.source,
        "build_s": built.as_secs_f64(),
        "query_terms_median": percentile_usize(terms, 0.5),
        "whole_ms": latencies(&mut whole),
        "two_parts_ms": latencies(&mut parts),
    });
    println!("{line}");
}

/// The index of the first `size` memories of `corpus`, one document per memory.
fn build(corpus: &corpus::Corpus, size: usize, tokenizer: Tokenizer) -> TextIndex {
    let facets = Facets {
        memory_type: MemoryType::Episodic,
        archived: false,
        expires_at: None,
        occurred_at: chrono::DateTime::from_timestamp(1_700_000_000, 0).expect("a time"),
        invalid_at: None,
        session_id: None,
        tags: Vec::new(),
    };
    let mut index = TextIndex::new();
    for i in 0..size {
        let id = MemoryId(uuid::Uuid::from_u128(i as u128 + 1));
        index.upsert(id, facets.clone(), &tokenizer.index_terms(&corpus.memory(i)));
    }
    index
}

/// p50 / p95 / p99 in milliseconds.
fn latencies(times: &mut [Duration]) -> serde_json::Value {
    times.sort_unstable();
    let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e3;
    json!({ "p50": at(0.5), "p95": at(0.95), "p99": at(0.99) })
}

fn percentile_usize(mut values: Vec<usize>, p: f64) -> usize {
    values.sort_unstable();
    values[((values.len() - 1) as f64 * p).round() as usize]
}
