//! API keys: the `api_keys` table. Only digests are stored.

use rearview_core::Timestamp;
use rearview_store::{ApiKeyRecord, StoreError};
use tokio_postgres::Row;

use crate::PgStore;
use crate::codec::{backend, corrupt, micros, optional_time, parse_namespace, timestamp};

const KEY_COLUMNS: &str =
    "id, digest, label, namespaces, admin, created_at, expires_at, revoked_at";

pub(crate) async fn insert(store: &PgStore, key: &ApiKeyRecord) -> Result<bool, StoreError> {
    let client = store.client().await?;
    let namespaces: Vec<&str> = key.namespaces.iter().map(|n| n.as_str()).collect();
    let n = client
        .execute(
            "INSERT INTO api_keys (id, digest, label, namespaces, admin, created_at, \
               expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (id) DO NOTHING",
            &[
                &key.id,
                &key.digest.as_slice(),
                &key.label,
                &namespaces,
                &key.admin,
                &micros(key.created_at),
                &key.expires_at.map(micros),
                &key.revoked_at.map(micros),
            ],
        )
        .await
        .map_err(backend("writing an api key"))?;
    Ok(n == 1)
}

pub(crate) async fn find(store: &PgStore, id: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
    let client = store.client().await?;
    let row = client
        .query_opt(&format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE id = $1"), &[&id])
        .await
        .map_err(backend("reading an api key"))?;
    row.as_ref().map(decode_key).transpose()
}

pub(crate) async fn list(store: &PgStore) -> Result<Vec<ApiKeyRecord>, StoreError> {
    let client = store.client().await?;
    let rows = client
        .query(&format!("SELECT {KEY_COLUMNS} FROM api_keys ORDER BY created_at, id"), &[])
        .await
        .map_err(backend("listing api keys"))?;
    rows.iter().map(decode_key).collect()
}

pub(crate) async fn revoke(store: &PgStore, id: &str, at: Timestamp) -> Result<bool, StoreError> {
    let client = store.client().await?;
    let rows = client
        .query(
            "WITH found AS (SELECT id FROM api_keys WHERE id = $1), \
                  done AS (UPDATE api_keys SET revoked_at = $2 \
                           WHERE id = $1 AND revoked_at IS NULL RETURNING id) \
             SELECT count(*) FROM found",
            &[&id, &micros(at)],
        )
        .await
        .map_err(backend("revoking an api key"))?;
    let found: i64 = rows
        .first()
        .map(|r| r.try_get(0))
        .transpose()
        .map_err(backend("revoking an api key"))?
        .unwrap_or(0);
    Ok(found > 0)
}

pub(crate) async fn count_active(store: &PgStore, now: Timestamp) -> Result<u64, StoreError> {
    let client = store.client().await?;
    let n: i64 = client
        .query_one(
            "SELECT count(*) FROM api_keys WHERE revoked_at IS NULL \
             AND (expires_at IS NULL OR expires_at > $1)",
            &[&micros(now)],
        )
        .await
        .and_then(|r| r.try_get(0))
        .map_err(backend("counting api keys"))?;
    Ok(n.max(0) as u64)
}

fn decode_key(r: &Row) -> Result<ApiKeyRecord, StoreError> {
    let e = |e: tokio_postgres::Error| corrupt(format!("api key row: {e}"));
    let digest: Vec<u8> = r.try_get(1).map_err(e)?;
    let digest: [u8; 32] =
        digest.try_into().map_err(|_| corrupt("api key digest is not 32 bytes".into()))?;
    let namespaces: Vec<String> = r.try_get(3).map_err(e)?;
    Ok(ApiKeyRecord {
        id: r.try_get(0).map_err(e)?,
        digest,
        label: r.try_get(2).map_err(e)?,
        namespaces: namespaces.iter().map(|n| parse_namespace(n)).collect::<Result<_, _>>()?,
        admin: r.try_get(4).map_err(e)?,
        created_at: timestamp(r.try_get(5).map_err(e)?)?,
        expires_at: optional_time(r.try_get(6).map_err(e)?)?,
        revoked_at: optional_time(r.try_get(7).map_err(e)?)?,
    })
}
