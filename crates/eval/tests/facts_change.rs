//! The facts-change evaluation (issue 15): 128 scenarios, 64 English and 64 Chinese, each a
//! namespace with 34 unrelated memories, an older statement of a fact, a newer one that changes
//! it (moved city, changed port, negated preference, new e-mail, new job, deadline, phone, from X
//! to Y…) and a question asked after the change whose gold is the newer statement
//! (`data/facts_change.jsonl`, written by `data/facts_change.py`).
//!
//! Each run reports, and holds floors on:
//! - **newer first**: `frac@1` of `rearview_eval::run` with the `default` configuration (what
//!   recall does with no options);
//! - **ceiling**: the same with the older statements left out of the data, i.e. with perfect
//!   supersession: what ranking alone makes of each question;
//! - **detected**: scenarios whose older statement the newer one superseded, and **false**:
//!   other memories superseded along the way (out of ~4,600 stores);
//! - **reachable**: every older statement comes back as history, from a recall with
//!   `include_superseded` and from one `as_of` just before the change (top 10).
//!
//! Keyword-only needs nothing; the model run uses the default embedding model (skipped when it is
//! not installed, a failure under `REARVIEW_REQUIRE_MODELS=1`). Floors sit a little under the
//! measured values (in each assertion's message). Measured when they were set:
//!
//! | | newer first | ceiling | detected | false | reachable |
//! |---|---|---|---|---|---|
//! | multilingual-e5-small, default (no rule) | 0.125 | 0.852 | 0 / 128 | 0 | 126 / 128 |
//! | multilingual-e5-small, `supersede_by_rule` | 0.781 | 0.852 | 111 / 128 | 14 | 126 / 128 |
//! | keyword-only, default (no rule) | 0.148 | 0.773 | 0 / 128 | 0 | 126 / 128 |
//!
//! The false supersessions are a few distinct pairs, repeated because the unrelated memories of
//! every namespace come from one pool (10 are `公司年会定在一月中旬` / `公司财年从四月开始`, near
//! duplicates to the model at 0.950 with different months).
#![expect(clippy::print_stderr, reason = "tests print the figures they check")]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use chrono::TimeDelta;
use rearview_core::{Clock, ManualClock, MemoryFilter, MemoryId, Namespace};
use rearview_embed::{Embedder, TextKind};
use rearview_eval::{CachingEmbedder, Dataset, NoProgress, config, load_jsonl};
use rearview_service::{MemoryService, RecallRequest, RememberRequest, ServiceConfig};
use rearview_store::Page;
use rearview_store_sqlite::SqliteStore;

fn data() -> Dataset {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/facts_change.jsonl");
    load_jsonl(&path).expect("the facts-change data loads")
}

/// What one run measured.
#[derive(Debug)]
struct Figures {
    /// `frac@1` overall, English, Chinese.
    newer_first: (f64, f64, f64),
    /// `frac@1` without the older statements.
    ceiling: f64,
    detected: usize,
    false_supersessions: usize,
    /// Older statements in the top 10 of a recall with `include_superseded`.
    reachable_with_history: usize,
    /// Older statements in the top 10 of a recall `as_of` just before the change, newer absent.
    reachable_as_of: usize,
    /// Older statements reachable by one of the two.
    reachable: usize,
    scenarios: usize,
}

async fn measure(embedder: Option<Arc<dyn Embedder>>) -> Figures {
    let data = data();
    let cached = embedder.map(|e| Arc::new(CachingEmbedder::new(e)));
    if let Some(cache) = &cached {
        let mut texts: Vec<String> = data.memories.iter().map(|m| m.text.clone()).collect();
        texts.sort();
        texts.dedup();
        cache.warm(&texts, TextKind::Passage).await.unwrap();
    }
    let as_embedder = || cached.clone().map(|c| c as Arc<dyn Embedder>);
    let default = [config("default").unwrap()];
    let report = rearview_eval::run(&data, as_embedder(), &default, &NoProgress).await.unwrap();
    eprintln!("{}", report.to_text());
    let json = report.to_json();
    let by_language = |lang: &str| {
        json["configs"][0]["categories"][lang]["scores"]["frac"]["@1"].as_f64().unwrap()
    };
    let newer_first =
        (report.get("default", "frac", 1).unwrap(), by_language("en"), by_language("zh"));
    let mut without_older = data.clone();
    without_older.memories.retain(|m| m.id != "old");
    let control = rearview_eval::run(&without_older, as_embedder(), &default, &NoProgress).await;
    let ceiling = control.unwrap().get("default", "frac", 1).unwrap();

    // The service path of `rearview_eval::run` once more, to look at what was superseded.
    let latest = data.questions.iter().map(|q| q.as_of).max().unwrap();
    let clock = Arc::new(ManualClock::new(latest));
    let service = MemoryService::open(
        Arc::new(SqliteStore::in_memory().unwrap()),
        as_embedder(),
        clock as Arc<dyn Clock>,
        ServiceConfig { max_top_k: 100, ..ServiceConfig::default() },
    )
    .await
    .unwrap();
    let mut ids: HashMap<(String, String), MemoryId> = HashMap::new();
    for m in &data.memories {
        let ns: Namespace = m.namespace.parse().unwrap();
        let request = RememberRequest {
            occurred_at: Some(m.timestamp),
            ttl_secs: Some(0),
            ..RememberRequest::new(m.text.clone())
        };
        let stored = service.remember(&ns, request).await.unwrap();
        ids.insert((m.namespace.clone(), m.id.clone()), stored.memory.id);
    }
    let mut figures = Figures {
        newer_first,
        ceiling,
        detected: 0,
        false_supersessions: 0,
        reachable_with_history: 0,
        reachable_as_of: 0,
        reachable: 0,
        scenarios: data.questions.len(),
    };
    let everything = MemoryFilter { include_superseded: true, ..MemoryFilter::default() };
    for q in &data.questions {
        let ns: Namespace = q.namespace.parse().unwrap();
        let old = ids[&(q.namespace.clone(), "old".to_owned())];
        let new = ids[&(q.namespace.clone(), "new".to_owned())];
        let page = Page { offset: 0, limit: 100 };
        for m in service.list(&ns, &everything, page).await.unwrap() {
            match m.superseded_by {
                Some(by) if m.id == old && by == new => figures.detected += 1,
                Some(by) => {
                    figures.false_supersessions += 1;
                    let by = service.get(&ns, by).await.unwrap();
                    eprintln!("false supersession in {ns}: {:?} by {:?}", m.content, by.content);
                }
                None => {}
            }
        }
        let top10 = |request: RecallRequest| {
            let service = &service;
            let ns = ns.clone();
            async move {
                let request = RecallRequest { top_k: 10, record_access: false, ..request };
                let hits = service.recall(&ns, request).await.unwrap().hits;
                hits.iter().map(|h| h.memory.id).collect::<Vec<_>>()
            }
        };
        let with_history = RecallRequest {
            filter: everything.clone(),
            as_of: Some(q.as_of),
            ..RecallRequest::new(q.text.clone())
        };
        let found_with_history = top10(with_history).await.contains(&old);
        figures.reachable_with_history += usize::from(found_with_history);
        let change = service.get(&ns, new).await.unwrap().occurred_at;
        let before = RecallRequest {
            as_of: Some(change - TimeDelta::seconds(1)),
            ..RecallRequest::new(q.text.clone())
        };
        let then = top10(before).await;
        let found_as_of = then.contains(&old) && !then.contains(&new);
        figures.reachable_as_of += usize::from(found_as_of);
        figures.reachable += usize::from(found_with_history || found_as_of);
        if !(found_with_history || found_as_of) {
            let old = service.get(&ns, old).await.unwrap().content;
            eprintln!("not in the top 10 as history in {ns}: {old:?} for {:?}", q.text);
        }
    }
    eprintln!("{figures:?}");
    figures
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn facts_that_change_keyword_only() {
    let f = measure(None).await;
    assert_eq!(f.scenarios, 128);
    // FIXME(issue 15): the target is the newer statement first in ≥ 95 % of the scenarios. Not
    // reached, and keyword matching cannot reach it: without the older statements at all the
    // newer one is first in only 78 % (many share no word with their question).
    // By default the rule does not supersede (`LifecycleConfig::supersede_by_rule`: it hid
    // MADial events no later memory updates): only an explicit `supersedes` or an LLM does.
    // Ranking alone then puts the newer statement first in 15 %.
    at_least("keyword-only newer first", f.newer_first.0, 0.12); // measured 0.148
    at_least("keyword-only ceiling", f.ceiling, 0.76); // measured 0.781
    assert_eq!(f.detected, 0, "no rule-based supersession without vectors: {f:?}");
    assert_eq!(f.false_supersessions, 0, "{f:?}");
    // Two older statements share no word with their question: reachable only by id or listing.
    assert!(f.reachable >= 125, "measured 126: {f:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn facts_that_change_with_the_default_model() {
    let Some(model) =
        rearview_embed_local::testing::installed_or_skip(rearview_embed_local::DEFAULT_MODEL)
    else {
        return;
    };
    let f = measure(Some(Arc::new(model))).await;
    assert_eq!(f.scenarios, 128);
    // FIXME(issue 15): the target is the newer statement first in ≥ 95 % of the scenarios.
    // With the rule off by default, ranking alone puts the newer statement first in 12.5 %;
    // with the rule on (opt-in) it was 78 % (111 of 128 changes detected, 14 false).
    at_least("model newer first", f.newer_first.0, 0.10); // measured 0.125
    at_least("model ceiling", f.ceiling, 0.84); // measured 0.859
    assert_eq!(f.detected, 0, "no rule-based supersession by default: {f:?}");
    assert_eq!(f.false_supersessions, 0, "{f:?}");
    assert!(f.reachable >= 126, "measured 127: {f:?}");
}

fn at_least(what: &str, got: f64, floor: f64) {
    assert!(got >= floor, "{what} = {got:.3}, below the floor {floor}");
}
