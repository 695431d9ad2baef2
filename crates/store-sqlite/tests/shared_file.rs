//! Several processes on one file, approximated by several `SqliteStore`s (each with its own
//! connections, as separate processes have): opening a new file at once migrates it exactly
//! once, and writers from every handle all commit (they queue on the file's write lock instead of
//! failing on a stale read snapshot).

use std::sync::Arc;

use rearview_store::MemoryStore;
use rearview_store::testing::{memory, ns, record, t0};
use rearview_store_sqlite::{SqliteConfig, SqliteStore};

#[test]
fn handles_opening_a_new_file_at_once_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.db");
    let opened: Vec<_> = (0..6)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || SqliteStore::open(&SqliteConfig::new(path)).map(|_| ()))
        })
        .collect();
    for handle in opened {
        handle.join().unwrap().expect("every opener succeeds");
    }
    let inspection = SqliteStore::inspect(&path).unwrap();
    assert_eq!(inspection.schema_version, SqliteStore::schema_version());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_on_separate_handles_all_commit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.db");
    let stores: Vec<Arc<dyn MemoryStore>> = (0..3)
        .map(|_| Arc::new(SqliteStore::open(&SqliteConfig::new(&path)).unwrap()) as _)
        .collect();
    let tasks: Vec<_> = stores
        .iter()
        .enumerate()
        .map(|(s, store)| {
            let store = Arc::clone(store);
            tokio::spawn(async move {
                for i in 0..40 {
                    let m = memory("a", &format!("note {s} {i}"), t0());
                    store.insert(&record(m.clone())).await.unwrap();
                    let at = t0() + chrono::TimeDelta::seconds(i);
                    store.record_access(&ns("a"), &[m.id], at).await.unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let filter = rearview_core::MemoryFilter::default();
    assert_eq!(stores[0].count(&ns("a"), &filter, t0()).await.unwrap(), 120);
    let log = stores[1].changes_since(0, 1000).await.unwrap();
    assert_eq!(log.changes.len(), 120, "one change per insert, none per access");
}
