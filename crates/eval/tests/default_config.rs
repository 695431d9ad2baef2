//! `rearview eval`'s `default` configuration is exactly what `recall` does when a client sets no
//! option: the same service path with no ranking and no floor given. This test computes each
//! question's answer with a plain `recall` and checks that the evaluation agrees on every one,
//! while the design's formula (`hybrid`, which `recall` used to do) does not.

use std::sync::Arc;

use chrono::{DateTime, TimeDelta};
use rearview_core::{Clock, ManualClock, Namespace};
use rearview_embed::{Embedder, TestEmbedder};
use rearview_eval::{Dataset, EvalMemory, EvalQuestion, NoProgress, config};
use rearview_ranking::RankingConfig;
use rearview_service::{
    KeywordSearch, MemoryService, RecallRequest, RememberRequest, ServiceConfig,
};
use rearview_store_sqlite::SqliteStore;

const TEXTS: [&str; 12] = [
    "我喜欢在周末去香山爬山",
    "MCP 服务端口是 8765",
    "数据库用的是 PostgreSQL 16，端口 5432",
    "每天凌晨三点做一次全量备份",
    "The team standup is at 9:30 every weekday",
    "Alice's birthday is on March 3rd",
    "Bob moved from Berlin to Lisbon",
    "用户对花生过敏",
    "The staging server runs Ubuntu 24.04",
    "我每天早上喝一杯黑咖啡",
    "the deployment failed because the disk was full",
    "周末和朋友一起看电影",
];
const QUESTIONS: [&str; 10] = [
    "端口",
    "周末",
    "备份",
    "standup",
    "Berlin",
    "咖啡",
    "disk full",
    "PostgreSQL 端口",
    "用户对什么过敏？",
    "What does the user drink every morning?",
];

#[tokio::test]
async fn the_default_configuration_is_what_recall_does_with_no_options() {
    let start = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    let memories: Vec<EvalMemory> = TEXTS
        .iter()
        .enumerate()
        .map(|(i, text)| EvalMemory {
            namespace: "u".into(),
            id: format!("m{i}"),
            text: (*text).into(),
            // Months apart, so that the design's decay reorders what the default does not.
            timestamp: start + TimeDelta::days(40 * i as i64),
        })
        .collect();
    let as_of = start + TimeDelta::days(500);

    // What a plain recall answers, on a service holding the same memories.
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(64));
    let service = MemoryService::open(
        Arc::new(SqliteStore::in_memory().unwrap()),
        Some(Arc::clone(&embedder)),
        Arc::new(ManualClock::new(as_of)) as Arc<dyn Clock>,
        ServiceConfig { keyword_search: KeywordSearch::InMemory, ..ServiceConfig::default() },
    )
    .await
    .unwrap();
    let ns: Namespace = "u".parse().unwrap();
    let mut ids = std::collections::HashMap::new();
    for m in &memories {
        let request = RememberRequest {
            occurred_at: Some(m.timestamp),
            ttl_secs: Some(0),
            ..RememberRequest::new(m.text.clone())
        };
        ids.insert(service.remember(&ns, request).await.unwrap().memory.id, m.id.clone());
    }
    let mut questions = Vec::new();
    for (i, q) in QUESTIONS.iter().enumerate() {
        let request = RecallRequest {
            as_of: Some(as_of),
            record_access: false,
            top_k: 50,
            ..RecallRequest::new(*q)
        };
        let first = service.recall(&ns, request).await.unwrap().hits[0].memory.id;
        questions.push(EvalQuestion {
            namespace: "u".into(),
            id: format!("q{i}"),
            text: (*q).into(),
            as_of,
            gold: vec![ids[&first].clone()],
            category: "all".into(),
        });
    }

    let data = Dataset { name: "pin".into(), memories, questions, ..Default::default() };
    let configs = [config("default").unwrap(), config("hybrid").unwrap()];
    let report = rearview_eval::run(&data, Some(embedder), &configs, &NoProgress).await.unwrap();
    assert_eq!(report.get("default", "frac", 1), Some(1.0), "{}", report.to_text());
    let design = report.get("hybrid", "frac", 1).unwrap();
    assert!(design < 1.0, "the design's formula ranks differently here: {}", report.to_text());
}

#[test]
fn the_stage_modifiers_turn_one_stage_off_each() {
    let ranking = |name: &str| config(name).unwrap().ranking.expect("a custom configuration");
    let default = rearview_ranking::RankingConfig::default();
    assert!(default.answer_history && default.compound);
    assert!(!ranking("default+nohistory").answer_history);
    assert!(!ranking("default+nocompound").compound);
    let nofocus = ranking("default+nofocus").focus;
    assert_eq!(nofocus.min_turns, usize::MAX, "no query is read as a dialogue");
    assert!(ranking("default+nofeedback").feedback.is_none());
    assert!(ranking("default+noreplies").replies.is_none());
    // One modifier changes one thing.
    assert_eq!(RankingConfig { compound: true, ..ranking("default+nocompound") }, default);
}
