//! The memory lifecycle over real SQLite, the test embedder and a manual clock: dedup-merge
//! thresholds and its lossless rule, the archive (sweep, manual, restore), sessions → episodes,
//! distillation (extractive and by a scripted OpenAI-compatible LLM, including malformed answers),
//! suggestions, long-content summaries and the sweep.

mod common;

use common::{Harness, ns, start};

use std::sync::Arc;
use std::time::Duration;

use chrono::TimeDelta;
use rearview_core::{Clock, MemoryFilter, MemoryId, MemoryType};
use rearview_embed::{Embedder, TestEmbedder};
use rearview_llm::{ChatClient, ChatConfig};
use rearview_openai_client::testing::{Reply, serve_with};
use rearview_service::{
    DistillRequest, ErrorKind, LifecycleConfig, MemoryService, Originals, RecallRequest,
    RememberRequest, ServiceConfig,
};
use rearview_store::Page;

async fn harness_with(lifecycle: LifecycleConfig, embed: bool) -> Harness {
    Harness::in_memory(
        ServiceConfig { lifecycle, ..ServiceConfig::default() },
        embed.then_some(256),
    )
    .await
}

async fn harness() -> Harness {
    harness_with(LifecycleConfig::default(), true).await
}

/// The test embedder's cosine between two texts (what the dedup threshold is compared with).
async fn cosine(a: &str, b: &str) -> f32 {
    let e = TestEmbedder::new(256);
    let v =
        e.embed(&[a.to_owned(), b.to_owned()], rearview_embed::TextKind::Passage).await.unwrap();
    rearview_core::dot(v[0].as_slice(), v[1].as_slice())
}

fn chat(content: &str) -> Reply {
    let body = serde_json::json!({
        "model": "scripted-llm",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5}
    });
    Reply { status: 200, headers: vec![], body: Some(body.to_string()) }
}

fn llm(script: Vec<Reply>) -> Arc<ChatClient> {
    let (url, _) = serve_with(script, |_| "{}".to_owned());
    let mut config = ChatConfig::new(url, "scripted-llm");
    config.initial_backoff = Duration::from_millis(1);
    config.max_retries = 0;
    Arc::new(ChatClient::new(config))
}

async fn store(h: &Harness, request: RememberRequest) -> rearview_service::Stored {
    h.service.remember(&ns("life"), request).await.unwrap()
}

fn working(content: &str, session: &str, role: &str) -> RememberRequest {
    RememberRequest {
        memory_type: Some(MemoryType::Working),
        session_id: Some(session.to_owned()),
        metadata: Some(serde_json::json!({ "role": role })),
        ..RememberRequest::new(content)
    }
}

async fn count(h: &Harness, filter: MemoryFilter) -> usize {
    h.service.list(&ns("life"), &filter, Page { offset: 0, limit: 1000 }).await.unwrap().len()
}

// ---- dedup-merge -------------------------------------------------------------------------

#[tokio::test]
async fn exact_duplicates_merge_uniting_tags_time_and_expiry() {
    let h = harness().await;
    let first = store(
        &h,
        RememberRequest {
            metadata: Some(serde_json::json!({"tags": ["ops"], "source": "chat"})),
            ..RememberRequest::new("MCP 服务监听在端口 8765")
        },
    )
    .await;
    assert!(first.merged.is_none());
    h.clock.advance(TimeDelta::days(3));
    let again = store(
        &h,
        RememberRequest {
            metadata: Some(serde_json::json!({"tags": ["mcp", "ops"], "source": "doc"})),
            ..RememberRequest::new("  MCP 服务监听在端口   8765\n")
        },
    )
    .await;
    let merge = again.merged.clone().expect("an exact duplicate merges");
    assert!(merge.exact && merge.similarity.is_none() && !merge.content_replaced);
    let m = &again.memory;
    assert_eq!(m.id, first.memory.id, "the caller is told which memory it merged into");
    assert_eq!(m.tags(), ["ops", "mcp"]);
    assert_eq!(m.metadata["source"], "doc", "the newer value wins a clash");
    assert_eq!(m.occurred_at, start() + TimeDelta::days(3), "newest event time");
    assert_eq!(m.expires_at, Some(start() + TimeDelta::days(33)), "the later expiry");
    assert_eq!(m.metadata["merges"].as_array().unwrap().len(), 1, "the merge is recorded");
    assert_eq!(count(&h, MemoryFilter::default()).await, 1);

    // Turning dedup off per request keeps both.
    let separate = store(
        &h,
        RememberRequest {
            dedup: Some(false), ..RememberRequest::new("MCP 服务监听在端口 8765")
        },
    )
    .await;
    assert!(separate.merged.is_none());
    assert_eq!(count(&h, MemoryFilter::default()).await, 2);
}

#[tokio::test]
async fn near_duplicates_merge_above_the_threshold_only_and_never_lose_a_fact() {
    let (short, long) = ("服务端口是 8765", "我们的服务端口是 8765。");
    let similarity = cosine(short, long).await;
    assert!(similarity > 0.5 && similarity < 0.999, "test premise: {similarity}");

    // Below the threshold: two memories.
    let strict = LifecycleConfig { dedup_threshold: Some(0.999), ..LifecycleConfig::default() };
    let h = harness_with(strict, true).await;
    store(&h, RememberRequest::new(long)).await;
    assert!(store(&h, RememberRequest::new(short)).await.merged.is_none());

    // At or above it: the shorter restatement merges into the fuller memory, which keeps its
    // text; the fuller restatement replaces a shorter memory's text, recording the old one.
    let loose =
        LifecycleConfig { dedup_threshold: Some(similarity - 0.01), ..LifecycleConfig::default() };
    let h = harness_with(loose.clone(), true).await;
    let kept = store(&h, RememberRequest::new(long)).await.memory;
    let merged = store(&h, RememberRequest::new(short)).await;
    let merge = merged.merged.expect("merged");
    assert!(!merge.exact && !merge.content_replaced);
    assert!(merge.similarity.unwrap() >= similarity - 0.01);
    assert_eq!((merged.memory.id, merged.memory.content.as_str()), (kept.id, long));

    let h = harness_with(loose, true).await;
    let short_first = store(&h, RememberRequest::new(short)).await.memory;
    let fuller = store(&h, RememberRequest::new(long)).await;
    assert!(fuller.merged.as_ref().unwrap().content_replaced);
    assert_eq!((fuller.memory.id, fuller.memory.content.as_str()), (short_first.id, long));
    assert_eq!(fuller.memory.metadata["merges"][0]["replaced_content"], short);
    // The index follows the new text.
    let hits = h.service.recall(&ns("life"), RecallRequest::new("我们的服务")).await.unwrap();
    assert_eq!(hits.hits[0].memory.id, short_first.id);
}

#[tokio::test]
async fn different_facts_never_merge_however_similar() {
    let everything = LifecycleConfig { dedup_threshold: Some(0.01), ..LifecycleConfig::default() };
    let h = harness_with(everything, true).await;
    let a = store(&h, RememberRequest::new("The API server listens on port 8765")).await;
    let b = store(&h, RememberRequest::new("The API server listens on port 8766")).await;
    assert!(b.merged.is_none(), "8766 is a fact 8765 lacks");
    assert_ne!(a.memory.id, b.memory.id);
    let c = store(&h, RememberRequest::new("我住在上海")).await;
    assert!(store(&h, RememberRequest::new("我住在北京")).await.merged.is_none());
    // Other tiers and other sessions' working memory are never merge targets.
    let semantic = RememberRequest {
        memory_type: Some(MemoryType::Semantic),
        ..RememberRequest::new("我住在上海")
    };
    assert!(store(&h, semantic).await.merged.is_none());
    assert!(store(&h, working("scratch: deploy at 5", "s1", "user")).await.merged.is_none());
    assert!(store(&h, working("scratch: deploy at 5", "s2", "user")).await.merged.is_none());
    assert!(store(&h, working("scratch: deploy at 5", "s2", "user")).await.merged.is_some());
    assert!(c.merged.is_none());
}

#[tokio::test]
async fn a_near_duplicate_stating_a_changed_fact_supersedes_the_old_one_which_stays_as_history() {
    // The vector cannot tell these apart (the test embedder hashes words, so a reversed order
    // is the same vector); at this threshold every pair is a near duplicate and only the facts
    // decide.
    assert!(cosine("端口从 8765 改成 8766", "端口从 8766 改成 8765").await > 0.99);
    // Not merged; and linked where the rule reads the change as about the same thing (two
    // subject terms in common, or the older text's value named), else left as a possible update.
    let everything = LifecycleConfig { dedup_threshold: Some(0.01), ..LifecycleConfig::default() };
    for (older, newer) in [
        ("用户不喜欢深色主题", "用户喜欢深色主题"),
        ("端口从 8765 改成 8766", "端口从 8766 改成 8765"),
        ("The user likes dark mode", "The user does not like dark mode"),
        ("moved from Berlin to Paris", "moved from Paris to Berlin"),
        ("The user prefers light theme", "The user prefers dark theme"),
        ("用户喜欢吃香菜", "用户讨厌吃香菜"),
        ("编辑器开启了自动保存", "编辑器关闭了自动保存"),
        ("Enable auto-save in the editor", "Disable auto-save in the editor"),
        ("Increase the cache size", "Decrease the cache size"),
        ("我每天早上跑步", "我每天晚上跑步"),
        // The old text adds nothing to the new one, which would replace it in a merge; but
        // the new one says the value changed, so the old one is kept, as history.
        ("端口 8765", "端口从 8765 改成 8766"),
    ] {
        let h = harness_with(everything.clone(), true).await;
        let old = store(&h, RememberRequest::new(older)).await.memory;
        let new = store(&h, RememberRequest::new(newer)).await;
        assert!(new.merged.is_none(), "{newer:?} must not merge into {older:?}");
        assert_ne!(new.memory.id, old.id);
        let history = MemoryFilter { include_superseded: true, ..MemoryFilter::default() };
        assert_eq!(count(&h, history).await, 2, "{older:?} / {newer:?}");
        assert_eq!(h.service.get(&ns("life"), new.memory.id).await.unwrap().content, newer);
        let kept = h.service.get(&ns("life"), old.id).await.unwrap();
        assert_eq!(kept.content, older, "the older text is kept");
        // Linked (history), or offered for the caller to confirm.
        let linked = kept.superseded_by == Some(new.memory.id);
        let offered = new.possible_updates.iter().any(|p| p.update.id == old.id);
        assert!(linked != offered, "{older:?} / {newer:?}: linked {linked}, offered {offered}");
        let current = count(&h, MemoryFilter::default()).await;
        assert_eq!(current, if linked { 1 } else { 2 }, "{older:?} / {newer:?}");
    }
    // Restatements still merge.
    for (first, again) in
        [("服务端口是 8765", "我们的服务端口是 8765。"), ("User likes tea.", "The user likes tea")]
    {
        let h = harness_with(everything.clone(), true).await;
        store(&h, RememberRequest::new(first)).await;
        assert!(store(&h, RememberRequest::new(again)).await.merged.is_some(), "{again:?}");
        assert_eq!(count(&h, MemoryFilter::default()).await, 1);
    }
}

#[tokio::test]
async fn dedup_off_in_the_configuration_keeps_everything() {
    let off = LifecycleConfig { dedup_threshold: None, ..LifecycleConfig::default() };
    let h = harness_with(off, true).await;
    store(&h, RememberRequest::new("same text")).await;
    assert!(store(&h, RememberRequest::new("same text")).await.merged.is_none());
}

// ---- archive ------------------------------------------------------------------------------

#[tokio::test]
async fn idle_episodes_are_archived_by_the_sweep_and_can_be_restored() {
    let h = harness().await;
    let idle = store(&h, RememberRequest::new("trip to Kyoto in spring")).await.memory;
    let used = store(
        &h,
        RememberRequest {
            ttl_secs: Some(0),
            ..RememberRequest::new("favourite ramen shop in Kyoto")
        },
    )
    .await
    .memory;
    let fact = store(
        &h,
        RememberRequest {
            memory_type: Some(MemoryType::Semantic),
            ..RememberRequest::new("allergic to peanuts")
        },
    )
    .await
    .memory;
    // Episodic memories expire after 30 days by default; `idle` lives forever for this test.
    h.service
        .update(
            &ns("life"),
            idle.id,
            rearview_service::UpdateRequest { ttl_secs: Some(0), ..Default::default() },
        )
        .await
        .unwrap();
    h.clock.advance(TimeDelta::days(60));
    let only_one = RecallRequest { top_k: 1, ..RecallRequest::new("ramen") };
    let recalled = h.service.recall(&ns("life"), only_one).await.unwrap();
    assert_eq!(recalled.hits[0].memory.id, used.id);
    h.service.flush_access_counts().await;

    h.clock.advance(TimeDelta::days(30) - TimeDelta::seconds(1));
    assert_eq!(h.service.archive_idle(None).await.unwrap(), 0, "89 days 23:59:59 idle: not yet");
    h.clock.advance(TimeDelta::seconds(2));
    let report = h.service.sweep().await.unwrap();
    assert_eq!((report.archived, report.expired), (1, 0));
    let got = h.service.get(&ns("life"), idle.id).await.unwrap();
    assert!(got.archived, "the one idle for 90 days");
    assert!(!h.service.get(&ns("life"), used.id).await.unwrap().archived, "recalled 30 days ago");
    assert!(!h.service.get(&ns("life"), fact.id).await.unwrap().archived, "semantic memory stays");

    let ids = |r: rearview_service::RecallResponse| {
        r.hits.iter().map(|x| x.memory.id).collect::<Vec<_>>()
    };
    let plain = h.service.recall(&ns("life"), RecallRequest::new("Kyoto trip")).await.unwrap();
    assert!(!ids(plain).contains(&idle.id), "archived memories leave recall");
    let mut with_archive = RecallRequest::new("Kyoto trip");
    with_archive.filter.include_archived = true;
    assert!(ids(h.service.recall(&ns("life"), with_archive).await.unwrap()).contains(&idle.id));

    let restored = h.service.restore(&ns("life"), &[idle.id]).await.unwrap();
    assert!(!restored[0].archived);
    let plain = h.service.recall(&ns("life"), RecallRequest::new("Kyoto trip")).await.unwrap();
    assert!(ids(plain).contains(&idle.id));
    // Manual archive; an unknown id changes nothing.
    let unknown = MemoryId::new_v7(start());
    let err = h.service.archive(&ns("life"), &[used.id, unknown]).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(!h.service.get(&ns("life"), used.id).await.unwrap().archived);
    assert!(h.service.archive(&ns("life"), &[used.id]).await.unwrap()[0].archived);
}

// ---- sessions → episodes -----------------------------------------------------------------

#[tokio::test]
async fn ending_a_session_promotes_user_statements_by_rule_and_expires_the_working_memory() {
    let h = harness().await;
    store(&h, working("我下周三要去上海出差，住在静安区", "s1", "user")).await;
    store(&h, working("好的，已经为您记下了出差安排", "s1", "assistant")).await;
    store(&h, working("上海明天会下雨吗？", "s1", "user")).await;
    store(&h, working("ok", "s1", "user")).await;
    store(&h, working("another session's note about Paris trips", "s2", "user")).await;
    h.clock.advance(TimeDelta::minutes(5));
    let end = h.service.end_session(&ns("life"), "s1").await.unwrap();
    assert_eq!((end.working_memories, end.method), (4, "rules"));
    assert_eq!(end.episodes.len(), 1, "only the user's substantive statement");
    let episode = &end.episodes[0].memory;
    assert_eq!(episode.memory_type, MemoryType::Episodic);
    assert_eq!(episode.content, "我下周三要去上海出差，住在静安区");
    assert_eq!(episode.session_id.as_deref(), Some("s1"));
    assert_eq!(episode.source_ids.len(), 1, "provenance");
    assert_eq!(episode.metadata["promoted_by"]["method"], "rules");

    let working_s1 = MemoryFilter {
        memory_types: vec![MemoryType::Working],
        session_id: Some("s1".into()),
        ..Default::default()
    };
    assert_eq!(count(&h, working_s1).await, 0, "the session's working memories expired");
    let working_all =
        MemoryFilter { memory_types: vec![MemoryType::Working], ..Default::default() };
    assert_eq!(count(&h, working_all).await, 1, "other sessions untouched");
    let again = h.service.end_session(&ns("life"), "s1").await.unwrap();
    assert_eq!((again.working_memories, again.episodes.len()), (0, 0), "idempotent");
    assert_eq!(h.service.cleanup_expired(None).await.unwrap(), 4, "the sweep reclaims them");
}

#[tokio::test]
async fn an_llm_extracts_session_events_and_a_bad_llm_changes_nothing() {
    let h = harness().await;
    store(&h, working("hi there", "s1", "user")).await;
    store(&h, working("my new laptop's hostname is kestrel and it runs Fedora 41", "s1", "user"))
        .await;
    h.service.set_llm(Some(llm(vec![chat(
        "{\"events\": [\"The user's new laptop is called kestrel.\", \"The user's laptop runs Fedora 41.\"]}",
    )])));
    let end = h.service.end_session(&ns("life"), "s1").await.unwrap();
    assert_eq!((end.method, end.model.as_deref()), ("llm", Some("scripted-llm")));
    let texts: Vec<&str> = end.episodes.iter().map(|e| e.memory.content.as_str()).collect();
    assert_eq!(
        texts,
        ["The user's new laptop is called kestrel.", "The user's laptop runs Fedora 41."]
    );
    // "hi there" is small talk: not sent to the LLM, so not a source of what it extracted.
    assert_eq!(end.small_talk, 1);
    assert!(end.episodes.iter().all(|e| e.memory.source_ids.len() == 1));

    // Malformed three times: an error, the working memories untouched, no episode written.
    store(&h, working("remember that the staging DB is on port 5433", "s2", "user")).await;
    h.service.set_llm(Some(llm(vec![chat("sure!"), chat("{\"events\": \"x\"}"), chat("[]")])));
    let before = count(&h, MemoryFilter::default()).await;
    let err = h.service.end_session(&ns("life"), "s2").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert!(err.to_string().contains("nothing was changed"), "{err}");
    assert_eq!(count(&h, MemoryFilter::default()).await, before);
    let s2 = MemoryFilter { session_id: Some("s2".into()), ..Default::default() };
    assert_eq!(count(&h, s2).await, 1);
}

#[tokio::test]
async fn greetings_and_acknowledgements_never_become_episodes() {
    let small_talk = [
        "你好",
        "您好！",
        "谢谢！",
        " 好的， 谢谢 ",
        "嗯",
        "收到",
        "ok",
        "Thanks!",
        "thank you",
        "hi",
        "Hello.",
        "got it",
        "👍",
    ];
    let h = harness().await;
    for text in small_talk {
        store(&h, working(text, "hello", "user")).await;
    }
    // An LLM that would fail if asked: a session of small talk asks it nothing.
    h.service.set_llm(Some(llm(vec![Reply::status(500, "must not be called")])));
    let end = h.service.end_session(&ns("life"), "hello").await.unwrap();
    assert_eq!((end.working_memories, end.small_talk), (small_talk.len(), small_talk.len()));
    assert!(end.episodes.is_empty(), "no episode: {:?}", end.episodes);
    let session = MemoryFilter { session_id: Some("hello".into()), ..MemoryFilter::default() };
    assert_eq!(count(&h, session).await, 0, "the session is ended all the same");

    // By rule, the statement among them is kept and only it.
    h.service.set_llm(None);
    for text in ["你好", "我对花生过敏，点餐时要注意", "谢谢！"] {
        store(&h, working(text, "dinner", "user")).await;
    }
    let end = h.service.end_session(&ns("life"), "dinner").await.unwrap();
    assert_eq!(end.small_talk, 2);
    let texts: Vec<&str> = end.episodes.iter().map(|e| e.memory.content.as_str()).collect();
    assert_eq!(texts, ["我对花生过敏，点餐时要注意"]);
}

// ---- distillation ------------------------------------------------------------------------

async fn episodes(h: &Harness, texts: &[&str]) -> Vec<MemoryId> {
    let mut ids = Vec::new();
    for t in texts {
        ids.push(
            store(
                h,
                RememberRequest {
                    metadata: Some(serde_json::json!({"tags": ["hobby"]})),
                    ..RememberRequest::new(*t)
                },
            )
            .await
            .memory
            .id,
        );
        h.clock.advance(TimeDelta::days(1));
    }
    ids
}

#[tokio::test]
async fn a_distillation_preview_shows_the_text_that_is_then_stored_and_writes_nothing() {
    let h = harness().await;
    let ids = episodes(
        &h,
        &["周六去香山爬山了，风景很好。", "周日又和朋友去爬了香山。", "下周想去爬泰山。"],
    )
    .await;
    let before = count(&h, MemoryFilter { include_archived: true, ..Default::default() }).await;
    let request = || DistillRequest { ids: ids.clone(), ..Default::default() };
    let preview = h.service.preview_distillation(&ns("life"), request()).await.unwrap();
    assert_eq!((preview.method, preview.sources), ("extractive-embeddings", 3));
    let after = count(&h, MemoryFilter { include_archived: true, ..Default::default() }).await;
    assert_eq!(after, before, "a preview writes nothing");
    for id in &ids {
        assert!(!h.service.get(&ns("life"), *id).await.unwrap().archived, "originals untouched");
    }
    let stored = h.service.summarize_episodes(&ns("life"), request()).await.unwrap();
    assert_eq!(stored.memory.content, preview.content, "what was shown is what is stored");
}

#[tokio::test]
async fn extractive_distillation_keeps_provenance_and_archives_the_originals() {
    let h = harness().await;
    let ids = episodes(
        &h,
        &["周六去香山爬山了，风景很好。", "周日又和朋友去爬了香山。", "下周想去爬泰山。"],
    )
    .await;
    let d = h
        .service
        .summarize_episodes(&ns("life"), DistillRequest { ids: ids.clone(), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(d.method, "extractive-embeddings");
    assert_eq!(d.memory.memory_type, MemoryType::Semantic);
    assert_eq!(d.memory.source_ids, ids);
    assert_eq!(d.memory.tags(), ["hobby"]);
    assert_eq!(d.memory.metadata["distillation"]["method"], "extractive-embeddings");
    assert!(d.memory.content.contains("香山"), "{}", d.memory.content);
    assert!(d.memory.content.chars().count() <= 600);
    assert_eq!(d.originals_changed, 3);
    for id in &ids {
        assert!(h.service.get(&ns("life"), *id).await.unwrap().archived);
    }

    // Keyword mode without a model; `Delete` and `Keep`.
    let h = harness_with(LifecycleConfig::default(), false).await;
    let ids =
        episodes(&h, &["likes green tea in the morning", "drinks green tea after lunch"]).await;
    let d = h
        .service
        .summarize_episodes(
            &ns("life"),
            DistillRequest { ids: ids.clone(), originals: Originals::Delete, ..Default::default() },
        )
        .await
        .unwrap();
    assert_eq!(d.method, "extractive-keywords");
    assert!(h.service.get(&ns("life"), ids[0]).await.is_err(), "deleted");
    let kept = episodes(&h, &["walks the dog at 7"]).await;
    let d = h
        .service
        .summarize_episodes(
            &ns("life"),
            DistillRequest { ids: kept.clone(), originals: Originals::Keep, ..Default::default() },
        )
        .await
        .unwrap();
    assert_eq!(d.originals_changed, 0);
    assert!(!h.service.get(&ns("life"), kept[0]).await.unwrap().archived);
}

/// Episodes as a session log formats them: a date or time stamp, the shared topic, an aside.
const STAMPED_ZH: [&str; 3] = [
    "(2023-05-08) 周六去香山爬山了，风景很好。",
    "2023年5月9日 周日又和朋友去爬了香山。我买了一台新电脑。",
    "[10:30] 下周想去爬泰山。",
];
const STAMPED_EN: [&str; 3] = [
    "On 8 May 2023, Caroline went hiking in the Alps.",
    "1:56 pm on 9 May, 2023: Caroline went hiking again. She bought a new phone.",
    "[10:30] Caroline plans more hiking in June.",
];

#[tokio::test]
async fn extractive_distillation_states_what_the_episodes_share_without_their_dates() {
    for embed in [true, false] {
        let h = harness_with(LifecycleConfig::default(), embed).await;
        for (texts, shared, aside) in
            [(STAMPED_ZH, "香山", "电脑"), (STAMPED_EN, "hiking", "phone")]
        {
            let ids = episodes(&h, &texts).await;
            let d = h
                .service
                .summarize_episodes(&ns("life"), DistillRequest { ids, ..Default::default() })
                .await
                .unwrap();
            let content = &d.memory.content;
            assert!(content.contains(shared), "embed={embed}: {content}");
            assert!(!content.contains(aside), "the aside is not shared: {content}");
            for stamp in ["2023", "10:30", "1:56", "May"] {
                assert!(!content.contains(stamp), "no stamp {stamp:?}: {content}");
            }
        }
    }
}

#[tokio::test]
async fn an_extractive_distillation_keeps_what_the_instruction_names_or_refuses() {
    for embed in [true, false] {
        let h = harness_with(LifecycleConfig::default(), embed).await;
        let ids = episodes(&h, &STAMPED_ZH).await;
        let request = |instruction: &str| DistillRequest {
            ids: ids.clone(),
            instruction: Some(instruction.into()),
            originals: Originals::Keep,
        };
        let d = h.service.summarize_episodes(&ns("life"), request("只保留爬山的事")).await.unwrap();
        assert!(d.memory.content.contains("香山"), "embed={embed}: {}", d.memory.content);
        assert!(!d.memory.content.contains("电脑"), "embed={embed}: {}", d.memory.content);
        assert_eq!(d.memory.metadata["distillation"]["instruction"], "只保留爬山的事");

        let ids = episodes(
            &h,
            &["likes green tea in the morning", "Bought a new bike. Drinks green tea after lunch."],
        )
        .await;
        let tea = DistillRequest {
            ids: ids.clone(),
            instruction: Some("only tea".into()),
            ..Default::default()
        };
        let d = h.service.summarize_episodes(&ns("life"), tea).await.unwrap();
        assert!(d.memory.content.contains("green tea"), "embed={embed}: {}", d.memory.content);
        assert!(!d.memory.content.contains("bike"), "embed={embed}: {}", d.memory.content);

        // Nothing matches: an error naming the instruction, and nothing written or archived.
        let ids = episodes(&h, &["walks the dog at 7", "the dog likes the park"]).await;
        let before = count(&h, MemoryFilter::default()).await;
        let jazz = DistillRequest {
            ids: ids.clone(),
            instruction: Some("jazz concerts".into()),
            ..Default::default()
        };
        let err = h.service.summarize_episodes(&ns("life"), jazz).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.to_string().contains("instruction"), "{err}");
        assert!(err.to_string().contains("jazz concerts"), "{err}");
        assert_eq!(count(&h, MemoryFilter::default()).await, before);
        assert!(!h.service.get(&ns("life"), ids[0]).await.unwrap().archived);
    }
}

#[tokio::test]
async fn distilling_the_same_episodes_again_returns_the_first_distillation() {
    let semantic = || MemoryFilter {
        memory_types: vec![MemoryType::Semantic],
        include_archived: true,
        ..MemoryFilter::default()
    };
    for originals in [Originals::Archive, Originals::Keep, Originals::Delete] {
        let h = harness().await;
        let ids = episodes(&h, &STAMPED_ZH).await;
        let request = DistillRequest { ids: ids.clone(), originals, ..Default::default() };
        let first = h.service.summarize_episodes(&ns("life"), request.clone()).await.unwrap();
        assert!(!first.already_existed);
        for _ in 0..2 {
            let again = h.service.summarize_episodes(&ns("life"), request.clone()).await.unwrap();
            assert!(again.already_existed, "{originals:?}");
            assert_eq!(again.memory.id, first.memory.id);
            assert_eq!((again.method, again.originals_changed), (first.method, 0));
        }
        assert_eq!(count(&h, semantic()).await, 1, "{originals:?}: one semantic memory");
        // Another instruction is another distillation.
        if originals != Originals::Delete {
            let other = DistillRequest { instruction: Some("泰山".into()), ..request };
            let d = h.service.summarize_episodes(&ns("life"), other).await.unwrap();
            assert!(!d.already_existed);
            assert_eq!(count(&h, semantic()).await, 2);
        }
    }
}

#[tokio::test]
async fn llm_distillation_follows_the_instruction_and_a_failure_changes_nothing() {
    let h = harness().await;
    let ids = episodes(&h, &["周六去香山爬山了", "周日又去爬了香山"]).await;
    h.service
        .set_llm(Some(llm(vec![chat("```json\n{\"summary\": \"用户喜欢周末爬香山。\"}\n```")])));
    let d = h
        .service
        .summarize_episodes(
            &ns("life"),
            DistillRequest {
                ids: ids.clone(),
                instruction: Some("只保留爱好".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!((d.method, d.model.as_deref()), ("llm", Some("scripted-llm")));
    assert_eq!(d.memory.content, "用户喜欢周末爬香山。");
    assert_eq!(d.memory.metadata["distillation"]["instruction"], "只保留爱好");
    assert_eq!(d.memory.source_ids, ids);

    let more = episodes(&h, &["likes jazz", "went to a jazz bar"]).await;
    h.service.set_llm(Some(llm(vec![
        chat("{\"summary\": \"\"}"),
        chat("no"),
        chat("{\"summary\": 3}"),
    ])));
    let before = count(&h, MemoryFilter::default()).await;
    let err = h
        .service
        .summarize_episodes(&ns("life"), DistillRequest { ids: more.clone(), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert_eq!(count(&h, MemoryFilter::default()).await, before, "no semantic memory written");
    for id in &more {
        assert!(!h.service.get(&ns("life"), *id).await.unwrap().archived, "originals untouched");
    }
    // An unreachable LLM is the same.
    h.service.set_llm(Some(llm(vec![Reply::status(500, "down")])));
    assert!(
        h.service
            .summarize_episodes(
                &ns("life"),
                DistillRequest { ids: more.clone(), ..Default::default() }
            )
            .await
            .is_err()
    );
    assert!(!h.service.get(&ns("life"), more[0]).await.unwrap().archived);
}

#[tokio::test]
async fn distillation_input_errors_name_the_field() {
    let h = harness().await;
    let err =
        h.service.summarize_episodes(&ns("life"), DistillRequest::default()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("episode_ids"), "{err}");
    let ids = episodes(&h, &["one"]).await;
    let twice = DistillRequest { ids: vec![ids[0], ids[0]], ..Default::default() };
    assert!(
        h.service
            .summarize_episodes(&ns("life"), twice)
            .await
            .unwrap_err()
            .to_string()
            .contains("twice")
    );
}

#[tokio::test]
async fn suggestions_group_similar_episodes_without_writing() {
    let h = harness().await;
    episodes(
        &h,
        &["爬香山 周末 爬山", "周末 爬山 香山 好玩", "香山 爬山 周末 又去", "报税 表格 截止"],
    )
    .await;
    let before = count(&h, MemoryFilter::default()).await;
    let groups = h.service.suggest_distillations(&ns("life"), Some(0.3), 3, 10).await.unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_eq!(groups[0].ids.len(), 3);
    assert!(groups[0].previews.iter().all(|p| p.contains("爬山")));
    assert_eq!(count(&h, MemoryFilter::default()).await, before);
    assert!(h.service.suggest_distillations(&ns("life"), Some(2.0), 3, 10).await.is_err());
}

#[tokio::test]
async fn the_sweep_distills_only_when_automatic_mode_is_on() {
    let texts = ["爬香山 周末 爬山", "周末 爬山 香山 好玩", "香山 爬山 周末 又去"];
    let manual = LifecycleConfig { suggest_threshold: 0.3, ..LifecycleConfig::default() };
    let h = harness_with(manual, true).await;
    episodes(&h, &texts).await;
    assert_eq!(h.service.sweep().await.unwrap().distilled, 0, "off by default");
    let auto = LifecycleConfig {
        suggest_threshold: 0.3,
        auto_distill: true,
        ..LifecycleConfig::default()
    };
    let h = harness_with(auto, true).await;
    episodes(&h, &texts).await;
    assert_eq!(h.service.sweep().await.unwrap().distilled, 1);
    let semantic = MemoryFilter { memory_types: vec![MemoryType::Semantic], ..Default::default() };
    assert_eq!(count(&h, semantic).await, 1);
}

// ---- long content ------------------------------------------------------------------------

#[tokio::test]
async fn long_content_is_recalled_by_its_summary_and_kept_whole() {
    let h = harness().await;
    let mut text = String::from("项目代号青鸟，目标是在三月前完成数据库迁移。");
    for i in 0..40 {
        text += &format!("第{i}周的例会记录了一些琐碎的事项。");
    }
    text += "最后决定使用 PostgreSQL 16 并开启 pgvector 扩展。";
    assert!(text.chars().count() > 500);
    let m = store(&h, RememberRequest::new(text.clone())).await.memory;
    let summary = m.summary.clone().expect("long content gets a summary");
    assert!(summary.chars().count() <= 200, "{summary}");
    assert!(summary.contains("青鸟"), "the opening sentence says what it is about: {summary}");
    let got = h.service.get(&ns("life"), m.id).await.unwrap();
    assert_eq!(got.content, text, "the full original is kept");
    assert_eq!(got.recall_text(), summary);
    // Words only in the full text are still found by keywords.
    let hits = h.service.recall(&ns("life"), RecallRequest::new("pgvector")).await.unwrap();
    assert_eq!(hits.hits[0].memory.id, m.id);
    // Short content has none.
    assert!(store(&h, RememberRequest::new("short")).await.memory.summary.is_none());
    // A persisted summary survives a restart of the service.
    let reopened = MemoryService::open(
        Arc::clone(&h.store),
        None,
        Arc::clone(&h.clock) as Arc<dyn Clock>,
        ServiceConfig::default(),
    )
    .await
    .unwrap();
    assert_eq!(
        reopened.get(&ns("life"), m.id).await.unwrap().summary.as_deref(),
        Some(summary.as_str())
    );
}
