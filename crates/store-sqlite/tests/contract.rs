//! The shared store contract suite, run against the SQLite backend (in memory and on disk).
#![allow(
    clippy::unused_async,
    reason = "the contract macro awaits every constructor; network backends need async ones"
)]

use std::sync::Arc;

use rearview_store::MemoryStore;
use rearview_store_sqlite::{SqliteConfig, SqliteStore};

mod in_memory {
    use super::*;

    async fn fresh() -> Arc<dyn MemoryStore> {
        Arc::new(SqliteStore::in_memory().expect("in-memory sqlite opens"))
    }

    rearview_store::store_contract_tests!(fresh);
}

mod on_disk {
    use super::*;

    async fn fresh() -> Arc<dyn MemoryStore> {
        // The directory is leaked on purpose: it must outlive the store, and the OS cleans /tmp.
        let dir = tempfile::tempdir().expect("temp dir").keep();
        let config = SqliteConfig::new(dir.join("rearview.db"));
        Arc::new(SqliteStore::open(&config).expect("sqlite file opens"))
    }

    rearview_store::store_contract_tests!(fresh);
}
