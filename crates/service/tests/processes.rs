//! Several processes on one SQLite file: each `MemoryService` keeps in-memory indexes, and
//! `follow_changes` brings them up to date with what the others wrote (the store's change log).
//! Two services over two connections to one file stand in for two processes here; the CLI's
//! `processes` test runs real ones.

use std::sync::Arc;

use chrono::DateTime;
use rearview_core::{Clock, ManualClock, MemoryId, Namespace};
use rearview_embed::{Embedder, TestEmbedder};
use rearview_service::{
    Followed, MemoryService, RecallRequest, RememberRequest, ServiceConfig, UpdateRequest,
};
use rearview_store::MemoryStore;
use rearview_store_sqlite::{SqliteConfig, SqliteStore};

fn ns(name: &str) -> Namespace {
    name.parse().unwrap()
}

async fn open(path: &std::path::Path) -> MemoryService {
    let store: Arc<dyn MemoryStore> =
        Arc::new(SqliteStore::open(&SqliteConfig::new(path)).unwrap());
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_follows_stores_updates_archives_and_deletes_of_another() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rearview.db");
    let (writer, reader) = (open(&path).await, open(&path).await);

    let id = store(&writer, "Redis 端口是 6380").await;
    assert!(recalled(&reader, "Redis 端口").await.is_empty(), "not followed yet");
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_behind_a_pruned_log_rebuilds_its_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rearview.db");
    let (writer, reader) = (open(&path).await, open(&path).await);
    let gone = store(&reader, "old note about ferries").await;
    writer.follow_changes().await.unwrap();
    writer.forget(&ns("a"), gone).await.unwrap();
    store(&writer, "new note about trains").await;
    let pruner = SqliteStore::open(&SqliteConfig::new(&path)).unwrap();
    pruner.prune_changes(1).await.unwrap();
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
    let terms = rearview_search::Tokenizer::default().index_terms(&memory.content);
    let record = rearview_store::MemoryRecord { memory, terms, vectors: Vec::new() };
    store.insert(&record).await.unwrap();
    assert!(recalled(&service, "lighthouses").await.is_empty());
    service.follow_changes().await.unwrap();
    assert_eq!(recalled(&service, "lighthouses").await, ["orphaned note about lighthouses"]);
}
