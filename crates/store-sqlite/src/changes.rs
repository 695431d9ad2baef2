//! The change log (migration 0006): how a process learns what other processes on the same file
//! wrote, so that its in-memory indexes follow without a restart.
//!
//! Triggers append one row per changed memory in the writing transaction; readers page through
//! it by position. Pruning keeps the latest rows; a reader whose position is older than the
//! oldest kept row is told the log is incomplete and rebuilds.

use rearview_core::{MemoryId, Namespace};
use rearview_store::{Change, Changes, MemoryRecord, StoreError};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::codec::{self, MEMORY_COLUMNS, backend, parse_id, parse_namespace};
use crate::keyword;

/// The latest position (0 for an empty log). `sqlite_sequence` remembers the last position even
/// after every row was pruned.
pub(crate) fn position(conn: &Connection) -> Result<u64, StoreError> {
    let seq: Option<i64> = conn
        .query_row("SELECT seq FROM sqlite_sequence WHERE name = 'changes'", [], |r| r.get(0))
        .optional()
        .map_err(backend("reading the change log position"))?;
    Ok(seq.unwrap_or(0).max(0) as u64)
}

/// Up to `limit` changes after `after`.
pub(crate) fn since(conn: &Connection, after: u64, limit: usize) -> Result<Changes, StoreError> {
    let after = i64::try_from(after).unwrap_or(i64::MAX);
    let mut stmt = conn
        .prepare_cached(
            "SELECT c.seq, n.name, c.memory_id FROM changes c JOIN namespaces n ON n.id = c.ns \
             WHERE c.seq > ?1 ORDER BY c.seq LIMIT ?2",
        )
        .map_err(backend("preparing the change log query"))?;
    let mut rows = stmt
        .query(params![after, i64::try_from(limit).unwrap_or(i64::MAX)])
        .map_err(backend("reading the change log"))?;
    let mut changes = Vec::new();
    while let Some(row) = rows.next().map_err(backend("reading a change"))? {
        let seq: i64 = row.get(0).map_err(backend("reading a change"))?;
        let name: String = row.get(1).map_err(backend("reading a change"))?;
        let id: String = row.get(2).map_err(backend("reading a change"))?;
        changes.push(Change {
            position: seq as u64,
            namespace: parse_namespace(&name)?,
            id: parse_id(&id)?,
        });
    }
    drop(rows);
    // Positions have no gaps (a rolled-back transaction also rolls back its sequence), so the
    // log is complete if it still holds the position right after ours, or if nothing was ever
    // logged after ours. Read after the rows: a prune between the two reads then shows as
    // incomplete, never as a silent gap.
    let oldest: Option<i64> = conn
        .query_row("SELECT min(seq) FROM changes", [], |r| r.get(0))
        .map_err(backend("reading the change log"))?;
    let complete = match oldest {
        Some(oldest) => oldest <= after.saturating_add(1),
        None => position(conn)? <= after as u64,
    };
    Ok(Changes { changes, complete })
}

/// Drops all but the latest `keep` rows.
pub(crate) fn prune(tx: &Transaction<'_>, keep: u64) -> Result<u64, StoreError> {
    let keep = i64::try_from(keep).unwrap_or(i64::MAX);
    let dropped = tx
        .execute("DELETE FROM changes WHERE seq <= (SELECT max(seq) FROM changes) - ?1", [keep])
        .map_err(backend("pruning the change log"))?;
    Ok(dropped as u64)
}

/// The existing memories among `ids` of namespace `ns_id`, with terms and vectors.
pub(crate) fn records(
    conn: &Connection,
    ns_id: i64,
    namespace: &Namespace,
    ids: &[MemoryId],
) -> Result<Vec<MemoryRecord>, StoreError> {
    // The rowid comes after the memory's columns, which `decode_memory` reads from 0.
    let rowid_at = MEMORY_COLUMNS.split(',').count();
    let sql =
        format!("SELECT {MEMORY_COLUMNS}, m.rowid FROM memories m WHERE m.id = ?1 AND m.ns = ?2");
    let mut stmt = conn.prepare_cached(&sql).map_err(backend("preparing record query"))?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let mut rows =
            stmt.query(params![id.to_string(), ns_id]).map_err(backend("reading a record"))?;
        let Some(row) = rows.next().map_err(backend("reading a record"))? else { continue };
        let memory = codec::decode_memory(row, namespace)?;
        let rowid: i64 = row.get(rowid_at).map_err(backend("reading a record"))?;
        drop(rows);
        let terms = keyword::terms_of(conn, rowid)?;
        let vectors = codec::read_memory_vectors(conn, memory.id)?;
        out.push(MemoryRecord { memory, terms, vectors });
    }
    Ok(out)
}
