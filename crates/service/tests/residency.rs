//! Namespaces loaded on demand within a memory budget (`ServiceConfig::index_memory`): start-up
//! loads none, a recall or a write loads its namespace, the least recently used are dropped past
//! the budget, and a dropped namespace answers exactly as before once it is used again, with
//! everything written meanwhile, by this process or another on the same file.

mod common;

use common::ns;

use std::sync::Arc;

use chrono::DateTime;
use rearview_core::{Clock, ManualClock};
use rearview_embed::{Embedder, TestEmbedder};
use rearview_service::{
    MemoryService, RecallRequest, RememberRequest, ServiceConfig, UpdateRequest,
};
use rearview_store_sqlite::{SqliteConfig, SqliteStore};

async fn open(dir: &tempfile::TempDir, budget: Option<usize>) -> MemoryService {
    let store = Arc::new(SqliteStore::open(&SqliteConfig::new(dir.path().join("m.db"))).unwrap());
    let clock: Arc<dyn Clock> =
        Arc::new(ManualClock::new(DateTime::from_timestamp(1_760_000_000, 0).unwrap()));
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(64));
    let config = ServiceConfig { index_memory: budget, ..ServiceConfig::default() };
    MemoryService::open(store, Some(embedder), clock, config).await.unwrap()
}

async fn recalled(service: &MemoryService, namespace: &str, query: &str) -> Vec<String> {
    let r = service.recall(&ns(namespace), RecallRequest::new(query)).await.unwrap();
    r.hits.into_iter().map(|hit| hit.memory.content).collect()
}

async fn loaded(service: &MemoryService) -> (usize, u64) {
    let usage = service.stats().await.unwrap().indexes;
    (usage.namespaces, usage.evictions)
}

const TENANTS: [(&str, &str); 3] = [
    ("alice", "Alice's staging database is called atlas"),
    ("bob", "Bob 的周末爱好是去香山爬山"),
    ("carol", "Carol deploys with make deploy from the deploy directory"),
];

async fn seed(dir: &tempfile::TempDir) {
    let writer = open(dir, None).await;
    for (namespace, content) in TENANTS {
        writer.remember(&ns(namespace), RememberRequest::new(content)).await.unwrap();
        let filler = format!("{namespace} filler memory about lunch");
        writer.remember(&ns(namespace), RememberRequest::new(filler)).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_up_loads_nothing_and_a_recall_loads_its_namespace() {
    let dir = tempfile::tempdir().unwrap();
    seed(&dir).await;
    let service = open(&dir, Some(64 << 20)).await;
    assert_eq!(loaded(&service).await, (0, 0), "nothing loaded at start-up");
    assert_eq!(recalled(&service, "alice", "staging database").await[0], TENANTS[0].1);
    assert_eq!(loaded(&service).await, (1, 0));
    assert_eq!(recalled(&service, "bob", "爬山").await[0], TENANTS[1].1);
    assert_eq!(loaded(&service).await, (2, 0));
    // Every namespace loaded at start, as before, without a budget.
    let eager = open(&dir, None).await;
    assert_eq!(loaded(&eager).await.0, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_budget_the_least_recently_used_go_and_come_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    seed(&dir).await;
    // One byte: only the namespace in use stays.
    let service = open(&dir, Some(1)).await;
    for _ in 0..2 {
        for (namespace, content) in TENANTS {
            let query = content.split(' ').nth(1).unwrap_or(content);
            let hits = recalled(&service, namespace, query).await;
            assert_eq!(hits[0], content, "{namespace} after a reload");
            assert!(!hits.iter().any(|h| TENANTS.iter().any(|(n, c)| *n != namespace && h == c)));
            assert_eq!(loaded(&service).await.0, 1, "only the last used stays");
        }
    }
    assert_eq!(loaded(&service).await.1, 5, "each switch evicted the previous namespace");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_to_a_dropped_namespace_are_there_when_it_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    seed(&dir).await;
    let service = open(&dir, Some(1)).await;
    let alice = recalled(&service, "alice", "staging database").await;
    assert_eq!(alice[0], TENANTS[0].1);
    let id =
        service.recall(&ns("alice"), RecallRequest::new("atlas")).await.unwrap().hits[0].memory.id;
    // Alice is dropped when Bob loads; then her memory changes and another is deleted.
    recalled(&service, "bob", "爬山").await;
    let update = UpdateRequest {
        content: Some("Alice's staging database is now called zephyr".into()),
        ..Default::default()
    };
    service.update(&ns("alice"), id, update).await.unwrap();
    let lunch = service.recall(&ns("alice"), RecallRequest::new("lunch")).await.unwrap();
    let lunch_id =
        lunch.hits.iter().find(|h| h.memory.content.contains("lunch")).unwrap().memory.id;
    recalled(&service, "carol", "deploy").await;
    service.forget(&ns("alice"), lunch_id).await.unwrap();
    recalled(&service, "carol", "deploy").await;
    // A test embedder's recall returns every memory of a small namespace: the updated text
    // comes first, the old text and the deleted memory nowhere.
    let now = recalled(&service, "alice", "zephyr").await;
    assert_eq!(now, ["Alice's staging database is now called zephyr"], "one memory left");
    assert!(!recalled(&service, "alice", "atlas").await.iter().any(|h| h.contains("atlas")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_process_writes_are_read_when_a_namespace_loads_or_followed_once_loaded() {
    let dir = tempfile::tempdir().unwrap();
    seed(&dir).await;
    let (writer, reader) = (open(&dir, Some(64 << 20)).await, open(&dir, Some(64 << 20)).await);
    assert_eq!(recalled(&reader, "alice", "staging").await[0], TENANTS[0].1);
    // Bob's namespace is not in the reader's memory: the load reads the write.
    writer.remember(&ns("bob"), RememberRequest::new("Bob 改用 Neovim 写代码")).await.unwrap();
    assert_eq!(recalled(&reader, "bob", "Neovim").await[0], "Bob 改用 Neovim 写代码");
    // Alice's is: the change log brings the write.
    writer.remember(&ns("alice"), RememberRequest::new("Alice prefers tabs")).await.unwrap();
    reader.follow_changes().await.unwrap();
    assert_eq!(recalled(&reader, "alice", "tabs").await[0], "Alice prefers tabs");
}
