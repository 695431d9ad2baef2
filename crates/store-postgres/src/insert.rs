//! Writing new memories: rows, keyword entries and vectors of many records in a few statements.
//!
//! One memory or a thousand, the work is the same handful of statements per chunk (multi-row
//! `VALUES` and `unnest`), so a bulk load (`rearview import`, `rearview migrate`) pays one round
//! trip and one commit per batch instead of five round trips and a commit per memory.

use std::collections::{HashMap, HashSet};

use rearview_core::{Memory, MemoryId, Namespace};
use rearview_store::{MemoryRecord, MemoryUpdate, StoreError, StoredVector};
use tokio_postgres::Transaction;

use crate::codec::{backend, encode_vector, micros, uuid};
use crate::{Params, PgStore, keyword};

/// Rows per multi-row `INSERT` (22 parameters each, well under PostgreSQL's 65,535).
const ROWS_PER_STATEMENT: usize = 500;

/// The columns of `memories` in the order [`push_row`] binds them.
const COLUMNS: &str = "id, ns, memory_type, content, metadata, session_id, ttl_secs, created_at, \
    occurred_at, updated_at, last_accessed_at, expires_at, access_count, archived, source_ids, \
    content_hash, summary, superseded_by, invalid_at, link_made_by, link_reason, possible_updates";

impl PgStore {
    /// Writes every record whose id is not stored yet (nor earlier in `records`) inside `tx`;
    /// per record whether it was written, and the namespace ids used (to cache after commit).
    pub(crate) async fn insert_records(
        &self,
        tx: &Transaction<'_>,
        records: &[MemoryRecord],
    ) -> Result<(Vec<bool>, Vec<(Namespace, i64)>), StoreError> {
        let mut ns_ids: HashMap<&Namespace, i64> = HashMap::new();
        for r in records {
            if !ns_ids.contains_key(&r.memory.namespace) {
                let id = self.ensure_namespace(tx, &r.memory.namespace).await?;
                ns_ids.insert(&r.memory.namespace, id);
            }
        }
        let mut seen = HashSet::with_capacity(records.len());
        let fresh: Vec<(i64, &MemoryRecord)> = records
            .iter()
            .filter(|r| seen.insert(r.memory.id))
            .map(|r| (ns_ids[&r.memory.namespace], r))
            .collect();
        let mut written = HashSet::with_capacity(fresh.len());
        for chunk in fresh.chunks(ROWS_PER_STATEMENT) {
            written.extend(insert_rows(tx, chunk).await?);
        }
        let new: Vec<(i64, &MemoryRecord)> =
            fresh.into_iter().filter(|(_, r)| written.contains(&r.memory.id.0)).collect();
        let entries: Vec<(MemoryId, i64, &[String])> =
            new.iter().map(|(ns, r)| (r.memory.id, *ns, r.terms.as_slice())).collect();
        keyword::write_terms(tx, &entries).await?;
        let vectors: Vec<(MemoryId, &StoredVector)> =
            new.iter().flat_map(|(_, r)| latest_per_model(r.memory.id, &r.vectors)).collect();
        write_vectors(tx, &vectors).await?;

        // Of two records with one id, the first is the one written.
        let mut claimed = HashSet::with_capacity(written.len());
        let flags = records
            .iter()
            .map(|r| written.contains(&r.memory.id.0) && claimed.insert(r.memory.id))
            .collect();
        let used = ns_ids.into_iter().map(|(n, id)| (n.clone(), id)).collect();
        Ok((flags, used))
    }
}

/// Inserts the rows that are new; the ids written.
async fn insert_rows(
    tx: &Transaction<'_>,
    rows: &[(i64, &MemoryRecord)],
) -> Result<Vec<uuid::Uuid>, StoreError> {
    let mut params = Params::default();
    let values: Vec<String> =
        rows.iter().map(|(ns, r)| push_row(&mut params, *ns, &r.memory)).collect();
    let sql = format!(
        "INSERT INTO memories ({COLUMNS}) VALUES {} ON CONFLICT (id) DO NOTHING RETURNING id",
        values.join(", ")
    );
    let inserted = tx.query(&sql, &params.refs()).await.map_err(backend("inserting memories"))?;
    inserted.iter().map(|r| r.try_get(0).map_err(backend("reading an inserted id"))).collect()
}

/// Binds one memory's columns (in [`COLUMNS`] order); its `( … )` tuple.
fn push_row(params: &mut Params, ns_id: i64, m: &Memory) -> String {
    let placeholders = [
        params.push(m.id.0),
        params.push(ns_id),
        params.push(m.memory_type.as_str()),
        params.push(m.content.clone()),
        params.push(serde_json::Value::Object(m.metadata.clone())),
        params.push(m.session_id.clone()),
        params.push(i64::try_from(m.ttl_secs).unwrap_or(i64::MAX)),
        params.push(micros(m.timestamp)),
        params.push(micros(m.occurred_at)),
        params.push(micros(m.updated_at)),
        params.push(m.last_accessed_at.map(micros)),
        params.push(m.expires_at.map(micros)),
        params.push(i64::try_from(m.access_count).unwrap_or(i64::MAX)),
        params.push(m.archived),
        params.push(m.source_ids.iter().map(|id| id.0).collect::<Vec<_>>()),
        params.push(m.content_hash.clone()),
        params.push(m.summary.clone()),
        params.push(m.superseded_by.map(uuid)),
        params.push(m.invalid_at.map(micros)),
        params.push(m.link.as_ref().map(|l| l.made_by.as_str().to_owned())),
        params.push(m.link.as_ref().map(|l| l.reason.clone())),
        params.push(rearview_store::encode_possible_updates(&m.possible_updates)),
    ];
    format!("({})", placeholders.join(", "))
}

/// Memory `id`'s vectors, the last one per model (as writing them one after another keeps).
pub(crate) fn latest_per_model(
    id: MemoryId,
    vectors: &[StoredVector],
) -> impl Iterator<Item = (MemoryId, &StoredVector)> {
    vectors
        .iter()
        .enumerate()
        .filter(|(i, v)| vectors[i + 1..].iter().all(|later| later.model_id != v.model_id))
        .map(move |(_, v)| (id, v))
}

/// Writes (or replaces) each memory's vector for its model; at most one per memory and model.
pub(crate) async fn write_vectors(
    tx: &Transaction<'_>,
    vectors: &[(MemoryId, &StoredVector)],
) -> Result<(), StoreError> {
    for chunk in vectors.chunks(ROWS_PER_STATEMENT) {
        let mut params = Params::default();
        let values: Vec<String> = chunk
            .iter()
            .map(|(id, v)| {
                format!(
                    "({}, {}, {}, {})",
                    params.push(id.0),
                    params.push(v.model_id.clone()),
                    params.push(v.embedding.dimensions() as i32),
                    params.push(encode_vector(v)),
                )
            })
            .collect();
        let sql = format!(
            "INSERT INTO vectors (memory_id, model_id, dims, embedding) VALUES {} \
             ON CONFLICT (memory_id, model_id) DO UPDATE \
               SET dims = excluded.dims, embedding = excluded.embedding",
            values.join(", ")
        );
        tx.execute(&sql, &params.refs()).await.map_err(backend("writing vectors"))?;
    }
    Ok(())
}

/// Applies `u` to memory `id` (which exists) inside `tx`.
pub(crate) async fn apply_update(
    tx: &tokio_postgres::Transaction<'_>,
    id: MemoryId,
    ns_id: i64,
    u: &MemoryUpdate,
) -> Result<(), StoreError> {
    let mut params = Params::default();
    let mut sets: Vec<String> = Vec::new();
    let mut edited = false;
    if let Some((content, _, hash)) = &u.content {
        sets.push(format!("content = {}", params.push(content.clone())));
        sets.push(format!("content_hash = {}", params.push(hash.clone())));
        edited = true;
    }
    if let Some(summary) = &u.summary {
        sets.push(format!("summary = {}", params.push(summary.clone())));
        edited = true;
    }
    if let Some(occurred_at) = u.occurred_at {
        sets.push(format!("occurred_at = {}", params.push(micros(occurred_at))));
        edited = true;
    }
    if let Some(metadata) = &u.metadata {
        let json = serde_json::Value::Object(metadata.clone());
        sets.push(format!("metadata = {}", params.push(json)));
        edited = true;
    }
    if let Some(tier) = u.memory_type {
        sets.push(format!("memory_type = {}", params.push(tier.as_str().to_owned())));
        edited = true;
    }
    if let Some((ttl, expires_at)) = u.ttl {
        sets.push(format!("ttl_secs = {}", params.push(i64::try_from(ttl).unwrap_or(i64::MAX))));
        sets.push(format!("expires_at = {}", params.push(expires_at.map(micros))));
        edited = true;
    }
    // Archiving and supersession change state, not content: `updated_at` stays for them.
    if let Some(archived) = u.archived {
        sets.push(format!("archived = {}", params.push(archived)));
    }
    if let Some(superseded) = &u.superseded {
        let s = superseded.as_ref();
        sets.push(format!("superseded_by = {}", params.push(s.map(|s| uuid(s.by)))));
        sets.push(format!("invalid_at = {}", params.push(s.map(|s| micros(s.at)))));
        let made_by = s.map(|s| s.link.made_by.as_str().to_owned());
        sets.push(format!("link_made_by = {}", params.push(made_by)));
        sets.push(format!("link_reason = {}", params.push(s.map(|s| s.link.reason.clone()))));
    }
    if let Some(updates) = &u.possible_updates {
        let json = rearview_store::encode_possible_updates(updates);
        sets.push(format!("possible_updates = {}", params.push(json)));
    }
    if edited {
        sets.push(format!("updated_at = {}", params.push(micros(u.at))));
    }
    if !sets.is_empty() {
        let sql =
            format!("UPDATE memories SET {} WHERE id = {}", sets.join(", "), params.push(id.0));
        tx.execute(&sql, &params.refs()).await.map_err(backend("updating memory"))?;
    }
    if let Some((_, terms, _)) = &u.content {
        keyword::delete_terms(tx, id).await?;
        keyword::write_terms(tx, &[(id, ns_id, terms.as_slice())]).await?;
    }
    if let Some(vectors) = &u.vectors {
        tx.execute("DELETE FROM vectors WHERE memory_id = $1", &[&id.0])
            .await
            .map_err(backend("replacing vectors"))?;
        let latest: Vec<(MemoryId, &StoredVector)> = latest_per_model(id, vectors).collect();
        write_vectors(tx, &latest).await?;
    }
    Ok(())
}
