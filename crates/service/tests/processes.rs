//! Several processes on one SQLite file, or several servers on one PostgreSQL database: each
//! `MemoryService` keeps in-memory indexes, and `follow_changes` brings them up to date with
//! what the others wrote (the store's change log). Two services over two connections stand in
//! for two processes here; the e2e tests run real ones. The PostgreSQL variants need
//! `REARVIEW_TEST_PG_URL` (`scripts/pg-up.sh`); they skip without it unless
//! `REARVIEW_REQUIRE_PG` is set, as in CI.

mod common;

use common::ns;

use std::sync::Arc;

use chrono::DateTime;
use rearview_core::{Clock, ManualClock, MemoryId};
use rearview_embed::{Embedder, TestEmbedder};
use rearview_service::{
    Followed, MemoryService, RecallRequest, RememberRequest, ServiceConfig, UpdateRequest,
};
use rearview_store::MemoryStore;
use rearview_store_sqlite::{SqliteConfig, SqliteStore};

/// One database shared by the services of a test.
enum Shared {
    File(tempfile::TempDir),
    Postgres { url: String, schema: String },
}

impl Shared {
    fn file() -> Self {
        Shared::File(tempfile::tempdir().unwrap())
    }

    /// A fresh schema on the test server, or `None` to skip.
    fn postgres() -> Option<Self> {
        let url = rearview_store::testing::pg_test_url()?;
        Some(Shared::Postgres { url, schema: format!("s_{}", uuid::Uuid::now_v7().simple()) })
    }

    /// Another connection to the database (another process or server).
    async fn store(&self) -> Arc<dyn MemoryStore> {
        match self {
            Shared::File(dir) => Arc::new(
                SqliteStore::open(&SqliteConfig::new(dir.path().join("rearview.db"))).unwrap(),
            ),
            Shared::Postgres { url, schema } => {
                let config = rearview_store_postgres::PgConfig {
                    schema: Some(schema.clone()),
                    pool_size: 4,
                    ..rearview_store_postgres::PgConfig::new(url.clone())
                };
                Arc::new(rearview_store_postgres::PgStore::connect(&config).await.unwrap())
            }
        }
    }

    async fn open(&self) -> MemoryService {
        open_on(self.store().await).await
    }
}

async fn open_on(store: Arc<dyn MemoryStore>) -> MemoryService {
    let clock: Arc<dyn Clock> =
        Arc::new(ManualClock::new(DateTime::from_timestamp(1_760_000_000, 0).unwrap()));
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(256));
    MemoryService::open(store, Some(embedder), clock, ServiceConfig::default()).await.unwrap()
}

/// The contents `service` recalls for `query` in namespace "a".
async fn recalled(service: &MemoryService, query: &str) -> Vec<String> {
    let r = service.recall(&ns("a"), RecallRequest::new(query)).await.unwrap();
    r.hits.into_iter().map(|hit| hit.memory.content).collect()
}

async fn store(service: &MemoryService, content: &str) -> MemoryId {
    service.remember(&ns("a"), RememberRequest::new(content)).await.unwrap().memory.id
}

/// One test per backend: `$name` on a SQLite file and on PostgreSQL (skipped without one).
macro_rules! on_both {
    ($check:ident: $sqlite:ident, $postgres:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $sqlite() {
            $check(Shared::file()).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $postgres() {
            if let Some(shared) = Shared::postgres() {
                $check(shared).await;
            }
        }
    };
}

on_both!(follows_writes: a_process_follows_another_on_one_file, a_server_follows_another_on_one_postgres);
on_both!(rebuilds_behind_pruned_log: a_process_behind_a_pruned_log_rebuilds, a_server_behind_a_pruned_log_rebuilds);
on_both!(counts_every_access: access_counts_are_exact_across_processes, access_counts_are_exact_across_servers);
on_both!(sweeps_once: one_process_sweeps_per_interval, one_server_sweeps_per_interval);

/// Stores, updates, archives, restores and deletes through one service reach the other.
async fn follows_writes(shared: Shared) {
    let (writer, reader) = (shared.open().await, shared.open().await);

    let id = store(&writer, "Redis 端口是 6380").await;
    if reader.searches_in_store() {
        // PostgreSQL: its vector is searched in the database, so found at once (the keyword
        // index in memory follows below).
        assert_eq!(recalled(&reader, "Redis 端口").await, ["Redis 端口是 6380"], "at once");
    } else {
        assert!(recalled(&reader, "Redis 端口").await.is_empty(), "not followed yet");
    }
    let followed = reader.follow_changes().await.unwrap();
    assert!(followed.refreshed >= 1 && !followed.rebuilt, "{followed:?}");
    assert_eq!(recalled(&reader, "Redis 端口").await, ["Redis 端口是 6380"]);
    assert_eq!(reader.follow_changes().await.unwrap(), Followed::default(), "nothing new");

    let update =
        UpdateRequest { content: Some("Valkey 端口是 6390".into()), ..Default::default() };
    writer.update(&ns("a"), id, update).await.unwrap();
    reader.follow_changes().await.unwrap();
    assert_eq!(recalled(&reader, "Valkey").await, ["Valkey 端口是 6390"]);

    writer.archive(&ns("a"), &[id]).await.unwrap();
    reader.follow_changes().await.unwrap();
    assert!(recalled(&reader, "Valkey").await.is_empty(), "archived elsewhere");
    writer.restore(&ns("a"), &[id]).await.unwrap();
    reader.follow_changes().await.unwrap();
    assert_eq!(recalled(&reader, "Valkey").await, ["Valkey 端口是 6390"]);

    writer.forget(&ns("a"), id).await.unwrap();
    reader.follow_changes().await.unwrap();
    assert!(recalled(&reader, "Valkey").await.is_empty(), "deleted elsewhere");
    // The reader's own writes still work, and the writer follows them in turn.
    store(&reader, "backups run at 03:00").await;
    writer.follow_changes().await.unwrap();
    assert_eq!(recalled(&writer, "backups").await, ["backups run at 03:00"]);
}

/// A service behind a pruned change log rebuilds its indexes from the store.
async fn rebuilds_behind_pruned_log(shared: Shared) {
    let (writer, reader) = (shared.open().await, shared.open().await);
    let gone = store(&reader, "old note about ferries").await;
    writer.follow_changes().await.unwrap();
    writer.forget(&ns("a"), gone).await.unwrap();
    store(&writer, "new note about trains").await;
    shared.store().await.prune_changes(1).await.unwrap();
    let followed = reader.follow_changes().await.unwrap();
    assert!(followed.rebuilt, "{followed:?}");
    assert_eq!(recalled(&reader, "trains").await, ["new note about trains"]);
    assert_eq!(recalled(&reader, "ferries").await, ["new note about trains"], "the only memory");
    assert_eq!(reader.follow_changes().await.unwrap(), Followed::default());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_committed_write_whose_index_update_never_ran_is_repaired_by_the_follower() {
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn MemoryStore> =
        Arc::new(SqliteStore::open(&SqliteConfig::new(dir.path().join("r.db"))).unwrap());
    let clock: Arc<dyn Clock> =
        Arc::new(ManualClock::new(DateTime::from_timestamp(1_760_000_000, 0).unwrap()));
    let service = MemoryService::open(Arc::clone(&store), None, clock, ServiceConfig::default())
        .await
        .unwrap();
    // Committed through this process's own store handle, but never indexed (as when a request
    // is dropped between its commit and its index update).
    let mut memory = rearview_store::testing::memory("a", "orphaned note about lighthouses", {
        DateTime::from_timestamp(1_760_000_000, 0).unwrap()
    });
    memory.expires_at = None;
    let terms = rearview_language::Tokenizer::default().index_terms(&memory.content);
    let record = rearview_store::MemoryRecord { memory, terms, vectors: Vec::new() };
    store.insert(&record).await.unwrap();
    assert!(recalled(&service, "lighthouses").await.is_empty());
    service.follow_changes().await.unwrap();
    assert_eq!(recalled(&service, "lighthouses").await, ["orphaned note about lighthouses"]);
}

/// Recalls through two services at once count every access of the memories they return.
async fn counts_every_access(shared: Shared) {
    let (a, b) = (Arc::new(shared.open().await), Arc::new(shared.open().await));
    let id = store(&a, "the staging database listens on port 5433").await;
    b.follow_changes().await.unwrap();
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let service = Arc::clone(if i % 2 == 0 { &a } else { &b });
            tokio::spawn(async move {
                let request = RecallRequest::new(format!("staging database port {i}"));
                let hits = service.recall(&ns("a"), request).await.unwrap().hits;
                assert_eq!(hits[0].memory.id, id);
                service.flush_access_counts().await;
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let memory = shared.store().await.get(&ns("a"), id, clock_now()).await.unwrap().unwrap();
    assert_eq!(memory.access_count, 20);
}

/// Of services sharing a store, one sweeps per interval; the others skip it.
async fn sweeps_once(shared: Shared) {
    let (a, b) = (shared.open().await, shared.open().await);
    let hour = std::time::Duration::from_secs(3600);
    assert!(a.periodic_sweep(hour).await.unwrap().is_some(), "the first claims the interval");
    assert!(b.periodic_sweep(hour).await.unwrap().is_none(), "the other skips it");
    assert!(a.periodic_sweep(hour).await.unwrap().is_none(), "once per interval, even for it");
}

fn clock_now() -> chrono::DateTime<chrono::Utc> {
    DateTime::from_timestamp(1_760_000_000, 0).unwrap()
}
