//! Conversions between PostgreSQL rows and `core` types. Row layouts stay private to this crate.

use chrono::DateTime;
use rearview_core::{
    Embedding, Facets, LinkNote, Memory, MemoryId, MemoryType, Namespace, Timestamp,
};
use rearview_store::{StoreError, StoredVector};
use tokio_postgres::Row;
use tokio_postgres::error::SqlState;

/// Columns of `memories m`, in the order [`decode_memory`] reads them.
pub(crate) const MEMORY_COLUMNS: &str = "m.id, m.memory_type, m.content, m.metadata, m.session_id, \
    m.ttl_secs, m.created_at, m.occurred_at, m.updated_at, m.last_accessed_at, m.expires_at, \
    m.access_count, m.archived, m.source_ids, m.content_hash, m.summary, m.superseded_by, \
    m.invalid_at, m.link_made_by, m.link_reason, m.possible_updates";

/// Columns (after `n.name` at 0) that [`decode_facets`] reads, as indexes 1 to 8.
pub(crate) const FACET_COLUMNS: &str = "m.id, m.memory_type, m.archived, m.expires_at, \
    m.occurred_at, m.session_id, m.metadata, m.invalid_at";

/// The first column after [`FACET_COLUMNS`] in a query selecting `n.name, {FACET_COLUMNS}, …`.
pub(crate) const AFTER_FACETS: usize = 9;

pub(crate) fn micros(ts: Timestamp) -> i64 {
    ts.timestamp_micros()
}

pub(crate) fn uuid(id: MemoryId) -> uuid::Uuid {
    id.0
}

pub(crate) fn decode_memory(row: &Row, namespace: &Namespace) -> Result<Memory, StoreError> {
    let e = |e: tokio_postgres::Error| corrupt(format!("memory row: {e}"));
    let metadata: serde_json::Value = row.try_get(3).map_err(e)?;
    let source_ids: Vec<uuid::Uuid> = row.try_get(13).map_err(e)?;
    Ok(Memory {
        id: MemoryId(row.try_get(0).map_err(e)?),
        namespace: namespace.clone(),
        memory_type: parse_tier(row.try_get(1).map_err(e)?)?,
        content: row.try_get(2).map_err(e)?,
        metadata: object(metadata)?,
        session_id: row.try_get(4).map_err(e)?,
        ttl_secs: row.try_get::<_, i64>(5).map_err(e)?.max(0) as u64,
        timestamp: timestamp(row.try_get(6).map_err(e)?)?,
        occurred_at: timestamp(row.try_get(7).map_err(e)?)?,
        updated_at: timestamp(row.try_get(8).map_err(e)?)?,
        last_accessed_at: optional_time(row.try_get(9).map_err(e)?)?,
        expires_at: optional_time(row.try_get(10).map_err(e)?)?,
        access_count: row.try_get::<_, i64>(11).map_err(e)?.max(0) as u64,
        archived: row.try_get(12).map_err(e)?,
        source_ids: source_ids.into_iter().map(MemoryId).collect(),
        content_hash: row.try_get(14).map_err(e)?,
        summary: row.try_get(15).map_err(e)?,
        superseded_by: row.try_get::<_, Option<uuid::Uuid>>(16).map_err(e)?.map(MemoryId),
        invalid_at: optional_time(row.try_get(17).map_err(e)?)?,
        link: decode_link(row.try_get(18).map_err(e)?, row.try_get(19).map_err(e)?)?,
        possible_updates: rearview_store::decode_possible_updates(
            row.try_get::<_, Option<String>>(20).map_err(e)?.as_deref(),
        )?,
    })
}

/// A link note from its two columns (both NULL: none).
fn decode_link(
    made_by: Option<String>,
    reason: Option<String>,
) -> Result<Option<LinkNote>, StoreError> {
    let Some(made_by) = made_by else { return Ok(None) };
    let made_by = made_by.parse().map_err(|e: rearview_core::InputError| corrupt(e.message))?;
    Ok(Some(LinkNote { made_by, reason: reason.unwrap_or_default() }))
}

/// Namespace (column 0), id and facets (columns 1 to 8, [`FACET_COLUMNS`]) of a row.
pub(crate) fn decode_facets(row: &Row) -> Result<(Namespace, MemoryId, Facets), StoreError> {
    let e = |e: tokio_postgres::Error| corrupt(format!("facet row: {e}"));
    let metadata = object(row.try_get(7).map_err(e)?)?;
    let facets = Facets {
        memory_type: parse_tier(row.try_get(2).map_err(e)?)?,
        archived: row.try_get(3).map_err(e)?,
        expires_at: optional_time(row.try_get(4).map_err(e)?)?,
        occurred_at: timestamp(row.try_get(5).map_err(e)?)?,
        invalid_at: optional_time(row.try_get(8).map_err(e)?)?,
        session_id: row.try_get(6).map_err(e)?,
        tags: rearview_core::tags_of(&metadata),
    };
    let namespace = parse_namespace(row.try_get(0).map_err(e)?)?;
    Ok((namespace, MemoryId(row.try_get(1).map_err(e)?), facets))
}

/// A `vector` column as a unit vector.
pub(crate) fn decode_vector(row: &Row, index: usize) -> Result<Embedding, StoreError> {
    let v: pgvector::Vector = row.try_get(index).map_err(|e| corrupt(format!("vector: {e}")))?;
    Embedding::from_normalized(v.to_vec()).map_err(|e| corrupt(format!("stored vector: {e}")))
}

pub(crate) fn encode_vector(v: &StoredVector) -> pgvector::Vector {
    pgvector::Vector::from(v.embedding.as_slice().to_vec())
}

fn object(value: serde_json::Value) -> Result<rearview_core::Metadata, StoreError> {
    match value {
        serde_json::Value::Object(map) => Ok(map),
        other => Err(corrupt(format!("metadata is not an object: {other}"))),
    }
}

pub(crate) fn parse_tier(s: &str) -> Result<MemoryType, StoreError> {
    s.parse().map_err(|_| corrupt(format!("memory_type {s:?}")))
}

pub(crate) fn parse_namespace(s: &str) -> Result<Namespace, StoreError> {
    s.parse().map_err(|_| corrupt(format!("namespace {s:?}")))
}

pub(crate) fn timestamp(us: i64) -> Result<Timestamp, StoreError> {
    DateTime::from_timestamp_micros(us).ok_or_else(|| corrupt(format!("timestamp {us}")))
}

pub(crate) fn optional_time(us: Option<i64>) -> Result<Option<Timestamp>, StoreError> {
    us.map(timestamp).transpose()
}

pub(crate) fn corrupt(message: String) -> StoreError {
    StoreError::Corrupt { message }
}

/// `error` and its causes, joined by ": " (tokio-postgres's own message leaves out the cause,
/// e.g. why a TLS handshake failed).
pub(crate) fn with_causes(error: &(dyn std::error::Error + 'static)) -> String {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let text = e.to_string();
        if !message.ends_with(&text) {
            message = format!("{message}: {text}");
        }
        cause = e.source();
    }
    message
}

/// Wraps a PostgreSQL error with what we were doing: connection failures, time-outs and an
/// overloaded server are `Unavailable` (worth retrying), the rest a backend failure.
pub(crate) fn backend(
    context: impl Into<String>,
) -> impl FnOnce(tokio_postgres::Error) -> StoreError {
    let context = context.into();
    move |e| {
        let unavailable = e.is_closed()
            || matches!(
                e.code(),
                Some(c) if *c == SqlState::TOO_MANY_CONNECTIONS
                    || *c == SqlState::ADMIN_SHUTDOWN
                    || *c == SqlState::CANNOT_CONNECT_NOW
                    || *c == SqlState::QUERY_CANCELED
            );
        if unavailable {
            StoreError::Unavailable { message: format!("{context}: {e}") }
        } else {
            StoreError::Backend { context, source: Box::new(e) }
        }
    }
}
