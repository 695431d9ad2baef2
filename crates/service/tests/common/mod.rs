//! Helpers shared by the service's integration tests (`mod common;` in each that uses them).
#![allow(dead_code, reason = "each test file uses part of it")]

/// Copies the database file and its write-ahead log, as a file backup of an idle database.
pub fn copy_db(from: &std::path::Path, to: &std::path::Path) {
    std::fs::copy(from, to).unwrap();
    for suffix in ["-wal", "-shm"] {
        let (from, to) =
            (format!("{}{suffix}", from.display()), format!("{}{suffix}", to.display()));
        let _ = std::fs::remove_file(&to);
        if std::path::Path::new(&from).exists() {
            std::fs::copy(&from, &to).unwrap();
        }
    }
}

use std::sync::Arc;

use chrono::DateTime;
use rearview_core::{Clock, ManualClock, Namespace, Timestamp};
use rearview_embed::{Embedder, TestEmbedder};
use rearview_service::{MemoryService, ServiceConfig};
use rearview_store::MemoryStore;
use rearview_store_sqlite::SqliteStore;

/// Where every test's clock starts (2025-10-09).
pub fn start() -> Timestamp {
    DateTime::from_timestamp(1_760_000_000, 0).unwrap()
}

/// The namespace `name`.
pub fn ns(name: &str) -> Namespace {
    name.parse().unwrap()
}

/// The test embedder (bag of hashed words, deterministic) of `dims` dimensions.
pub fn test_embedder(dims: usize) -> Arc<dyn Embedder> {
    Arc::new(TestEmbedder::new(dims))
}

/// A service, its manual clock (at [`start`]) and its store.
pub struct Harness {
    pub service: Arc<MemoryService>,
    pub clock: Arc<ManualClock>,
    pub store: Arc<dyn MemoryStore>,
}

impl Harness {
    /// A service over `store` with `embedder` and `config`.
    pub async fn open(
        store: Arc<dyn MemoryStore>,
        embedder: Option<Arc<dyn Embedder>>,
        config: ServiceConfig,
    ) -> Self {
        let clock = Arc::new(ManualClock::new(start()));
        let service = MemoryService::open(
            Arc::clone(&store),
            embedder,
            Arc::clone(&clock) as Arc<dyn Clock>,
            config,
        )
        .await
        .unwrap();
        Harness { service: Arc::new(service), clock, store }
    }

    /// A service over a fresh in-memory SQLite store, with the test embedder of `dims`
    /// dimensions when given (else keyword-only).
    pub async fn in_memory(config: ServiceConfig, dims: Option<usize>) -> Self {
        let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::in_memory().unwrap());
        Self::open(store, dims.map(test_embedder), config).await
    }
}
