//! The sweeps behind the lifecycle (expiry, archiving idle memories, the claim that one process
//! runs a sweep) and the list of memories still waiting for a model's vector.

use rearview_core::{MemoryId, MemoryType, Namespace, Timestamp};
use rearview_store::{PendingEmbedding, StoreError};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::codec::{backend, micros, parse_id, parse_namespace};
use crate::rows;

/// Deletes every memory (of `namespace`, or of all) whose time to live ran out at `now`.
pub(crate) fn delete_expired(
    tx: &Transaction<'_>,
    namespace: Option<&str>,
    now: Timestamp,
) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
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
            .query_map(params![micros(now), namespace], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .map_err(backend("finding expired memories"))?;
        rows.collect::<Result<_, _>>().map_err(backend("reading expired memories"))?
    };
    let mut deleted = Vec::with_capacity(expired.len());
    for (rowid, ns_id, name, id) in expired {
        rows::remove(tx, rowid, ns_id)?;
        deleted.push((parse_namespace(&name)?, parse_id(&id)?));
    }
    Ok(deleted)
}

/// Archives the live memories of one tier (of `namespace`, or of all) neither updated nor
/// recalled since `idle_since`.
pub(crate) fn archive_idle(
    tx: &Transaction<'_>,
    namespace: Option<&str>,
    memory_type: MemoryType,
    idle_since: Timestamp,
    now: Timestamp,
) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
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
            .query_map(
                params![memory_type.as_str(), micros(idle_since), micros(now), namespace],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(backend("finding idle memories"))?;
        rows.collect::<Result<_, _>>().map_err(backend("reading idle memories"))?
    };
    let mut archived = Vec::with_capacity(idle.len());
    for (rowid, name, id) in idle {
        tx.execute("UPDATE memories SET archived = 1 WHERE rowid = ?1", [rowid])
            .map_err(backend("archiving memory"))?;
        archived.push((parse_namespace(&name)?, parse_id(&id)?));
    }
    Ok(archived)
}

/// Claims the next lifecycle sweep for this process when the last claim (by any process on the
/// file) is at least `every` old; `false` when another claim is more recent.
pub(crate) fn claim_sweep(
    tx: &Transaction<'_>,
    now: Timestamp,
    every: chrono::TimeDelta,
) -> Result<bool, StoreError> {
    let last: Option<String> = tx
        .query_row("SELECT value FROM settings WHERE key = 'sweep_claimed_at'", [], |r| r.get(0))
        .optional()
        .map_err(backend("reading the last sweep"))?;
    let last = last.and_then(|v| v.parse::<i64>().ok());
    if last.is_some_and(|last| micros(now) - last < every.num_microseconds().unwrap_or(i64::MAX)) {
        return Ok(false);
    }
    tx.execute(
        "INSERT INTO settings (key, value) VALUES ('sweep_claimed_at', ?1) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [micros(now).to_string()],
    )
    .map_err(backend("claiming the sweep"))?;
    Ok(true)
}

/// Up to `limit` memories (of `namespace`, or of all) without a vector of `model_id`, oldest
/// first.
pub(crate) fn pending_embeddings(
    conn: &Connection,
    model_id: &str,
    namespace: Option<&str>,
    limit: usize,
) -> Result<Vec<PendingEmbedding>, StoreError> {
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
        .query_map(params![model_id, i64::try_from(limit).unwrap_or(i64::MAX), namespace], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))
        })
        .map_err(backend("listing pending embeddings"))?;
    let mut out = Vec::new();
    for row in rows {
        let (name, id, content) = row.map_err(backend("reading pending embedding"))?;
        out.push(PendingEmbedding {
            namespace: parse_namespace(&name)?,
            id: parse_id(&id)?,
            content,
        });
    }
    Ok(out)
}
