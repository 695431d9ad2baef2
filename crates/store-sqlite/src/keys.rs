//! API keys: the `api_keys` table (migration 4). Only digests are stored.

use rearview_core::Timestamp;
use rearview_store::{ApiKeyRecord, StoreError};
use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};

use crate::codec::{backend, micros, parse_namespace, timestamp};

const COLUMNS: &str = "id, digest, label, namespaces, admin, created_at, expires_at, revoked_at";

pub(crate) fn insert(tx: &Transaction<'_>, key: &ApiKeyRecord) -> Result<bool, StoreError> {
    let namespaces: Vec<&str> = key.namespaces.iter().map(|n| n.as_str()).collect();
    let namespaces = serde_json::to_string(&namespaces)
        .map_err(|e| StoreError::Corrupt { message: format!("encoding key namespaces: {e}") })?;
    let inserted = tx
        .execute(
            &format!(
                "INSERT INTO api_keys ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
                 ON CONFLICT (id) DO NOTHING"
            ),
            params![
                key.id,
                key.digest.as_slice(),
                key.label,
                namespaces,
                key.admin,
                micros(key.created_at),
                key.expires_at.map(micros),
                key.revoked_at.map(micros),
            ],
        )
        .map_err(backend("writing an api key"))?;
    Ok(inserted == 1)
}

pub(crate) fn find(conn: &Connection, id: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
    conn.query_row(&format!("SELECT {COLUMNS} FROM api_keys WHERE id = ?1"), [id], |r| {
        Ok(decode(r))
    })
    .optional()
    .map_err(backend("reading an api key"))?
    .transpose()
}

pub(crate) fn list(conn: &Connection) -> Result<Vec<ApiKeyRecord>, StoreError> {
    let mut stmt = conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM api_keys ORDER BY created_at, id"))
        .map_err(backend("preparing api key listing"))?;
    let rows = stmt.query_map([], |r| Ok(decode(r))).map_err(backend("listing api keys"))?;
    rows.map(|r| r.map_err(backend("reading an api key"))?).collect()
}

pub(crate) fn revoke(tx: &Transaction<'_>, id: &str, at: Timestamp) -> Result<bool, StoreError> {
    let found: Option<i64> = tx
        .query_row("SELECT 1 FROM api_keys WHERE id = ?1", [id], |r| r.get(0))
        .optional()
        .map_err(backend("reading an api key"))?;
    tx.execute(
        "UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
        params![id, micros(at)],
    )
    .map_err(backend("revoking an api key"))?;
    Ok(found.is_some())
}

pub(crate) fn count_active(conn: &Connection, now: Timestamp) -> Result<u64, StoreError> {
    let n: i64 = conn
        .query_row(
            "SELECT count(*) FROM api_keys WHERE revoked_at IS NULL \
             AND (expires_at IS NULL OR expires_at > ?1)",
            [micros(now)],
            |r| r.get(0),
        )
        .map_err(backend("counting api keys"))?;
    Ok(n.max(0) as u64)
}

fn decode(r: &Row<'_>) -> Result<ApiKeyRecord, StoreError> {
    let get = |e: rusqlite::Error| StoreError::Corrupt { message: format!("api key row: {e}") };
    let digest: Vec<u8> = r.get(1).map_err(get)?;
    let digest: [u8; 32] = digest
        .try_into()
        .map_err(|_| StoreError::Corrupt { message: "api key digest is not 32 bytes".into() })?;
    let namespaces: String = r.get(3).map_err(get)?;
    let namespaces: Vec<String> = serde_json::from_str(&namespaces)
        .map_err(|e| StoreError::Corrupt { message: format!("api key namespaces: {e}") })?;
    Ok(ApiKeyRecord {
        id: r.get(0).map_err(get)?,
        digest,
        label: r.get(2).map_err(get)?,
        namespaces: namespaces.iter().map(|n| parse_namespace(n)).collect::<Result<_, _>>()?,
        admin: r.get(4).map_err(get)?,
        created_at: timestamp(r.get(5).map_err(get)?)?,
        expires_at: r.get::<_, Option<i64>>(6).map_err(get)?.map(timestamp).transpose()?,
        revoked_at: r.get::<_, Option<i64>>(7).map_err(get)?.map(timestamp).transpose()?,
    })
}
