//! `rearview stats` and the console's timeline: memories per namespace, tier and state, vectors
//! per model, the database's size, and memories per day.

use rearview_core::{Namespace, Timestamp};
use rearview_store::{DayCount, StoreError, StoreStats, TierCount};

use crate::PgStore;
use crate::codec::{backend, micros, parse_namespace, parse_tier};

pub(crate) async fn stats(store: &PgStore, now: Timestamp) -> Result<StoreStats, StoreError> {
    let client = store.client().await?;
    let rows = client
        .query(
            "SELECT n.name, m.memory_type, \
               count(*) FILTER (WHERE NOT m.archived \
                 AND (m.expires_at IS NULL OR m.expires_at > $1) \
                 AND (m.invalid_at IS NULL OR m.invalid_at > $1)), \
               count(*) FILTER (WHERE m.archived \
                 AND (m.expires_at IS NULL OR m.expires_at > $1) \
                 AND (m.invalid_at IS NULL OR m.invalid_at > $1)), \
               count(*) FILTER (WHERE (m.expires_at IS NULL OR m.expires_at > $1) \
                 AND m.invalid_at IS NOT NULL AND m.invalid_at <= $1), \
               count(*) FILTER (WHERE m.expires_at IS NOT NULL AND m.expires_at <= $1) \
             FROM memories m JOIN namespaces n ON n.id = m.ns \
             GROUP BY n.name, m.memory_type ORDER BY n.name, m.memory_type",
            &[&micros(now)],
        )
        .await
        .map_err(backend("reading stats"))?;
    let mut tiers = Vec::with_capacity(rows.len());
    for r in &rows {
        let get = |i: usize| -> Result<u64, StoreError> {
            let n: i64 = r.try_get(i).map_err(backend("reading stats"))?;
            Ok(n.max(0) as u64)
        };
        tiers.push(TierCount {
            namespace: parse_namespace(r.try_get(0).map_err(backend("reading stats"))?)?,
            memory_type: parse_tier(r.try_get(1).map_err(backend("reading stats"))?)?,
            live: get(2)?,
            archived: get(3)?,
            superseded: get(4)?,
            expired: get(5)?,
        });
    }
    // As the SQLite backend orders them: namespace, then tier in the tiers' own order.
    tiers.sort_by(|a, b| (&a.namespace, a.memory_type).cmp(&(&b.namespace, b.memory_type)));
    let rows = client
        .query("SELECT model_id, count(*) FROM vectors GROUP BY model_id ORDER BY model_id", &[])
        .await
        .map_err(backend("reading vector stats"))?;
    let mut vectors_per_model = Vec::with_capacity(rows.len());
    for r in &rows {
        let n: i64 = r.try_get(1).map_err(backend("reading vector stats"))?;
        vectors_per_model
            .push((r.try_get(0).map_err(backend("reading vector stats"))?, n.max(0) as u64));
    }
    let size: i64 = client
        .query_one(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c \
             JOIN pg_namespace s ON s.oid = c.relnamespace \
             WHERE s.nspname = current_schema() AND c.relkind IN ('r', 'm')",
            &[],
        )
        .await
        .and_then(|r| r.try_get(0))
        .map_err(backend("reading the database size"))?;
    Ok(StoreStats {
        tiers,
        vectors_per_model,
        size_bytes: size.max(0) as u64,
        location: store.location.clone(),
    })
}

pub(crate) async fn daily_counts(
    store: &PgStore,
    namespace: &Namespace,
    since: Timestamp,
    now: Timestamp,
) -> Result<Vec<DayCount>, StoreError> {
    const DAY: i64 = 86_400_000_000;
    let client = store.client().await?;
    let Some(ns_id) = store.namespace_id(&client, namespace).await? else {
        return Ok(Vec::new());
    };
    let from = micros(since).div_euclid(DAY) * DAY;
    let rows = client
        .query(
            "SELECT div(m.occurred_at - ((m.occurred_at % $4) + $4) % $4, $4)::bigint AS day, \
               m.memory_type, count(*) FROM memories m \
             WHERE m.ns = $1 AND m.occurred_at >= $2 \
               AND (m.expires_at IS NULL OR m.expires_at > $3) \
             GROUP BY day, m.memory_type ORDER BY day, m.memory_type",
            &[&ns_id, &from, &micros(now), &DAY],
        )
        .await
        .map_err(backend("reading daily counts"))?;
    rows.iter()
        .map(|r| {
            let count: i64 = r.try_get(2).map_err(backend("reading daily counts"))?;
            Ok(DayCount {
                day: r.try_get(0).map_err(backend("reading daily counts"))?,
                memory_type: parse_tier(r.try_get(1).map_err(backend("reading daily counts"))?)?,
                count: count.max(0) as u64,
            })
        })
        .collect()
}
