//! What the benchmark programs share: timing summaries, peak memory, the machine and commit
//! they ran on, and memories written as an import writes them.
#![allow(dead_code, missing_docs, reason = "benchmark helper shared by bench targets")]

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use rearview_store::MemoryStore;
use rearview_store_sqlite::{Durability, SqliteConfig, SqliteStore};

use rearview_core::{Clock, Memory, MemoryId, MemoryType, Namespace, SystemClock, content_hash};

/// An episodic memory of `content` as an export line holds it, stored now with the tier's
/// default time to live (30 days), as `remember` would store it.
pub fn imported(ns: &Namespace, content: String) -> Memory {
    let now = SystemClock.now();
    let ttl_secs = 30 * 24 * 3600;
    Memory {
        id: MemoryId::new_v7(now),
        namespace: ns.clone(),
        memory_type: MemoryType::Episodic,
        content_hash: content_hash(&content),
        content,
        metadata: Default::default(),
        session_id: None,
        ttl_secs,
        timestamp: now,
        occurred_at: now,
        updated_at: now,
        last_accessed_at: None,
        expires_at: Some(now + chrono::TimeDelta::seconds(ttl_secs as i64)),
        access_count: 0,
        archived: false,
        source_ids: Vec::new(),
        summary: None,
        superseded_by: None,
        invalid_at: None,
        link: None,
        possible_updates: Vec::new(),
    }
}

pub fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let rank = ((samples.len() as f64 * p).ceil() as usize).clamp(1, samples.len());
    samples[rank - 1]
}

pub fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// Peak resident set size of this process (`VmHWM`), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    format!("{cpu}, {cores} cores")
}

pub fn commit(root: &Path) -> String {
    Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

/// What `index_memory = auto` gives the CLI, so a benchmark runs as a server with its defaults.
pub fn auto_index_memory() -> usize {
    rearview_service::default_index_memory()
}

/// The measured database: the SQLite file at `path` (`fill`: with a fill's relaxed durability,
/// as `rearview import` may), or, with `postgres` a server's URL, `schema` on that server.
pub async fn open_store(
    postgres: Option<&str>,
    path: &Path,
    schema: &str,
    fill: bool,
) -> Arc<dyn MemoryStore> {
    if let Some(url) = postgres {
        let config = rearview_store_postgres::PgConfig {
            schema: Some(schema.to_owned()),
            ..rearview_store_postgres::PgConfig::new(url)
        };
        return Arc::new(rearview_store_postgres::PgStore::connect(&config).await.unwrap());
    }
    let mut config = SqliteConfig::new(path);
    if fill {
        config.durability = Durability::Normal;
    }
    Arc::new(SqliteStore::open(&config).unwrap())
}
