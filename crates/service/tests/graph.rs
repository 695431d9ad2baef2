//! Namespaces past the exact-scan limit are searched by an HNSW graph: built in the background
//! when a namespace grows past the limit (writes made meanwhile are not lost), at start-up for a
//! namespace loaded past it; recall finds the same memories either way.

mod common;

use common::ns;

use std::sync::Arc;
use std::time::Duration;

use chrono::DateTime;
use rearview_core::{Clock, ManualClock, MemoryId, Namespace};
use rearview_embed::{Embedder, TestEmbedder};
use rearview_service::{
    MemoryService, RecallRequest, RememberRequest, ServiceConfig, UpdateRequest,
};
use rearview_store::MemoryStore;
use rearview_store::prelude::*;
use rearview_store_sqlite::{SqliteConfig, SqliteStore};

const LIMIT: usize = 40;

async fn open(path: &std::path::Path) -> MemoryService {
    open_with(path, None).await
}

/// A service whose graphs are saved in `graph_dir`, if given.
async fn open_with(path: &std::path::Path, graph_dir: Option<&std::path::Path>) -> MemoryService {
    let store: Arc<dyn MemoryStore> =
        Arc::new(SqliteStore::open(&SqliteConfig::new(path)).unwrap());
    let clock: Arc<dyn Clock> =
        Arc::new(ManualClock::new(DateTime::from_timestamp(1_760_000_000, 0).unwrap()));
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(64));
    let config = ServiceConfig {
        exact_scan_limit: LIMIT,
        graph_dir: graph_dir.map(std::path::Path::to_path_buf),
        ..ServiceConfig::default()
    };
    MemoryService::open(store, Some(embedder), clock, config).await.unwrap()
}

fn note(i: usize) -> String {
    format!(
        "note {i}: the {} shipment left dock {} on lane {}",
        ["red", "blue", "green"][i % 3],
        i * 7,
        i % 11
    )
}

async fn store(service: &MemoryService, i: usize) -> MemoryId {
    let request = RememberRequest { dedup: Some(false), ..RememberRequest::new(note(i)) };
    service.remember(&ns("big"), request).await.unwrap().memory.id
}

async fn first_hit(service: &MemoryService, query: &str) -> Option<String> {
    let r = service.recall(&ns("big"), RecallRequest::new(query)).await.unwrap();
    r.hits.into_iter().next().map(|h| h.memory.content)
}

/// Waits (up to 20 s) until `n` vectors are searched through a graph.
async fn graph_holds(service: &MemoryService, n: usize) {
    for _ in 0..400 {
        if service.stats().await.unwrap().graph_vectors == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("graph never held {n} vectors: {:?}", service.stats().await.unwrap().graph_vectors);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_growing_namespace_moves_to_a_graph_without_losing_a_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rearview.db");
    let service = open(&path).await;
    let mut ids = Vec::new();
    for i in 0..LIMIT - 1 {
        ids.push(store(&service, i).await);
    }
    assert_eq!(service.stats().await.unwrap().graph_vectors, 0, "below the limit: exact");
    // Crossing the limit starts the build; these writes race it and must survive it.
    for i in LIMIT - 1..LIMIT + 20 {
        ids.push(store(&service, i).await);
    }
    service.forget(&ns("big"), ids[3]).await.unwrap();
    let total = LIMIT + 20 - 1;
    graph_holds(&service, total).await;
    assert_eq!(service.stats().await.unwrap().indexed_vectors, total);
    for i in [0, LIMIT + 19, LIMIT + 5] {
        assert_eq!(first_hit(&service, &note(i)).await.as_deref(), Some(note(i).as_str()));
    }
    let request = RecallRequest { top_k: 50, ..RecallRequest::new(note(3)) };
    let r = service.recall(&ns("big"), request).await.unwrap();
    assert!(r.hits.iter().all(|h| h.memory.id != ids[3]), "a forgotten memory");

    // A restart loads the namespace straight into a graph.
    drop(service);
    let reopened = open(&path).await;
    assert_eq!(reopened.stats().await.unwrap().graph_vectors, total);
    assert_eq!(first_hit(&reopened, &note(7)).await.as_deref(), Some(note(7).as_str()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_graph_is_loaded_and_caught_up_with_later_writes() {
    let dir = tempfile::tempdir().unwrap();
    let (path, graphs) = (dir.path().join("rearview.db"), dir.path().join("graphs"));
    let service = open_with(&path, Some(&graphs)).await;
    let mut ids = Vec::new();
    for i in 0..LIMIT + 10 {
        ids.push(store(&service, i).await);
    }
    graph_holds(&service, LIMIT + 10).await;
    assert_eq!(service.save_indexes().await.unwrap().graphs, 1);
    assert_eq!(service.save_indexes().await.unwrap().graphs, 0, "unchanged since the save");
    // After the save, without saving again (a crash): one more memory, one forgotten, one
    // edited (its vector changes: the saved links were made for the old one).
    let late = store(&service, 500).await;
    service.forget(&ns("big"), ids[0]).await.unwrap();
    let edit = UpdateRequest { content: Some(note(600)), ..UpdateRequest::default() };
    service.update(&ns("big"), ids[5], edit).await.unwrap();
    drop(service);
    // Another process writes while this one is down.
    let other = open(&path).await;
    let elsewhere = store(&other, 501).await;
    drop(other);

    let reopened = open_with(&path, Some(&graphs)).await;
    let stats = reopened.stats().await.unwrap();
    let caught_up = LIMIT + 12;
    assert_eq!(
        stats.graph_vectors, caught_up,
        "+2 stored, +1 the edit's earlier text, −1 forgotten"
    );
    for (i, id) in [(500, late), (501, elsewhere), (9, ids[9]), (600, ids[5])] {
        let r = reopened.recall(&ns("big"), RecallRequest::new(note(i))).await.unwrap();
        assert_eq!(r.hits[0].memory.id, id, "note {i}");
    }
    let request = RecallRequest { top_k: 60, ..RecallRequest::new(note(0)) };
    let r = reopened.recall(&ns("big"), request).await.unwrap();
    assert!(r.hits.iter().all(|h| h.memory.id != ids[0]), "forgotten after the save");
    assert_eq!(
        reopened.save_indexes().await.unwrap().graphs,
        1,
        "changed by the catch-up: saved again"
    );

    // Unchanged since that save: loaded as saved (a rebuilt graph would count as unsaved).
    drop(reopened);
    let again = open_with(&path, Some(&graphs)).await;
    assert_eq!(again.stats().await.unwrap().graph_vectors, caught_up);
    assert_eq!(again.save_indexes().await.unwrap().graphs, 0, "the saved graph itself was loaded");

    // Broken files are ignored: the graph is rebuilt from the stored vectors.
    drop(again);
    for entry in std::fs::read_dir(&graphs).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "graph") {
            std::fs::write(&path, b"not a graph").unwrap();
        }
    }
    let rebuilt = open_with(&path, Some(&graphs)).await;
    assert_eq!(rebuilt.stats().await.unwrap().graph_vectors, caught_up);
    assert_eq!(rebuilt.save_indexes().await.unwrap().graphs, 1, "rebuilt, so saved anew");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_saving_one_graph_at_once_leave_a_loadable_pair() {
    let dir = tempfile::tempdir().unwrap();
    let (path, graphs) = (dir.path().join("rearview.db"), dir.path().join("graphs"));
    let first = open_with(&path, Some(&graphs)).await;
    for i in 0..LIMIT + 5 {
        store(&first, i).await;
    }
    graph_holds(&first, LIMIT + 5).await;
    let second = open_with(&path, Some(&graphs)).await;
    assert_eq!(second.stats().await.unwrap().graph_vectors, LIMIT + 5, "built at its start");
    for _ in 0..5 {
        let (a, b) = tokio::join!(first.save_indexes(), second.save_indexes());
        assert_eq!((a.unwrap().graphs, b.unwrap().graphs), (1, 1));
        store(&first, 900).await;
        second.follow_changes().await.unwrap();
    }
    drop((first, second));
    let third = open_with(&path, Some(&graphs)).await;
    assert_eq!(third.stats().await.unwrap().graph_vectors, LIMIT + 10);
    assert_eq!(third.save_indexes().await.unwrap().graphs, 1, "caught up with the last store");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graph_saved_for_another_database_or_a_later_state_is_rebuilt_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let graphs = dir.path().join("graphs");
    let (first, second) = (dir.path().join("first.db"), dir.path().join("second.db"));
    let service = open_with(&first, Some(&graphs)).await;
    for i in 0..LIMIT + 10 {
        store(&service, i).await;
    }
    graph_holds(&service, LIMIT + 10).await;
    assert_eq!(service.save_indexes().await.unwrap().graphs, 1);
    drop(service);

    // Another database, its change log at the very same position, pointed at those graphs.
    let other = open(&second).await;
    let mut theirs = Vec::new();
    for i in 1000..1000 + LIMIT + 10 {
        theirs.push(store(&other, i).await);
    }
    drop(other);
    let reopened = open_with(&second, Some(&graphs)).await;
    assert_eq!(reopened.stats().await.unwrap().graph_vectors, LIMIT + 10);
    let r = reopened.recall(&ns("big"), RecallRequest::new(note(1007))).await.unwrap();
    assert_eq!(r.hits[0].memory.id, theirs[7], "searched its own vectors");
    assert_eq!(reopened.save_indexes().await.unwrap().graphs, 1, "rebuilt, not loaded");
    // Closed, not dropped: the file is copied next (see `MemoryService::close`).
    reopened.close().await;

    // A backup restored: the graph was saved at a later state than the file now holds.
    let backup = dir.path().join("backup.db");
    common::copy_db(&second, &backup);
    let service = open_with(&second, Some(&graphs)).await;
    for i in 2000..2005 {
        store(&service, i).await;
    }
    assert_eq!(service.save_indexes().await.unwrap().graphs, 1);
    service.close().await;
    common::copy_db(&backup, &second);
    let restored = open_with(&second, Some(&graphs)).await;
    assert_eq!(restored.stats().await.unwrap().graph_vectors, LIMIT + 10);
    assert_eq!(restored.save_indexes().await.unwrap().graphs, 1, "rebuilt from the restored file");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_graph_keeps_up_with_the_log_and_survives_its_pruning() {
    let dir = tempfile::tempdir().unwrap();
    let (path, graphs) = (dir.path().join("rearview.db"), dir.path().join("graphs"));
    let service = open_with(&path, Some(&graphs)).await;
    for i in 0..LIMIT + 5 {
        store(&service, i).await;
    }
    graph_holds(&service, LIMIT + 5).await;
    assert_eq!(service.save_indexes().await.unwrap().graphs, 1);
    // Writes elsewhere move the log on; the graph does not change.
    let elsewhere: Namespace = "small".parse().unwrap();
    for i in 0..5 {
        service.remember(&elsewhere, RememberRequest::new(note(i))).await.unwrap();
    }
    assert_eq!(service.save_indexes().await.unwrap().graphs, 0, "nothing to write");
    drop(service);
    // The log is pruned past the graph's first save.
    let store = SqliteStore::open(&SqliteConfig::new(&path)).unwrap();
    assert!(store.prune_changes(1).await.unwrap() > 0);
    drop(store);
    let reopened = open_with(&path, Some(&graphs)).await;
    assert_eq!(reopened.stats().await.unwrap().graph_vectors, LIMIT + 5);
    assert_eq!(reopened.save_indexes().await.unwrap().graphs, 0, "loaded as saved, not rebuilt");
}
