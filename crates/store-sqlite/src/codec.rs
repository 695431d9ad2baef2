//! Conversions between SQLite rows and `core` types. Row layouts stay private to this crate.

use chrono::DateTime;
use rearview_core::{
    Embedding, Facets, LinkNote, Memory, MemoryId, MemoryType, Metadata, Namespace, Timestamp,
};
use rearview_store::{FacetEntry, StoreError, StoredVector, VectorEntry};
use rusqlite::{Connection, Row};

/// Columns of `memories m`, in the order [`decode_memory`] reads them.
pub(crate) const MEMORY_COLUMNS: &str = "m.id, m.memory_type, m.content, m.metadata, m.session_id, \
    m.ttl_secs, m.created_at, m.occurred_at, m.updated_at, m.last_accessed_at, m.expires_at, \
    m.access_count, m.archived, m.source_ids, m.content_hash, m.summary, m.superseded_by, \
    m.invalid_at, m.link_made_by, m.link_reason, m.possible_updates";

pub(crate) fn micros(ts: Timestamp) -> i64 {
    ts.timestamp_micros()
}

pub(crate) fn decode_memory(row: &Row<'_>, namespace: &Namespace) -> Result<Memory, StoreError> {
    let get_err = |e: rusqlite::Error| corrupt(format!("memory row: {e}"));
    let id: String = row.get(0).map_err(get_err)?;
    let tier: String = row.get(1).map_err(get_err)?;
    let metadata: String = row.get(3).map_err(get_err)?;
    let source_ids: String = row.get(13).map_err(get_err)?;
    Ok(Memory {
        id: parse_id(&id)?,
        namespace: namespace.clone(),
        memory_type: parse_tier(&tier)?,
        content: row.get(2).map_err(get_err)?,
        metadata: parse_metadata(&metadata)?,
        session_id: row.get(4).map_err(get_err)?,
        ttl_secs: row.get::<_, i64>(5).map_err(get_err)?.max(0) as u64,
        timestamp: timestamp(row.get(6).map_err(get_err)?)?,
        occurred_at: timestamp(row.get(7).map_err(get_err)?)?,
        updated_at: timestamp(row.get(8).map_err(get_err)?)?,
        last_accessed_at: row
            .get::<_, Option<i64>>(9)
            .map_err(get_err)?
            .map(timestamp)
            .transpose()?,
        expires_at: row.get::<_, Option<i64>>(10).map_err(get_err)?.map(timestamp).transpose()?,
        access_count: row.get::<_, i64>(11).map_err(get_err)?.max(0) as u64,
        archived: row.get(12).map_err(get_err)?,
        source_ids: decode_ids(&source_ids)?,
        content_hash: row.get(14).map_err(get_err)?,
        summary: row.get(15).map_err(get_err)?,
        superseded_by: row
            .get::<_, Option<String>>(16)
            .map_err(get_err)?
            .map(|id| parse_id(&id))
            .transpose()?,
        invalid_at: row.get::<_, Option<i64>>(17).map_err(get_err)?.map(timestamp).transpose()?,
        link: decode_link(
            row.get::<_, Option<String>>(18).map_err(get_err)?,
            row.get::<_, Option<String>>(19).map_err(get_err)?,
        )?,
        possible_updates: rearview_store::decode_possible_updates(
            row.get::<_, Option<String>>(20).map_err(get_err)?.as_deref(),
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

/// Columns of `memories m` (after `n.name`) that [`decode_facets`] reads, as indexes 1 to 8.
pub(crate) const FACET_COLUMNS: &str = "m.id, m.memory_type, m.archived, m.expires_at, \
    m.occurred_at, m.session_id, m.metadata, m.invalid_at";

/// The first column after [`FACET_COLUMNS`] in a query that selects `n.name, {FACET_COLUMNS}, …`.
pub(crate) const AFTER_FACETS: usize = 9;

/// Namespace (column 0), id and facets (columns 1 to 8, [`FACET_COLUMNS`]) of a row.
pub(crate) fn decode_facets(row: &Row<'_>) -> Result<(Namespace, MemoryId, Facets), StoreError> {
    let get_err = |e: rusqlite::Error| corrupt(format!("facet row: {e}"));
    let name: String = row.get(0).map_err(get_err)?;
    let id: String = row.get(1).map_err(get_err)?;
    let tier: String = row.get(2).map_err(get_err)?;
    let metadata = parse_metadata(&row.get::<_, String>(7).map_err(get_err)?)?;
    let facets = Facets {
        memory_type: parse_tier(&tier)?,
        archived: row.get(3).map_err(get_err)?,
        expires_at: row.get::<_, Option<i64>>(4).map_err(get_err)?.map(timestamp).transpose()?,
        occurred_at: timestamp(row.get(5).map_err(get_err)?)?,
        invalid_at: row.get::<_, Option<i64>>(8).map_err(get_err)?.map(timestamp).transpose()?,
        session_id: row.get(6).map_err(get_err)?,
        tags: rearview_core::tags_of(&metadata),
    };
    Ok((parse_namespace(&name)?, parse_id(&id)?, facets))
}

/// Every vector of `model_id` (in namespace `ns_id`, or all) with its memory's facets, for
/// building the in-memory index.
pub(crate) fn read_vectors(
    conn: &Connection,
    model_id: &str,
    ns_id: Option<i64>,
) -> Result<Vec<VectorEntry>, StoreError> {
    // One namespace goes through the memories' namespace index (`CROSS JOIN` keeps SQLite
    // from starting at the vectors: an `OR` on the namespace, as this once had, scanned every
    // namespace's vectors, so a first use of a small namespace cost the whole table).
    let (join, which) =
        if ns_id.is_some() { ("CROSS JOIN", "m.ns = ?2") } else { ("JOIN", "?2 IS NULL") };
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT n.name, {FACET_COLUMNS}, v.vector, v.dims \
             FROM memories m {join} vectors v ON v.memory_rowid = m.rowid \
             JOIN namespaces n ON n.id = m.ns WHERE v.model_id = ?1 AND {which} \
             ORDER BY m.rowid"
        ))
        .map_err(backend("preparing vector load"))?;
    let mut rows =
        stmt.query(rusqlite::params![model_id, ns_id]).map_err(backend("loading vectors"))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(backend("reading vector row"))? {
        let (namespace, id, facets) = decode_facets(row)?;
        let embedding = decode_vector(row, AFTER_FACETS)?;
        out.push(VectorEntry { namespace, id, facets, embedding });
    }
    Ok(out)
}

/// Calls `visit` with every memory of namespace `ns_id` that has a vector of `model_id`, and that
/// vector's half-precision blob as stored (an f32 blob of a file not yet migrated is converted).
pub(crate) fn visit_half_vectors(
    conn: &Connection,
    model_id: &str,
    ns_id: i64,
    visit: &mut dyn FnMut(MemoryId, &[u8]),
) -> Result<(), StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT m.id, v.vector, v.dims FROM memories m \
             CROSS JOIN vectors v ON v.memory_rowid = m.rowid \
             WHERE m.ns = ?2 AND v.model_id = ?1 ORDER BY m.rowid",
        )
        .map_err(backend("preparing vector load"))?;
    let mut rows =
        stmt.query(rusqlite::params![model_id, ns_id]).map_err(backend("loading vectors"))?;
    while let Some(row) = rows.next().map_err(backend("reading vector row"))? {
        let id: String = row.get(0).map_err(backend("reading vector row"))?;
        let blob = row.get_ref(1).map_err(backend("reading vector"))?;
        let blob = blob.as_blob().map_err(|e| corrupt(format!("vector blob: {e}")))?;
        let dims: i64 = row.get(2).map_err(backend("reading vector row"))?;
        if blob.len() as i64 == dims * 2 {
            visit(parse_id(&id)?, blob);
        } else {
            let half = f32_blob_to_half(blob).map_err(corrupt)?;
            visit(parse_id(&id)?, &half);
        }
    }
    Ok(())
}

/// The id and facets of every memory with a vector of `model_id`.
pub(crate) fn read_vector_facets(
    conn: &Connection,
    model_id: &str,
) -> Result<Vec<FacetEntry>, StoreError> {
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT n.name, {FACET_COLUMNS} \
             FROM vectors v JOIN memories m ON m.rowid = v.memory_rowid \
             JOIN namespaces n ON n.id = m.ns WHERE v.model_id = ?1"
        ))
        .map_err(backend("preparing facet load"))?;
    let mut rows = stmt.query([model_id]).map_err(backend("loading facets"))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(backend("reading facet row"))? {
        let (namespace, id, facets) = decode_facets(row)?;
        out.push(FacetEntry { namespace, id, facets });
    }
    Ok(out)
}

/// Every vector of one memory, by model id.
pub(crate) fn read_memory_vectors(
    conn: &Connection,
    id: MemoryId,
) -> Result<Vec<StoredVector>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT v.model_id, v.vector, v.dims FROM vectors v \
             JOIN memories m ON m.rowid = v.memory_rowid \
             WHERE m.id = ?1 ORDER BY v.model_id",
        )
        .map_err(backend("preparing memory vectors query"))?;
    let mut rows = stmt.query([id.to_string()]).map_err(backend("loading memory vectors"))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(backend("reading vector row"))? {
        let model_id: String = row.get(0).map_err(|e| corrupt(format!("vector row: {e}")))?;
        out.push(StoredVector { model_id, embedding: decode_vector(row, 1)? });
    }
    Ok(out)
}

/// A vector as the `vectors` table keeps it (schema version 7 on): little-endian IEEE half
/// precision, 2 bytes a component. A 384-dimensional row then fits in its B-tree page; as f32
/// (1,536 bytes) it spilled onto an overflow page of its own and cost 4.7 KB.
pub(crate) fn encode_vector(e: &Embedding) -> Vec<u8> {
    e.to_half_bytes()
}

/// The vector in columns `at` (the blob) and `at + 1` (its dimensions) of `row`: half precision,
/// or f32 as version 6 wrote it (rows not yet converted, or written by a process of the
/// previous version that still had the file open during the upgrade).
fn decode_vector(row: &rusqlite::Row<'_>, at: usize) -> Result<Embedding, StoreError> {
    let blob = row.get_ref(at).and_then(|v| Ok(v.as_blob()?));
    let blob = blob.map_err(|e| corrupt(format!("vector row: {e}")))?;
    let dims: i64 = row.get(at + 1).map_err(|e| corrupt(format!("vector row: {e}")))?;
    let values: Vec<f32> = match usize::try_from(dims).ok() {
        Some(d) if blob.len() == 2 * d => {
            blob.chunks_exact(2).map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32()).collect()
        }
        Some(d) if blob.len() == 4 * d => f32s(blob).collect(),
        _ => {
            return Err(corrupt(format!(
                "vector blob of {} bytes is neither half precision nor f32 of {dims} dimensions",
                blob.len()
            )));
        }
    };
    Embedding::from_normalized(values).map_err(|e| corrupt(format!("stored vector: {e}")))
}

/// Rewrites a version-6 vector blob (little-endian f32) as half precision: the SQL function
/// `rearview_half_vector` that migration 7 applies to every stored vector.
pub(crate) fn f32_blob_to_half(blob: &[u8]) -> Result<Vec<u8>, String> {
    if !blob.len().is_multiple_of(4) {
        return Err(format!("vector blob of {} bytes is not a whole number of f32", blob.len()));
    }
    Ok(rearview_core::half_bytes(&f32s(blob).collect::<Vec<_>>()))
}

/// The little-endian f32 values of `blob` (a trailing partial value is ignored).
fn f32s(blob: &[u8]) -> impl Iterator<Item = f32> + '_ {
    blob.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

pub(crate) fn encode_ids(ids: &[MemoryId]) -> String {
    serde_json::Value::Array(ids.iter().map(|id| id.to_string().into()).collect()).to_string()
}

fn decode_ids(json: &str) -> Result<Vec<MemoryId>, StoreError> {
    let ids: Vec<String> =
        serde_json::from_str(json).map_err(|e| corrupt(format!("source_ids: {e}")))?;
    ids.iter().map(|id| parse_id(id)).collect()
}

pub(crate) fn parse_id(s: &str) -> Result<MemoryId, StoreError> {
    s.parse().map_err(|_| corrupt(format!("memory id {s:?}")))
}

pub(crate) fn parse_tier(s: &str) -> Result<MemoryType, StoreError> {
    s.parse().map_err(|_| corrupt(format!("memory_type {s:?}")))
}

pub(crate) fn parse_namespace(s: &str) -> Result<Namespace, StoreError> {
    s.parse().map_err(|_| corrupt(format!("namespace {s:?}")))
}

fn parse_metadata(s: &str) -> Result<Metadata, StoreError> {
    serde_json::from_str(s).map_err(|e| corrupt(format!("metadata: {e}")))
}

pub(crate) fn timestamp(us: i64) -> Result<Timestamp, StoreError> {
    DateTime::from_timestamp_micros(us).ok_or_else(|| corrupt(format!("timestamp {us}")))
}

fn corrupt(message: String) -> StoreError {
    StoreError::Corrupt { message }
}

/// Wraps a rusqlite error with what we were doing, mapping lock time-outs to `Unavailable`.
pub(crate) fn backend(context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> StoreError {
    let context = context.into();
    move |e| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            StoreError::Unavailable { message: format!("{context}: database is locked ({e})") }
        }
        _ => StoreError::Backend { context, source: Box::new(e) },
    }
}
