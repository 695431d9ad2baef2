//! Local model speed on real text: load time, texts/s at batch 1 and 32, query-embedding p50
//! and p95, and resident memory. Plain timing (`harness = false`): each iteration is a model
//! forward pass, far above timer noise.
//!
//! `cargo bench -p rearview-embed-local --bench embed` — models from `$REARVIEW_MODELS_DIR`
//! (default ~/.cache/rearview/models); text from ../shared/data (MemDaily zh + LoCoMo en).
#![allow(clippy::print_stdout, missing_docs, reason = "benchmark report")]

#[path = "../../service/benches/corpus.rs"]
mod corpus;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rearview_embed::TextKind;
use rearview_embed_local::{LoadOptions, LocalEmbedder, installed, model_dir};

fn models_dir() -> PathBuf {
    std::env::var_os("REARVIEW_MODELS_DIR").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/rearview/models")
    })
}

fn rss_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

fn main() {
    let corpus = corpus::load();
    let threads = std::env::var("REARVIEW_EMBED_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| LoadOptions::default().threads);
    println!("text: {}; inference threads: {threads}", corpus.source);
    let names: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let names = if names.is_empty() {
        vec!["multilingual-e5-small".to_owned(), "all-minilm-l6-v2".to_owned()]
    } else {
        names
    };
    // The exact texts, for timing another engine on the same input (one per line: 320 passages,
    // then 200 queries).
    if let Some(path) = std::env::var_os("REARVIEW_BENCH_DUMP") {
        let mut lines: Vec<String> =
            (0..320).map(|i| corpus.memory(i).replace('\n', " ")).collect();
        lines.extend(corpus.queries.iter().take(200).map(|q| q.replace('\n', " ")));
        std::fs::write(path, lines.join("\n") + "\n").expect("writing the dump");
    }
    let models = models_dir();
    for name in names {
        if installed(&models, &name).is_none() {
            println!("{name}: not installed (rearview models fetch {name}); skipped");
            continue;
        }
        let dir = model_dir(&models, &name);
        let options = LoadOptions { threads, ..Default::default() };
        let rss_before = rss_mib("VmRSS:");
        let mut loads = Vec::new();
        let mut embedder = None;
        for _ in 0..3 {
            let started = Instant::now();
            embedder = Some(LocalEmbedder::load(&dir, options.clone()).expect("model loads"));
            loads.push(started.elapsed());
        }
        let embedder = embedder.expect("loaded");
        loads.sort();
        let rss_loaded = rss_mib("VmRSS:");

        let passages: Vec<String> = (0..320).map(|i| corpus.memory(i)).collect();
        // Warm-up.
        embedder.embed_blocking(&passages[..32], TextKind::Passage).expect("embeds");

        let started = Instant::now();
        for text in &passages[..64] {
            embedder.embed_blocking(std::slice::from_ref(text), TextKind::Passage).expect("embeds");
        }
        let single = 64.0 / started.elapsed().as_secs_f64();

        let started = Instant::now();
        for batch in passages.chunks(32) {
            embedder.embed_blocking(batch, TextKind::Passage).expect("embeds");
        }
        let batched = passages.len() as f64 / started.elapsed().as_secs_f64();

        let mut latencies: Vec<Duration> = corpus
            .queries
            .iter()
            .take(200)
            .map(|q| {
                let started = Instant::now();
                embedder.embed_blocking(std::slice::from_ref(q), TextKind::Query).expect("embeds");
                started.elapsed()
            })
            .collect();
        latencies.sort();
        let mean_chars = passages.iter().map(|p| p.chars().count()).sum::<usize>() as f64
            / passages.len() as f64;
        println!(
            "{name} ({}): load median {:.0} ms; batch 1: {single:.1} texts/s; batch 32: {batched:.1} texts/s \
             (mean {mean_chars:.0} chars); query p50 {:.1} ms, p95 {:.1} ms over {} queries; \
             RSS +{:.0} MiB after load, peak {:.0} MiB",
            embedder.manifest().id,
            loads[1].as_secs_f64() * 1000.0,
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.95),
            latencies.len(),
            rss_loaded - rss_before,
            rss_mib("VmHWM:"),
        );
        drop(embedder);
    }
}
