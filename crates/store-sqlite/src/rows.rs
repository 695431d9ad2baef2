//! Rows: writing a memory (row, keyword entry, vectors), applying an update, removing one, and
//! reading memories back.

use rearview_core::{Memory, Namespace};
use rearview_store::{MemoryRecord, MemoryUpdate, StoreError, StoredVector};
use rusqlite::{Connection, Transaction, params, params_from_iter};

use crate::codec::{self, backend, decode_memory, encode_vector, micros};
use crate::keyword;

/// Writes `record`'s row, keyword entry and vectors into namespace `ns_id` inside `tx`;
/// [`StoreError::Conflict`] (with nothing written) when its id is stored.
pub(crate) fn insert_record(
    tx: &Transaction<'_>,
    ns_id: i64,
    record: &MemoryRecord,
) -> Result<(), StoreError> {
    let rowid = insert_row(tx, ns_id, &record.memory)?;
    keyword::write_terms(tx, rowid, ns_id, &record.terms)?;
    tx.execute("UPDATE namespaces SET doc_count = doc_count + 1 WHERE id = ?1", [ns_id])
        .map_err(backend("counting the memory"))?;
    for v in &record.vectors {
        write_vector(tx, rowid, v)?;
    }
    Ok(())
}

pub(crate) fn insert_row(tx: &Transaction<'_>, ns_id: i64, m: &Memory) -> Result<i64, StoreError> {
    let res = tx.execute(
        "INSERT INTO memories (id, ns, memory_type, content, metadata, session_id, ttl_secs, \
           created_at, occurred_at, updated_at, last_accessed_at, expires_at, access_count, \
           archived, source_ids, content_hash, summary, superseded_by, invalid_at, link_made_by, \
           link_reason, possible_updates) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, \
           ?18, ?19, ?20, ?21, ?22)",
        params![
            m.id.to_string(),
            ns_id,
            m.memory_type.as_str(),
            m.content,
            serde_json::Value::Object(m.metadata.clone()).to_string(),
            m.session_id,
            i64::try_from(m.ttl_secs).unwrap_or(i64::MAX),
            micros(m.timestamp),
            micros(m.occurred_at),
            micros(m.updated_at),
            m.last_accessed_at.map(micros),
            m.expires_at.map(micros),
            i64::try_from(m.access_count).unwrap_or(i64::MAX),
            m.archived,
            codec::encode_ids(&m.source_ids),
            m.content_hash,
            m.summary,
            m.superseded_by.map(|id| id.to_string()),
            m.invalid_at.map(micros),
            m.link.as_ref().map(|l| l.made_by.as_str()),
            m.link.as_ref().map(|l| l.reason.as_str()),
            rearview_store::encode_possible_updates(&m.possible_updates),
        ],
    );
    match res {
        Ok(_) => Ok(tx.last_insert_rowid()),
        Err(rusqlite::Error::SqliteFailure(e, _))
            if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE =>
        {
            Err(StoreError::Conflict { id: m.id.to_string() })
        }
        Err(e) => Err(backend("inserting memory")(e)),
    }
}

pub(crate) fn apply_update(
    tx: &Transaction<'_>,
    rowid: i64,
    ns_id: i64,
    u: &MemoryUpdate,
) -> Result<(), StoreError> {
    let at = micros(u.at);
    let set = |sql: &str, value: rusqlite::types::Value| -> Result<(), StoreError> {
        tx.execute(sql, params![value, at, rowid]).map_err(backend("updating memory")).map(|_| ())
    };
    if let Some((content, terms, hash)) = &u.content {
        set(
            "UPDATE memories SET content = ?1, updated_at = ?2 WHERE rowid = ?3",
            content.clone().into(),
        )?;
        set(
            "UPDATE memories SET content_hash = ?1, updated_at = ?2 WHERE rowid = ?3",
            hash.clone().into(),
        )?;
        tx.execute("DELETE FROM memory_terms WHERE rowid = ?1", [rowid])
            .map_err(backend("replacing keyword entry"))?;
        keyword::write_terms(tx, rowid, ns_id, terms)?;
    }
    if let Some(summary) = &u.summary {
        set(
            "UPDATE memories SET summary = ?1, updated_at = ?2 WHERE rowid = ?3",
            summary.clone().into(),
        )?;
    }
    if let Some(occurred_at) = u.occurred_at {
        set(
            "UPDATE memories SET occurred_at = ?1, updated_at = ?2 WHERE rowid = ?3",
            micros(occurred_at).into(),
        )?;
    }
    if let Some(metadata) = &u.metadata {
        let json = serde_json::Value::Object(metadata.clone()).to_string();
        set("UPDATE memories SET metadata = ?1, updated_at = ?2 WHERE rowid = ?3", json.into())?;
    }
    if let Some(tier) = u.memory_type {
        set(
            "UPDATE memories SET memory_type = ?1, updated_at = ?2 WHERE rowid = ?3",
            tier.as_str().to_owned().into(),
        )?;
    }
    if let Some((ttl, expires_at)) = u.ttl {
        set(
            "UPDATE memories SET ttl_secs = ?1, updated_at = ?2 WHERE rowid = ?3",
            i64::try_from(ttl).unwrap_or(i64::MAX).into(),
        )?;
        let expires: rusqlite::types::Value = expires_at.map(micros).into();
        set("UPDATE memories SET expires_at = ?1, updated_at = ?2 WHERE rowid = ?3", expires)?;
    }
    if let Some(archived) = u.archived {
        // Archiving is a move between tiers, not an edit: `updated_at` stays.
        tx.execute("UPDATE memories SET archived = ?1 WHERE rowid = ?2", params![archived, rowid])
            .map_err(backend("archiving memory"))?;
    }
    if let Some(superseded) = &u.superseded {
        // A change of state, not an edit: `updated_at` stays.
        let s = superseded.as_ref();
        tx.execute(
            "UPDATE memories SET superseded_by = ?1, invalid_at = ?2, link_made_by = ?3, \
             link_reason = ?4 WHERE rowid = ?5",
            params![
                s.map(|s| s.by.to_string()),
                s.map(|s| micros(s.at)),
                s.map(|s| s.link.made_by.as_str()),
                s.map(|s| s.link.reason.as_str()),
                rowid
            ],
        )
        .map_err(backend("superseding memory"))?;
    }
    if let Some(updates) = &u.possible_updates {
        tx.execute(
            "UPDATE memories SET possible_updates = ?1 WHERE rowid = ?2",
            params![rearview_store::encode_possible_updates(updates), rowid],
        )
        .map_err(backend("recording possible updates"))?;
    }
    if let Some(vectors) = &u.vectors {
        tx.execute("DELETE FROM vectors WHERE memory_rowid = ?1", [rowid])
            .map_err(backend("replacing vectors"))?;
        for v in vectors {
            write_vector(tx, rowid, v)?;
        }
    }
    Ok(())
}

pub(crate) fn write_vector(
    tx: &Transaction<'_>,
    rowid: i64,
    v: &StoredVector,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT OR REPLACE INTO vectors (memory_rowid, model_id, dims, vector) VALUES (?1, ?2, ?3, ?4)",
        params![rowid, v.model_id, v.embedding.dimensions() as i64, encode_vector(&v.embedding)],
    )
    .map_err(backend("writing vector"))?;
    Ok(())
}

pub(crate) fn query_memories(
    conn: &Connection,
    sql: &str,
    namespace: &Namespace,
    values: Vec<rusqlite::types::Value>,
) -> Result<Vec<Memory>, StoreError> {
    let mut stmt = conn.prepare_cached(sql).map_err(backend("preparing memory query"))?;
    let mut rows = stmt.query(params_from_iter(values)).map_err(backend("querying memories"))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(backend("reading memory row"))? {
        out.push(decode_memory(row, namespace)?);
    }
    Ok(out)
}

/// Removes the memory at `rowid` of namespace `ns_id`: its keyword entry, its row and (by
/// `ON DELETE CASCADE`) its vectors, and uncounts it from the namespace's statistics.
pub(crate) fn remove(tx: &Transaction<'_>, rowid: i64, ns_id: i64) -> Result<(), StoreError> {
    tx.execute("DELETE FROM memory_terms WHERE rowid = ?1", [rowid])
        .map_err(backend("deleting keyword entry"))?;
    tx.execute("DELETE FROM memories WHERE rowid = ?1", [rowid])
        .map_err(backend("deleting memory"))?;
    tx.execute("UPDATE namespaces SET doc_count = doc_count - 1 WHERE id = ?1", [ns_id])
        .map_err(backend("uncounting the memory"))?;
    Ok(())
}
