//! The change log other processes tail (migration 1's triggers write it): its position, the
//! changes after one, pruning, and the records a follower reloads.

use rearview_core::{MemoryId, Namespace};
use rearview_store::{Change, Changes, MemoryRecord, StoreError};

use crate::PgStore;
use crate::codec::{MEMORY_COLUMNS, backend, decode_memory, parse_namespace};
use crate::store::{ids, limit, vectors_by_memory, write_tx};

pub(crate) async fn position(store: &PgStore) -> Result<u64, StoreError> {
    let client = store.client().await?;
    let position: i64 = client
        .query_one(
            "SELECT GREATEST(coalesce((SELECT max(seq) FROM changes), 0), \
               (SELECT pruned_through FROM change_log_state))",
            &[],
        )
        .await
        .and_then(|r| r.try_get(0))
        .map_err(backend("reading the change log position"))?;
    Ok(position.max(0) as u64)
}

pub(crate) async fn since(
    store: &PgStore,
    position: u64,
    page: usize,
) -> Result<Changes, StoreError> {
    let client = store.client().await?;
    let after = i64::try_from(position).unwrap_or(i64::MAX);
    let rows = client
        .query(
            "SELECT c.seq, n.name, c.memory_id FROM changes c JOIN namespaces n ON n.id = c.ns \
             WHERE c.seq > $1 ORDER BY c.seq LIMIT $2",
            &[&after, &limit(page)],
        )
        .await
        .map_err(backend("reading the change log"))?;
    let changes = rows
        .iter()
        .map(|r| {
            let seq: i64 = r.try_get(0).map_err(backend("reading a change"))?;
            let name: &str = r.try_get(1).map_err(backend("reading a change"))?;
            let id: uuid::Uuid = r.try_get(2).map_err(backend("reading a change"))?;
            Ok(Change { position: seq as u64, namespace: parse_namespace(name)?, id: MemoryId(id) })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    // Complete when nothing after `position` was pruned (positions may have gaps: a
    // rolled-back transaction keeps the numbers it drew). Read after the rows: a prune
    // between the two reads then shows as incomplete, never as a silent gap.
    let pruned: i64 = client
        .query_one("SELECT pruned_through FROM change_log_state", &[])
        .await
        .and_then(|r| r.try_get(0))
        .map_err(backend("reading the change log"))?;
    Ok(Changes { changes, complete: pruned <= after })
}

pub(crate) async fn prune(store: &PgStore, keep: u64) -> Result<u64, StoreError> {
    let mut client = store.client().await?;
    let tx = write_tx!(client);
    let keep = i64::try_from(keep).unwrap_or(i64::MAX);
    let rows = tx
        .query(
            // By rank, not arithmetic: positions may have gaps.
            "WITH gone AS (DELETE FROM changes WHERE seq <= \
               (SELECT seq FROM changes ORDER BY seq DESC OFFSET $1 LIMIT 1) RETURNING seq) \
             SELECT count(*), coalesce(max(seq), 0) FROM gone",
            &[&keep],
        )
        .await
        .map_err(backend("pruning the change log"))?;
    let (dropped, through): (i64, i64) = match rows.first() {
        Some(r) => (
            r.try_get(0).map_err(backend("pruning the change log"))?,
            r.try_get(1).map_err(backend("pruning the change log"))?,
        ),
        None => (0, 0),
    };
    tx.execute(
        "UPDATE change_log_state SET pruned_through = GREATEST(pruned_through, $1)",
        &[&through],
    )
    .await
    .map_err(backend("pruning the change log"))?;
    tx.commit().await.map_err(backend("committing"))?;
    Ok(dropped.max(0) as u64)
}

pub(crate) async fn records(
    store: &PgStore,
    namespace: &Namespace,
    wanted: &[MemoryId],
) -> Result<Vec<MemoryRecord>, StoreError> {
    let client = store.client().await?;
    let Some(ns_id) = store.namespace_id(&client, namespace).await? else {
        return Ok(Vec::new());
    };
    let sql = format!(
        "SELECT {MEMORY_COLUMNS}, t.terms FROM memories m \
         LEFT JOIN memory_terms t ON t.memory_id = m.id WHERE m.id = ANY($1) AND m.ns = $2"
    );
    let rows =
        client.query(&sql, &[&ids(wanted), &ns_id]).await.map_err(backend("reading records"))?;
    let terms_at = MEMORY_COLUMNS.split(',').count();
    // Every record's vectors in one round trip, not one per record.
    let found: Vec<MemoryId> = rows
        .iter()
        .map(|r| r.try_get::<_, uuid::Uuid>(0).map(MemoryId))
        .collect::<Result<_, _>>()
        .map_err(backend("reading a record"))?;
    let mut vectors = vectors_by_memory(&client, &found).await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        let memory = decode_memory(row, namespace)?;
        let terms: Option<Vec<String>> =
            row.try_get(terms_at).map_err(backend("reading a record"))?;
        let vectors = vectors.remove(&memory.id).unwrap_or_default();
        out.push(MemoryRecord { memory, terms: terms.unwrap_or_default(), vectors });
    }
    Ok(out)
}
