//! `migrate`: every namespace copied between stores exactly (ids, timestamps, access counts,
//! terms, vectors, keys, the tokenizer setting), verified, and resumable. SQLite to SQLite
//! always; SQLite to PostgreSQL and back with `REARVIEW_TEST_PG_URL` (required in CI).

mod common;

use common::ns;

use std::sync::Arc;

use chrono::DateTime;
use rearview_core::{Clock, ManualClock};
use rearview_embed::{Embedder, TestEmbedder};
use rearview_service::migrate::migrate;
use rearview_service::{MemoryService, NewKey, RecallRequest, RememberRequest, ServiceConfig};
use rearview_store::MemoryStore;
use rearview_store_sqlite::{SqliteConfig, SqliteStore};

fn clock() -> Arc<dyn Clock> {
    Arc::new(ManualClock::new(DateTime::from_timestamp(1_760_000_000, 0).unwrap()))
}

async fn service_on(store: Arc<dyn MemoryStore>) -> MemoryService {
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(64));
    MemoryService::open(store, Some(embedder), clock(), ServiceConfig::default()).await.unwrap()
}

fn sqlite(dir: &tempfile::TempDir, name: &str) -> Arc<dyn MemoryStore> {
    Arc::new(SqliteStore::open(&SqliteConfig::new(dir.path().join(name))).unwrap())
}

async fn postgres() -> Option<Arc<dyn MemoryStore>> {
    let url = rearview_store::testing::pg_test_url()?;
    let config = rearview_store_postgres::PgConfig {
        schema: Some(format!("m_{}", uuid::Uuid::now_v7().simple())),
        pool_size: 4,
        ..rearview_store_postgres::PgConfig::new(url)
    };
    Some(Arc::new(rearview_store_postgres::PgStore::connect(&config).await.unwrap()))
}

/// A source with two namespaces, an archived memory, a used one, a history entry and a key.
async fn filled(store: Arc<dyn MemoryStore>) -> MemoryService {
    let service = service_on(store).await;
    for (namespace, text) in [
        ("alice", "我喜欢在周末去香山爬山"),
        ("alice", "the staging database listens on port 5433"),
        ("alice", "Redis 端口是 6380"),
        ("bob", "bob prefers tea over coffee"),
    ] {
        service.remember(&ns(namespace), RememberRequest::new(text)).await.unwrap();
    }
    let port = service.recall(&ns("alice"), RecallRequest::new("Redis 端口")).await.unwrap();
    let redis = port.hits[0].memory.id;
    let update = rearview_service::UpdateRequest {
        content: Some("Redis 端口是 6390".into()),
        ..Default::default()
    };
    service.update(&ns("alice"), redis, update).await.unwrap();
    let hike = service.recall(&ns("alice"), RecallRequest::new("爬山")).await.unwrap();
    service.archive(&ns("alice"), &[hike.hits[0].memory.id]).await.unwrap();
    service.flush_access_counts().await;
    let key = NewKey { namespaces: vec![ns("alice")], ..NewKey::default() };
    service.create_key(key).await.unwrap();
    service
}

/// Copies `from` into `to` and checks what a user would: same recall, same counts, resumable.
async fn round_trip(from: Arc<dyn MemoryStore>, to: Arc<dyn MemoryStore>) {
    let source = filled(Arc::clone(&from)).await;
    let now = source.now();
    let report = migrate(Arc::clone(&from), Arc::clone(&to), now, |_, _| {}).await.unwrap();
    let total: u64 = report.namespaces.iter().map(|v| v.memories).sum();
    assert_eq!(report.copied.inserted, total, "{report:?}");
    assert_eq!(report.keys, 1);
    assert_eq!(report.namespaces.len(), 2);
    // Run again (as after an interruption): everything is skipped, and still verified.
    let again = migrate(Arc::clone(&from), Arc::clone(&to), now, |_, _| {}).await.unwrap();
    assert_eq!((again.copied.inserted, again.copied.skipped), (0, total));
    assert_eq!(again.namespaces, report.namespaces);

    let target = service_on(Arc::clone(&to)).await;
    for (namespace, query) in
        [("alice", "Redis 端口"), ("alice", "staging database"), ("bob", "tea")]
    {
        let want = source.recall(&ns(namespace), RecallRequest::new(query)).await.unwrap();
        let got = target.recall(&ns(namespace), RecallRequest::new(query)).await.unwrap();
        let ids = |r: &rearview_service::RecallResponse| {
            r.hits.iter().map(|h| (h.memory.id, h.memory.content.clone())).collect::<Vec<_>>()
        };
        assert_eq!(ids(&got), ids(&want), "{namespace}: {query}");
    }
    // Both sides counted those recalls as uses: written before either is compared again.
    source.flush_access_counts().await;
    target.flush_access_counts().await;
    assert_eq!(to.list_keys().await.unwrap(), from.list_keys().await.unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_file_migrates_to_another_exactly() {
    let dir = tempfile::tempdir().unwrap();
    round_trip(sqlite(&dir, "from.db"), sqlite(&dir, "to.db")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_file_migrates_to_postgres_and_back_exactly() {
    let Some(pg) = postgres().await else { return };
    let dir = tempfile::tempdir().unwrap();
    round_trip(sqlite(&dir, "from.db"), Arc::clone(&pg)).await;
    let back = sqlite(&dir, "back.db");
    let report =
        migrate(Arc::clone(&pg), Arc::clone(&back), clock().now(), |_, _| {}).await.unwrap();
    let original = migrate(sqlite(&dir, "from.db"), back, clock().now(), |_, _| {}).await.unwrap();
    assert_eq!(report.namespaces, original.namespaces, "the same digests all the way round");
}

/// PostgreSQL keeps f32: vectors written there before stores kept half precision are not
/// rounded. Copied into SQLite, which rounds them, they must still verify.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_vectors_written_at_full_precision_migrate_to_sqlite_and_verify() {
    let Some(pg) = postgres().await else { return };
    let embedding = rearview_core::Embedding::new((1..=64).map(|i| 1.0 / i as f32).collect());
    let embedding = embedding.unwrap();
    assert_ne!(embedding.to_half_precision(), embedding, "the premise: not half precision");
    let record = rearview_store::MemoryRecord {
        memory: rearview_store::testing::memory(
            "old",
            "written before half precision",
            clock().now(),
        ),
        terms: vec!["written".into()],
        vectors: vec![rearview_store::StoredVector { model_id: "m".into(), embedding }],
    };
    pg.insert(&record).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let report = migrate(pg, sqlite(&dir, "to.db"), clock().now(), |_, _| {}).await.unwrap();
    assert_eq!(report.copied.inserted, 1, "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_holding_other_memories_under_the_same_ids_fails_verification() {
    let dir = tempfile::tempdir().unwrap();
    let (from, to) = (sqlite(&dir, "from.db"), sqlite(&dir, "to.db"));
    filled(Arc::clone(&from)).await;
    let now = clock().now();
    migrate(Arc::clone(&from), Arc::clone(&to), now, |_, _| {}).await.unwrap();
    // The target changes one of the copied memories (archived there: same count, other state).
    let target = service_on(Arc::clone(&to)).await;
    let bob = target.list(&ns("bob"), &Default::default(), Default::default()).await.unwrap();
    let id = bob.first().map(|m| m.id).expect("bob's memory was copied");
    target.archive(&ns("bob"), &[id]).await.unwrap();
    let err = migrate(from, to, now, |_, _| {}).await.unwrap_err();
    assert!(err.to_string().contains("verification failed for namespace bob"), "{err}");
    assert!(err.to_string().contains("contents differ"), "{err}");
}
