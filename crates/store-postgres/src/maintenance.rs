//! The sweeps behind the lifecycle (expiry, archiving idle memories, the claim that one server
//! runs a sweep) and the list of memories still waiting for a model's vector.

use rearview_core::{MemoryId, MemoryType, Namespace, Timestamp};
use rearview_store::{PendingEmbedding, StoreError};

use crate::PgStore;
use crate::codec::{backend, micros, parse_namespace};
use crate::store::{limit, named_ids, write_tx};

pub(crate) async fn delete_expired(
    store: &PgStore,
    namespace: Option<&Namespace>,
    now: Timestamp,
) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
    let mut client = store.client().await?;
    let tx = write_tx!(client);
    let name = namespace.map(|n| n.as_str().to_owned());
    let rows = tx
        .query(
            // Rows locked in id order first, as record_access locks them: no deadlock.
            "WITH doomed AS (SELECT m.id FROM memories m JOIN namespaces n ON n.id = m.ns \
               WHERE m.expires_at IS NOT NULL AND m.expires_at <= $1 \
                 AND ($2::text IS NULL OR n.name = $2) ORDER BY m.id FOR UPDATE OF m), \
             gone AS (DELETE FROM memories m USING doomed d, namespaces n \
               WHERE m.id = d.id AND n.id = m.ns RETURNING n.name, m.id) \
             SELECT name, id FROM gone",
            &[&micros(now), &name],
        )
        .await
        .map_err(backend("deleting expired memories"))?;
    let deleted = named_ids(&rows)?;
    tx.commit().await.map_err(backend("committing"))?;
    Ok(deleted)
}

pub(crate) async fn archive_idle(
    store: &PgStore,
    namespace: Option<&Namespace>,
    memory_type: MemoryType,
    idle_since: Timestamp,
    now: Timestamp,
) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
    let mut client = store.client().await?;
    let tx = write_tx!(client);
    let name = namespace.map(|n| n.as_str().to_owned());
    let rows = tx
        .query(
            // Rows locked in id order first, as record_access locks them: no deadlock.
            "WITH idle AS (SELECT m.id FROM memories m JOIN namespaces n ON n.id = m.ns \
               WHERE m.memory_type = $1 AND NOT m.archived \
                 AND GREATEST(m.updated_at, coalesce(m.last_accessed_at, 0)) < $2 \
                 AND (m.expires_at IS NULL OR m.expires_at > $3) \
                 AND ($4::text IS NULL OR n.name = $4) ORDER BY m.id FOR UPDATE OF m), \
             moved AS (UPDATE memories m SET archived = TRUE FROM idle i, namespaces n \
               WHERE m.id = i.id AND n.id = m.ns RETURNING n.name, m.id) \
             SELECT name, id FROM moved",
            &[&memory_type.as_str(), &micros(idle_since), &micros(now), &name],
        )
        .await
        .map_err(backend("archiving idle memories"))?;
    let archived = named_ids(&rows)?;
    tx.commit().await.map_err(backend("committing"))?;
    Ok(archived)
}

pub(crate) async fn claim_sweep(
    store: &PgStore,
    now: Timestamp,
    every: chrono::TimeDelta,
) -> Result<bool, StoreError> {
    let mut client = store.client().await?;
    // Under the write lock: of servers racing for one interval, one claims it.
    let tx = write_tx!(client);
    let last: Option<String> = tx
        .query_opt("SELECT value FROM settings WHERE key = 'sweep_claimed_at'", &[])
        .await
        .map_err(backend("reading the last sweep"))?
        .map(|r| r.try_get(0))
        .transpose()
        .map_err(backend("reading the last sweep"))?;
    let last = last.and_then(|v| v.parse::<i64>().ok());
    let every = every.num_microseconds().unwrap_or(i64::MAX);
    if last.is_some_and(|last| micros(now) - last < every) {
        return Ok(false);
    }
    tx.execute(
        "INSERT INTO settings (key, value) VALUES ('sweep_claimed_at', $1) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&micros(now).to_string()],
    )
    .await
    .map_err(backend("claiming the sweep"))?;
    tx.commit().await.map_err(backend("committing"))?;
    Ok(true)
}

pub(crate) async fn pending_embeddings(
    store: &PgStore,
    model_id: &str,
    namespace: Option<&Namespace>,
    page_size: usize,
) -> Result<Vec<PendingEmbedding>, StoreError> {
    let client = store.client().await?;
    let name = namespace.map(|n| n.as_str().to_owned());
    let rows = client
        .query(
            "SELECT n.name, m.id, m.content FROM memories m JOIN namespaces n ON n.id = m.ns \
             WHERE NOT EXISTS (SELECT 1 FROM vectors v \
                               WHERE v.memory_id = m.id AND v.model_id = $1) \
               AND ($3::text IS NULL OR n.name = $3) \
             ORDER BY m.created_at, m.id LIMIT $2",
            &[&model_id, &limit(page_size), &name],
        )
        .await
        .map_err(backend("listing pending embeddings"))?;
    rows.iter()
        .map(|r| {
            let name: &str = r.try_get(0).map_err(backend("reading pending embedding"))?;
            let id: uuid::Uuid = r.try_get(1).map_err(backend("reading pending embedding"))?;
            Ok(PendingEmbedding {
                namespace: parse_namespace(name)?,
                id: MemoryId(id),
                content: r.try_get(2).map_err(backend("reading pending embedding"))?,
            })
        })
        .collect()
}
