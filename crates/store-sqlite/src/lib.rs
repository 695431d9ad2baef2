//! The embedded default backend: one SQLite file holding rows, keyword index and vectors.
//!
//! [`SqliteStore`] implements [`rearview_store::MemoryStore`] and passes its contract suite. This
//! is the only crate (with the future PostgreSQL backend) that contains SQL.
//!
//! Design decisions, each for a reason:
//! - **WAL and `synchronous = FULL`** by default: readers never block the writer, and a write that
//!   returned `Ok` survives a process crash *and* a power cut. `Durability::Normal` trades the
//!   latter for throughput.
//! - **One writer connection behind a mutex**, several reader connections. The design's author hit
//!   SQLite lock time-outs with concurrent writers (§6); serialising writes in-process avoids them.
//! - **Keyword index = FTS5 over tokens made in Rust.** FTS5's own tokenizers cannot segment
//!   Chinese (`unicode61` keeps a whole clause as one token; `trigram` cannot match two-character
//!   words). We index the tokens the search crate produced, each prefixed with the namespace id, so
//!   one tenant's documents never change another's posting lists or document frequencies.
//! - **Vectors as BLOBs** in the same transaction as the row: SQLite is their source of truth, and
//!   the in-memory index is rebuilt from it at start-up (the design lost vectors on restart).
//!   Half precision (`codec.rs`, migration 7): 0.8 KB a 384-d vector instead of 4.7 KB.

mod changes;
mod codec;
mod filter_sql;
mod keys;
mod keyword;
mod migrate;
mod timeline;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;
use rearview_core::{Memory, MemoryFilter, MemoryId, MemoryType, Namespace, Timestamp};
use rearview_store::{
    ApiKeyRecord, Changes, DayCount, FacetEntry, KeywordHit, KeywordVisitor, MemoryRecord,
    MemoryStore, MemoryUpdate, Page, PendingEmbedding, StoreError, StoreStats, StoredVector,
    TierCount, VectorEntry,
};
use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, params, params_from_iter};

use crate::codec::{MEMORY_COLUMNS, backend, decode_memory, encode_vector, micros};
use crate::filter_sql::FilterSql;

/// How hard a commit works to be durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// `synchronous = FULL`: an acknowledged write survives a process crash and a power cut.
    #[default]
    Full,
    /// `synchronous = NORMAL`: survives a process crash; the last commits may be lost on power
    /// loss. Faster on slow disks.
    Normal,
}

/// Settings of the SQLite backend.
#[derive(Debug, Clone)]
pub struct SqliteConfig {
    /// Database file; created with its parent directory if missing.
    pub path: PathBuf,
    /// Commit durability.
    pub durability: Durability,
    /// How long a connection waits for a lock held by another process before giving up.
    pub busy_timeout: Duration,
    /// Reader connections (each query takes one).
    pub readers: usize,
}

impl SqliteConfig {
    /// Defaults for a database at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            durability: Durability::Full,
            busy_timeout: Duration::from_secs(5),
            readers: 4,
        }
    }
}

/// What [`SqliteStore::inspect`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspection {
    /// `PRAGMA user_version` on disk.
    pub schema_version: i64,
    /// The version this build migrates to.
    pub latest_version: i64,
    /// `PRAGMA quick_check` problems; empty when the database is sound.
    pub integrity: Vec<String>,
    /// Rows in `memories`, every namespace and state.
    pub memories: u64,
    /// Database plus WAL, in bytes.
    pub size_bytes: u64,
}

/// The SQLite implementation of [`MemoryStore`].
#[derive(Clone)]
pub struct SqliteStore {
    inner: Arc<Inner>,
}

struct Inner {
    /// The only connection that writes, so writers queue here instead of failing on SQLite's lock.
    writer: Mutex<Connection>,
    /// Read-only connections; WAL lets them read while the writer commits. Empty for in-memory
    /// stores, which read through the writer.
    readers: Vec<Mutex<Connection>>,
    /// Round-robin cursor over `readers`.
    next_reader: AtomicUsize,
    /// Namespace name → integer id; ids never change once assigned, so caching is safe.
    namespace_ids: Mutex<HashMap<String, i64>>,
    /// The file, for size reporting; `None` in memory.
    path: Option<PathBuf>,
    /// Commit durability of the file; `None` in memory.
    durability: Option<Durability>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("path", &self.inner.path).finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `config.path` and brings its schema up to date.
    pub fn open(config: &SqliteConfig) -> Result<Self, StoreError> {
        if let Some(parent) = config.path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| StoreError::Backend {
                context: format!("creating directory {}", parent.display()),
                source: Box::new(e),
            })?;
        }
        let mut writer = Connection::open(&config.path)
            .map_err(backend(format!("opening sqlite database at {}", config.path.display())))?;
        configure(&writer, config)?;
        migrate::run(&mut writer)?;
        let readers = (0..config.readers.max(1))
            .map(|_| {
                let conn = Connection::open_with_flags(
                    &config.path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .map_err(backend("opening a reader connection"))?;
                conn.busy_timeout(config.busy_timeout).map_err(backend("setting busy timeout"))?;
                tune_cache(&conn)?;
                Ok(Mutex::new(conn))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Self::from_parts(writer, readers, Some((config.path.clone(), config.durability))))
    }

    /// Inspects the database at `path` without changing it (read-only; no migration runs), for
    /// `rearview doctor`: schema version against this build's, integrity and size.
    pub fn inspect(path: &Path) -> Result<Inspection, StoreError> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(backend(format!("opening sqlite database at {} read-only", path.display())))?;
        let schema_version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(backend("reading schema version"))?;
        let mut stmt =
            conn.prepare("PRAGMA quick_check").map_err(backend("preparing integrity check"))?;
        let problems: Vec<String> = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(backend("running integrity check"))?
            .collect::<Result<_, _>>()
            .map_err(backend("reading integrity check"))?;
        let integrity = if problems == ["ok"] { Vec::new() } else { problems };
        let memories = if schema_version >= 1 {
            conn.query_row("SELECT count(*) FROM memories", [], |r| r.get::<_, i64>(0))
                .map_err(backend("counting memories"))?
                .max(0) as u64
        } else {
            0
        };
        Ok(Inspection {
            schema_version,
            latest_version: migrate::LATEST,
            integrity,
            memories,
            size_bytes: file_size(path),
        })
    }

    /// A private in-memory database, for tests and throw-away runs.
    pub fn in_memory() -> Result<Self, StoreError> {
        let mut conn = Connection::open_in_memory().map_err(backend("opening in-memory sqlite"))?;
        conn.pragma_update(None, "foreign_keys", "ON").map_err(backend("enabling foreign keys"))?;
        migrate::run(&mut conn)?;
        Ok(Self::from_parts(conn, Vec::new(), None))
    }

    /// The schema version this binary writes.
    pub fn schema_version() -> i64 {
        migrate::LATEST
    }

    fn from_parts(
        writer: Connection,
        readers: Vec<Mutex<Connection>>,
        file: Option<(PathBuf, Durability)>,
    ) -> Self {
        let (path, durability) = file.unzip();
        Self {
            inner: Arc::new(Inner {
                writer: Mutex::new(writer),
                readers,
                next_reader: AtomicUsize::new(0),
                namespace_ids: Mutex::new(HashMap::new()),
                path,
                durability,
            }),
        }
    }

    /// Runs `f` with a reader connection on the blocking pool.
    async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
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
    async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
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
    async fn write_relaxed<T, F>(&self, f: F) -> Result<T, StoreError>
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
    fn reader(&self) -> MutexGuard<'_, Connection> {
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
    fn namespace_id(
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
    fn ensure_namespace(
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

#[async_trait]
impl MemoryStore for SqliteStore {
    async fn insert(&self, record: &MemoryRecord) -> Result<(), StoreError> {
        let record = record.clone();
        self.write(move |inner, tx| {
            let ns_id = inner.ensure_namespace(tx, &record.memory.namespace)?;
            insert_record(tx, ns_id, &record)
        })
        .await
    }

    async fn insert_many(&self, records: &[MemoryRecord]) -> Result<Vec<bool>, StoreError> {
        let records = records.to_vec();
        self.write(move |inner, tx| {
            // Each namespace looked up (or created) once: a second lookup of one created in
            // this transaction would read, and cache, a row that a rollback takes away.
            let mut ns_ids: HashMap<&Namespace, i64> = HashMap::new();
            let mut written = Vec::with_capacity(records.len());
            for record in &records {
                let namespace = &record.memory.namespace;
                let ns_id = match ns_ids.get(namespace) {
                    Some(id) => *id,
                    None => {
                        let id = inner.ensure_namespace(tx, namespace)?;
                        ns_ids.insert(namespace, id);
                        id
                    }
                };
                // A unique violation aborts its statement only, so the transaction goes on.
                written.push(match insert_record(tx, ns_id, record) {
                    Ok(()) => true,
                    Err(StoreError::Conflict { .. }) => false,
                    Err(e) => return Err(e),
                });
            }
            Ok(written)
        })
        .await
    }

    async fn get(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        now: Timestamp,
    ) -> Result<Option<Memory>, StoreError> {
        Ok(self.get_many(namespace, &[id], now).await?.pop())
    }

    async fn get_many(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
        now: Timestamp,
    ) -> Result<Vec<Memory>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let (namespace, ids) = (namespace.clone(), ids.to_vec());
        self.read(move |inner, conn| {
            let Some(ns_id) = inner.namespace_id(conn, &namespace)? else { return Ok(Vec::new()) };
            let placeholders = vec!["?"; ids.len()].join(",");
            let sql = format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id IN ({placeholders}) \
                 AND +m.ns = ? AND (m.expires_at IS NULL OR m.expires_at > ?)"
            );
            let mut values: Vec<rusqlite::types::Value> =
                ids.iter().map(|id| id.to_string().into()).collect();
            values.extend([ns_id.into(), micros(now).into()]);
            query_memories(conn, &sql, &namespace, values)
        })
        .await
    }

    async fn update(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        update: &MemoryUpdate,
    ) -> Result<Option<Memory>, StoreError> {
        let (namespace, update) = (namespace.clone(), update.clone());
        self.write(move |inner, tx| {
            let Some(ns_id) = inner.namespace_id(tx, &namespace)? else { return Ok(None) };
            let rowid: Option<i64> = tx
                .query_row(
                    "SELECT rowid FROM memories WHERE ns = ?1 AND id = ?2 \
                     AND (expires_at IS NULL OR expires_at > ?3)",
                    params![ns_id, id.to_string(), micros(update.at)],
                    |r| r.get(0),
                )
                .optional()
                .map_err(backend("finding the memory to update"))?;
            let Some(rowid) = rowid else { return Ok(None) };
            apply_update(tx, rowid, ns_id, &update)?;
            let sql = format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.rowid = ?");
            Ok(query_memories(tx, &sql, &namespace, vec![rowid.into()])?.pop())
        })
        .await
    }

    async fn delete(&self, namespace: &Namespace, id: MemoryId) -> Result<bool, StoreError> {
        let namespace = namespace.clone();
        self.write(move |inner, tx| {
            let Some(ns_id) = inner.namespace_id(tx, &namespace)? else { return Ok(false) };
            let rowid: Option<i64> = tx
                .query_row(
                    "SELECT rowid FROM memories WHERE ns = ?1 AND id = ?2",
                    params![ns_id, id.to_string()],
                    |r| r.get(0),
                )
                .optional()
                .map_err(backend("finding the memory to delete"))?;
            let Some(rowid) = rowid else { return Ok(false) };
            tx.execute("DELETE FROM memory_terms WHERE rowid = ?1", [rowid])
                .map_err(backend("deleting keyword entry"))?;
            // Vectors go with the row (ON DELETE CASCADE).
            tx.execute("DELETE FROM memories WHERE rowid = ?1", [rowid])
                .map_err(backend("deleting memory"))?;
            tx.execute("UPDATE namespaces SET doc_count = doc_count - 1 WHERE id = ?1", [ns_id])
                .map_err(backend("uncounting the memory"))?;
            Ok(true)
        })
        .await
    }

    async fn delete_expired(
        &self,
        namespace: Option<&Namespace>,
        now: Timestamp,
    ) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
        let namespace = namespace.map(|n| n.as_str().to_owned());
        let now = codec::micros(now);
        self.write(move |_, tx| {
            let expired: Vec<(i64, i64, String, String)> = {
                let mut stmt = tx
                    .prepare_cached(
                        "SELECT m.rowid, m.ns, n.name, m.id FROM memories m \
                         JOIN namespaces n ON n.id = m.ns \
                         WHERE m.expires_at IS NOT NULL AND m.expires_at <= ?1 \
                           AND (?2 IS NULL OR n.name = ?2)",
                    )
                    .map_err(backend("preparing the expiry sweep"))?;
                let rows = stmt
                    .query_map(params![now, namespace], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                    })
                    .map_err(backend("finding expired memories"))?;
                rows.collect::<Result<_, _>>().map_err(backend("reading expired memories"))?
            };
            let mut deleted = Vec::with_capacity(expired.len());
            for (rowid, ns_id, name, id) in expired {
                tx.execute("DELETE FROM memory_terms WHERE rowid = ?1", [rowid])
                    .map_err(backend("deleting keyword entry"))?;
                // Vectors go with the row (ON DELETE CASCADE).
                tx.execute("DELETE FROM memories WHERE rowid = ?1", [rowid])
                    .map_err(backend("deleting memory"))?;
                tx.execute(
                    "UPDATE namespaces SET doc_count = doc_count - 1 WHERE id = ?1",
                    [ns_id],
                )
                .map_err(backend("uncounting the memory"))?;
                deleted.push((codec::parse_namespace(&name)?, codec::parse_id(&id)?));
            }
            Ok(deleted)
        })
        .await
    }

    async fn predecessors(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        now: Timestamp,
    ) -> Result<Vec<Memory>, StoreError> {
        let namespace = namespace.clone();
        self.read(move |inner, conn| {
            let Some(ns_id) = inner.namespace_id(conn, &namespace)? else { return Ok(Vec::new()) };
            let sql = format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.superseded_by = ? AND +m.ns = ? \
                 AND (m.expires_at IS NULL OR m.expires_at > ?) \
                 ORDER BY m.invalid_at DESC, m.id DESC"
            );
            query_memories(
                conn,
                &sql,
                &namespace,
                vec![id.to_string().into(), ns_id.into(), micros(now).into()],
            )
        })
        .await
    }

    async fn find_by_hash(
        &self,
        namespace: &Namespace,
        hash: &str,
        now: Timestamp,
    ) -> Result<Vec<Memory>, StoreError> {
        let (namespace, hash) = (namespace.clone(), hash.to_owned());
        self.read(move |inner, conn| {
            let Some(ns_id) = inner.namespace_id(conn, &namespace)? else { return Ok(Vec::new()) };
            let sql = format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.ns = ? AND m.content_hash = ? \
                 AND (m.expires_at IS NULL OR m.expires_at > ?) ORDER BY m.rowid"
            );
            query_memories(
                conn,
                &sql,
                &namespace,
                vec![ns_id.into(), hash.into(), micros(now).into()],
            )
        })
        .await
    }

    async fn archive_idle(
        &self,
        namespace: Option<&Namespace>,
        memory_type: MemoryType,
        idle_since: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
        let namespace = namespace.map(|n| n.as_str().to_owned());
        let (idle_since, now) = (micros(idle_since), micros(now));
        self.write(move |_, tx| {
            let idle: Vec<(i64, String, String)> = {
                let mut stmt = tx
                    .prepare_cached(
                        "SELECT m.rowid, n.name, m.id FROM memories m \
                         JOIN namespaces n ON n.id = m.ns \
                         WHERE m.memory_type = ?1 AND m.archived = 0 \
                           AND max(m.updated_at, coalesce(m.last_accessed_at, 0)) < ?2 \
                           AND (m.expires_at IS NULL OR m.expires_at > ?3) \
                           AND (?4 IS NULL OR n.name = ?4)",
                    )
                    .map_err(backend("preparing the archive sweep"))?;
                let rows = stmt
                    .query_map(params![memory_type.as_str(), idle_since, now, namespace], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                    })
                    .map_err(backend("finding idle memories"))?;
                rows.collect::<Result<_, _>>().map_err(backend("reading idle memories"))?
            };
            let mut archived = Vec::with_capacity(idle.len());
            for (rowid, name, id) in idle {
                tx.execute("UPDATE memories SET archived = 1 WHERE rowid = ?1", [rowid])
                    .map_err(backend("archiving memory"))?;
                archived.push((codec::parse_namespace(&name)?, codec::parse_id(&id)?));
            }
            Ok(archived)
        })
        .await
    }

    async fn list(
        &self,
        namespace: &Namespace,
        filter: &MemoryFilter,
        now: Timestamp,
        page: Page,
    ) -> Result<Vec<Memory>, StoreError> {
        let (namespace, filter) = (namespace.clone(), filter.clone());
        self.read(move |inner, conn| {
            let Some(ns_id) = inner.namespace_id(conn, &namespace)? else { return Ok(Vec::new()) };
            let mut clause = FilterSql::scan(ns_id, &filter, now);
            let sql = format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {} \
                 ORDER BY m.occurred_at DESC, m.id DESC LIMIT ? OFFSET ?",
                clause.sql
            );
            clause.values.push(i64::try_from(page.limit).unwrap_or(i64::MAX).into());
            clause.values.push(i64::try_from(page.offset).unwrap_or(i64::MAX).into());
            query_memories(conn, &sql, &namespace, clause.values)
        })
        .await
    }

    async fn count(
        &self,
        namespace: &Namespace,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let (namespace, filter) = (namespace.clone(), filter.clone());
        self.read(move |inner, conn| {
            let Some(ns_id) = inner.namespace_id(conn, &namespace)? else { return Ok(0) };
            let clause = FilterSql::scan(ns_id, &filter, now);
            let sql = format!("SELECT count(*) FROM memories m WHERE {}", clause.sql);
            let n: i64 = conn
                .query_row(&sql, params_from_iter(clause.values), |r| r.get(0))
                .map_err(backend("counting memories"))?;
            Ok(n as u64)
        })
        .await
    }

    async fn keyword_search(
        &self,
        namespace: &Namespace,
        terms: &[String],
        filter: &MemoryFilter,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<KeywordHit>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let (namespace, terms, filter) = (namespace.clone(), terms.to_vec(), filter.clone());
        self.read(move |inner, conn| {
            let Some(ns_id) = inner.namespace_id(conn, &namespace)? else { return Ok(Vec::new()) };
            keyword::search(conn, ns_id, &terms, &filter, now, limit)
        })
        .await
    }

    async fn record_access(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
        at: Timestamp,
    ) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let (namespace, ids) = (namespace.clone(), ids.to_vec());
        self.write_relaxed(move |inner, tx| {
            let Some(ns_id) = inner.namespace_id(tx, &namespace)? else { return Ok(()) };
            // One UPDATE per id under the writer lock: the increment happens inside SQLite, so
            // concurrent recalls can never overwrite each other's counts (the design's §6 bug).
            let mut stmt = tx
                .prepare_cached(
                    "UPDATE memories SET access_count = access_count + 1, \
                     last_accessed_at = max(coalesce(last_accessed_at, ?1), ?1) \
                     WHERE ns = ?2 AND id = ?3",
                )
                .map_err(backend("preparing access update"))?;
            for id in &ids {
                stmt.execute(params![micros(at), ns_id, id.to_string()])
                    .map_err(backend("recording access"))?;
            }
            Ok(())
        })
        .await
    }

    async fn put_vector(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        vector: &StoredVector,
    ) -> Result<bool, StoreError> {
        let (namespace, vector) = (namespace.clone(), vector.clone());
        self.write(move |inner, tx| {
            let Some(ns_id) = inner.namespace_id(tx, &namespace)? else { return Ok(false) };
            let rowid: Option<i64> = tx
                .query_row(
                    "SELECT rowid FROM memories WHERE ns = ?1 AND id = ?2",
                    params![ns_id, id.to_string()],
                    |r| r.get(0),
                )
                .optional()
                .map_err(backend("finding the memory for a vector"))?;
            let Some(rowid) = rowid else { return Ok(false) };
            write_vector(tx, rowid, &vector)?;
            Ok(true)
        })
        .await
    }

    async fn export_page(
        &self,
        namespace: &Namespace,
        after: Option<MemoryId>,
        limit: usize,
        with_vectors: bool,
    ) -> Result<Vec<(Memory, Vec<StoredVector>)>, StoreError> {
        let namespace = namespace.clone();
        self.read(move |inner, conn| {
            let Some(ns_id) = inner.namespace_id(conn, &namespace)? else { return Ok(Vec::new()) };
            let sql = format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.ns = ?1 \
                 AND (?2 IS NULL OR m.id > ?2) ORDER BY m.id LIMIT ?3"
            );
            let after = after.map(|id| id.to_string());
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let memories = query_memories(
                conn,
                &sql,
                &namespace,
                vec![ns_id.into(), after.into(), limit.into()],
            )?;
            let mut out = Vec::with_capacity(memories.len());
            for memory in memories {
                let vectors = if with_vectors {
                    codec::read_memory_vectors(conn, memory.id)?
                } else {
                    Vec::new()
                };
                out.push((memory, vectors));
            }
            Ok(out)
        })
        .await
    }

    async fn vectors(&self, model_id: &str) -> Result<Vec<VectorEntry>, StoreError> {
        let model_id = model_id.to_owned();
        self.read(move |_, conn| codec::read_vectors(conn, &model_id, None)).await
    }

    async fn vector_facets(&self, model_id: &str) -> Result<Vec<FacetEntry>, StoreError> {
        let model_id = model_id.to_owned();
        self.read(move |_, conn| codec::read_vector_facets(conn, &model_id)).await
    }

    async fn namespace_vectors(
        &self,
        model_id: &str,
        namespace: &Namespace,
    ) -> Result<Vec<VectorEntry>, StoreError> {
        let (model_id, namespace) = (model_id.to_owned(), namespace.clone());
        self.read(move |inner, conn| {
            let Some(ns_id) = inner.namespace_id(conn, &namespace)? else { return Ok(Vec::new()) };
            codec::read_vectors(conn, &model_id, Some(ns_id))
        })
        .await
    }

    async fn visit_keyword_entries(
        &self,
        except: &[Namespace],
        visit: KeywordVisitor,
    ) -> Result<(), StoreError> {
        let except = except.to_vec();
        self.read(move |_, conn| keyword::visit_entries(conn, &except, visit)).await
    }

    async fn change_position(&self) -> Result<u64, StoreError> {
        self.read(|_, conn| changes::position(conn)).await
    }

    async fn changes_since(&self, position: u64, limit: usize) -> Result<Changes, StoreError> {
        self.read(move |_, conn| changes::since(conn, position, limit)).await
    }

    async fn prune_changes(&self, keep: u64) -> Result<u64, StoreError> {
        self.write(move |_, tx| changes::prune(tx, keep)).await
    }

    async fn records(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
    ) -> Result<Vec<MemoryRecord>, StoreError> {
        let (namespace, ids) = (namespace.clone(), ids.to_vec());
        self.read(move |inner, conn| {
            let Some(ns_id) = inner.namespace_id(conn, &namespace)? else { return Ok(Vec::new()) };
            changes::records(conn, ns_id, &namespace, &ids)
        })
        .await
    }

    async fn pending_embeddings(
        &self,
        model_id: &str,
        namespace: Option<&Namespace>,
        limit: usize,
    ) -> Result<Vec<PendingEmbedding>, StoreError> {
        let model_id = model_id.to_owned();
        let namespace = namespace.map(|n| n.as_str().to_owned());
        self.read(move |_, conn| {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT n.name, m.id, m.content FROM memories m \
                     JOIN namespaces n ON n.id = m.ns \
                     WHERE NOT EXISTS (SELECT 1 FROM vectors v \
                                       WHERE v.memory_rowid = m.rowid AND v.model_id = ?1) \
                       AND (?3 IS NULL OR n.name = ?3) \
                     ORDER BY m.rowid LIMIT ?2",
                )
                .map_err(backend("preparing pending-embeddings query"))?;
            let rows = stmt
                .query_map(
                    params![model_id, i64::try_from(limit).unwrap_or(i64::MAX), namespace],
                    |r| {
                        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))
                    },
                )
                .map_err(backend("listing pending embeddings"))?;
            let mut out = Vec::new();
            for row in rows {
                let (name, id, content) = row.map_err(backend("reading pending embedding"))?;
                out.push(PendingEmbedding {
                    namespace: codec::parse_namespace(&name)?,
                    id: codec::parse_id(&id)?,
                    content,
                });
            }
            Ok(out)
        })
        .await
    }

    async fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        let key = key.to_owned();
        self.read(move |_, conn| {
            conn.query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| r.get(0))
                .optional()
                .map_err(backend("reading a setting"))
        })
        .await
    }

    async fn set_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        let (key, value) = (key.to_owned(), value.to_owned());
        self.write(move |_, tx| {
            tx.execute(
                "INSERT INTO settings (key, value) VALUES (?1, ?2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )
            .map_err(backend("writing a setting"))?;
            Ok(())
        })
        .await
    }

    async fn insert_key(&self, key: &ApiKeyRecord) -> Result<bool, StoreError> {
        let key = key.clone();
        self.write(move |_, tx| keys::insert(tx, &key)).await
    }

    async fn find_key(&self, id: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        let id = id.to_owned();
        self.read(move |_, conn| keys::find(conn, &id)).await
    }

    async fn list_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
        self.read(|_, conn| keys::list(conn)).await
    }

    async fn revoke_key(&self, id: &str, at: Timestamp) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.write(move |_, tx| keys::revoke(tx, &id, at)).await
    }

    async fn count_active_keys(&self, now: Timestamp) -> Result<u64, StoreError> {
        self.read(move |_, conn| keys::count_active(conn, now)).await
    }

    async fn daily_counts(
        &self,
        namespace: &Namespace,
        since: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<DayCount>, StoreError> {
        let namespace = namespace.clone();
        self.read(move |_, conn| timeline::daily_counts(conn, &namespace, since, now)).await
    }

    async fn claim_sweep(
        &self,
        now: Timestamp,
        every: chrono::TimeDelta,
    ) -> Result<bool, StoreError> {
        self.write(move |_, tx| {
            let last: Option<String> = tx
                .query_row("SELECT value FROM settings WHERE key = 'sweep_claimed_at'", [], |r| {
                    r.get(0)
                })
                .optional()
                .map_err(backend("reading the last sweep"))?;
            let last = last.and_then(|v| v.parse::<i64>().ok());
            if last.is_some_and(|last| {
                micros(now) - last < every.num_microseconds().unwrap_or(i64::MAX)
            }) {
                return Ok(false);
            }
            tx.execute(
                "INSERT INTO settings (key, value) VALUES ('sweep_claimed_at', ?1) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [micros(now).to_string()],
            )
            .map_err(backend("claiming the sweep"))?;
            Ok(true)
        })
        .await
    }

    async fn stats(&self, now: Timestamp) -> Result<StoreStats, StoreError> {
        self.read(move |inner, conn| {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT n.name, m.memory_type, \
                       sum(m.archived = 0 AND (m.expires_at IS NULL OR m.expires_at > ?1) \
                           AND (m.invalid_at IS NULL OR m.invalid_at > ?1)), \
                       sum(m.archived = 1 AND (m.expires_at IS NULL OR m.expires_at > ?1) \
                           AND (m.invalid_at IS NULL OR m.invalid_at > ?1)), \
                       sum((m.expires_at IS NULL OR m.expires_at > ?1) \
                           AND m.invalid_at IS NOT NULL AND m.invalid_at <= ?1), \
                       sum(m.expires_at IS NOT NULL AND m.expires_at <= ?1) \
                     FROM memories m JOIN namespaces n ON n.id = m.ns \
                     GROUP BY n.name, m.memory_type ORDER BY n.name, m.memory_type",
                )
                .map_err(backend("preparing stats"))?;
            let rows = stmt
                .query_map([micros(now)], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, i64>(4)?,
                        r.get::<_, i64>(5)?,
                    ))
                })
                .map_err(backend("reading stats"))?;
            let mut tiers = Vec::new();
            for row in rows {
                let (name, tier, live, archived, superseded, expired) =
                    row.map_err(backend("reading stats"))?;
                tiers.push(TierCount {
                    namespace: codec::parse_namespace(&name)?,
                    memory_type: codec::parse_tier(&tier)?,
                    live: live as u64,
                    archived: archived as u64,
                    superseded: superseded as u64,
                    expired: expired as u64,
                });
            }
            tiers.sort_by(|a, b| (&a.namespace, a.memory_type).cmp(&(&b.namespace, b.memory_type)));
            let mut stmt = conn
                .prepare_cached(
                    "SELECT model_id, count(*) FROM vectors GROUP BY model_id ORDER BY model_id",
                )
                .map_err(backend("preparing vector stats"))?;
            let vectors_per_model = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))
                .map_err(backend("reading vector stats"))?
                .collect::<Result<Vec<_>, _>>()
                .map_err(backend("reading vector stats"))?;
            let (size_bytes, location) = match &inner.path {
                Some(path) => (file_size(path), format!("sqlite {}", path.display())),
                None => (0, "sqlite (in memory)".to_owned()),
            };
            Ok(StoreStats { tiers, vectors_per_model, size_bytes, location })
        })
        .await
    }
}

/// Runs `f` in a transaction on `conn`, committing if it succeeds (rolling back on drop if not).
fn transact<T>(
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
fn enable_wal(conn: &Connection, timeout: Duration) -> Result<String, StoreError> {
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

fn configure(conn: &Connection, config: &SqliteConfig) -> Result<(), StoreError> {
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
fn tune_cache(conn: &Connection) -> Result<(), StoreError> {
    // No memory-mapped I/O: every write (access counts included) made readers remap the file,
    // and the kernel's map/unmap work cost more than the copies it saves. Measured with the
    // scale benchmark: 10k memories, recall p50 2.8 → 2.1 ms and peak RSS 222 → 149 MB;
    // start-up (vector load) about a third slower.
    conn.pragma_update(None, "mmap_size", 0_i64).map_err(backend("disabling mmap"))?;
    conn.pragma_update(None, "cache_size", -32_768).map_err(backend("sizing the page cache"))?;
    Ok(())
}

/// Writes `record`'s row, keyword entry and vectors into namespace `ns_id` inside `tx`;
/// [`StoreError::Conflict`] (with nothing written) when its id is stored.
fn insert_record(
    tx: &Transaction<'_>,
    ns_id: i64,
    record: &MemoryRecord,
) -> Result<(), StoreError> {
    let rowid = insert_row(tx, ns_id, &record.memory)?;
    keyword::write_terms(tx, rowid, ns_id, &record.terms)?;
    tx.execute("UPDATE namespaces SET doc_count = doc_count + 1 WHERE id = ?1", [ns_id])
        .map_err(backend("counting the memory"))?;
    for v in &record.vectors {
        write_vector(tx, rowid, v)?;
    }
    Ok(())
}

fn insert_row(tx: &Transaction<'_>, ns_id: i64, m: &Memory) -> Result<i64, StoreError> {
    let res = tx.execute(
        "INSERT INTO memories (id, ns, memory_type, content, metadata, session_id, ttl_secs, \
           created_at, occurred_at, updated_at, last_accessed_at, expires_at, access_count, \
           archived, source_ids, content_hash, summary, superseded_by, invalid_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, \
           ?18, ?19)",
        params![
            m.id.to_string(),
            ns_id,
            m.memory_type.as_str(),
            m.content,
            serde_json::Value::Object(m.metadata.clone()).to_string(),
            m.session_id,
            i64::try_from(m.ttl_secs).unwrap_or(i64::MAX),
            micros(m.timestamp),
            micros(m.occurred_at),
            micros(m.updated_at),
            m.last_accessed_at.map(micros),
            m.expires_at.map(micros),
            i64::try_from(m.access_count).unwrap_or(i64::MAX),
            m.archived,
            codec::encode_ids(&m.source_ids),
            m.content_hash,
            m.summary,
            m.superseded_by.map(|id| id.to_string()),
            m.invalid_at.map(micros),
        ],
    );
    match res {
        Ok(_) => Ok(tx.last_insert_rowid()),
        Err(rusqlite::Error::SqliteFailure(e, _))
            if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE =>
        {
            Err(StoreError::Conflict { id: m.id.to_string() })
        }
        Err(e) => Err(backend("inserting memory")(e)),
    }
}

fn apply_update(
    tx: &Transaction<'_>,
    rowid: i64,
    ns_id: i64,
    u: &MemoryUpdate,
) -> Result<(), StoreError> {
    let at = micros(u.at);
    let set = |sql: &str, value: rusqlite::types::Value| -> Result<(), StoreError> {
        tx.execute(sql, params![value, at, rowid]).map_err(backend("updating memory")).map(|_| ())
    };
    if let Some((content, terms, hash)) = &u.content {
        set(
            "UPDATE memories SET content = ?1, updated_at = ?2 WHERE rowid = ?3",
            content.clone().into(),
        )?;
        set(
            "UPDATE memories SET content_hash = ?1, updated_at = ?2 WHERE rowid = ?3",
            hash.clone().into(),
        )?;
        tx.execute("DELETE FROM memory_terms WHERE rowid = ?1", [rowid])
            .map_err(backend("replacing keyword entry"))?;
        keyword::write_terms(tx, rowid, ns_id, terms)?;
    }
    if let Some(summary) = &u.summary {
        set(
            "UPDATE memories SET summary = ?1, updated_at = ?2 WHERE rowid = ?3",
            summary.clone().into(),
        )?;
    }
    if let Some(occurred_at) = u.occurred_at {
        set(
            "UPDATE memories SET occurred_at = ?1, updated_at = ?2 WHERE rowid = ?3",
            micros(occurred_at).into(),
        )?;
    }
    if let Some(metadata) = &u.metadata {
        let json = serde_json::Value::Object(metadata.clone()).to_string();
        set("UPDATE memories SET metadata = ?1, updated_at = ?2 WHERE rowid = ?3", json.into())?;
    }
    if let Some(tier) = u.memory_type {
        set(
            "UPDATE memories SET memory_type = ?1, updated_at = ?2 WHERE rowid = ?3",
            tier.as_str().to_owned().into(),
        )?;
    }
    if let Some((ttl, expires_at)) = u.ttl {
        set(
            "UPDATE memories SET ttl_secs = ?1, updated_at = ?2 WHERE rowid = ?3",
            i64::try_from(ttl).unwrap_or(i64::MAX).into(),
        )?;
        let expires: rusqlite::types::Value = expires_at.map(micros).into();
        set("UPDATE memories SET expires_at = ?1, updated_at = ?2 WHERE rowid = ?3", expires)?;
    }
    if let Some(archived) = u.archived {
        // Archiving is a move between tiers, not an edit: `updated_at` stays.
        tx.execute("UPDATE memories SET archived = ?1 WHERE rowid = ?2", params![archived, rowid])
            .map_err(backend("archiving memory"))?;
    }
    if let Some(superseded) = u.superseded {
        // A change of state, not an edit: `updated_at` stays.
        let (by, at) = superseded.unzip();
        tx.execute(
            "UPDATE memories SET superseded_by = ?1, invalid_at = ?2 WHERE rowid = ?3",
            params![by.map(|id| id.to_string()), at.map(micros), rowid],
        )
        .map_err(backend("superseding memory"))?;
    }
    if let Some(vectors) = &u.vectors {
        tx.execute("DELETE FROM vectors WHERE memory_rowid = ?1", [rowid])
            .map_err(backend("replacing vectors"))?;
        for v in vectors {
            write_vector(tx, rowid, v)?;
        }
    }
    Ok(())
}

fn write_vector(tx: &Transaction<'_>, rowid: i64, v: &StoredVector) -> Result<(), StoreError> {
    tx.execute(
        "INSERT OR REPLACE INTO vectors (memory_rowid, model_id, dims, vector) VALUES (?1, ?2, ?3, ?4)",
        params![rowid, v.model_id, v.embedding.dimensions() as i64, encode_vector(&v.embedding)],
    )
    .map_err(backend("writing vector"))?;
    Ok(())
}

fn query_memories(
    conn: &Connection,
    sql: &str,
    namespace: &Namespace,
    values: Vec<rusqlite::types::Value>,
) -> Result<Vec<Memory>, StoreError> {
    let mut stmt = conn.prepare_cached(sql).map_err(backend("preparing memory query"))?;
    let mut rows = stmt.query(params_from_iter(values)).map_err(backend("querying memories"))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(backend("reading memory row"))? {
        out.push(decode_memory(row, namespace)?);
    }
    Ok(out)
}

fn file_size(path: &Path) -> u64 {
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    [path, wal.as_path()].iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum()
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding a connection cannot leave SQLite inconsistent (the transaction rolls
    // back on drop), so a poisoned mutex is safe to keep using.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

async fn run_blocking<T, F>(f: F) -> Result<T, StoreError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, StoreError> + Send + 'static,
{
    tokio::task::spawn_blocking(f).await.map_err(|e| StoreError::Backend {
        context: "sqlite worker task failed".to_owned(),
        source: Box::new(e),
    })?
}
