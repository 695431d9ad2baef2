//! Connections: the one writer and the readers, transactions on the blocking pool, and the
//! pragmas every connection is opened with.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rearview_core::Namespace;
use rearview_store::StoreError;
use rusqlite::{Connection, OptionalExtension, Transaction};

use crate::codec::backend;
use crate::{Durability, SqliteConfig, SqliteStore};

pub(crate) struct Inner {
    /// The only connection that writes, so writers queue here instead of failing on SQLite's lock.
    pub(crate) writer: Mutex<Connection>,
    /// Read-only connections; WAL lets them read while the writer commits. Empty for in-memory
    /// stores, which read through the writer.
    pub(crate) readers: Vec<Mutex<Connection>>,
    /// Round-robin cursor over `readers`.
    pub(crate) next_reader: AtomicUsize,
    /// Namespace name → integer id; ids never change once assigned, so caching is safe.
    pub(crate) namespace_ids: Mutex<HashMap<String, i64>>,
    /// The file, for size reporting; `None` in memory.
    pub(crate) path: Option<PathBuf>,
    /// Commit durability of the file; `None` in memory.
    pub(crate) durability: Option<Durability>,
}

impl SqliteStore {
    /// Runs `f` with a reader connection on the blocking pool.
    pub(crate) async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Inner, &Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        run_blocking(move || {
            let conn = inner.reader();
            f(&inner, &conn)
        })
        .await
    }

    /// Runs `f` inside one write transaction on the blocking pool; commits if `f` succeeds.
    pub(crate) async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Inner, &Transaction<'_>) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        run_blocking(move || transact(&inner, &mut lock(&inner.writer), f)).await
    }

    /// Like [`SqliteStore::write`], but commits with `synchronous = NORMAL` when the store runs at
    /// `FULL`: the change survives a process crash, and only a power cut can lose it. Used for
    /// access counts, which every recall writes: an fsync per recall cost ~3.5 ms (measured), and
    /// the last few heat increments are not worth that. Everything else commits at full strength,
    /// and the next full commit makes these durable too.
    pub(crate) async fn write_relaxed<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Inner, &Transaction<'_>) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        run_blocking(move || {
            let mut conn = lock(&inner.writer);
            let relax = inner.durability == Some(Durability::Full);
            if relax {
                conn.pragma_update(None, "synchronous", "NORMAL")
                    .map_err(backend("relaxing sync"))?;
            }
            let res = transact(&inner, &mut conn, f);
            if relax {
                conn.pragma_update(None, "synchronous", "FULL")
                    .map_err(backend("restoring sync"))?;
            }
            res
        })
        .await
    }
}

impl Inner {
    pub(crate) fn reader(&self) -> MutexGuard<'_, Connection> {
        if self.readers.is_empty() {
            return lock(&self.writer);
        }
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed);
        for offset in 0..self.readers.len() {
            if let Ok(conn) = self.readers[(start + offset) % self.readers.len()].try_lock() {
                return conn;
            }
        }
        lock(&self.readers[start % self.readers.len()])
    }

    /// The id of `namespace`, if it was ever written to.
    pub(crate) fn namespace_id(
        &self,
        conn: &Connection,
        namespace: &Namespace,
    ) -> Result<Option<i64>, StoreError> {
        if let Some(id) = lock(&self.namespace_ids).get(namespace.as_str()) {
            return Ok(Some(*id));
        }
        let id: Option<i64> = conn
            .query_row("SELECT id FROM namespaces WHERE name = ?1", [namespace.as_str()], |r| {
                r.get(0)
            })
            .optional()
            .map_err(backend("looking up a namespace"))?;
        if let Some(id) = id {
            lock(&self.namespace_ids).insert(namespace.as_str().to_owned(), id);
        }
        Ok(id)
    }

    /// The id of `namespace`, creating it inside the caller's transaction if needed.
    ///
    /// We only cache after the insert is visible to us; if the transaction rolls back, the
    /// cached id may name a row that does not exist, so we cache ids read back, never new ones.
    pub(crate) fn ensure_namespace(
        &self,
        tx: &Transaction<'_>,
        namespace: &Namespace,
    ) -> Result<i64, StoreError> {
        if let Some(id) = self.namespace_id(tx, namespace)? {
            return Ok(id);
        }
        tx.execute("INSERT INTO namespaces (name) VALUES (?1)", [namespace.as_str()])
            .map_err(backend("creating a namespace"))?;
        Ok(tx.last_insert_rowid())
    }
}

/// Runs `f` in a transaction on `conn`, committing if it succeeds (rolling back on drop if not).
pub(crate) fn transact<T>(
    inner: &Inner,
    conn: &mut Connection,
    f: impl FnOnce(&Inner, &Transaction<'_>) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    // IMMEDIATE takes the file's write lock up front, waiting up to the busy timeout for another
    // process's writer. A deferred transaction would read first and then fail at once with
    // SQLITE_BUSY_SNAPSHOT when another process committed in between (WAL never retries that).
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(backend("starting a write transaction"))?;
    let out = f(inner, &tx)?;
    tx.commit().map_err(backend("committing"))?;
    Ok(out)
}

/// Switches the file to WAL. The switch needs the file to itself, and SQLite reports a busy
/// file at once here rather than waiting out the busy timeout when another process is opening
/// it at the same moment (seen with six processes opening a new file together), so a busy
/// answer is retried until the timeout.
pub(crate) fn enable_wal(conn: &Connection, timeout: Duration) -> Result<String, StoreError> {
    let started = std::time::Instant::now();
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                    && started.elapsed() < timeout =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other.map_err(backend("enabling WAL")),
        }
    }
}

pub(crate) fn configure(conn: &Connection, config: &SqliteConfig) -> Result<(), StoreError> {
    conn.busy_timeout(config.busy_timeout).map_err(backend("setting busy timeout"))?;
    let mode = enable_wal(conn, config.busy_timeout)?;
    if !mode.eq_ignore_ascii_case("wal") {
        tracing::warn!(mode, "sqlite refused WAL mode; readers may block writers");
    }
    let sync = match config.durability {
        Durability::Full => "FULL",
        Durability::Normal => "NORMAL",
    };
    conn.pragma_update(None, "synchronous", sync).map_err(backend("setting synchronous"))?;
    conn.pragma_update(None, "foreign_keys", "ON").map_err(backend("enabling foreign keys"))?;
    tune_cache(conn)
}

/// Reads go through a memory map and a larger page cache: SQLite's default 2 MB cache per
/// connection is smaller than a 10k-memory keyword index, and re-reading pages with `pread` on
/// every query cost several milliseconds per recall (measured). The map is virtual address space,
/// not resident memory.
pub(crate) fn tune_cache(conn: &Connection) -> Result<(), StoreError> {
    // No memory-mapped I/O: every write (access counts included) made readers remap the file,
    // and the kernel's map/unmap work cost more than the copies it saves. Measured with the
    // scale benchmark: 10k memories, recall p50 2.8 → 2.1 ms and peak RSS 222 → 149 MB;
    // start-up (vector load) about a third slower.
    conn.pragma_update(None, "mmap_size", 0_i64).map_err(backend("disabling mmap"))?;
    conn.pragma_update(None, "cache_size", -32_768).map_err(backend("sizing the page cache"))?;
    Ok(())
}

pub(crate) fn file_size(path: &Path) -> u64 {
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    [path, wal.as_path()].iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum()
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding a connection cannot leave SQLite inconsistent (the transaction rolls
    // back on drop), so a poisoned mutex is safe to keep using.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(crate) async fn run_blocking<T, F>(f: F) -> Result<T, StoreError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, StoreError> + Send + 'static,
{
    tokio::task::spawn_blocking(f).await.map_err(|e| StoreError::Backend {
        context: "sqlite worker task failed".to_owned(),
        source: Box::new(e),
    })?
}
