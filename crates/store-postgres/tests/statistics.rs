//! After a bulk load the planner's statistics describe the data as loaded
//! (`StoreMaintenance::refresh_statistics`), not the empty tables they were gathered on: without
//! them a filled namespace is planned as a tiny one (an exact vector scan instead of the HNSW
//! index). Needs `REARVIEW_TEST_PG_URL` (required in CI).

use rearview_store::MemoryRecord;
use rearview_store::prelude::*;
use rearview_store::testing::{memory, record, t0};

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_load_leaves_statistics_of_its_size() {
    let Some((store, schema, url)) = common::fresh_store("stats").await else {
        return;
    };
    let client = common::plain_client(&url).await;
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
