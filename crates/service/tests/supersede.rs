//! Facts that change (issues 15 and 40), over real SQLite, the test embedder and a manual clock: a
//! newer statement whose words say what changed is linked to the older one by rule, which stays
//! as history (by id, `include_superseded`, `as_of`) with who linked it and why; a change the
//! words do not tie to the older memory is only a possible update, for the caller to confirm or
//! dismiss; restatements and other facts link nothing; explicit `supersedes` and later links,
//! undone by unlinking; updates keep the earlier text; forgetting releases what a memory
//! superseded; the LLM decides when one is configured and the rule when it fails; keyword-only
//! mode; recall applies links and guesses none.

mod common;

use common::{Harness, ns, start};

use std::sync::Arc;
use std::time::Duration;

use chrono::TimeDelta;
use rearview_core::{Clock, LinkMaker, MemoryFilter, MemoryId, MemoryType, Namespace};
use rearview_llm::{ChatClient, ChatConfig};
use rearview_openai_client::testing::{Reply, serve_with};
use rearview_service::{
    ErrorKind, KeywordSearch, LifecycleConfig, RecallRequest, RememberRequest, ServiceConfig,
    Stored, UpdateRequest,
};
use rearview_store::Page;

/// Every memory of the tier is a candidate (the test embedder's cosines say little), so the text
/// evidence decides, as it does among a real model's near neighbours.
fn every_candidate() -> LifecycleConfig {
    LifecycleConfig {
        supersede_threshold: Some(-1.0),
        supersede_by_rule: true,
        ..LifecycleConfig::default()
    }
}

async fn harness_with(
    lifecycle: LifecycleConfig,
    embed: bool,
    keyword_search: KeywordSearch,
) -> Harness {
    let config = ServiceConfig { lifecycle, keyword_search, ..ServiceConfig::default() };
    Harness::in_memory(config, embed.then_some(256)).await
}

async fn harness() -> Harness {
    harness_with(every_candidate(), true, KeywordSearch::InMemory).await
}

/// Stores `content` a day after the clock's current time.
async fn tell(h: &Harness, content: &str) -> Stored {
    h.clock.advance(TimeDelta::days(1));
    h.service.remember(&ns("facts"), RememberRequest::new(content)).await.unwrap()
}

async fn recall(h: &Harness, request: RecallRequest) -> Vec<String> {
    let hits = h.service.recall(&ns("facts"), request).await.unwrap().hits;
    hits.into_iter().map(|hit| hit.memory.content).collect()
}

fn history() -> MemoryFilter {
    MemoryFilter { include_superseded: true, ..MemoryFilter::default() }
}

async fn listed(h: &Harness, filter: MemoryFilter) -> Vec<String> {
    let page = Page { offset: 0, limit: 100 };
    let memories = h.service.list(&ns("facts"), &filter, page).await.unwrap();
    memories.into_iter().map(|m| m.content).collect()
}

fn chat(content: &str) -> Reply {
    let body = serde_json::json!({
        "model": "scripted-llm",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
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

/// Who linked each memory a store superseded.
fn made_by(stored: &Stored) -> Vec<(MemoryId, LinkMaker)> {
    stored.superseded.iter().map(|s| (s.id, s.link.made_by)).collect()
}

/// Pairs whose newer statement says, in its own words, what changed.
const STATED: [(&str, &str, &str); 4] = [
    ("数据库用的是 MySQL 8。", "用户要求把数据库从MySQL换成PostgreSQL。", "数据库用什么"),
    (
        "The API server listens on port 8080.",
        "We switched the API server to port 9090.",
        "API port",
    ),
    (
        "The staging API listens on port 9443.",
        "The staging API moved to port 9444.",
        "staging API port",
    ),
    ("我每天早上喝一杯黑咖啡。", "我不再每天早上喝黑咖啡了。", "早上喝什么"),
];

#[tokio::test]
async fn a_change_the_newer_words_state_links_the_older_memory_which_stays_as_history() {
    for (older, newer, query) in STATED {
        let h = harness().await;
        tell(&h, "Our sprint length is two weeks.").await;
        let old = tell(&h, older).await.memory;
        let new = tell(&h, newer).await;
        assert_eq!(made_by(&new), [(old.id, LinkMaker::Rule)], "{newer:?}");
        let kept = h.service.get(&ns("facts"), old.id).await.unwrap();
        assert_eq!(kept.content, older, "read by id, history keeps its text");
        assert_eq!(
            (kept.superseded_by, kept.invalid_at),
            (Some(new.memory.id), Some(new.memory.occurred_at))
        );
        let link = kept.link.expect("the link says who made it and why");
        assert_eq!(link.made_by, LinkMaker::Rule);
        assert_eq!(link.reason, new.superseded[0].link.reason);
        assert!(!link.reason.is_empty());
        assert!(new.possible_updates.iter().all(|p| p.update.id != old.id), "linked, not offered");

        let now = recall(&h, RecallRequest::new(query)).await;
        assert_eq!(now.first().map(String::as_str), Some(newer), "{query:?}: {now:?}");
        assert!(!now.iter().any(|c| c == older), "history leaves recall: {now:?}");
        let with_history =
            RecallRequest { filter: history(), top_k: 10, ..RecallRequest::new(query) };
        assert!(recall(&h, with_history).await.iter().any(|c| c == older));
        // Just before the change, the older statement was current and the newer one not yet.
        let before = RecallRequest {
            as_of: Some(new.memory.occurred_at - TimeDelta::seconds(1)),
            top_k: 10,
            ..RecallRequest::new(query)
        };
        let then = recall(&h, before).await;
        assert!(then.iter().any(|c| c == older) && !then.iter().any(|c| c == newer), "{then:?}");
        assert!(!listed(&h, MemoryFilter::default()).await.iter().any(|c| c == older));
        assert!(listed(&h, history()).await.iter().any(|c| c == older));
    }
}

#[tokio::test]
async fn a_change_the_words_do_not_tie_to_the_older_memory_is_a_possible_update_only() {
    let h = harness().await;
    let berlin = tell(&h, "I live in Berlin.").await.memory;
    let lisbon = tell(&h, "I moved to Lisbon last month.").await;
    assert!(lisbon.superseded.is_empty(), "no word names what changed: no link");
    let possible: Vec<MemoryId> = lisbon.possible_updates.iter().map(|p| p.update.id).collect();
    assert_eq!(possible, [berlin.id]);
    let offered = &lisbon.possible_updates[0];
    assert_eq!(offered.content, "I live in Berlin.");
    assert!(offered.update.similarity.is_some() && !offered.update.why.is_empty());
    assert_eq!(lisbon.memory.possible_updates, std::slice::from_ref(&offered.update), "kept");
    assert_eq!(listed(&h, MemoryFilter::default()).await.len(), 2, "both stay current");

    // Recall guesses nothing: the question's words match the older statement.
    let answer = recall(&h, RecallRequest::new("where does the user live")).await;
    assert_eq!(answer.first().map(String::as_str), Some("I live in Berlin."));
    // Confirmed by the caller, the link applies: the newer statement answers in its place.
    let linked = h.service.link(&ns("facts"), lisbon.memory.id, &[berlin.id], None).await.unwrap();
    assert_eq!(linked.superseded.len(), 1);
    assert_eq!(linked.superseded[0].link.made_by, LinkMaker::Caller);
    assert!(linked.memory.possible_updates.is_empty(), "confirmed, so no longer pending");
    let answer = recall(&h, RecallRequest::new("where does the user live")).await;
    assert_eq!(answer, ["I moved to Lisbon last month."]);
}

#[tokio::test]
async fn restatements_details_and_other_facts_link_nothing() {
    for (first, second) in [
        ("I live in Berlin.", "Berlin winters are long and grey."),
        ("I moved to Berlin.", "I moved to Berlin in 2020."),
        ("The office has a quiet room on the third floor.", "The office is closed on holidays."),
        ("SDK 遵循语义化版本。", "引入新的开源协议需要法务审批。"),
        ("I have two kids, aged 7 and 10.", "I buy oat milk instead of cow's milk."),
        // A plan is no change yet.
        ("I live in Berlin.", "I'm going to move to Lisbon next year."),
        // A change of something else (issue 40's hiking memory and the database).
        ("我喜欢在周末去香山爬山，呼吸新鲜空气。", "用户要求把数据库从MySQL换成PostgreSQL。"),
        ("用户对青霉素过敏。", "用户换了新的手机号，尾号是8866。"),
        ("公司每月十号发工资。", "项目验收从月底推迟到了下个月十号。"),
        // Facts about different things read like a new value of one.
        ("硬件创新研讨会的持续时间是四天。", "硬件创新与发展论坛的持续时间是三天。"),
        ("A 论坛的规模是六千人。", "B 论坛的规模是一百人。"),
        // Dialogue turns and stories state many things: the rule leaves them alone.
        (
            "(8 May 2023) Melanie: Wow, that's cool, Caroline! What happened? Did you hear any stories?",
            "(8 May 2023) Melanie: That's really cool. You've got guts. What now?",
        ),
        (
            "Bart参与了学校的迷你马拉松，赛前充分准备，并且准时完成了比赛，感到非常开心。",
            "Bart在期末考试前感到非常焦虑，最后认真调整了复习计划并取得了优异的成绩。",
        ),
    ] {
        let h = harness().await;
        tell(&h, first).await;
        let second = tell(&h, second).await;
        assert!(second.superseded.is_empty(), "{second:?}");
        assert_eq!(listed(&h, MemoryFilter::default()).await.len(), 2, "{first:?}");
    }
}

#[tokio::test]
async fn a_statement_older_than_the_current_one_is_stored_as_history() {
    let h = harness().await;
    let current = tell(&h, "We switched the API server to port 9090.").await.memory;
    // An old note imported late: it happened before the switch.
    let imported = RememberRequest {
        occurred_at: Some(current.occurred_at - TimeDelta::days(300)),
        ..RememberRequest::new("The API server listens on port 8080.")
    };
    let stored = h.service.remember(&ns("facts"), imported).await.unwrap();
    assert!(stored.superseded.is_empty());
    assert_eq!(
        (stored.memory.superseded_by, stored.memory.invalid_at),
        (Some(current.id), Some(current.occurred_at))
    );
    assert_eq!(stored.memory.link.as_ref().map(|l| l.made_by), Some(LinkMaker::Rule));
    assert_eq!(h.service.get(&ns("facts"), current.id).await.unwrap().superseded_by, None);
    assert_eq!(
        listed(&h, MemoryFilter::default()).await,
        ["We switched the API server to port 9090."]
    );
}

#[tokio::test]
async fn explicit_supersedes_are_checked_then_applied() {
    let h = harness().await;
    let a = tell(&h, "likes tea").await.memory;
    let b = tell(&h, "喜欢爬山").await.memory;
    let request = |ids: Vec<MemoryId>| RememberRequest {
        supersedes: ids,
        ..RememberRequest::new("prefers coffee these days")
    };
    let elsewhere: Namespace = "other".parse().unwrap();
    let foreign = h.service.remember(&elsewhere, RememberRequest::new("x")).await.unwrap();
    for ids in [vec![MemoryId::new_v7(start())], vec![foreign.memory.id], vec![a.id, a.id]] {
        let err = h.service.remember(&ns("facts"), request(ids.clone())).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{ids:?}");
        assert!(err.to_string().contains("supersedes"), "{err}");
    }
    assert_eq!(listed(&h, history()).await.len(), 2, "a refused store writes nothing");

    let c = h.service.remember(&ns("facts"), request(vec![a.id, b.id])).await.unwrap();
    assert_eq!(made_by(&c), [(a.id, LinkMaker::Caller), (b.id, LinkMaker::Caller)]);
    assert_eq!(listed(&h, MemoryFilter::default()).await, ["prefers coffee these days"]);
    // An exact repeat merges, and still supersedes what it names.
    let d = tell(&h, "likes green tea").await.memory;
    let again = h.service.remember(&ns("facts"), request(vec![d.id])).await.unwrap();
    assert_eq!((again.merged.is_some(), again.memory.id), (true, c.memory.id));
    assert_eq!(h.service.get(&ns("facts"), d.id).await.unwrap().superseded_by, Some(c.memory.id));
}

#[tokio::test]
async fn a_link_is_refused_when_it_names_nothing_itself_or_makes_a_cycle_and_unlink_undoes_it() {
    let h = harness().await;
    let berlin = tell(&h, "I live in Berlin.").await.memory;
    let lisbon = tell(&h, "I moved to Lisbon last month.").await.memory;
    let unknown = MemoryId::new_v7(start());
    for (olders, field) in [
        (vec![], "supersedes"),
        (vec![lisbon.id], "supersedes"),
        (vec![berlin.id, berlin.id], "supersedes"),
    ] {
        let err = h.service.link(&ns("facts"), lisbon.id, &olders, None).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{olders:?}");
        assert!(err.to_string().contains(field), "{err}");
    }
    let err = h.service.link(&ns("facts"), lisbon.id, &[unknown], None).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    let err = h.service.link(&ns("facts"), unknown, &[berlin.id], None).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);

    let reason = Some("the user moved in March".to_owned());
    h.service.link(&ns("facts"), lisbon.id, &[berlin.id], reason).await.unwrap();
    let got = h.service.get(&ns("facts"), berlin.id).await.unwrap();
    assert_eq!(got.link.unwrap().reason, "the user moved in March");
    // Berlin replacing Lisbon now would make each the other's history.
    let err = h.service.link(&ns("facts"), berlin.id, &[lisbon.id], None).await.unwrap_err();
    assert!(err.to_string().contains("already history"), "{err}");

    // Unlinked, Berlin is current again and back among Lisbon's possible updates.
    let back = h.service.unlink(&ns("facts"), berlin.id).await.unwrap();
    assert_eq!((back.superseded_by, back.invalid_at, back.link), (None, None, None));
    assert_eq!(listed(&h, MemoryFilter::default()).await.len(), 2);
    let lisbon_now = h.service.get(&ns("facts"), lisbon.id).await.unwrap();
    assert_eq!(lisbon_now.possible_updates.iter().map(|p| p.id).collect::<Vec<_>>(), [berlin.id]);
    let err = h.service.unlink(&ns("facts"), berlin.id).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "a current memory has no link: {err}");

    // Dismissed, it leaves the review list; an id it does not list is refused.
    let pending = h.service.pending_review(&ns("facts"), Page::default()).await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].possible[0].content, "I live in Berlin.");
    let err = h.service.dismiss(&ns("facts"), lisbon.id, &[unknown]).await.unwrap_err();
    assert!(err.to_string().contains("not a possible update"), "{err}");
    let dismissed = h.service.dismiss(&ns("facts"), lisbon.id, &[berlin.id]).await.unwrap();
    assert!(dismissed.possible_updates.is_empty());
    assert!(h.service.pending_review(&ns("facts"), Page::default()).await.unwrap().is_empty());
}
#[tokio::test]
async fn an_update_keeps_the_earlier_text_as_history_under_the_same_id() {
    let h = harness().await;
    let m = tell(&h, "The API server listens on port 8080.").await.memory;
    h.clock.advance(TimeDelta::hours(1));
    let change = UpdateRequest {
        content: Some("The API server listens on port 9090.".into()),
        ..UpdateRequest::default()
    };
    let updated = h.service.update(&ns("facts"), m.id, change).await.unwrap();
    assert_eq!(
        (updated.id, updated.content.as_str()),
        (m.id, "The API server listens on port 9090.")
    );
    let earlier = h.service.history(&ns("facts"), m.id).await.unwrap();
    assert_eq!(earlier.len(), 1);
    assert_eq!(earlier[0].content, "The API server listens on port 8080.");
    assert_eq!(
        (earlier[0].superseded_by, earlier[0].invalid_at),
        (Some(m.id), Some(h.clock.now()))
    );
    assert_eq!(earlier[0].metadata["history_of"], m.id.to_string());
    assert_eq!(earlier[0].link.as_ref().map(|l| l.made_by), Some(LinkMaker::Update));
    assert_eq!(earlier[0].occurred_at, m.occurred_at, "the earlier text keeps its event time");
    assert_eq!(
        recall(&h, RecallRequest::new("port 8080")).await,
        ["The API server listens on port 9090."]
    );
    let with_history = RecallRequest { filter: history(), ..RecallRequest::new("port 8080") };
    assert_eq!(recall(&h, with_history).await[0], "The API server listens on port 8080.");
    // Only a changed text is history: a new tier, or the same words, keep none.
    let same = UpdateRequest {
        content: Some("The API server listens on port  9090.".into()),
        memory_type: Some(MemoryType::Semantic),
        ..UpdateRequest::default()
    };
    h.service.update(&ns("facts"), m.id, same).await.unwrap();
    assert_eq!(h.service.history(&ns("facts"), m.id).await.unwrap().len(), 1);
}

#[tokio::test]
async fn forgetting_a_memory_releases_what_it_superseded() {
    let h = harness().await;
    let berlin = tell(&h, "I live in Berlin.").await.memory;
    let paris = RememberRequest {
        supersedes: vec![berlin.id],
        ..RememberRequest::new("I moved to Paris last month.")
    };
    h.clock.advance(TimeDelta::days(1));
    let paris = h.service.remember(&ns("facts"), paris).await.unwrap().memory;
    let lisbon = RememberRequest {
        supersedes: vec![paris.id],
        ..RememberRequest::new("We relocated to Lisbon.")
    };
    h.clock.advance(TimeDelta::days(1));
    let lisbon = h.service.remember(&ns("facts"), lisbon).await.unwrap().memory;
    assert_eq!(h.service.get(&ns("facts"), berlin.id).await.unwrap().superseded_by, Some(paris.id));
    let chain: Vec<MemoryId> =
        h.service.history(&ns("facts"), lisbon.id).await.unwrap().iter().map(|m| m.id).collect();
    assert_eq!(chain, [paris.id, berlin.id], "history is transitive, latest change first");

    // Paris goes: Berlin stays history, now of Lisbon, with its own end of validity.
    h.service.forget(&ns("facts"), paris.id).await.unwrap();
    let got = h.service.get(&ns("facts"), berlin.id).await.unwrap();
    assert_eq!((got.superseded_by, got.invalid_at), (Some(lisbon.id), Some(paris.occurred_at)));
    // Lisbon goes: Berlin is current again. Lisbon's own earlier text goes with it.
    let change =
        UpdateRequest { content: Some("We relocated to Porto.".into()), ..Default::default() };
    h.service.update(&ns("facts"), lisbon.id, change).await.unwrap();
    h.service.forget(&ns("facts"), lisbon.id).await.unwrap();
    let got = h.service.get(&ns("facts"), berlin.id).await.unwrap();
    assert_eq!((got.superseded_by, got.invalid_at), (None, None));
    assert_eq!(listed(&h, history()).await, ["I live in Berlin."]);
}

#[tokio::test]
async fn history_is_never_a_merge_target() {
    let h = harness().await;
    let old = tell(&h, "The API server listens on port 8080.").await.memory;
    tell(&h, "We switched the API server to port 9090.").await;
    let again = tell(&h, "The API server listens on port 8080.").await;
    assert!(again.merged.is_none(), "the old text is history; saying it again is new");
    assert_ne!(again.memory.id, old.id);
    assert_eq!(again.memory.superseded_by, None);
}

#[tokio::test]
async fn an_llm_decides_when_configured_and_the_rule_when_it_fails() {
    // The rule sees no change here; the model does.
    let h = harness().await;
    let freelance = tell(&h, "I freelance as a graphic designer.").await.memory;
    h.service.set_llm(Some(llm(vec![chat("{\"updated\": [1]}")])));
    let job = tell(&h, "I took a full-time job at Canva as a brand designer.").await;
    assert_eq!(made_by(&job), [(freelance.id, LinkMaker::Llm)]);
    assert!(job.possible_updates.is_empty(), "the model judged it: nothing left to confirm");

    // The rule would link; the model says no, and it decides.
    let (older, newer, _) = STATED[1];
    let h = harness().await;
    tell(&h, older).await;
    h.service.set_llm(Some(llm(vec![chat("{\"updated\": []}")])));
    assert!(tell(&h, newer).await.superseded.is_empty());

    // A model that answers nonsense three times: the rule decides, and the store succeeds.
    let h = harness().await;
    let old = tell(&h, older).await.memory;
    h.service.set_llm(Some(llm(vec![chat("sure"), chat("{\"updated\": [7]}"), chat("[]")])));
    let new = tell(&h, newer).await;
    assert_eq!(made_by(&new), [(old.id, LinkMaker::Rule)]);
}

#[tokio::test]
async fn keyword_only_mode_finds_candidates_by_keywords_in_memory_and_in_the_store() {
    for keyword_search in [KeywordSearch::InMemory, KeywordSearch::Store] {
        let h = harness_with(LifecycleConfig::default(), false, keyword_search).await;
        tell(&h, "The staging database runs on port 5439.").await;
        let old = tell(&h, "The API server listens on port 8080.").await.memory;
        let new = tell(&h, "We switched the API server to port 9090.").await;
        assert_eq!(made_by(&new), [(old.id, LinkMaker::Rule)], "{keyword_search:?}");
        let hits = recall(&h, RecallRequest::new("API server port")).await;
        assert_eq!(hits[0], "We switched the API server to port 9090.", "{keyword_search:?}");
        assert!(!hits.iter().any(|c| c.contains("8080")), "{keyword_search:?}: {hits:?}");
    }
}

#[tokio::test]
async fn detection_stays_within_the_tier_and_the_session_and_can_be_turned_off() {
    let h = harness().await;
    let semantic = RememberRequest {
        memory_type: Some(MemoryType::Semantic),
        ..RememberRequest::new("I live in Berlin.")
    };
    h.service.remember(&ns("facts"), semantic).await.unwrap();
    let working = |session: &str, text: &str| RememberRequest {
        memory_type: Some(MemoryType::Working),
        session_id: Some(session.to_owned()),
        ..RememberRequest::new(text)
    };
    h.service.remember(&ns("facts"), working("s1", "port is 8080")).await.unwrap();
    let lisbon = tell(&h, "I moved to Lisbon last month.").await;
    assert!(lisbon.superseded.is_empty() && lisbon.possible_updates.is_empty(), "episodic");
    let other =
        h.service.remember(&ns("facts"), working("s2", "port changed to 9090")).await.unwrap();
    assert!(other.superseded.is_empty(), "another session's scratch notes");

    let off = LifecycleConfig { supersede_threshold: None, ..LifecycleConfig::default() };
    let h = harness_with(off, true, KeywordSearch::InMemory).await;
    let old = tell(&h, STATED[1].0).await.memory;
    let off = tell(&h, STATED[1].1).await;
    assert!(off.superseded.is_empty() && off.possible_updates.is_empty());
    let explicit = RememberRequest {
        supersedes: vec![old.id],
        ..RememberRequest::new("We relocated to Porto.")
    };
    assert_eq!(h.service.remember(&ns("facts"), explicit).await.unwrap().superseded.len(), 1);
}

/// A superseded memory that matches the question best is answered by what superseded it, along
/// the chain, even when the current memory shares no word with the question; history itself
/// stays out unless asked for, and `as_of` before the change still sees it.
#[tokio::test]
async fn a_question_matching_superseded_wording_is_answered_by_the_current_memory() {
    let h = harness_with(LifecycleConfig::default(), false, KeywordSearch::InMemory).await;
    tell(&h, "Our sprint length is two weeks.").await;
    let berlin = tell(&h, "I live in Berlin.").await.memory;
    let replace = |old: MemoryId, text: &str| RememberRequest {
        supersedes: vec![old],
        ..RememberRequest::new(text)
    };
    h.clock.advance(TimeDelta::days(1));
    let paris = h.service.remember(&ns("facts"), replace(berlin.id, "Then Paris.")).await.unwrap();
    h.clock.advance(TimeDelta::days(1));
    let lisbon = replace(paris.memory.id, "Now it is Lisbon, near Alfama.");
    let lisbon = h.service.remember(&ns("facts"), lisbon).await.unwrap().memory;
    let query = "Where do I live?";

    let asked = RecallRequest { explain: true, ..RecallRequest::new(query) };
    let hits = h.service.recall(&ns("facts"), asked).await.unwrap().hits;
    let contents: Vec<&str> = hits.iter().map(|hit| hit.memory.content.as_str()).collect();
    assert_eq!(contents, ["Now it is Lisbon, near Alfama."], "only the current memory answers");
    let why = &hits[0].explanation.as_ref().unwrap().description;
    assert!(why.contains(&berlin.id.to_string()), "{why}");

    // Without answering history the current memory, sharing no word with the question, is
    // not found.
    let ranking = rearview_ranking::RankingConfig {
        answer_history: false,
        ..rearview_ranking::RankingConfig::default()
    };
    let plain = RecallRequest { ranking: Some(ranking), ..RecallRequest::new(query) };
    assert!(recall(&h, plain).await.is_empty());
    // History asked for is shown as it is; before the changes, Berlin was current.
    let with_history = RecallRequest { filter: history(), ..RecallRequest::new(query) };
    assert_eq!(recall(&h, with_history).await, ["I live in Berlin."]);
    let before = RecallRequest {
        as_of: Some(paris.memory.occurred_at - TimeDelta::seconds(1)),
        ..RecallRequest::new(query)
    };
    assert_eq!(recall(&h, before).await, ["I live in Berlin."]);
    // A current memory the request's filter leaves out answers nothing.
    let archived = h.service.archive(&ns("facts"), &[lisbon.id]).await;
    assert!(archived.is_ok(), "{archived:?}");
    assert!(recall(&h, RecallRequest::new(query)).await.is_empty());
}
