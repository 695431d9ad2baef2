//! The keyword search checks its filter on the best few times `limit` by score first, and on
//! every scored memory when too few of those pass: here the best-scored memories are all
//! archived, so only the second pass finds the live ones. Needs `REARVIEW_TEST_PG_URL`
//! (required in CI).

use rearview_core::MemoryFilter;
use rearview_store::MemoryStore;
use rearview_store::testing::{memory, ns, t0};
use rearview_store_postgres::{PgConfig, PgStore};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_selective_filter_still_gets_the_best_matches_that_pass_it() {
    let Some(url) = rearview_store::testing::pg_test_url() else {
        return;
    };
    let schema = format!("kw_{}", uuid::Uuid::now_v7().simple());
    let config = PgConfig { schema: Some(schema.clone()), pool_size: 2, ..PgConfig::new(&url) };
    let store = PgStore::connect(&config).await.unwrap();
    let mut live = Vec::new();
    for i in 0..40 {
        let archived = i >= 5;
        let mut m = memory("n", &format!("note {i}"), t0());
        m.archived = archived;
        // The archived ones say "alpha" three times and outscore every live one.
        let alpha = if archived { 3 } else { 1 };
        let mut terms = vec!["alpha".to_owned(); alpha];
        terms.extend(["filler".to_owned(), format!("n{i}")]);
        terms.resize(5, "pad".to_owned());
        if !archived {
            live.push(m.id);
        }
        store
            .insert(&rearview_store::MemoryRecord { memory: m, terms, vectors: vec![] })
            .await
            .unwrap();
    }
    let found = store
        .keyword_search(&ns("n"), &["alpha".to_owned()], &MemoryFilter::default(), t0(), 3)
        .await
        .unwrap();
    assert_eq!(found.len(), 3);
    assert!(found.iter().all(|h| live.contains(&h.id)), "{found:?}");
    // With archived memories allowed, the first pass answers: the archived ones, best first.
    let any = MemoryFilter { include_archived: true, ..MemoryFilter::default() };
    let found = store.keyword_search(&ns("n"), &["alpha".to_owned()], &any, t0(), 3).await.unwrap();
    assert!(found.iter().all(|h| !live.contains(&h.id)), "{found:?}");

    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
}
