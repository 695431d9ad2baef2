//! Versioned schema migrations, tracked in `PRAGMA user_version`.
//!
//! Each migration runs in its own transaction together with the version bump, so a crash during
//! an upgrade leaves the previous version intact. Never edit a shipped migration; add a new one.

use rearview_store::StoreError;
use rusqlite::{Connection, TransactionBehavior};

use crate::codec::{backend, f32_blob_to_half};

/// Migrations in order; entry `i` brings the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_init.sql"),
    include_str!("../migrations/0002_summary.sql"),
    include_str!("../migrations/0003_fts_token_characters.sql"),
    include_str!("../migrations/0004_api_keys.sql"),
    include_str!("../migrations/0005_supersede.sql"),
    include_str!("../migrations/0006_changes.sql"),
    include_str!("../migrations/0007_half_vectors.sql"),
];

/// The schema version this binary writes.
pub(crate) const LATEST: i64 = MIGRATIONS.len() as i64;

pub(crate) fn run(conn: &mut Connection) -> Result<(), StoreError> {
    register_functions(conn)?;
    // Several processes may open a new file at once (Claude Desktop and Cursor starting their
    // `rearview mcp` together): each step takes the write lock first (`BEGIN IMMEDIATE`, waiting
    // up to the busy timeout) and reads the version under it, so a step runs exactly once.
    loop {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend("starting migration"))?;
        let current: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(backend("reading schema version"))?;
        if current > LATEST {
            return Err(StoreError::SchemaTooNew { found: current, supported: LATEST });
        }
        let Some(sql) = MIGRATIONS.get(current as usize) else { return Ok(()) };
        let version = current + 1;
        tx.execute_batch(sql).map_err(backend(format!("applying migration {version}")))?;
        tx.pragma_update(None, "user_version", version)
            .map_err(backend("bumping schema version"))?;
        tx.commit().map_err(backend(format!("committing migration {version}")))?;
        tracing::info!(version, "applied sqlite schema migration");
    }
}

/// The SQL functions migrations call: `rearview_half_vector(blob)` (migration 7).
fn register_functions(conn: &Connection) -> Result<(), StoreError> {
    use rusqlite::functions::FunctionFlags;
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("rearview_half_vector", 1, flags, |ctx| {
        let blob: Vec<u8> = ctx.get(0)?;
        f32_blob_to_half(&blob).map_err(|e| rusqlite::Error::UserFunctionError(e.into()))
    })
    .map_err(backend("registering migration functions"))
}
