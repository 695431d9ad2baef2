//! Correct under concurrency: calls that read memories, decide and write (dedup, merges, ending a
//! session) hold their namespace's write lock from the read through the write, so concurrent
//! calls behave as if they ran one after another; a write in one namespace never waits for
//! another namespace. Over a real SQLite file, the test embedder and a manual clock, on a
//! multi-threaded runtime.

mod common;

use common::{ns, start};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use rearview_core::{Clock, ManualClock, Memory, MemoryFilter, MemoryType, Namespace};
use rearview_embed::{Embedder, TestEmbedder, TextKind};
use rearview_language::extract::adds_nothing;
use rearview_llm::{Completion, LanguageModel, LlmError, Message, Operation};
use rearview_service::{
    DistillRequest, ErrorKind, LifecycleConfig, MemoryService, RememberRequest, ServiceConfig,
    Stored, UpdateRequest,
};
use rearview_store::testing::{HookedStore, InsertHook};
use rearview_store::{MemoryStore, Page};
use rearview_store_sqlite::{SqliteConfig, SqliteStore};
use tokio::sync::{Barrier, Semaphore, mpsc};

struct Harness {
    service: Arc<MemoryService>,
    _dir: tempfile::TempDir,
}

/// A service over a fresh SQLite file, wrapped by `wrap` (e.g. by [`gated`]).
async fn harness_over(
    lifecycle: LifecycleConfig,
    wrap: impl FnOnce(Arc<dyn MemoryStore>) -> Arc<dyn MemoryStore>,
) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteStore::open(&SqliteConfig::new(dir.path().join("rearview.db"))).unwrap();
    let store = wrap(Arc::new(sqlite));
    let clock: Arc<dyn Clock> = Arc::new(ManualClock::new(start()));
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(256));
    let config = ServiceConfig { lifecycle, ..ServiceConfig::default() };
    let service = MemoryService::open(store, Some(embedder), clock, config).await.unwrap();
    Harness { service: Arc::new(service), _dir: dir }
}

async fn harness() -> Harness {
    harness_over(LifecycleConfig::default(), |store| store).await
}

async fn everything(service: &MemoryService, namespace: &Namespace) -> Vec<Memory> {
    let page = Page { offset: 0, limit: 1000 };
    service.list(namespace, &MemoryFilter::default(), page).await.unwrap()
}

/// Runs every request at once (released together by a barrier), each on its own task.
async fn all_at_once(
    service: &Arc<MemoryService>,
    requests: Vec<(Namespace, RememberRequest)>,
) -> Vec<Stored> {
    let barrier = Arc::new(Barrier::new(requests.len()));
    let tasks: Vec<_> = requests
        .into_iter()
        .map(|(namespace, request)| {
            let (service, barrier) = (Arc::clone(service), Arc::clone(&barrier));
            tokio::spawn(async move {
                barrier.wait().await;
                service.remember(&namespace, request).await.unwrap()
            })
        })
        .collect();
    let mut out = Vec::new();
    for task in tasks {
        out.push(task.await.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_identical_stores_at_once_give_one_memory() {
    let h = harness().await;
    let (en, zh) = ("The deploy server listens on port 8765", "部署服务器监听在端口 8765");
    let mut requests = Vec::new();
    for _ in 0..16 {
        requests.push((ns("en"), RememberRequest::new(en)));
        requests.push((ns("zh"), RememberRequest::new(zh)));
    }
    let stored = all_at_once(&h.service, requests).await;

    for (namespace, text) in [("en", en), ("zh", zh)] {
        let memories = everything(&h.service, &ns(namespace)).await;
        assert_eq!(memories.len(), 1, "{namespace}: {memories:#?}");
        let memory = &memories[0];
        assert_eq!(memory.content, text);
        let answers: Vec<&Stored> =
            stored.iter().filter(|s| s.memory.namespace == ns(namespace)).collect();
        assert_eq!(answers.len(), 16);
        assert!(answers.iter().all(|s| s.memory.id == memory.id), "every call names the memory");
        let inserted = answers.iter().filter(|s| s.merged.is_none()).count();
        assert_eq!(inserted, 1, "one call inserted, the other fifteen merged");
        assert!(answers.iter().filter_map(|s| s.merged.as_ref()).all(|m| m.exact));
        let merges = memory.metadata["merges"].as_array().expect("merge records");
        assert_eq!(merges.len(), 15, "every merge is recorded");
    }
}

/// `base` followed by the first `n` of `facts`: each text says one thing more than the last.
fn chain(base: &str, facts: &[&str], separator: &str) -> Vec<String> {
    (1..=facts.len()).map(|n| format!("{base}{}", facts[..n].join(separator))).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_near_duplicates_lose_no_merge_record_and_no_text() {
    let english = chain(
        "Deploy checklist: ",
        &[
            "port 8765",
            "host kestrel",
            "region frankfurt",
            "user deploy",
            "timeout 30s",
            "retries 3",
            "disk 40gb",
            "owner maria",
            "window friday",
            "cache redis",
            "database postgres16",
            "tls enabled",
        ],
        ", ",
    );
    let chinese = chain(
        "部署清单：",
        &[
            "端口8765",
            "主机红隼",
            "机房法兰克福",
            "账号运维",
            "超时三十秒",
            "重试五次",
            "硬盘四十",
            "负责人玛丽亚",
            "窗口周五",
            "缓存用瑞迪斯",
            "数据库波斯格瑞",
            "加密开启",
        ],
        "，",
    );
    // The premise: each text adds a fact to the one before, so any two merge losslessly (the
    // fuller one replaces the other, which is kept in the merge record), whatever the order.
    let mut lowest = 1.0f32;
    let embedder = TestEmbedder::new(256);
    for texts in [&english, &chinese] {
        for pair in texts.windows(2) {
            assert!(adds_nothing(&pair[0], &pair[1]) && !adds_nothing(&pair[1], &pair[0]));
        }
        let vectors = embedder.embed(texts, TextKind::Passage).await.unwrap();
        for a in &vectors {
            for b in &vectors {
                lowest = lowest.min(rearview_core::dot(a.as_slice(), b.as_slice()));
            }
        }
    }
    let lifecycle =
        LifecycleConfig { dedup_threshold: Some(lowest - 0.01), ..LifecycleConfig::default() };
    let h = harness_over(lifecycle, |store| store).await;

    let mut requests = Vec::new();
    for (namespace, texts) in [("en", &english), ("zh", &chinese)] {
        for (i, text) in texts.iter().enumerate() {
            let request = RememberRequest {
                metadata: Some(serde_json::json!({ "tags": [format!("fact-{i}")] })),
                ..RememberRequest::new(text.clone())
            };
            requests.push((ns(namespace), request));
        }
    }
    let stored = all_at_once(&h.service, requests).await;

    for (namespace, texts) in [("en", &english), ("zh", &chinese)] {
        let memories = everything(&h.service, &ns(namespace)).await;
        assert_eq!(memories.len(), 1, "{namespace}: {memories:#?}");
        let memory = &memories[0];
        assert!(
            stored
                .iter()
                .filter(|s| s.memory.namespace == ns(namespace))
                .all(|s| s.memory.id == memory.id)
        );
        assert_eq!(&memory.content, texts.last().unwrap(), "the fullest text is the content");
        let merges = memory.metadata["merges"].as_array().expect("merge records");
        assert_eq!(merges.len(), texts.len() - 1, "one record per merge: {merges:#?}");
        // Every text is somewhere: the content, or a merge record's merged or replaced text.
        let mut seen: Vec<String> = vec![memory.content.clone()];
        for record in merges {
            let text = record.get("content").or_else(|| record.get("replaced_content"));
            seen.push(text.and_then(|t| t.as_str()).expect("a record keeps a text").to_owned());
        }
        seen.sort();
        let mut expected: Vec<String> = (*texts).clone();
        expected.sort();
        assert_eq!(seen, expected, "no text lost, none recorded twice");
        let mut tags = memory.tags();
        tags.sort();
        let mut all_tags: Vec<String> = (0..texts.len()).map(|i| format!("fact-{i}")).collect();
        all_tags.sort();
        assert_eq!(tags, all_tags, "every store's tag survived");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ending_a_session_twice_at_once_promotes_each_turn_once() {
    let h = harness().await;
    let turns = [
        "我下周三要去上海出差，住在静安区",
        "My flight to Shanghai leaves Wednesday at 7 from gate 12",
        "会议改到周四下午三点，在二号会议室",
        "The hotel booking reference is KX-4471",
    ];
    for turn in turns {
        let request = RememberRequest {
            memory_type: Some(MemoryType::Working),
            session_id: Some("trip".into()),
            ..RememberRequest::new(turn)
        };
        h.service.remember(&ns("s"), request).await.unwrap();
    }
    let ends: Vec<_> = (0..2)
        .map(|_| {
            let service = Arc::clone(&h.service);
            tokio::spawn(async move { service.end_session(&ns("s"), "trip").await.unwrap() })
        })
        .collect();
    let mut promoted = 0;
    for end in ends {
        promoted += end.await.unwrap().episodes.len();
    }
    assert_eq!(promoted, turns.len(), "each turn became an episode once, across both calls");
    let episodic = MemoryFilter { memory_types: vec![MemoryType::Episodic], ..Default::default() };
    let page = Page { offset: 0, limit: 100 };
    let episodes = h.service.list(&ns("s"), &episodic, page).await.unwrap();
    assert_eq!(episodes.len(), turns.len());
    for episode in &episodes {
        assert!(episode.metadata.get("merges").is_none(), "promoted twice: {episode:#?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_write_waiting_in_one_namespace_never_blocks_another() {
    let (entered_tx, mut entered) = mpsc::unbounded_channel();
    let gate = Arc::new(Semaphore::new(0));
    let gated_by = Arc::clone(&gate);
    let h = harness_over(LifecycleConfig::default(), move |inner| {
        gated(inner, ns("slow"), gated_by, entered_tx)
    })
    .await;

    // The first write to "slow" stops inside the store's insert, holding its namespace.
    let text = "慢速命名空间里的第一条记忆";
    let spawn_slow = || {
        let service = Arc::clone(&h.service);
        tokio::spawn(async move { service.remember(&ns("slow"), RememberRequest::new(text)).await })
    };
    let first = spawn_slow();
    entered.recv().await.expect("the first write reached the store");
    let second = spawn_slow();

    // Meanwhile another namespace reads, writes, merges, updates and forgets freely.
    let fast = async {
        let a = h.service.remember(&ns("fast"), RememberRequest::new("likes green tea")).await?;
        let b = h.service.remember(&ns("fast"), RememberRequest::new("likes green tea")).await?;
        assert_eq!((a.memory.id, b.merged.is_some()), (b.memory.id, true));
        let update =
            UpdateRequest { content: Some("likes oolong tea".into()), ..Default::default() };
        h.service.update(&ns("fast"), a.memory.id, update).await?;
        h.service.archive(&ns("fast"), &[a.memory.id]).await?;
        h.service.forget(&ns("fast"), a.memory.id).await?;
        Ok::<_, rearview_service::ServiceError>(())
    };
    tokio::time::timeout(Duration::from_secs(10), fast)
        .await
        .expect("a write in another namespace finished while \"slow\" was held")
        .unwrap();

    // The identical second write to "slow" waits for the first instead of inserting again.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!second.is_finished(), "the second write must wait for the namespace");
    assert!(!first.is_finished());
    gate.add_permits(1);
    let (first, second) = (first.await.unwrap().unwrap(), second.await.unwrap().unwrap());
    assert!(first.merged.is_none());
    assert!(second.merged.as_ref().is_some_and(|m| m.exact), "{second:?}");
    assert_eq!(first.memory.id, second.memory.id);
    assert_eq!(everything(&h.service, &ns("slow")).await.len(), 1);
}

/// A language model that answers `answer`, after waiting for a permit of `gate` when
/// `pause_next` is set (telling `entered` that it is waiting): a slow LLM call during which the
/// test changes things.
#[derive(Debug)]
struct PausingLlm {
    answer: String,
    pause_next: AtomicBool,
    gate: Arc<Semaphore>,
    entered: mpsc::UnboundedSender<()>,
}

impl PausingLlm {
    fn new(answer: serde_json::Value) -> (Arc<Self>, mpsc::UnboundedReceiver<()>) {
        let (entered, waiting) = mpsc::unbounded_channel();
        let llm = Self {
            answer: answer.to_string(),
            pause_next: AtomicBool::new(false),
            gate: Arc::new(Semaphore::new(0)),
            entered,
        };
        (Arc::new(llm), waiting)
    }
}

#[async_trait]
impl LanguageModel for PausingLlm {
    fn model_for(&self, _operation: Operation) -> &str {
        "pausing-llm"
    }

    async fn complete(
        &self,
        _operation: Operation,
        _messages: &[Message],
        _json: bool,
    ) -> Result<Completion, LlmError> {
        if self.pause_next.swap(false, Ordering::SeqCst) {
            self.entered.send(()).unwrap();
            self.gate.acquire().await.unwrap().forget();
        }
        Ok(Completion {
            text: self.answer.clone(),
            model: "pausing-llm".into(),
            prompt_tokens: None,
            completion_tokens: None,
        })
    }
}

async fn tier(service: &MemoryService, namespace: &Namespace, tier: MemoryType) -> Vec<Memory> {
    let filter = MemoryFilter { memory_types: vec![tier], ..Default::default() };
    service.list(namespace, &filter, Page { offset: 0, limit: 100 }).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_distillation_whose_original_changes_meanwhile_writes_nothing() {
    let h = harness().await;
    let space = ns("distill");
    let mut ids = Vec::new();
    for text in [
        "周六我们在杭州西湖边骑了自行车",
        "The team shipped release 2.4 on Friday",
        "周日又去杭州西湖看了荷花",
    ] {
        ids.push(h.service.remember(&space, RememberRequest::new(text)).await.unwrap().memory.id);
    }
    let (llm, mut entered) = PausingLlm::new(serde_json::json!({
        "summary": "周末在杭州西湖骑自行车、看荷花；the team shipped release 2.4 on Friday"
    }));
    h.service.set_llm(Some(Arc::clone(&llm) as Arc<dyn LanguageModel>));

    llm.pause_next.store(true, Ordering::SeqCst);
    let distilling = {
        let (service, space, ids) = (Arc::clone(&h.service), space.clone(), ids.clone());
        tokio::spawn(async move {
            let request = DistillRequest { ids, ..Default::default() };
            service.summarize_episodes(&space, request).await
        })
    };
    entered.recv().await.unwrap();
    // While the LLM writes, one of the originals is corrected.
    let fix = UpdateRequest {
        content: Some("The team shipped release 2.5 on Friday".into()),
        ..Default::default()
    };
    h.service.update(&space, ids[1], fix).await.unwrap();
    llm.gate.add_permits(1);
    let err = distilling.await.unwrap().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    assert!(err.to_string().contains(&ids[1].to_string()), "{err}");
    assert!(tier(&h.service, &space, MemoryType::Semantic).await.is_empty(), "nothing written");
    assert_eq!(tier(&h.service, &space, MemoryType::Episodic).await.len(), 3, "none archived");

    // Retried, it distills what the originals say now, and archives them.
    let request = DistillRequest { ids: ids.clone(), ..Default::default() };
    let done = h.service.summarize_episodes(&space, request).await.unwrap();
    assert_eq!((done.originals_changed, done.memory.source_ids.len()), (3, 3));
    assert_eq!(tier(&h.service, &space, MemoryType::Semantic).await.len(), 1);
    assert!(tier(&h.service, &space, MemoryType::Episodic).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_distillations_of_the_same_episodes_write_one_memory() {
    let h = harness().await;
    let space = ns("distill-twice");
    let mut ids = Vec::new();
    for text in ["周六去香山爬山了", "周日又去爬了香山"] {
        ids.push(h.service.remember(&space, RememberRequest::new(text)).await.unwrap().memory.id);
    }
    let barrier = Arc::new(Barrier::new(4));
    let calls: Vec<_> = (0..4)
        .map(|_| {
            let (service, space, ids) = (Arc::clone(&h.service), space.clone(), ids.clone());
            let barrier = Arc::clone(&barrier);
            tokio::spawn(async move {
                barrier.wait().await;
                let request = DistillRequest {
                    ids,
                    originals: rearview_service::Originals::Keep,
                    ..Default::default()
                };
                service.summarize_episodes(&space, request).await.unwrap()
            })
        })
        .collect();
    let mut results = Vec::new();
    for call in calls {
        results.push(call.await.unwrap());
    }
    assert_eq!(results.iter().filter(|d| !d.already_existed).count(), 1, "one wrote");
    assert!(results.iter().all(|d| d.memory.id == results[0].memory.id), "all got that one");
    assert_eq!(tier(&h.service, &space, MemoryType::Semantic).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_session_changed_or_ended_while_its_events_are_extracted_is_not_ended_twice() {
    let h = harness().await;
    let space = ns("sessions");
    let turns = ["我下周三要去上海出差，住在静安区", "The hotel booking reference is KX-4471"];
    let mut ids = Vec::new();
    for turn in turns {
        let request = RememberRequest {
            memory_type: Some(MemoryType::Working),
            session_id: Some("trip".into()),
            ..RememberRequest::new(turn)
        };
        ids.push(h.service.remember(&space, request).await.unwrap().memory.id);
    }
    let (llm, mut entered) = PausingLlm::new(serde_json::json!({
        "events": ["下周三去上海出差，住在静安区", "Hotel booking reference KX-4471"]
    }));
    h.service.set_llm(Some(Arc::clone(&llm) as Arc<dyn LanguageModel>));
    let end = || {
        let (service, space) = (Arc::clone(&h.service), space.clone());
        tokio::spawn(async move { service.end_session(&space, "trip").await })
    };

    // A turn corrected while the LLM reads the session: nothing is promoted or expired.
    llm.pause_next.store(true, Ordering::SeqCst);
    let first = end();
    entered.recv().await.unwrap();
    let fix = UpdateRequest {
        content: Some("The hotel booking reference is KX-4472".into()),
        ..Default::default()
    };
    h.service.update(&space, ids[1], fix).await.unwrap();
    llm.gate.add_permits(1);
    let err = first.await.unwrap().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    assert!(tier(&h.service, &space, MemoryType::Episodic).await.is_empty());
    assert_eq!(tier(&h.service, &space, MemoryType::Working).await.len(), 2, "turns still live");

    // Ended by another call while this one waits for the LLM: this one ends nothing more.
    llm.pause_next.store(true, Ordering::SeqCst);
    let slow = end();
    entered.recv().await.unwrap();
    let fast = end().await.unwrap().unwrap();
    assert_eq!((fast.working_memories, fast.episodes.len()), (2, 2));
    llm.gate.add_permits(1);
    let slow = slow.await.unwrap().unwrap();
    assert_eq!((slow.working_memories, slow.episodes.len()), (0, 0));
    let episodes = tier(&h.service, &space, MemoryType::Episodic).await;
    assert_eq!(episodes.len(), 2);
    assert!(episodes.iter().all(|e| e.metadata.get("merges").is_none()), "{episodes:#?}");
    assert!(tier(&h.service, &space, MemoryType::Working).await.is_empty());
}

/// A store that stops the first insert into `namespace` until `gate` gets a permit (telling
/// `entered` when it got there); everything else passes straight through.
fn gated(
    inner: Arc<dyn MemoryStore>,
    namespace: Namespace,
    gate: Arc<Semaphore>,
    entered: mpsc::UnboundedSender<()>,
) -> Arc<dyn MemoryStore> {
    let used = Arc::new(AtomicBool::new(false));
    let hook: InsertHook = Box::new(move |record| {
        let first = record.memory.namespace == namespace && !used.swap(true, Ordering::SeqCst);
        let (gate, entered) = (Arc::clone(&gate), entered.clone());
        Box::pin(async move {
            if first {
                entered.send(()).unwrap();
                gate.acquire().await.unwrap().forget();
            }
        })
    });
    Arc::new(HookedStore::new(inner, hook))
}
