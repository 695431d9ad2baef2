//! The keyword index of a namespace past the exact-scan limit is saved next to the database and
//! loaded at the next start instead of being rebuilt from the stored terms; writes made after
//! the save, by this process or another, are replayed onto it from the change log, and a saved
//! index that does not belong to this database's history, or is damaged, is not used.
//!
//! The services here have no embedder, so every recall is answered by the keyword index alone.

mod common;

use common::ns;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::DateTime;
use rearview_core::{Clock, ManualClock, MemoryId, Namespace};
use rearview_service::{MemoryService, RecallRequest, RememberRequest, ServiceConfig};
use rearview_store::MemoryStore;
use rearview_store_sqlite::{SqliteConfig, SqliteStore};

const LIMIT: usize = 30;

/// A keyword-only service on `path`, saving indexes in `saved` if given.
async fn open(path: &Path, saved: Option<&Path>) -> MemoryService {
    let store: Arc<dyn MemoryStore> =
        Arc::new(SqliteStore::open(&SqliteConfig::new(path)).unwrap());
    let clock: Arc<dyn Clock> =
        Arc::new(ManualClock::new(DateTime::from_timestamp(1_760_000_000, 0).unwrap()));
    let config = ServiceConfig {
        exact_scan_limit: LIMIT,
        graph_dir: saved.map(Path::to_path_buf),
        ..ServiceConfig::default()
    };
    MemoryService::open(store, None, clock, config).await.unwrap()
}

/// A memory with a token of its own (`parcel{i}x`) among words shared by many.
fn note(i: usize) -> String {
    format!("parcel{i}x left dock {} on lane {} with the {} crates", i % 7, i % 11, i % 3)
}

async fn store(service: &MemoryService, i: usize) -> MemoryId {
    let request = RememberRequest { dedup: Some(false), ..RememberRequest::new(note(i)) };
    service.remember(&ns("big"), request).await.unwrap().memory.id
}

/// The memory recall ranks first for `i`'s own token, if any.
/// The memory the keyword index finds for note `i`'s token. History is not answered by its
/// successor here (`answer_history: false`): the index itself is what is checked.
async fn found(service: &MemoryService, i: usize) -> Option<MemoryId> {
    let ranking = rearview_ranking::RankingConfig {
        answer_history: false,
        feedback: None,
        ..rearview_ranking::RankingConfig::default()
    };
    let request =
        RecallRequest { ranking: Some(ranking), ..RecallRequest::new(format!("parcel{i}x")) };
    let r = service.recall(&ns("big"), request).await.unwrap();
    r.hits.first().map(|h| h.memory.id)
}

fn files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let paths = entries.map(|e| e.unwrap().path());
    paths.filter(|p| p.extension().is_some_and(|e| e == extension)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_keyword_index_is_loaded_and_caught_up_with_later_writes() {
    let dir = tempfile::tempdir().unwrap();
    let (path, saved) = (dir.path().join("rearview.db"), dir.path().join("saved"));
    let service = open(&path, Some(&saved)).await;
    let mut ids = Vec::new();
    for i in 0..LIMIT + 10 {
        ids.push(store(&service, i).await);
    }
    assert_eq!(service.save_indexes().await.unwrap().keywords, 1);
    assert_eq!(service.save_indexes().await.unwrap().keywords, 0, "unchanged since the save");
    assert_eq!(files(&saved, "keywords").len(), 1);
    // After the save, without saving again (a crash): one more memory, one forgotten, one
    // changed.
    let late = store(&service, 500).await;
    service.forget(&ns("big"), ids[0]).await.unwrap();
    let update = rearview_service::UpdateRequest {
        content: Some(note(600)),
        ..rearview_service::UpdateRequest::default()
    };
    service.update(&ns("big"), ids[1], update).await.unwrap();
    drop(service);
    // Another process writes while this one is down.
    let other = open(&path, None).await;
    let elsewhere = store(&other, 501).await;
    drop(other);

    let reopened = open(&path, Some(&saved)).await;
    for (i, id) in [(500, late), (501, elsewhere), (600, ids[1]), (9, ids[9])] {
        assert_eq!(found(&reopened, i).await, Some(id), "note {i}");
    }
    assert_eq!(found(&reopened, 0).await, None, "forgotten after the save");
    assert_eq!(found(&reopened, 1).await, None, "its old text was replaced after the save");
    assert_eq!(reopened.save_indexes().await.unwrap().keywords, 1, "caught up: saved again");

    // Unchanged since that save: loaded as saved (a rebuilt index would count as unsaved).
    drop(reopened);
    let again = open(&path, Some(&saved)).await;
    assert_eq!(found(&again, 500).await, Some(late));
    assert_eq!(again.save_indexes().await.unwrap().keywords, 0, "the saved index was loaded");

    // A damaged file is not used: the index is rebuilt from the store.
    drop(again);
    for path in files(&saved, "keywords") {
        let mut bytes = std::fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x55;
        std::fs::write(&path, bytes).unwrap();
    }
    let rebuilt = open(&path, Some(&saved)).await;
    assert_eq!(found(&rebuilt, 501).await, Some(elsewhere));
    assert_eq!(found(&rebuilt, 0).await, None);
    assert_eq!(rebuilt.save_indexes().await.unwrap().keywords, 1, "rebuilt, so saved anew");
    assert_eq!(files(&saved, "keywords").len(), 1, "the damaged file is replaced, not kept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_namespaces_are_not_saved_and_large_ones_load_beside_them() {
    let dir = tempfile::tempdir().unwrap();
    let (path, saved) = (dir.path().join("rearview.db"), dir.path().join("saved"));
    let service = open(&path, Some(&saved)).await;
    for i in 0..LIMIT {
        store(&service, i).await;
    }
    let small: Namespace = "small".parse().unwrap();
    let request = RememberRequest::new("the small namespace's parcel77x");
    let kept = service.remember(&small, request).await.unwrap().memory.id;
    assert_eq!(service.save_indexes().await.unwrap().keywords, 1, "only the large namespace");
    drop(service);
    let reopened = open(&path, Some(&saved)).await;
    let r = reopened.recall(&small, RecallRequest::new("parcel77x")).await.unwrap();
    assert_eq!(r.hits.first().map(|h| h.memory.id), Some(kept), "read from the store");
    assert!(found(&reopened, 3).await.is_some(), "loaded from its save");
    let r = reopened.recall(&ns("big"), RecallRequest::new("parcel77x")).await.unwrap();
    assert!(r.hits.is_empty(), "namespaces stay apart: {:?}", r.hits);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keyword_index_saved_for_another_database_or_a_later_state_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("saved");
    let (first, second) = (dir.path().join("first.db"), dir.path().join("second.db"));
    let service = open(&first, Some(&saved)).await;
    for i in 0..LIMIT + 10 {
        store(&service, i).await;
    }
    assert_eq!(service.save_indexes().await.unwrap().keywords, 1);
    drop(service);

    // Another database, its change log at the very same position, pointed at that save.
    let other = open(&second, None).await;
    let mut theirs = Vec::new();
    for i in 1000..1000 + LIMIT + 10 {
        theirs.push(store(&other, i).await);
    }
    drop(other);
    let reopened = open(&second, Some(&saved)).await;
    assert_eq!(found(&reopened, 1007).await, Some(theirs[7]), "searched its own terms");
    assert_eq!(found(&reopened, 7).await, None, "not the other database's");
    assert_eq!(reopened.save_indexes().await.unwrap().keywords, 1, "rebuilt, not loaded");
    // Closed, not dropped: the file is copied next, and a connection still closing on a
    // background task could write to it meanwhile.
    reopened.close().await;

    // A backup restored: the index was saved at a later state than the file now holds.
    let backup = dir.path().join("backup.db");
    common::copy_db(&second, &backup);
    let service = open(&second, Some(&saved)).await;
    let gone = store(&service, 2000).await;
    assert_eq!(service.save_indexes().await.unwrap().keywords, 1);
    service.close().await;
    common::copy_db(&backup, &second);
    let restored = open(&second, Some(&saved)).await;
    assert_eq!(found(&restored, 2000).await, None, "{gone} is not in the restored file");
    assert_eq!(restored.save_indexes().await.unwrap().keywords, 1, "rebuilt from the file");
}
