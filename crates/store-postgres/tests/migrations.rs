//! A database written by an earlier schema version is migrated on connect and keeps its data:
//! here a version-1 keyword index (postings keyed without tf and length) becomes version 2's
//! covering one, version 3's statement-level statistics triggers replace the row-level ones,
//! and the memories stored before are found by keywords after. Needs
//! `REARVIEW_TEST_PG_URL` (required in CI).

use rearview_core::MemoryFilter;
use rearview_store::prelude::*;
use rearview_store::testing::{memory, ns, t0};
use rearview_store_postgres::{PgConfig, PgStore, SCHEMA_VERSION};

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_schema_is_migrated_and_keeps_its_keyword_index() {
    let Some((store, schema, url)) = common::fresh_store("mig").await else {
        return;
    };
    let stored = memory("n", "the backup runs at 03:00", t0());
    let terms = ["backup", "runs", "03", "00"].map(String::from).to_vec();
    store
        .insert(&rearview_store::MemoryRecord { memory: stored.clone(), terms, vectors: vec![] })
        .await
        .unwrap();
    drop(store);

    // Put the schema back the way version 1 left it.
    let client = common::plain_client(&url).await;
    client
        .batch_execute(&format!(
            "SET search_path = {schema}; \
             ALTER TABLE term_postings DROP CONSTRAINT term_postings_pkey, \
                 ADD CONSTRAINT term_postings_pkey PRIMARY KEY (ns, term, memory_id); \
             DELETE FROM rearview_schema WHERE version > 1"
        ))
        .await
        .unwrap();

    let config = PgConfig { schema: Some(schema.clone()), pool_size: 2, ..PgConfig::new(&url) };
    let store = PgStore::connect(&config).await.unwrap();
    let version: i64 = client
        .query_one(&format!("SELECT max(version) FROM {schema}.rearview_schema"), &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(version, SCHEMA_VERSION);
    // Another server opens the migrated schema as it is (SCHEMA_VERSION once lagged the last
    // migration, and every second connection was refused as "too new").
    PgStore::connect(&config).await.expect("the migrated schema reopens");
    let index: String = client
        .query_one(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'term_postings_pkey'",
            &[&schema],
        )
        .await
        .unwrap()
        .get(0);
    assert!(index.ends_with("(ns, term, memory_id) INCLUDE (tf, length)"), "{index}");
    let triggers: Vec<String> = client
        .query(
            "SELECT t.tgname::text FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid \
             JOIN pg_namespace s ON s.oid = c.relnamespace \
             WHERE s.nspname = $1 AND c.relname = 'term_postings' AND NOT t.tgisinternal \
             ORDER BY 1",
            &[&schema],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(triggers, ["term_postings_added", "term_postings_removed"]);
    let found = store
        .keyword_search(&ns("n"), &["backup".to_owned()], &MemoryFilter::default(), t0(), 5)
        .await
        .unwrap();
    assert_eq!(found.iter().map(|h| h.id).collect::<Vec<_>>(), vec![stored.id]);
    client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
}
