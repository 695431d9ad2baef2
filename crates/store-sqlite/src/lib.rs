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
mod connection;
mod filter_sql;
mod keys;
mod keyword;
mod maintenance;
mod migrate;
mod open;
mod rows;
mod stats;
mod timeline;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rearview_core::{Memory, MemoryFilter, MemoryId, MemoryType, Namespace, Timestamp};
use rearview_store::prelude::*;
use rearview_store::{
    ApiKeyRecord, Changes, DayCount, FacetEntry, HalfVectorVisitor, KeywordHit, KeywordVisitor,
    MemoryRecord, MemoryUpdate, Page, PendingEmbedding, StoreError, StoreStats, StoredVector,
    VectorEntry,
};
use rusqlite::{OptionalExtension, params, params_from_iter};

use crate::codec::{MEMORY_COLUMNS, backend, micros};
use crate::connection::Inner;
use crate::filter_sql::FilterSql;
use crate::rows::{apply_update, insert_record, query_memories, write_vector};

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

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("path", &self.inner.path).finish_non_exhaustive()
    }
}

#[async_trait]
impl MemoryRecords for SqliteStore {
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
            let Some(rowid) = rowid_of(tx, ns_id, id, "finding the memory to delete")? else {
                return Ok(false);
            };
            rows::remove(tx, rowid, ns_id)?;
            Ok(true)
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

    async fn pending_review(
        &self,
        namespace: &Namespace,
        now: Timestamp,
        page: Page,
    ) -> Result<Vec<Memory>, StoreError> {
        let namespace = namespace.clone();
        self.read(move |inner, conn| {
            let Some(ns_id) = inner.namespace_id(conn, &namespace)? else { return Ok(Vec::new()) };
            let sql = format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.ns = ? \
                 AND m.possible_updates IS NOT NULL \
                 AND (m.expires_at IS NULL OR m.expires_at > ?) \
                 ORDER BY m.created_at DESC, m.id DESC LIMIT ? OFFSET ?"
            );
            let params = vec![
                ns_id.into(),
                micros(now).into(),
                i64::try_from(page.limit).unwrap_or(i64::MAX).into(),
                i64::try_from(page.offset).unwrap_or(i64::MAX).into(),
            ];
            query_memories(conn, &sql, &namespace, params)
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
}

#[async_trait]
impl KeywordStore for SqliteStore {
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

    async fn visit_keyword_entries(
        &self,
        except: &[Namespace],
        visit: KeywordVisitor,
    ) -> Result<(), StoreError> {
        let except = except.to_vec();
        self.read(move |_, conn| keyword::visit_entries(conn, &except, visit)).await
    }

    async fn visit_namespace_keyword_entries(
        &self,
        namespace: &Namespace,
        visit: KeywordVisitor,
    ) -> Result<(), StoreError> {
        let namespace = namespace.clone();
        self.read(move |inner, conn| {
            let Some(ns_id) = inner.namespace_id(conn, &namespace)? else { return Ok(()) };
            keyword::visit_namespace_entries(conn, ns_id, visit)
        })
        .await
    }
}

#[async_trait]
impl VectorStore for SqliteStore {
    async fn put_vector(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        vector: &StoredVector,
    ) -> Result<bool, StoreError> {
        let (namespace, vector) = (namespace.clone(), vector.clone());
        self.write(move |inner, tx| {
            let Some(ns_id) = inner.namespace_id(tx, &namespace)? else { return Ok(false) };
            let Some(rowid) = rowid_of(tx, ns_id, id, "finding the memory for a vector")? else {
                return Ok(false);
            };
            write_vector(tx, rowid, &vector)?;
            Ok(true)
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

    async fn visit_namespace_half_vectors(
        &self,
        model_id: &str,
        namespace: &Namespace,
        mut visit: HalfVectorVisitor,
    ) -> Result<(), StoreError> {
        let (model_id, namespace) = (model_id.to_owned(), namespace.clone());
        self.read(move |inner, conn| {
            let Some(ns_id) = inner.namespace_id(conn, &namespace)? else { return Ok(()) };
            codec::visit_half_vectors(conn, &model_id, ns_id, &mut *visit)
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
            maintenance::pending_embeddings(conn, &model_id, namespace.as_deref(), limit)
        })
        .await
    }
}

#[async_trait]
impl KeyStore for SqliteStore {
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
}

#[async_trait]
impl StoreMaintenance for SqliteStore {
    async fn delete_expired(
        &self,
        namespace: Option<&Namespace>,
        now: Timestamp,
    ) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
        let namespace = namespace.map(|n| n.as_str().to_owned());
        self.write(move |_, tx| maintenance::delete_expired(tx, namespace.as_deref(), now)).await
    }

    async fn archive_idle(
        &self,
        namespace: Option<&Namespace>,
        memory_type: MemoryType,
        idle_since: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
        let namespace = namespace.map(|n| n.as_str().to_owned());
        self.write(move |_, tx| {
            maintenance::archive_idle(tx, namespace.as_deref(), memory_type, idle_since, now)
        })
        .await
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
        self.write(move |_, tx| maintenance::claim_sweep(tx, now, every)).await
    }

    async fn stats(&self, now: Timestamp) -> Result<StoreStats, StoreError> {
        self.read(move |inner, conn| stats::stats(conn, inner.path.as_deref(), now)).await
    }
}

/// The row of memory `id` in namespace `ns_id`, expired or not (`what`: the error's context).
fn rowid_of(
    tx: &rusqlite::Connection,
    ns_id: i64,
    id: MemoryId,
    what: &str,
) -> Result<Option<i64>, StoreError> {
    tx.query_row(
        "SELECT rowid FROM memories WHERE ns = ?1 AND id = ?2",
        params![ns_id, id.to_string()],
        |r| r.get(0),
    )
    .optional()
    .map_err(backend(what))
}
