//! Large namespaces are searched through a pgvector HNSW index, built in the background on the
//! first search (exact meanwhile), with the namespace and filter kept: here past a threshold of
//! 50 memories instead of 20,000. Needs `REARVIEW_TEST_PG_URL` (required in CI).

use std::sync::Arc;
use std::time::Duration;

use rearview_core::{Embedding, MemoryFilter};
use rearview_store::prelude::*;
use rearview_store::testing::{memory, ns, t0};
use rearview_store_postgres::hnsw::Graph;
use rearview_store_postgres::{PgConfig, PgStore};

mod common;

/// A deterministic unit vector: clustered around `i % 8`, perturbed by `i`.
fn vector(i: usize) -> Vec<f32> {
    let mut v: Vec<f32> = (0..32).map(|d| (((i * 31 + d * 17) % 97) as f32) / 970.0).collect();
    v[i % 8] += 1.0;
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_namespace_is_searched_through_an_hnsw_index_that_keeps_the_filter() {
    let Some(url) = rearview_store::testing::pg_test_url() else {
        return;
    };
    let config = PgConfig {
        schema: Some(format!("h_{}", uuid::Uuid::now_v7().simple())),
        pool_size: 4,
        hnsw_from: 50,
        ..PgConfig::new(url)
    };
    let store = Arc::new(PgStore::connect(&config).await.unwrap());
    let mut ids = Vec::new();
    for i in 0..300 {
        let mut m = memory("big", &format!("note {i}"), t0());
        m.archived = i % 10 == 0;
        let vectors = vec![rearview_store::StoredVector {
            model_id: "m".into(),
            embedding: Embedding::new(vector(i)).unwrap(),
        }];
        ids.push(m.id);
        let record = rearview_store::MemoryRecord { memory: m, terms: vec![], vectors };
        store.insert(&record).await.unwrap();
    }
    // A small namespace with the very same vectors, never returned for "big".
    for i in 0..20 {
        let m = memory("small", &format!("other {i}"), t0());
        let vectors = vec![rearview_store::StoredVector {
            model_id: "m".into(),
            embedding: Embedding::new(vector(i)).unwrap(),
        }];
        store
            .insert(&rearview_store::MemoryRecord { memory: m, terms: vec![], vectors })
            .await
            .unwrap();
    }
    let filter = MemoryFilter::default();
    let queries: Vec<Embedding> =
        (0..20).map(|i| Embedding::new(vector(i * 13 + 1)).unwrap()).collect();
    // Before the index: exact answers (and the first search starts the build).
    let mut exact = Vec::new();
    for q in &queries {
        exact.push(
            store.nearest_vectors(&ns("big"), "m", q, &filter, t0(), 10).await.unwrap().unwrap(),
        );
    }
    let mut ready = false;
    for _ in 0..120 {
        if store.vector_index_ready("m", 32).await.unwrap() {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(ready, "the HNSW index was built");
    let mut overlap = 0;
    for (q, want) in queries.iter().zip(&exact) {
        let got =
            store.nearest_vectors(&ns("big"), "m", q, &filter, t0(), 10).await.unwrap().unwrap();
        assert_eq!(got.len(), 10);
        assert!(got.windows(2).all(|w| w[0].cosine >= w[1].cosine - 1e-6), "nearest first");
        for hit in &got {
            let i = ids.iter().position(|id| *id == hit.id).expect("a memory of the namespace");
            assert_ne!(i % 10, 0, "an archived memory passed the filter");
        }
        overlap += got.iter().filter(|h| want.iter().any(|w| w.id == h.id)).count();
    }
    let recall = overlap as f64 / (queries.len() * 10) as f64;
    assert!(recall >= 0.9, "recall@10 against the exact scan: {recall}");
}

/// Inserts `n` memories with model `m`'s 32-d vectors into namespace `big`.
async fn fill(store: &PgStore, n: usize) {
    for i in 0..n {
        let m = memory("big", &format!("note {i}"), t0());
        let vectors = vec![rearview_store::StoredVector {
            model_id: "m".into(),
            embedding: Embedding::new(vector(i)).unwrap(),
        }];
        let record = rearview_store::MemoryRecord { memory: m, terms: vec![], vectors };
        store.insert(&record).await.unwrap();
    }
}

/// Searches once (which starts a missing index's build) and waits until the index is valid.
async fn wait_for_index(store: &PgStore) {
    let q = Embedding::new(vector(7)).unwrap();
    let filter = MemoryFilter::default();
    store.nearest_vectors(&ns("big"), "m", &q, &filter, t0(), 10).await.unwrap();
    for _ in 0..120 {
        if store.vector_index_ready("m", 32).await.unwrap() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("the HNSW index was not built");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_index_is_built_as_configured_and_an_existing_one_is_kept() {
    let Some(url) = rearview_store::testing::pg_test_url() else {
        return;
    };
    let schema = format!("hg_{}", uuid::Uuid::now_v7().simple());
    let sparse = Graph { m: 8, ef_construction: 40 };
    let config = PgConfig {
        schema: Some(schema.clone()),
        pool_size: 4,
        hnsw_from: 50,
        hnsw_graph: sparse,
        ..PgConfig::new(&url)
    };
    let store = PgStore::connect(&config).await.unwrap();
    fill(&store, 100).await;
    wait_for_index(&store).await;
    let definition = || async {
        let client = common::plain_client(&url).await;
        let rows = client
            .query(
                "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexdef LIKE '%hnsw%'",
                &[&schema],
            )
            .await
            .unwrap();
        rows.iter().map(|r| r.get::<_, String>(0)).collect::<Vec<_>>()
    };
    let built = definition().await;
    assert_eq!(built.len(), 1, "{built:?}");
    assert!(built[0].contains("m='8'") && built[0].contains("ef_construction='40'"), "{built:?}");
    // As `rearview doctor` reports it.
    let found = PgStore::inspect(&config).await.unwrap().vector_indexes;
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].valid);
    assert_eq!(found[0].graph, sparse);
    assert!(found[0].name.starts_with(&format!("{schema}.vectors_hnsw_")), "{found:?}");
    assert!(found[0].predicate.contains("'m'"), "{found:?}");

    // A server configured otherwise searches through the index as it is: no second build.
    let other = PgStore::connect(&PgConfig { hnsw_graph: Graph::default(), ..config.clone() })
        .await
        .unwrap();
    assert!(other.vector_index_ready("m", 32).await.unwrap());
    assert_eq!(definition().await, built);
    drop((store, other));
    common::drop_schema(&url, &schema).await;
}

#[tokio::test]
async fn a_graph_pgvector_would_refuse_is_an_error_at_connect() {
    // Checked before connecting: no server needed.
    let url = "postgres://nobody@127.0.0.1:1/none";
    let config =
        PgConfig { hnsw_graph: Graph { m: 32, ef_construction: 40 }, ..PgConfig::new(url) };
    let err = PgStore::connect(&config).await.unwrap_err().to_string();
    assert!(err.contains("ef_construction 40 is less than twice m 32"), "{err}");
}
