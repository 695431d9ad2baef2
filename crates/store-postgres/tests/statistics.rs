//! After a bulk load the planner's statistics describe the data as loaded
//! (`MemoryStore::refresh_statistics`), not the empty tables they were gathered on: without
//! them a filled namespace is planned as a tiny one (an exact vector scan instead of the HNSW
//! index). Needs `REARVIEW_TEST_PG_URL` (required in CI).

use rearview_store::testing::{memory, record, t0};
use rearview_store::{MemoryRecord, MemoryStore};
use rearview_store_postgres::{PgConfig, PgStore};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_load_leaves_statistics_of_its_size() {
    let Some(url) = rearview_store::testing::pg_test_url() else {
        return;
    };
    let schema = format!("stats_{}", uuid::Uuid::now_v7().simple());
    let config = PgConfig { schema: Some(schema.clone()), pool_size: 2, ..PgConfig::new(&url) };
    let store = PgStore::connect(&config).await.unwrap();
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    let estimate = || async {
        let row = client
            .query_one(
                &format!(
                    "SELECT reltuples FROM pg_class WHERE oid = '{schema}.memories'::regclass"
                ),
                &[],
            )
            .await
            .unwrap();
        row.get::<_, f32>(0)
    };
    let before = estimate().await;
    let records: Vec<MemoryRecord> =
        (0..2500).map(|i| record(memory("n", &format!("note {i} of the load"), t0()))).collect();
    assert!(store.insert_many(&records).await.unwrap().iter().all(|&w| w));
    store.refresh_statistics().await.unwrap();
    let after = estimate().await;
    assert!(before < 1.0, "an unanalysed table to begin with: {before}");
    assert_eq!(after, 2500.0, "the planner's row estimate after the load");
    client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
}
