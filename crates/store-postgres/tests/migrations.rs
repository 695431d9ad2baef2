//! A database written by an earlier schema version is migrated on connect and keeps its data:
//! here a version-1 keyword index (postings keyed without tf and length) goes through every
//! migration to version 5, which drops the postings and their statistics for an index of the
//! terms by namespace, and the memories stored before are found by keywords after. Needs
//! `REARVIEW_TEST_PG_URL` (required in CI).

use rearview_core::MemoryFilter;
use rearview_store::prelude::*;
use rearview_store::testing::{memory, ns, t0};
use rearview_store_postgres::{PgConfig, PgStore, SCHEMA_VERSION};

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_schema_is_migrated_to_the_last_and_keeps_its_keyword_index() {
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

    // Put the schema back the way version 1 left it: its postings (as version 1 wrote them)
    // and their document frequencies beside the terms.
    let client = common::plain_client(&url).await;
    client
        .batch_execute(&format!(
            "SET search_path = {schema}; \
             CREATE TABLE term_postings (ns BIGINT NOT NULL, term TEXT NOT NULL, \
                 memory_id UUID NOT NULL REFERENCES memories(id) ON DELETE CASCADE, \
                 tf INTEGER NOT NULL, length INTEGER NOT NULL, \
                 PRIMARY KEY (ns, term, memory_id)); \
             CREATE TABLE term_df (ns BIGINT NOT NULL, term TEXT NOT NULL, df BIGINT NOT NULL, \
                 PRIMARY KEY (ns, term)); \
             INSERT INTO term_postings SELECT t.ns, x.term, t.memory_id, count(*), t.length \
                 FROM memory_terms t, unnest(t.terms) x(term) GROUP BY 1, 2, 3, 5; \
             INSERT INTO term_df SELECT ns, term, count(*) FROM term_postings GROUP BY 1, 2; \
             DROP INDEX memory_terms_by_ns; \
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
    let tables: Vec<String> = client
        .query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = $1 \
             AND tablename IN ('term_postings', 'term_df')",
            &[&schema],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(tables.is_empty(), "the postings are dropped: {tables:?}");
    let by_ns: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_indexes WHERE schemaname = $1 \
             AND indexname = 'memory_terms_by_ns'",
            &[&schema],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(by_ns, 1);
    let found = store
        .keyword_search(&ns("n"), &["backup".to_owned()], &MemoryFilter::default(), t0(), 5)
        .await
        .unwrap();
    assert_eq!(found.iter().map(|h| h.id).collect::<Vec<_>>(), vec![stored.id]);
    client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
}
