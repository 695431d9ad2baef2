//! Versioned schema migrations, tracked in `PRAGMA user_version`.
//!
//! Each migration runs in its own transaction together with the version bump, so a crash during
//! an upgrade leaves the previous version intact. Never edit a shipped migration; add a new one.

use rearview_store::StoreError;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

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
    include_str!("../migrations/0008_links.sql"),
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
        let Some(sql) = MIGRATIONS.get(current as usize) else { break };
        let version = current + 1;
        tx.execute_batch(sql).map_err(backend(format!("applying migration {version}")))?;
        tx.pragma_update(None, "user_version", version)
            .map_err(backend("bumping schema version"))?;
        tx.commit().map_err(backend(format!("committing migration {version}")))?;
        tracing::info!(version, "applied sqlite schema migration");
    }
    half_vectors(conn, CONVERT_BATCH)
}

/// The setting [`half_vectors`] writes once every stored vector is half precision.
const HALF_VECTORS_DONE: &str = "vectors.half_precision";

/// Vectors rewritten per transaction by [`half_vectors`].
const CONVERT_BATCH: i64 = 5_000;

/// Rewrites the f32 vectors of schema version 6 at half precision (what migration 7 means),
/// [`CONVERT_BATCH`] memories per write transaction: a million vectors take tens of seconds,
/// and other processes' writes (and their opening the file) interleave with short batches where
/// one long transaction would outlast their busy timeout. Both forms read back meanwhile
/// (`codec.rs`), so a crash part-way leaves a database that works and finishes next time. Rows
/// a process of version 6 wrote during the upgrade stay f32 (and read back as such). A setting
/// records that the conversion finished, so later opens skip it.
fn half_vectors(conn: &mut Connection, batch: i64) -> Result<(), StoreError> {
    let done: Option<String> = conn
        .query_row("SELECT value FROM settings WHERE key = ?1", [HALF_VECTORS_DONE], |r| r.get(0))
        .optional()
        .map_err(backend("reading vector conversion state"))?;
    if done.is_some() {
        return Ok(());
    }
    let mut after = i64::MIN;
    let mut converted = 0;
    loop {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend("starting vector conversion"))?;
        let last: Option<i64> = tx
            .query_row(
                "SELECT max(memory_rowid) FROM (SELECT memory_rowid FROM vectors \
                 WHERE memory_rowid > ?1 ORDER BY memory_rowid LIMIT ?2)",
                [after, batch],
                |r| r.get(0),
            )
            .map_err(backend("finding vectors to convert"))?;
        let Some(last) = last else {
            tx.execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES (?1, 'done')",
                [HALF_VECTORS_DONE],
            )
            .map_err(backend("recording vector conversion"))?;
            tx.commit().map_err(backend("committing vector conversion"))?;
            break;
        };
        converted += tx
            .execute(
                "UPDATE vectors SET vector = rearview_half_vector(vector) \
                 WHERE memory_rowid > ?1 AND memory_rowid <= ?2 AND length(vector) = 4 * dims",
                [after, last],
            )
            .map_err(backend("converting vectors to half precision"))?;
        tx.commit().map_err(backend("committing vector conversion"))?;
        after = last;
    }
    if converted > 0 {
        tracing::info!(converted, "stored vectors converted to half precision");
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_vectors_are_converted_in_batches_and_the_conversion_is_recorded() {
        let mut conn = Connection::open_in_memory().unwrap();
        run(&mut conn).unwrap();
        conn.execute("DELETE FROM settings WHERE key = ?1", [HALF_VECTORS_DONE]).unwrap();
        // Vectors alone, without the memories they belong to.
        conn.pragma_update(None, "foreign_keys", "OFF").unwrap();
        let f32_blob =
            |x: f32| -> Vec<u8> { [x, 0.0].iter().flat_map(|v| v.to_le_bytes()).collect() };
        for rowid in 1..=5 {
            conn.execute(
                "INSERT INTO vectors (memory_rowid, model_id, dims, vector) VALUES (?1, 'm', 2, ?2)",
                rusqlite::params![rowid, f32_blob(1.0)],
            )
            .unwrap();
        }
        half_vectors(&mut conn, 2).unwrap();
        let lengths: Vec<i64> = conn
            .prepare("SELECT length(vector) FROM vectors ORDER BY memory_rowid")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(lengths, [4; 5], "every row is two half-precision floats");
        let one: Vec<u8> = conn.query_row("SELECT vector FROM vectors", [], |r| r.get(0)).unwrap();
        assert_eq!(one, [0x00, 0x3c, 0x00, 0x00], "1.0 and 0.0 in binary16, little-endian");
        let done: String = conn
            .query_row("SELECT value FROM settings WHERE key = ?1", [HALF_VECTORS_DONE], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(done, "done");
    }
}
