//! Vectors are stored at half precision (schema version 7): a 384-dimensional vector must fit in
//! its B-tree page instead of spilling onto an overflow page, and a version-6 database of f32
//! vectors migrates to the same values a new write stores.

use rearview_core::Embedding;
use rearview_store::prelude::*;
use rearview_store::testing::{memory, t0};
use rearview_store::{MemoryRecord, StoredVector};
use rearview_store_sqlite::{SqliteConfig, SqliteStore};
use rusqlite::Connection;

const DIMS: usize = 384;

/// A unit vector with the spread of real embeddings (no two components alike).
fn vector(seed: usize) -> Embedding {
    let mut state = (seed as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let values = (0..DIMS)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 20_001) as f32 / 10_000.0 - 1.0
        })
        .collect();
    Embedding::new(values).expect("non-zero")
}

fn record(content: &str, seed: usize) -> MemoryRecord {
    MemoryRecord {
        memory: memory("half", content, t0()),
        terms: vec![content.to_owned()],
        vectors: vec![StoredVector { model_id: "e5".into(), embedding: vector(seed) }],
    }
}

/// Bytes of pages the table `name` and its overflow pages take (SQLite's `dbstat`).
fn table_bytes(path: &std::path::Path, name: &str) -> i64 {
    let conn = Connection::open(path).unwrap();
    conn.query_row("SELECT sum(pgsize) FROM dbstat WHERE name = ?1", [name], |r| r.get(0)).unwrap()
}

#[tokio::test]
async fn a_vector_costs_under_a_kilobyte_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rearview.db");
    let store = SqliteStore::open(&SqliteConfig::new(&path)).unwrap();
    const N: usize = 600;
    let mut seeds = std::collections::HashMap::new();
    for i in 0..N {
        let r = record(&format!("memory{i}"), i);
        seeds.insert(r.memory.id, i);
        store.insert(&r).await.unwrap();
    }
    let stored = store.vectors("e5").await.unwrap();
    assert_eq!(stored.len(), N);
    for entry in &stored {
        assert_eq!(entry.embedding, vector(seeds[&entry.id]).to_half_precision());
    }
    drop(store);
    let per_vector = table_bytes(&path, "vectors") / N as i64;
    // f32 rows spilled onto an overflow page each: about 4,700 bytes.
    assert!(per_vector < 1_000, "{per_vector} bytes per 384-d vector");
}

#[tokio::test]
async fn a_version_6_database_of_f32_vectors_migrates_to_half_precision() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v6.db");
    let original = vector(7);
    let id = {
        // A store at version 6: let the current code create it, then roll the vectors and the
        // version back by hand, as version 6 wrote them.
        let store = SqliteStore::open(&SqliteConfig::new(&path)).unwrap();
        let mut r = record("legacy", 7);
        r.vectors[0].embedding = original.clone();
        store.insert(&r).await.unwrap();
        r.memory.id
    };
    let f32_blob: Vec<u8> = original.as_slice().iter().flat_map(|v| v.to_le_bytes()).collect();
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute("UPDATE vectors SET vector = ?1", [&f32_blob]).unwrap();
        conn.execute("DELETE FROM settings WHERE key = 'vectors.half_precision'", []).unwrap();
        // Version 8's link columns did not exist either.
        conn.execute_batch(
            "DROP INDEX memories_pending_review; ALTER TABLE memories DROP COLUMN link_made_by; \
             ALTER TABLE memories DROP COLUMN link_reason; \
             ALTER TABLE memories DROP COLUMN possible_updates;",
        )
        .unwrap();
        conn.pragma_update(None, "user_version", 6).unwrap();
    }
    let store = SqliteStore::open(&SqliteConfig::new(&path)).unwrap();
    assert_eq!(SqliteStore::inspect(&path).unwrap().schema_version, 8);
    let stored = store.vectors("e5").await.unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].id, id);
    assert_eq!(stored[0].embedding, original.to_half_precision());
    let length: i64 = Connection::open(&path)
        .unwrap()
        .query_row("SELECT length(vector) FROM vectors", [], |r| r.get(0))
        .unwrap();
    assert_eq!(length, 2 * DIMS as i64);

    // A process of version 6 that still had the file open writes an f32 vector after the
    // upgrade: it reads back as the f32 it is.
    let late = record("late", 8);
    store.insert(&late).await.unwrap();
    let late_f32 = vector(8);
    let blob: Vec<u8> = late_f32.as_slice().iter().flat_map(|v| v.to_le_bytes()).collect();
    Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE vectors SET vector = ?1 WHERE memory_rowid = \
             (SELECT rowid FROM memories WHERE id = ?2)",
            rusqlite::params![blob, late.memory.id.to_string()],
        )
        .unwrap();
    let stored = store.vectors("e5").await.unwrap();
    let read = stored.iter().find(|e| e.id == late.memory.id).expect("the late vector");
    assert_eq!(read.embedding, late_f32);
}
