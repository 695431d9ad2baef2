//! Counts over time, for charts: memories per UTC day of their event time and tier.

use rearview_core::{Namespace, Timestamp};
use rearview_store::{DayCount, StoreError};
use rusqlite::{Connection, params};

use crate::codec::{self, backend, micros};

const DAY_MICROS: i64 = 86_400_000_000;

/// [`rearview_store::StoreMaintenance::daily_counts`]: a range scan of the `(ns, occurred_at)`
/// index from the first day's midnight.
pub(crate) fn daily_counts(
    conn: &Connection,
    namespace: &Namespace,
    since: Timestamp,
    now: Timestamp,
) -> Result<Vec<DayCount>, StoreError> {
    let from = micros(since).div_euclid(DAY_MICROS) * DAY_MICROS;
    let mut stmt = conn
        .prepare_cached(
            "SELECT m.occurred_at / ?3 - (m.occurred_at % ?3 < 0) AS day, m.memory_type, count(*) \
             FROM memories m JOIN namespaces n ON n.id = m.ns \
             WHERE n.name = ?1 AND m.occurred_at >= ?2 \
               AND (m.expires_at IS NULL OR m.expires_at > ?4) \
             GROUP BY day, m.memory_type ORDER BY day, m.memory_type",
        )
        .map_err(backend("preparing daily counts"))?;
    let rows = stmt
        .query_map(params![namespace.as_str(), from, DAY_MICROS, micros(now)], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?))
        })
        .map_err(backend("reading daily counts"))?;
    let mut out = Vec::new();
    for row in rows {
        let (day, tier, count) = row.map_err(backend("reading daily counts"))?;
        out.push(DayCount { day, memory_type: codec::parse_tier(&tier)?, count: count as u64 });
    }
    Ok(out)
}
