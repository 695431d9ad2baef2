//! Searching in the store (PostgreSQL: pgvector, and BM25 in SQL for one-shot commands) ranks as
//! searching this process's in-memory indexes does: the same memories through both, the same recall answers,
//! scores equal to rounding. Needs `REARVIEW_TEST_PG_URL`; skips without it unless
//! `REARVIEW_REQUIRE_PG` is set, as in CI.

use std::sync::Arc;

use chrono::DateTime;
use rearview_core::{Clock, ManualClock, Namespace};
use rearview_embed::{Embedder, TestEmbedder};
use rearview_service::{
    KeywordSearch, MemoryService, RecallRequest, RememberRequest, ServiceConfig,
};
use rearview_store::MemoryStore;
use rearview_store_sqlite::SqliteStore;

const TEXTS: &[&str] = &[
    "我喜欢在周末去香山爬山",
    "周末我们去西山徒步，风景很好",
    "服务端口从 8080 改成 8765",
    "Redis 端口是 6380，密码在 vault 里",
    "the staging database listens on port 5433",
    "Alice prefers tea over coffee in the morning",
    "Bob moved from Berlin to Lisbon last spring",
    "备份每天凌晨三点运行",
    "the deploy pipeline runs every night at 02:00 UTC",
    "用户偏好深色主题",
    "我对花生过敏，不能吃坚果",
    "project Falcon ships on March 3rd",
    "会议改到周四下午两点",
    "the API rate limit is 100 requests per minute",
    "我女儿的生日是五月十二号",
    "Carol's phone number changed to 555-0199",
];

const QUERIES: &[&str] = &[
    "爬山",
    "端口 8765",
    "Redis 端口",
    "database port",
    "tea or coffee",
    "where does Bob live",
    "备份时间",
    "deploy schedule",
    "深色主题",
    "过敏",
    "Falcon release date",
    "会议时间",
    "rate limit",
    "生日",
    "Carol phone",
];

async fn open(store: Arc<dyn MemoryStore>, config: ServiceConfig) -> MemoryService {
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(128));
    MemoryService::open(store, Some(embedder), clock(), config).await.unwrap()
}

/// A fresh schema on the test server, or `None` to skip.
async fn postgres() -> Option<(Arc<dyn MemoryStore>, rearview_store_postgres::PgConfig)> {
    let url = rearview_store::testing::pg_test_url()?;
    let config = rearview_store_postgres::PgConfig {
        schema: Some(format!("i_{}", uuid::Uuid::now_v7().simple())),
        pool_size: 4,
        ..rearview_store_postgres::PgConfig::new(url)
    };
    let pg = rearview_store_postgres::PgStore::connect(&config).await.unwrap();
    Some((Arc::new(pg), config))
}

/// Keywords in this process's memory, loaded on demand; vectors searched in the store.
fn keywords_in_memory() -> ServiceConfig {
    ServiceConfig { index_memory: Some(64 << 20), ..ServiceConfig::default() }
}

fn clock() -> Arc<dyn Clock> {
    Arc::new(ManualClock::new(DateTime::from_timestamp(1_760_000_000, 0).unwrap()))
}

async fn filled(store: Arc<dyn MemoryStore>, config: ServiceConfig) -> MemoryService {
    let service = open(store, config).await;
    let ns: Namespace = "a".parse().unwrap();
    for (i, text) in TEXTS.iter().enumerate() {
        let request = RememberRequest {
            dedup: Some(false),
            memory_type: Some(if i % 3 == 0 { "semantic" } else { "episodic" }.parse().unwrap()),
            ..RememberRequest::new(*text)
        };
        service.remember(&ns, request).await.unwrap();
    }
    service
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recall_in_the_store_ranks_as_recall_in_memory() {
    let Some((pg, _)) = postgres().await else {
        return;
    };
    // As one-shot commands search: keywords by BM25 in SQL, vectors by pgvector.
    let config = ServiceConfig { keyword_search: KeywordSearch::Store, ..ServiceConfig::default() };
    let in_store = filled(pg, config).await;
    assert_eq!(in_store.stats().await.unwrap().indexed_vectors, 0, "no vectors held in memory");
    ranks_alike(&in_store).await;
}

/// `index_memory = all` over PostgreSQL: every namespace's keyword index loaded at start and
/// kept, vectors in pgvector.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_keyword_index_loaded_at_start_over_postgres_ranks_as_recall_in_memory() {
    let Some((pg, config)) = postgres().await else {
        return;
    };
    drop(filled(pg, ServiceConfig::default()).await);
    let again = rearview_store_postgres::PgStore::connect(&config).await.unwrap();
    let service = open(Arc::new(again), ServiceConfig::default()).await;
    let stats = service.stats().await.unwrap();
    assert_eq!(stats.indexed_vectors, 0, "vectors stay in the store");
    assert_eq!(stats.indexes.namespaces, 1, "the namespace's keywords loaded at start");
    ranks_alike(&service).await;
}

/// PostgreSQL with the keyword indexes in memory (the CLI's default, `index_memory = auto`):
/// vectors from pgvector, BM25 from this process, the same answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keywords_in_memory_over_postgres_rank_as_recall_in_memory() {
    let Some((pg, _)) = postgres().await else {
        return;
    };
    let service = filled(pg, keywords_in_memory()).await;
    let stats = service.stats().await.unwrap();
    assert_eq!(stats.indexed_vectors, 0, "vectors stay in the store");
    assert_eq!(stats.indexes.namespaces, 1, "the namespace's keywords are in memory");
    ranks_alike(&service).await;
}

/// Another server's writes reach a server's in-memory keyword index through the change log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keywords_in_memory_over_postgres_follow_other_servers() {
    let Some((pg, config)) = postgres().await else {
        return;
    };
    let reader = filled(pg, keywords_in_memory()).await;
    let other = rearview_store_postgres::PgStore::connect(&config).await.unwrap();
    let writer = open(Arc::new(other), keywords_in_memory()).await;
    let ns: Namespace = "a".parse().unwrap();
    // Keywords alone: pgvector would find the new memory at once without any following.
    let keyword_only = |q: &str| RecallRequest {
        ranking: Some(rearview_ranking::RankingConfig {
            vector_candidates: 0,
            ..rearview_ranking::RankingConfig::default()
        }),
        record_access: false,
        ..RecallRequest::new(q)
    };
    let text = "the Zephyr cluster runs in Frankfurt";
    writer.remember(&ns, RememberRequest::new(text)).await.unwrap();
    let before = reader.recall(&ns, keyword_only("Zephyr Frankfurt")).await.unwrap().hits;
    assert!(!before.iter().any(|h| h.memory.content == text), "not followed yet");
    reader.follow_changes().await.unwrap();
    let hits = reader.recall(&ns, keyword_only("Zephyr Frankfurt")).await.unwrap().hits;
    assert_eq!(hits.first().map(|h| h.memory.content.as_str()), Some(text));
}

/// `service` answers every query as the same memories in SQLite with everything in memory do.
async fn ranks_alike(service: &MemoryService) {
    let in_memory =
        filled(Arc::new(SqliteStore::in_memory().unwrap()), ServiceConfig::default()).await;
    let in_store = service;
    let ns: Namespace = "a".parse().unwrap();
    for query in QUERIES {
        // No access counting: heat written in the background could differ between the two.
        let ask = || RecallRequest {
            top_k: 5,
            explain: true,
            record_access: false,
            ..RecallRequest::new(*query)
        };
        let want = in_memory.recall(&ns, ask()).await.unwrap();
        let got = in_store.recall(&ns, ask()).await.unwrap();
        let contents = |r: &rearview_service::RecallResponse| {
            r.hits.iter().map(|h| h.memory.content.clone()).collect::<Vec<_>>()
        };
        // The same scores rank by rank, and the same memory wherever its score is not tied to
        // rounding with a neighbour's or with the first one left out (the last rank). Stored
        // vectors are half precision, unit length to within 2⁻¹¹: pgvector divides by the norm,
        // the scan in memory takes the dot product, so a cosine may differ by up to 5e-4.
        const ROUNDING: f32 = 5e-4;
        for (i, (g, w)) in got.hits.iter().zip(&want.hits).enumerate() {
            assert!((g.score - w.score).abs() < ROUNDING, "{query}: {} vs {}", g.score, w.score);
            let near =
                |j: usize| want.hits.get(j).is_some_and(|n| (n.score - w.score).abs() < ROUNDING);
            let tied = i + 1 == want.hits.len() || near(i + 1) || (i > 0 && near(i - 1));
            assert!(
                tied || g.memory.content == w.memory.content,
                "{query}: {:?} against {:?}",
                contents(&got),
                contents(&want)
            );
        }
        assert_eq!(got.hits.len(), want.hits.len(), "{query}");
        assert_eq!(got.below_floor, want.below_floor, "{query}");
    }
}
