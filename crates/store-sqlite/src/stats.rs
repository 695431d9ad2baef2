//! `rearview stats`: memories per namespace, tier and state, vectors per model, and the file's
//! size.

use std::path::Path;

use rearview_core::Timestamp;
use rearview_store::{StoreError, StoreStats, TierCount};
use rusqlite::Connection;

use crate::codec::{backend, micros, parse_namespace, parse_tier};
use crate::connection::file_size;

/// The counts as of `now`; `path` is the database file (`None` in memory).
pub(crate) fn stats(
    conn: &Connection,
    path: Option<&Path>,
    now: Timestamp,
) -> Result<StoreStats, StoreError> {
    let tiers = tier_counts(conn, now)?;
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
    let (size_bytes, location) = match path {
        Some(path) => (file_size(path), format!("sqlite {}", path.display())),
        None => (0, "sqlite (in memory)".to_owned()),
    };
    Ok(StoreStats { tiers, vectors_per_model, size_bytes, location })
}

/// Live, archived, superseded and expired memories per namespace and tier.
fn tier_counts(conn: &Connection, now: Timestamp) -> Result<Vec<TierCount>, StoreError> {
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
            namespace: parse_namespace(&name)?,
            memory_type: parse_tier(&tier)?,
            live: live as u64,
            archived: archived as u64,
            superseded: superseded as u64,
            expired: expired as u64,
        });
    }
    tiers.sort_by(|a, b| (&a.namespace, a.memory_type).cmp(&(&b.namespace, b.memory_type)));
    Ok(tiers)
}
