//! The service end to end over a real SQLite store, a deterministic test embedder and a manual
//! clock: Chinese and mixed-language recall, degraded mode and backfill, restarts, expiry, `as_of`,
//! filters, access counting under concurrency.

mod common;

use common::{Harness, ns, start};

use std::sync::Arc;

use chrono::TimeDelta;
use rearview_core::{Clock, ManualClock, MemoryFilter, MemoryType};
use rearview_embed::{Embedder, TestEmbedder};
use rearview_ranking::{Fusion, RankingConfig, TierOrder};
use rearview_service::{
    ErrorKind, KeywordSearch, MemoryService, RecallRequest, RememberRequest, ServiceConfig,
    UpdateRequest, VectorSearch,
};
use rearview_store::MemoryStore;
use rearview_store_sqlite::{SqliteConfig, SqliteStore};

async fn harness_with(store: Arc<dyn MemoryStore>, embedder: Option<Arc<dyn Embedder>>) -> Harness {
    Harness::open(store, embedder, ServiceConfig::default()).await
}

async fn harness() -> Harness {
    let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::in_memory().unwrap());
    harness_with(store, Some(Arc::new(TestEmbedder::new(64)))).await
}

async fn remember(h: &Harness, namespace: &str, content: &str) -> rearview_core::MemoryId {
    h.service.remember(&ns(namespace), RememberRequest::new(content)).await.unwrap().memory.id
}

async fn recall_ids(h: &Harness, namespace: &str, query: &str) -> Vec<rearview_core::MemoryId> {
    let r = h.service.recall(&ns(namespace), RecallRequest::new(query)).await.unwrap();
    r.hits.iter().map(|hit| hit.memory.id).collect()
}

async fn keyword_only_ids(
    h: &Harness,
    namespace: &str,
    query: &str,
) -> Vec<rearview_core::MemoryId> {
    let ranking = RankingConfig {
        vector_candidates: 0,
        fusion: Fusion::Weighted { vector: 0.0, keyword: 1.0, bm25_saturation: 10.0 },
        ..Default::default()
    };
    let request = RecallRequest { ranking: Some(ranking), ..RecallRequest::new(query) };
    let r = h.service.recall(&ns(namespace), request).await.unwrap();
    r.hits.iter().map(|hit| hit.memory.id).collect()
}

const DISTRACTORS: &[&str] = &[
    "我今天早上喝了一杯咖啡",
    "明天要去北京出差",
    "The user prefers dark themes in every editor",
    "数据库从 MySQL 迁移到 PostgreSQL",
    "周末和朋友一起看电影",
    "likes green tea",
];

#[tokio::test]
async fn chinese_word_finds_the_sentence_containing_it() {
    let h = harness().await;
    for d in DISTRACTORS {
        remember(&h, "zh", d).await;
    }
    let hiking = remember(&h, "zh", "我喜欢在周末去香山爬山").await;
    assert_eq!(keyword_only_ids(&h, "zh", "爬山").await.first(), Some(&hiking));
    assert_eq!(recall_ids(&h, "zh", "爬山").await.first(), Some(&hiking));
}

#[tokio::test]
async fn port_number_query_finds_the_memory_holding_it() {
    let h = harness().await;
    for d in DISTRACTORS {
        remember(&h, "ops", d).await;
    }
    remember(&h, "ops", "服务端口是 9000").await;
    let port = remember(&h, "ops", "MCP 服务监听在端口 8765").await;
    assert_eq!(keyword_only_ids(&h, "ops", "端口 8765").await.first(), Some(&port));
    assert_eq!(recall_ids(&h, "ops", "端口 8765").await.first(), Some(&port));
}

#[tokio::test]
async fn mixed_language_text_is_searchable_by_either_language() {
    let h = harness().await;
    for d in DISTRACTORS {
        remember(&h, "mix", d).await;
    }
    let m = remember(&h, "mix", "用户的 GitHub 账号是 octocat，偏好用 Rust 写后端").await;
    assert_eq!(keyword_only_ids(&h, "mix", "github").await.first(), Some(&m));
    assert_eq!(keyword_only_ids(&h, "mix", "后端用什么语言").await.first(), Some(&m));
    assert_eq!(keyword_only_ids(&h, "mix", "Rust").await.first(), Some(&m));
}

#[tokio::test]
async fn recall_uses_vectors_and_explains_every_signal() {
    let h = harness().await;
    remember(&h, "a", "likes green tea").await;
    let request = RecallRequest { explain: true, ..RecallRequest::new("green tea") };
    let r = h.service.recall(&ns("a"), request).await.unwrap();
    assert_eq!(r.vector_search, VectorSearch::Used { model_id: "test-hash-64".into() });
    let e = r.hits[0].explanation.as_ref().expect("explanation requested");
    let relevance = &e.details[0];
    assert!(relevance.details[0].value > 0.5, "cosine signal present: {e:#?}");
    assert!(relevance.details[1].value > 0.0, "bm25 signal present: {e:#?}");
    assert_eq!(e.value, r.hits[0].score);
}

/// The vector signal's explanation of a hit: the first detail of its relevance.
fn vector_signal(hit: &rearview_service::RecallHit) -> String {
    let e = hit.explanation.as_ref().expect("explanation requested");
    e.details[0].details[0].description.clone()
}

/// The cosine a hit's explanation reports (`(cos 0.1234 − …`).
fn reported_cosine(hit: &rearview_service::RecallHit) -> f32 {
    let signal = vector_signal(hit);
    let after = signal.split("(cos ").nth(1).unwrap_or_else(|| panic!("no cosine in {signal}"));
    after.split_whitespace().next().unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_dialogue_is_ranked_again_toward_its_best_memory_and_a_question_is_not() {
    let h = harness().await;
    remember(&h, "a", "We went hiking on Mount Tai last autumn").await;
    remember(&h, "a", "The office printer is out of toner").await;
    remember(&h, "a", "Tom bought boots for Mount Tai last autumn").await;
    let dialogue =
        "user: hi\nassistant: hello, how was the weekend?\nuser: remember our hiking trip?";
    let ask = |query: &str, feedback: bool| {
        let mut ranking = RankingConfig::default();
        if !feedback {
            ranking.feedback = None;
        }
        RecallRequest { explain: true, ranking: Some(ranking), ..RecallRequest::new(query) }
    };
    let with = h.service.recall(&ns("a"), ask(dialogue, true)).await.unwrap();
    let without = h.service.recall(&ns("a"), ask(dialogue, false)).await.unwrap();
    assert_eq!(with.hits[0].memory.content, "We went hiking on Mount Tai last autumn");
    let best = with.hits[0].memory.id.to_string();
    for hit in &with.hits {
        let signal = vector_signal(hit);
        assert!(
            signal.contains(&format!("feedback: cos against the query moved toward {best}")),
            "{signal}"
        );
    }
    // Boots share `Mount Tai` with the hike, not with the question: moving the query toward the
    // hike brings them nearer.
    let boots = |r: &rearview_service::RecallResponse| {
        let hit = r.hits.iter().find(|h| h.memory.content.starts_with("Tom bought")).unwrap();
        reported_cosine(hit)
    };
    assert!(boots(&with) > boots(&without) + 0.05, "{} vs {}", boots(&with), boots(&without));
    assert!(without.hits.iter().all(|hit| !vector_signal(hit).contains("feedback")));
    // A question is left alone by the default.
    let question =
        RecallRequest { explain: true, ..RecallRequest::new("remember our hiking trip?") };
    let r = h.service.recall(&ns("a"), question).await.unwrap();
    assert_eq!(r.hits[0].memory.content, "We went hiking on Mount Tai last autumn");
    assert!(
        r.hits.iter().all(|hit| !vector_signal(hit).contains("feedback")),
        "a question is not moved"
    );
}

#[tokio::test]
async fn namespaces_never_see_each_other() {
    let h = harness().await;
    remember(&h, "alice", "alice's locker code is 4711").await;
    assert!(recall_ids(&h, "bob", "locker code 4711").await.is_empty());
    assert_eq!(recall_ids(&h, "alice", "locker code 4711").await.len(), 1);
}

#[tokio::test]
async fn memories_survive_a_restart_with_their_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let config = SqliteConfig::new(dir.path().join("r.db"));
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(64));
    let id = {
        let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::open(&config).unwrap());
        let h = harness_with(store, Some(Arc::clone(&embedder))).await;
        remember(&h, "a", "我喜欢在周末去香山爬山").await
    };
    let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::open(&config).unwrap());
    let h = harness_with(store, Some(embedder)).await;
    let stats = h.service.stats().await.unwrap();
    assert_eq!((stats.indexed_vectors, stats.pending_embeddings), (1, 0));
    let request = RecallRequest { explain: true, ..RecallRequest::new("香山") };
    let r = h.service.recall(&ns("a"), request).await.unwrap();
    assert_eq!(r.hits[0].memory.id, id);
    let cosine = r.hits[0].explanation.as_ref().unwrap().details[0].details[0].value;
    assert!(cosine > 0.0, "the vector came back from disk");
}

/// Stored vectors are half precision; what a server ranks by before a restart (the vectors it
/// just embedded) must be what it ranks by after (the vectors read back): the same scores, bit
/// for bit, in the same order.
#[tokio::test]
async fn recall_scores_are_the_same_bits_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = SqliteConfig::new(dir.path().join("r.db"));
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(384));
    let texts = [
        "我喜欢在周末去香山爬山",
        "the staging database listens on port 5433",
        "Redis 端口是 6380",
        "每天早上八点备份数据库",
        "alice prefers the dark theme in every editor",
    ];
    let queries = ["爬山", "database port", "Redis 端口", "备份时间", "theme"];
    let scores = |h: &Harness| {
        let service = Arc::clone(&h.service);
        async move {
            let mut all = Vec::new();
            for query in queries {
                let request = RecallRequest { record_access: false, ..RecallRequest::new(query) };
                let r = service.recall(&ns("a"), request).await.unwrap();
                all.push(
                    r.hits.iter().map(|h| (h.memory.id, h.score.to_bits())).collect::<Vec<_>>(),
                );
            }
            all
        }
    };
    let before = {
        let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::open(&config).unwrap());
        let h = harness_with(store, Some(Arc::clone(&embedder))).await;
        for text in texts {
            remember(&h, "a", text).await;
        }
        scores(&h).await
    };
    let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::open(&config).unwrap());
    let h = harness_with(store, Some(embedder)).await;
    assert_eq!(scores(&h).await, before);
}

#[tokio::test]
async fn without_a_working_model_memories_are_keyword_searchable_then_backfilled() {
    let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::in_memory().unwrap());
    let broken: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(64).failing());
    let h = harness_with(Arc::clone(&store), Some(broken)).await;
    let id = remember(&h, "a", "数据库从 MySQL 迁移到 PostgreSQL").await;
    let r = h.service.recall(&ns("a"), RecallRequest::new("PostgreSQL")).await.unwrap();
    assert!(matches!(r.vector_search, VectorSearch::Failed { .. }));
    assert_eq!(r.hits[0].memory.id, id, "keyword-searchable at once");
    assert_eq!(h.service.stats().await.unwrap().pending_embeddings, 1);

    let none = harness_with(Arc::clone(&store), None).await;
    assert_eq!(none.service.backfill_embeddings(10).await.unwrap(), 0, "no model, nothing to do");

    let fixed = harness_with(store, Some(Arc::new(TestEmbedder::new(64)))).await;
    assert_eq!(fixed.service.backfill_embeddings(10).await.unwrap(), 1);
    assert_eq!(fixed.service.backfill_embeddings(10).await.unwrap(), 0);
    let stats = fixed.service.stats().await.unwrap();
    assert_eq!((stats.pending_embeddings, stats.indexed_vectors), (0, 1));
    assert_eq!(recall_ids(&fixed, "a", "postgresql").await, vec![id]);
}

#[tokio::test]
async fn vectors_of_another_model_are_never_compared() {
    let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::in_memory().unwrap());
    let a = harness_with(Arc::clone(&store), Some(Arc::new(TestEmbedder::new(64)))).await;
    remember(&a, "x", "likes green tea").await;
    let other: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(64).with_model_id("other-model"));
    let b = harness_with(store, Some(other)).await;
    let stats = b.service.stats().await.unwrap();
    assert_eq!((stats.indexed_vectors, stats.pending_embeddings), (0, 1));
    let request = RecallRequest { explain: true, ..RecallRequest::new("green tea") };
    let r = b.service.recall(&ns("x"), request).await.unwrap();
    let cos = &r.hits[0].explanation.as_ref().unwrap().details[0].details[0];
    assert_eq!(cos.value, 0.0);
    assert!(cos.description.contains("no vector"), "{}", cos.description);
}

#[tokio::test]
async fn a_model_attached_at_run_time_serves_recall_after_backfill() {
    // A server starts keyword-only while its model downloads, then attaches it.
    let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::in_memory().unwrap());
    let first = harness_with(Arc::clone(&store), Some(Arc::new(TestEmbedder::new(64)))).await;
    let old = remember(&first, "a", "likes green tea").await;
    let h = harness_with(store, None).await;
    let id = remember(&h, "a", "数据库从 MySQL 迁移到 PostgreSQL").await;
    let r = h.service.recall(&ns("a"), RecallRequest::new("PostgreSQL")).await.unwrap();
    assert!(matches!(r.vector_search, VectorSearch::NoModel));

    h.service.attach_embedder(Arc::new(TestEmbedder::new(64))).await.unwrap();
    let stats = h.service.stats().await.unwrap();
    assert_eq!((stats.indexed_vectors, stats.pending_embeddings), (1, 1), "stored vectors loaded");
    assert_eq!(h.service.backfill_embeddings(10).await.unwrap(), 1);
    let r = h.service.recall(&ns("a"), RecallRequest::new("PostgreSQL")).await.unwrap();
    assert!(matches!(r.vector_search, VectorSearch::Used { .. }));
    assert_eq!(r.hits[0].memory.id, id);
    assert!(recall_ids(&h, "a", "green tea").await.contains(&old));

    // Swapping to another model drops the first model's vectors from the index.
    let other: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(32).with_model_id("other-model"));
    h.service.attach_embedder(other).await.unwrap();
    let stats = h.service.stats().await.unwrap();
    assert_eq!((stats.indexed_vectors, stats.pending_embeddings), (0, 2));
}

#[tokio::test]
async fn several_models_side_by_side_each_in_its_own_space() {
    // Design §3.2: every memory embedded by each model, vectors kept per model, a query served
    // by all (merged) or by the ones it names.
    let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::in_memory().unwrap());
    let fast: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(64).with_model_id("fast"));
    let precise: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(32).with_model_id("precise"));
    let h = harness_with(Arc::clone(&store), Some(Arc::clone(&fast))).await;
    let old = remember(&h, "a", "likes green tea").await;
    h.service.attach_embedders(vec![Arc::clone(&fast), Arc::clone(&precise)]).await.unwrap();
    let stats = h.service.stats().await.unwrap();
    assert_eq!(stats.models.len(), 2);
    assert_eq!((stats.indexed_vectors, stats.pending_embeddings), (1, 1), "precise lacks one");
    assert_eq!(h.service.backfill_embeddings(10).await.unwrap(), 1);
    let id = remember(&h, "a", "数据库从 MySQL 迁移到 PostgreSQL").await;
    let stats = h.service.stats().await.unwrap();
    assert_eq!(
        (stats.indexed_vectors, stats.pending_embeddings),
        (4, 0),
        "two memories × two models"
    );

    let r = h.service.recall(&ns("a"), RecallRequest::new("PostgreSQL")).await.unwrap();
    assert!(
        matches!(&r.vector_search, VectorSearch::Used { model_id } if model_id == "fast + precise"),
        "{:?}",
        r.vector_search
    );
    assert_eq!(r.hits[0].memory.id, id);
    let only =
        RecallRequest { models: Some(vec!["precise".into()]), ..RecallRequest::new("green tea") };
    let r = h.service.recall(&ns("a"), only).await.unwrap();
    assert!(matches!(&r.vector_search, VectorSearch::Used { model_id } if model_id == "precise"));
    assert_eq!(r.hits[0].memory.id, old);
    let unknown = RecallRequest { models: Some(vec!["huge".into()]), ..RecallRequest::new("tea") };
    let err = h.service.recall(&ns("a"), unknown).await.unwrap_err().to_string();
    assert!(err.contains("models") && err.contains("fast, precise"), "{err}");

    // Content changes re-embed with every model; a model listed twice is refused.
    h.service
        .update(
            &ns("a"),
            old,
            UpdateRequest { content: Some("likes oolong tea".into()), ..Default::default() },
        )
        .await
        .unwrap();
    assert_eq!(h.service.stats().await.unwrap().pending_embeddings, 0);
    let twice = h.service.attach_embedders(vec![Arc::clone(&fast), fast]).await.unwrap_err();
    assert!(twice.to_string().contains("twice"), "{twice}");
}

#[tokio::test]
async fn working_memory_expires_after_its_tier_ttl_exactly() {
    let h = harness().await;
    let request = RememberRequest {
        memory_type: Some(MemoryType::Working),
        ..RememberRequest::new("scratch note 42")
    };
    let m = h.service.remember(&ns("a"), request).await.unwrap().memory;
    assert_eq!(m.expires_at, Some(start() + TimeDelta::hours(1)));
    h.clock.advance(TimeDelta::hours(1) - TimeDelta::microseconds(1));
    assert_eq!(recall_ids(&h, "a", "scratch note").await, vec![m.id]);
    h.service.get(&ns("a"), m.id).await.unwrap();
    h.clock.advance(TimeDelta::microseconds(1));
    assert!(recall_ids(&h, "a", "scratch note").await.is_empty());
    let err = h.service.get(&ns("a"), m.id).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
}

#[tokio::test]
async fn cleanup_deletes_exactly_the_expired_and_unindexes_them() {
    let h = harness().await;
    let working = RememberRequest {
        memory_type: Some(MemoryType::Working),
        ..RememberRequest::new("scratch port 8080")
    };
    let scratch_a = h.service.remember(&ns("a"), working.clone()).await.unwrap().memory;
    let scratch_b = h.service.remember(&ns("b"), working).await.unwrap().memory;
    let keep = remember(&h, "a", "the api listens on port 8080").await;
    assert_eq!(h.service.stats().await.unwrap().indexed_vectors, 3);

    h.clock.advance(TimeDelta::hours(1) - TimeDelta::microseconds(1));
    assert_eq!(h.service.cleanup_expired(None).await.unwrap(), 0, "one microsecond early");
    h.clock.advance(TimeDelta::microseconds(1));
    assert_eq!(h.service.cleanup_expired(Some(&ns("a"))).await.unwrap(), 1, "only namespace a");
    assert_eq!(h.service.stats().await.unwrap().indexed_vectors, 2, "its vector left the index");
    assert_eq!(recall_ids(&h, "a", "port 8080").await, vec![keep]);
    assert_eq!(h.service.cleanup_expired(None).await.unwrap(), 1, "then b's");
    assert_eq!(h.service.cleanup_expired(None).await.unwrap(), 0, "idempotent");
    for (namespace, id) in [("a", scratch_a.id), ("b", scratch_b.id)] {
        assert_eq!(
            h.service.get(&ns(namespace), id).await.unwrap_err().kind(),
            ErrorKind::NotFound
        );
    }
    let stats = h.service.stats().await.unwrap();
    let total: u64 = stats.store.tiers.iter().map(|t| t.live + t.archived + t.expired).sum();
    assert_eq!((total, stats.indexed_vectors), (1, 1), "rows and vectors gone, the rest kept");
}

#[tokio::test]
async fn tier_ttls_and_explicit_ttl() {
    let h = harness().await;
    let tiers = [(MemoryType::Episodic, Some(TimeDelta::days(30))), (MemoryType::Semantic, None)];
    for (tier, ttl) in tiers {
        let req = RememberRequest { memory_type: Some(tier), ..RememberRequest::new("x") };
        let m = h.service.remember(&ns("a"), req).await.unwrap().memory;
        assert_eq!(m.expires_at, ttl.map(|d| start() + d), "{tier}");
    }
    let forever = RememberRequest {
        memory_type: Some(MemoryType::Working),
        ttl_secs: Some(0),
        ..RememberRequest::new("x")
    };
    assert_eq!(h.service.remember(&ns("a"), forever).await.unwrap().memory.expires_at, None);
}

#[tokio::test]
async fn as_of_replays_the_past() {
    let h = harness().await;
    let old_time = start() - TimeDelta::days(400);
    let old = RememberRequest {
        occurred_at: Some(old_time),
        ..RememberRequest::new("moved to Lisbon in 2023")
    };
    let old = h.service.remember(&ns("a"), old).await.unwrap().memory;
    let later = RememberRequest {
        occurred_at: Some(start() - TimeDelta::days(10)),
        ..RememberRequest::new("moved to Porto from Lisbon")
    };
    let later = h.service.remember(&ns("a"), later).await.unwrap().memory;

    let at_the_time = RecallRequest {
        as_of: Some(old_time + TimeDelta::days(1)),
        explain: true,
        ..RecallRequest::new("Lisbon")
    };
    let r = h.service.recall(&ns("a"), at_the_time).await.unwrap();
    assert_eq!(
        r.hits.iter().map(|x| x.memory.id).collect::<Vec<_>>(),
        vec![old.id],
        "later events hidden"
    );
    let recency = r.hits[0].explanation.as_ref().unwrap().details[1].value;
    let expected = 1.0 + 0.05 * (-1.0f32 / 30.0).exp2();
    assert!((recency - expected).abs() < 1e-4, "recency measured from as_of: {recency}");

    let today = h.service.recall(&ns("a"), RecallRequest::new("Lisbon")).await.unwrap();
    assert_eq!(today.hits[0].memory.id, later.id, "recent memory wins on decay");
}

#[tokio::test]
async fn filters_and_tier_priority() {
    let h = harness().await;
    let mk =
        |content: &str, tier: MemoryType, session: Option<&str>, tags: &[&str]| RememberRequest {
            memory_type: Some(tier),
            session_id: session.map(str::to_owned),
            metadata: Some(serde_json::json!({ "tags": tags })),
            ..RememberRequest::new(content)
        };
    let w = h
        .service
        .remember(
            &ns("a"),
            mk("tea tea tea in working memory", MemoryType::Working, Some("s1"), &["drink"]),
        )
        .await
        .unwrap()
        .memory;
    let s = h
        .service
        .remember(&ns("a"), mk("prefers tea", MemoryType::Semantic, None, &["pref"]))
        .await
        .unwrap()
        .memory;
    let e = h
        .service
        .remember(
            &ns("a"),
            mk("drank tea yesterday", MemoryType::Episodic, Some("s2"), &["drink", "pref"]),
        )
        .await
        .unwrap()
        .memory;

    let with =
        |filter: MemoryFilter| RecallRequest { filter, top_k: 10, ..RecallRequest::new("tea") };
    let ids = |r: rearview_service::RecallResponse| {
        r.hits.into_iter().map(|x| x.memory.id).collect::<Vec<_>>()
    };
    let only_semantic =
        MemoryFilter { memory_types: vec![MemoryType::Semantic], ..Default::default() };
    assert_eq!(ids(h.service.recall(&ns("a"), with(only_semantic)).await.unwrap()), vec![s.id]);
    let session = MemoryFilter { session_id: Some("s1".into()), ..Default::default() };
    assert_eq!(ids(h.service.recall(&ns("a"), with(session)).await.unwrap()), vec![w.id]);
    let tags = MemoryFilter { tags: vec!["drink".into(), "pref".into()], ..Default::default() };
    assert_eq!(ids(h.service.recall(&ns("a"), with(tags)).await.unwrap()), vec![e.id]);
    // Tiers decide among the hits within TIER_BAND of the best score, by score after that.
    let by_score = h.service.recall(&ns("a"), with(MemoryFilter::default())).await.unwrap();
    let best = by_score.hits[0].score;
    let tier =
        |id| [(s.id, 0), (e.id, 1), (w.id, 2)].into_iter().find(|(x, _)| *x == id).unwrap().1;
    let mut expected: Vec<(u8, f32, rearview_core::MemoryId)> = by_score
        .hits
        .iter()
        .map(|x| {
            let band = x.score >= rearview_ranking::TIER_BAND * best;
            (if band { tier(x.memory.id) } else { u8::MAX }, -x.score, x.memory.id)
        })
        .collect();
    expected.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let expected: Vec<_> = expected.into_iter().map(|(_, _, id)| id).collect();
    let priority =
        RecallRequest { tier_order: TierOrder::SemanticFirst, ..with(MemoryFilter::default()) };
    assert_eq!(ids(h.service.recall(&ns("a"), priority).await.unwrap()), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_recalls_count_every_access() {
    let h = harness().await;
    let id = remember(&h, "a", "the one memory everyone recalls").await;
    let tasks: Vec<_> = (0..40)
        .map(|_| {
            let service = Arc::clone(&h.service);
            tokio::spawn(async move {
                service.recall(&ns("a"), RecallRequest::new("memory")).await.unwrap()
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    h.service.flush_access_counts().await;
    assert_eq!(h.service.get(&ns("a"), id).await.unwrap().access_count, 40);
    let quiet = RecallRequest { record_access: false, ..RecallRequest::new("memory") };
    h.service.recall(&ns("a"), quiet).await.unwrap();
    h.service.flush_access_counts().await;
    assert_eq!(h.store.get(&ns("a"), id, h.clock.now()).await.unwrap().unwrap().access_count, 40);
}

#[tokio::test]
async fn bad_input_is_refused_with_the_field_named_and_nothing_written() {
    let h = harness().await;
    let cases = [
        (RememberRequest::new("   "), "content"),
        (
            RememberRequest { metadata: Some(serde_json::json!([1])), ..RememberRequest::new("x") },
            "metadata",
        ),
        (
            RememberRequest {
                metadata: Some(serde_json::json!({"tags": "x"})),
                ..RememberRequest::new("x")
            },
            "metadata.tags",
        ),
        (RememberRequest { ttl_secs: Some(-1), ..RememberRequest::new("x") }, "ttl"),
        (RememberRequest::new("长".repeat(40_000)), "content"),
        // NUL is not text (and PostgreSQL refuses it): named, not a 500 from the store.
        (RememberRequest::new("a\u{0}b"), "content"),
        (
            RememberRequest {
                metadata: Some(serde_json::json!({"note": {"deep": ["x\u{0}"]}})),
                ..RememberRequest::new("x")
            },
            "metadata",
        ),
        (
            RememberRequest { session_id: Some("s\u{0}".into()), ..RememberRequest::new("x") },
            "session_id",
        ),
    ];
    for (request, field) in cases {
        let err = h.service.remember(&ns("a"), request).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.to_string().starts_with(&format!("invalid {field}:")), "{err}");
    }
    for (top_k, query) in [(0, "x"), (101, "x"), (5, " ")] {
        let request = RecallRequest { top_k, ..RecallRequest::new(query) };
        assert_eq!(
            h.service.recall(&ns("a"), request).await.unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
    }
    assert!(h.service.stats().await.unwrap().store.tiers.is_empty(), "nothing was written");
}

#[tokio::test]
async fn forget_removes_from_recall_and_reports_missing() {
    let h = harness().await;
    let id = remember(&h, "a", "temporary secret 99").await;
    h.service.forget(&ns("a"), id).await.unwrap();
    assert!(recall_ids(&h, "a", "secret 99").await.is_empty());
    assert_eq!(h.service.stats().await.unwrap().indexed_vectors, 0);
    assert_eq!(h.service.forget(&ns("a"), id).await.unwrap_err().kind(), ErrorKind::NotFound);
}

#[tokio::test]
async fn in_memory_bm25_ranks_and_scores_like_sqlite_fts5() {
    let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::in_memory().unwrap());
    let clock: Arc<dyn Clock> = Arc::new(ManualClock::new(start()));
    let open = |mode| {
        let config = ServiceConfig { keyword_search: mode, ..ServiceConfig::default() };
        MemoryService::open(Arc::clone(&store), None, Arc::clone(&clock), config)
    };
    let writer = open(KeywordSearch::InMemory).await.unwrap();
    let texts = [
        "我喜欢在周末去香山爬山",
        "周末和朋友一起看电影",
        "The MCP server listens on port 8765",
        "服务端口是 9000",
        "port forwarding on the router",
        "爬山 爬山 还是 爬山",
        "likes green tea",
        "数据库从 MySQL 迁移到 PostgreSQL",
        "the the the database",
        "明天要去北京出差",
    ];
    for t in texts {
        writer.remember(&ns("a"), RememberRequest::new(t)).await.unwrap();
    }
    let in_memory = open(KeywordSearch::InMemory).await.unwrap();
    let fts = open(KeywordSearch::Store).await.unwrap();
    for query in ["爬山", "周末 爬山", "port 8765", "the database", "北京", "nothing matches"]
    {
        let ranking = RankingConfig { vector_candidates: 0, ..Default::default() };
        let request = RecallRequest {
            top_k: 10,
            record_access: false,
            explain: true,
            ranking: Some(ranking),
            ..RecallRequest::new(query)
        };
        let a = in_memory.recall(&ns("a"), request.clone()).await.unwrap();
        let b = fts.recall(&ns("a"), request).await.unwrap();
        let bm25 = |r: &rearview_service::RecallResponse| -> Vec<(rearview_core::MemoryId, f32)> {
            r.hits
                .iter()
                .map(|h| (h.memory.id, h.explanation.as_ref().unwrap().details[0].details[1].value))
                .collect()
        };
        let (a, b) = (bm25(&a), bm25(&b));
        assert_eq!(
            a.iter().map(|x| x.0).collect::<Vec<_>>(),
            b.iter().map(|x| x.0).collect::<Vec<_>>(),
            "{query}"
        );
        for ((_, x), (_, y)) in a.iter().zip(&b) {
            assert!((x - y).abs() <= 1e-4 * y.abs().max(1.0), "{query}: {x} vs {y}");
        }
    }
}

#[tokio::test]
async fn a_database_refuses_a_different_tokenizer() {
    let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::in_memory().unwrap());
    let clock: Arc<dyn Clock> = Arc::new(ManualClock::new(start()));
    let open = |tokenizer| {
        let config = ServiceConfig { tokenizer, ..ServiceConfig::default() };
        MemoryService::open(Arc::clone(&store), None, Arc::clone(&clock), config)
    };
    open(rearview_language::Tokenizer::CjkBigram).await.unwrap();
    open(rearview_language::Tokenizer::CjkBigram).await.unwrap();
    let err = open(rearview_language::Tokenizer::Jieba).await.unwrap_err();
    assert!(err.to_string().contains(rearview_language::Tokenizer::CjkBigram.id()), "{err}");
}

#[tokio::test]
async fn update_corrects_a_wrong_fact_everywhere() {
    let h = harness().await;
    let id = remember(&h, "a", "the staging server listens on port 8080").await;
    remember(&h, "a", "likes green tea").await;
    let fix = rearview_service::UpdateRequest {
        content: Some("the staging server listens on port 9090".into()),
        metadata: Some(serde_json::json!({"tags": ["ops"], "source": "correction"})),
        memory_type: Some(MemoryType::Semantic),
        ..Default::default()
    };
    let before = h.service.get(&ns("a"), id).await.unwrap();
    let updated = h.service.update(&ns("a"), id, fix).await.unwrap();
    assert_eq!(updated.content, "the staging server listens on port 9090");
    assert_eq!(updated.memory_type, MemoryType::Semantic);
    assert_eq!(updated.expires_at, before.expires_at, "no ttl given: the old expiry stays");
    assert_eq!((updated.id, updated.timestamp), (before.id, before.timestamp));

    // The old text lives on only as history: a search for it is answered by the corrected
    // memory, which no longer holds the old keywords itself.
    assert_eq!(keyword_only_ids(&h, "a", "8080").await, vec![id]);
    let history_off = RankingConfig {
        vector_candidates: 0,
        fusion: Fusion::Weighted { vector: 0.0, keyword: 1.0, bm25_saturation: 10.0 },
        answer_history: false,
        feedback: None,
        ..Default::default()
    };
    let plain = RecallRequest { ranking: Some(history_off), ..RecallRequest::new("8080") };
    assert!(
        h.service.recall(&ns("a"), plain).await.unwrap().hits.is_empty(),
        "old keywords are gone"
    );
    assert_eq!(keyword_only_ids(&h, "a", "9090").await, vec![id]);
    let ops = MemoryFilter {
        tags: vec!["ops".into()],
        memory_types: vec![MemoryType::Semantic],
        ..Default::default()
    };
    let request =
        RecallRequest { filter: ops, explain: true, ..RecallRequest::new("staging server") };
    let r = h.service.recall(&ns("a"), request).await.unwrap();
    assert_eq!(r.hits.len(), 1, "index facets follow the new tags and tier");
    let cos = r.hits[0].explanation.as_ref().unwrap().details[0].details[0].value;
    assert!(cos > 0.3, "re-embedded: the vector matches the new text ({cos})");
    let stats = h.service.stats().await.unwrap();
    // The earlier text is kept as history (superseded, hidden above) with its vector.
    assert_eq!((stats.indexed_vectors, stats.pending_embeddings), (3, 0));
    let history = h.service.history(&ns("a"), id).await.unwrap();
    assert_eq!(history[0].content, "the staging server listens on port 8080");
}

#[tokio::test]
async fn update_ttl_counts_from_now_and_errors_name_the_field() {
    let h = harness().await;
    let id = remember(&h, "a", "temporary note").await;
    h.clock.advance(TimeDelta::hours(5));
    let ttl = rearview_service::UpdateRequest { ttl_secs: Some(60), ..Default::default() };
    let m = h.service.update(&ns("a"), id, ttl).await.unwrap();
    assert_eq!(m.expires_at, Some(start() + TimeDelta::hours(5) + TimeDelta::seconds(60)));
    h.clock.advance(TimeDelta::seconds(60));
    assert_eq!(h.service.get(&ns("a"), id).await.unwrap_err().kind(), ErrorKind::NotFound);

    let other = remember(&h, "a", "kept").await;
    let cases = [
        (rearview_service::UpdateRequest::default(), "update"),
        (
            rearview_service::UpdateRequest { content: Some(" ".into()), ..Default::default() },
            "content",
        ),
        (rearview_service::UpdateRequest { ttl_secs: Some(-2), ..Default::default() }, "ttl"),
        (
            rearview_service::UpdateRequest {
                metadata: Some(serde_json::json!("x")),
                ..Default::default()
            },
            "metadata",
        ),
    ];
    for (request, field) in cases {
        let err = h.service.update(&ns("a"), other, request).await.unwrap_err();
        assert!(err.to_string().starts_with(&format!("invalid {field}:")), "{err}");
    }
    assert_eq!(h.service.get(&ns("a"), other).await.unwrap().content, "kept");
    let missing =
        rearview_service::UpdateRequest { content: Some("x".into()), ..Default::default() };
    assert_eq!(
        h.service.update(&ns("b"), other, missing).await.unwrap_err().kind(),
        ErrorKind::NotFound
    );
}

#[tokio::test]
async fn the_relevance_floor_leaves_out_what_is_unrelated_and_says_how_many() {
    let h = harness().await;
    let port = remember(&h, "a", "MCP server listens on port 8765").await;
    remember(&h, "a", "prefers green tea in the morning").await;
    remember(&h, "a", "the deployment failed because the disk was full").await;
    // The test embedder has no calibrated floor: everything comes back by default.
    let all = RecallRequest { top_k: 10, ..RecallRequest::new("MCP server listens on port 8765") };
    let r = h.service.recall(&ns("a"), all.clone()).await.unwrap();
    assert_eq!((r.hits.len(), r.below_floor), (3, 0));
    // The same text has cosine 1; the others are far below 0.99, and hold none of its rare
    // keywords.
    let strict = RecallRequest { min_relevance: Some(0.99), ..all.clone() };
    let r = h.service.recall(&ns("a"), strict).await.unwrap();
    assert_eq!(r.hits.iter().map(|x| x.memory.id).collect::<Vec<_>>(), vec![port]);
    assert_eq!(r.below_floor, 2);
    let out_of_range = RecallRequest { min_relevance: Some(1.5), ..all };
    let err = h.service.recall(&ns("a"), out_of_range).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("min_relevance"), "{err}");
}

#[tokio::test]
async fn a_token_budget_keeps_the_best_that_fit_and_shows_a_long_memory_by_its_summary() {
    let h = harness().await;
    let long: String =
        (0..40).map(|i| format!("第{i}天我们讨论了香山爬山的路线和装备。")).collect();
    let long_id = remember(&h, "a", &long).await;
    let short_id = remember(&h, "a", "周末去香山爬山").await;
    let ask = |max_tokens| RecallRequest {
        top_k: 10,
        max_tokens: Some(max_tokens),
        record_access: false,
        ..RecallRequest::new("香山爬山")
    };
    let full = rearview_service::estimate_tokens(&long);
    let r = h.service.recall(&ns("a"), ask(full + 50)).await.unwrap();
    assert_eq!(r.hits.len(), 2);
    assert!(r.hits.iter().all(|x| x.shown == rearview_service::Shown::Content));

    // Room for the short memory and the long one's summary, not its whole text.
    let r = h.service.recall(&ns("a"), ask(230)).await.unwrap();
    let long_hit = r.hits.iter().find(|x| x.memory.id == long_id).expect("long memory kept");
    assert_eq!(long_hit.shown, rearview_service::Shown::Summary);
    assert_eq!(Some(long_hit.text()), long_hit.memory.summary.as_deref());
    assert!(r.hits.iter().any(|x| x.memory.id == short_id));
    let used: usize = r.hits.iter().map(|x| rearview_service::estimate_tokens(x.text())).sum();
    assert!(used <= 230, "{used} tokens");

    // Room for the short one only.
    let r = h.service.recall(&ns("a"), ask(10)).await.unwrap();
    assert_eq!(r.hits.iter().map(|x| x.memory.id).collect::<Vec<_>>(), vec![short_id]);
    assert_eq!((r.over_budget, r.budgeted), (1, true), "the long memory did not fit");
    let err = h.service.recall(&ns("a"), ask(0)).await.unwrap_err();
    assert!(err.to_string().contains("max_tokens"), "{err}");
}

#[test]
fn tokens_are_estimated_per_chinese_character_and_per_four_other_characters() {
    assert_eq!(rearview_service::estimate_tokens("端口 8765"), 2 + 2);
    assert_eq!(rearview_service::estimate_tokens("port"), 1);
    assert_eq!(rearview_service::estimate_tokens(""), 0);
}

/// Counts the query texts it is asked to embed.
struct CountingEmbedder {
    inner: TestEmbedder,
    queries: std::sync::atomic::AtomicUsize,
}

#[async_trait::async_trait]
impl Embedder for CountingEmbedder {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }

    async fn embed(
        &self,
        texts: &[String],
        kind: rearview_embed::TextKind,
    ) -> Result<Vec<rearview_core::Embedding>, rearview_embed::EmbedError> {
        if kind == rearview_embed::TextKind::Query {
            self.queries.fetch_add(texts.len(), std::sync::atomic::Ordering::SeqCst);
        }
        self.inner.embed(texts, kind).await
    }
}

#[tokio::test]
async fn a_repeated_query_reuses_its_vector() {
    let counting = Arc::new(CountingEmbedder {
        inner: TestEmbedder::new(64),
        queries: std::sync::atomic::AtomicUsize::new(0),
    });
    let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::in_memory().unwrap());
    let h = harness_with(store, Some(Arc::clone(&counting) as Arc<dyn Embedder>)).await;
    remember(&h, "a", "MCP server listens on port 8765").await;
    let queries = || counting.queries.load(std::sync::atomic::Ordering::SeqCst);
    let first = recall_ids(&h, "a", "which port").await;
    assert_eq!(queries(), 1);
    assert_eq!(recall_ids(&h, "a", "which port").await, first, "same answer from the cache");
    assert_eq!(queries(), 1, "the second recall did not run the model");
    recall_ids(&h, "a", "another question").await;
    assert_eq!(queries(), 2);
    // A dialogue embeds its whole text and its latest turn; both are cached.
    let dialogue = "user: hi\nassistant: hello\nuser: which port does MCP use?";
    recall_ids(&h, "a", dialogue).await;
    assert_eq!(queries(), 4);
    recall_ids(&h, "a", dialogue).await;
    assert_eq!(queries(), 4);
}

#[tokio::test]
async fn a_compound_question_gets_an_answer_for_each_of_its_parts() {
    let h = harness().await;
    let boss = remember(&h, "a", "我上司的工作是银行柜员。").await;
    let place = remember(&h, "a", "金融科技精英论坛的地点是北京。").await;
    for other in [
        "我的上司叫赵雅琳。",
        "我上司的手机号是13651039007。",
        "金融科技精英论坛的时间是下周六下午两点。",
        "金融科技精英论坛的规模是三千人。",
        "金融科技精英论坛的主要内容是探讨金融科技发展趋势。",
    ] {
        remember(&h, "a", other).await;
    }
    let asked =
        |query: &str| RecallRequest { top_k: 2, explain: true, ..RecallRequest::new(query) };
    let (a, b) = (ns("a"), ns("b"));
    // Joined by 另外: each part ranked on its own, their best memories first.
    let r = h.service.recall(&a, asked("上司做什么工作？另外，金融科技精英论坛的地点是什么？"));
    let r = r.await.unwrap();
    let ids: Vec<_> = r.hits.iter().map(|x| x.memory.id).collect();
    assert_eq!(ids.len(), 2);
    assert!(ids.contains(&boss) && ids.contains(&place), "{:?}", r.hits);
    let why = |id| {
        let hit = r.hits.iter().find(|x| x.memory.id == id).unwrap();
        hit.explanation.as_ref().unwrap().description.clone()
    };
    assert!(why(boss).starts_with("part 1 of 2"), "{}", why(boss));
    assert!(why(place).starts_with("part 2 of 2"), "{}", why(place));
    assert!(r.query_terms.iter().any(|t| t == "上司") && r.query_terms.iter().any(|t| t == "地点"));
    // The same in English.
    let port = remember(&h, "b", "Redis listens on port 6379").await;
    let host = remember(&h, "b", "The staging host is stg-01.internal").await;
    for other in ["Redis is used for caching", "Redis runs version 7", "Redis memory limit is 2 GB"]
    {
        remember(&h, "b", other).await;
    }
    let r = h
        .service
        .recall(&b, asked("Which port does Redis listen on? Also, what is the staging host?"));
    let hits = r.await.unwrap().hits;
    let ids: Vec<_> = hits.iter().map(|x| x.memory.id).collect();
    let texts: Vec<_> = hits.iter().map(|x| &x.memory.content).collect();
    assert!(ids.contains(&port) && ids.contains(&host), "{texts:?}");
}

#[tokio::test]
async fn the_reply_to_a_question_follows_it() {
    let h = harness().await;
    let at = |secs: i64| start() - TimeDelta::days(3) + TimeDelta::seconds(secs);
    let turn = |content: &str, secs: i64, session: &str| RememberRequest {
        occurred_at: Some(at(secs)),
        session_id: Some(session.to_owned()),
        // The question alone carries a second tag, `asked`, for the filter check below.
        metadata: Some(if secs == 0 {
            serde_json::json!({"tags": [session, "asked"]})
        } else {
            serde_json::json!({"tags": [session]})
        }),
        ..RememberRequest::new(content)
    };
    let a = ns("a");
    let mut ids = Vec::new();
    for (content, secs, session) in [
        (
            "Maria: That sunset picture is amazing! How often do you get to see sunsets like it?",
            0,
            "s1",
        ),
        // Another conversation, between the question and its reply: never s1's reply.
        ("Tom: The printer on the second floor is out of toner again.", 2, "s2"),
        ("John: Almost every evening after work, from the pier near my flat.", 5, "s1"),
        ("John: I started volunteering at the shelter last month.", 10, "s1"),
    ] {
        ids.push(h.service.remember(&a, turn(content, secs, session)).await.unwrap().memory.id);
    }
    let (question, printer, reply) = (ids[0], ids[1], ids[2]);
    let asked = RecallRequest {
        top_k: 4,
        explain: true,
        ..RecallRequest::new("How often does John see sunsets?")
    };
    let order = |hits: &[rearview_service::RecallHit]| -> Vec<_> {
        hits.iter().map(|x| x.memory.id).collect()
    };
    let r = h.service.recall(&a, asked.clone()).await.unwrap();
    let got = order(&r.hits);
    let at_question = got.iter().position(|id| *id == question).expect("the question matches");
    assert_eq!(got.get(at_question + 1), Some(&reply), "{got:?} (printer {printer})");
    let why = &r.hits[at_question + 1].explanation.as_ref().unwrap().description;
    assert!(why.starts_with(&format!("the reply to {question}")), "{why}");
    assert_eq!(r.hits[at_question + 1].score, r.hits[at_question].score);
    // Replaying the past: before the reply was given, nothing follows the question.
    let before_reply = RecallRequest { as_of: Some(at(3)), ..asked.clone() };
    let r = h.service.recall(&a, before_reply).await.unwrap();
    assert!(r.hits.iter().all(|x| x.memory.id != reply), "{:?}", r.hits);
    assert!(r.hits.iter().any(|x| x.memory.id == question));
    // The request's filter holds for the lookup too: the question has the tag asked for, its
    // reply does not.
    let tagged = MemoryFilter { tags: vec!["asked".to_owned()], ..MemoryFilter::default() };
    let only_asked = RecallRequest { filter: tagged, ..asked.clone() };
    let r = h.service.recall(&a, only_asked).await.unwrap();
    assert!(r.hits.iter().all(|x| x.memory.id != reply), "{:?}", r.hits);
    assert!(r.hits.iter().any(|x| x.memory.id == question));
    // The stage is what does it: without it the reply shares too little with the question.
    let plain = RankingConfig { replies: None, ..RankingConfig::default() };
    let r = h.service.recall(&a, RecallRequest { ranking: Some(plain), ..asked }).await.unwrap();
    let got = order(&r.hits);
    let at_question = got.iter().position(|id| *id == question).unwrap();
    assert_ne!(got.get(at_question + 1), Some(&reply), "{got:?}");
}

#[tokio::test]
async fn without_a_session_a_reply_must_be_relevant_on_its_own() {
    let h = harness().await;
    let a = ns("a");
    let note = |content: &str, secs: i64| RememberRequest {
        occurred_at: Some(start() - TimeDelta::days(1) + TimeDelta::seconds(secs)),
        ..RememberRequest::new(content)
    };
    let question = "Should we migrate the billing service to Postgres?";
    let asked = h.service.remember(&a, note(question, 0)).await.unwrap().memory.id;
    let unrelated = note("The office wifi password is hunter2.", 30);
    let unrelated = h.service.remember(&a, unrelated).await.unwrap().memory.id;
    // The same text as the question has cosine 1; the note after it is far under 0.99.
    let request =
        RecallRequest { top_k: 5, min_relevance: Some(0.99), ..RecallRequest::new(question) };
    let r = h.service.recall(&a, request).await.unwrap();
    let got: Vec<_> = r.hits.iter().map(|x| x.memory.id).collect();
    assert_eq!(got, vec![asked], "the next note is no reply without a session: {unrelated}");
}
