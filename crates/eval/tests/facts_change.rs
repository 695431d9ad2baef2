//! The facts-change evaluation (issues 15 and 40): 128 scenarios, 64 English and 64 Chinese, each a
//! namespace with 34 unrelated memories, an older statement of a fact, a newer one that changes
//! it (moved city, changed port, negated preference, new e-mail, new job, deadline, phone, from X
//! to Y…) and a question asked after the change whose gold is the newer statement
//! (`data/facts_change.jsonl`, written by `data/facts_change.py`); and the same measured on six
//! held-out sets of 80 (`data/facts_change_holdout{,2,…,6}.jsonl`, by the `.py` beside each),
//! each written by someone who had read neither the rules nor the other sets' misses.
//!
//! Everything is measured by default: the default ranking and model, no LLM. Changes are links
//! decided when a memory is stored (`service/src/lifecycle/supersede.rs`): by rule only where the
//! newer text's own words state what changed, otherwise offered as possible updates for the
//! caller (an agent) to confirm. Recall applies links and guesses none. Each run reports, and
//! holds floors on:
//! - **newer first**: `frac@1` by `rearview_eval::run`, and the same through the service;
//! - **ceiling**: the same with the older statements left out of the data (perfect links);
//! - **linked**: scenarios whose older statement the newer one linked by rule; **false links**:
//!   other memories linked along the way (out of 4,608 or 2,880 stores);
//! - **offered**: of the scenarios not linked, those whose older statement is among the newer
//!   one's possible updates (what an agent needs in order to confirm); **false offers**: the other
//!   possible updates listed, per store (noise an agent wades through);
//! - **reachable**: every older statement comes back as history, from a recall with
//!   `include_superseded` or one `as_of` just before the change (top 10).
//!
//! | set | newer first | ceiling | linked | false links | offered | false offers / store | confirmed |
//! |---|---|---|---|---|---|---|---|
//! | tuned, model | 0.336 (en 0.406, zh 0.266) | 0.859 | 29 / 128 | 1 | 98 / 99 | 2.14 | 0.953 (0.852) |
//! | held-out 1, model | 0.175 | 0.713 | 1 / 80 | 0 | 75 / 79 | 2.09 | 0.863 (0.700) |
//! | held-out 2, model | 0.313 | 0.750 | 2 / 80 | 0 | 76 / 78 | 2.10 | 0.913 (0.750) |
//! | held-out 3, model | 0.188 | 0.775 | 2 / 80 | 0 | 74 / 78 | 2.07 | 0.950 (0.763) |
//! | held-out 4, model | 0.200 | 0.850 | 0 / 80 | 0 | 79 / 80 | 2.07 | 0.988 (0.850) |
//! | held-out 5, model | 0.213 | 0.900 | 2 / 80 | 0 | 76 / 78 | 2.06 | 0.963 (0.888) |
//! | held-out 6, model | 0.175 | 0.838 | 1 / 80 | 0 | 79 / 79 | 2.06 | 0.975 (0.838) |
//! | tuned, keyword-only | 0.344 | 0.773 | 29 / 128 | 1 | 86 / 99 | 0.13 | 0.891 (0.742) |
//! | held-out 1–6, keyword-only | 0.125, 0.213, 0.113, 0.163, 0.175, 0.175 | 0.488–0.750 | 0–2 / 80 | 0 | 45–56 % | 0.12–0.16 | 0.438–0.638 |
//!
//! **Confirmed**: newer first once an agent has confirmed each offered older statement with a
//! link (`MemoryService::link`), and in brackets the same without answering history by its
//! successor (`+nohistory`): what the agent gets, and what that stage adds.
//!
//! What this cost: before issue 40, recall guessed at every query which candidate updated which
//! (a stage placing newer statements first, and a near tie broken by time) and put the newer
//! statement first in 0.930 of the tuned set and 0.625–0.788 of the held-out ones (with the
//! offered updates confirmed by an agent: 0.953 and 0.863–0.988 now); the same
//! guess put an unrelated memory that mentions a change above an exact match in small
//! namespaces (`crates/eval/tests/precision.rs`). Links by rule are few (the held-out sets
//! state their changes in words no rule reads), and an older statement matching the question
//! better than the newer one ranks first until a link says otherwise. The ceilings say what an
//! agent gets once it confirms the offered updates. The false offers are the facts-change
//! namespaces' 34 unrelated memories, which sit close together (the precision sets: 0.63 per
//! store).
//! `REARVIEW_FACTS_MISSES=1` prints each question whose newer statement is not first.
//!
//! The last test holds what the rule links in the shared benchmarks, where no memory updates
//! another.
#![expect(clippy::print_stderr, reason = "tests print the figures they check")]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use chrono::TimeDelta;
use rearview_core::{Clock, ManualClock, MemoryFilter, MemoryId, Namespace};
use rearview_embed::{Embedder, TextKind};
use rearview_eval::{CachingEmbedder, Dataset, NoProgress, config, load_jsonl};
use rearview_ranking::RankingConfig;
use rearview_service::{MemoryService, RecallRequest, RememberRequest, ServiceConfig};
use rearview_store::Page;
use rearview_store_sqlite::SqliteStore;

/// Which facts-change set.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Set {
    /// `data/facts_change.jsonl`: the 128 scenarios the words of change were read from.
    Tuned,
    /// `data/facts_change_holdout.jsonl`: 80 written after the words of change by someone who
    /// had not read them; the near tie was then designed from its misses.
    HeldOut1,
    /// `data/facts_change_holdout2.jsonl`: 80 written after the near tie by someone who had read
    /// neither the rules nor the other sets' misses; nothing was changed after measuring it.
    HeldOut2,
    /// `data/facts_change_holdout3.jsonl`: 80 more written the same way, later.
    HeldOut3,
    /// `data/facts_change_holdout4.jsonl`: 80 more written the same way, before the near tie
    /// was read on centered vectors; first measured with and without that.
    HeldOut4,
    /// `data/facts_change_holdout5.jsonl`: 80 more written the same way, to choose the centered
    /// tie's margin (0.05 or 0.03) after sets 1–4 had been measured at both.
    HeldOut5,
    /// `data/facts_change_holdout6.jsonl`: 80 more written the same way, after every rule of the
    /// stage was set; measured after two looser ties had been tried on sets 1–5 and not taken.
    HeldOut6,
}

fn data(set: Set) -> Dataset {
    let file = match set {
        Set::Tuned => "data/facts_change.jsonl",
        Set::HeldOut1 => "data/facts_change_holdout.jsonl",
        Set::HeldOut2 => "data/facts_change_holdout2.jsonl",
        Set::HeldOut3 => "data/facts_change_holdout3.jsonl",
        Set::HeldOut4 => "data/facts_change_holdout4.jsonl",
        Set::HeldOut5 => "data/facts_change_holdout5.jsonl",
        Set::HeldOut6 => "data/facts_change_holdout6.jsonl",
    };
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file);
    load_jsonl(&path).expect("the facts-change data loads")
}

/// What one run measured.
#[derive(Debug)]
struct Figures {
    /// `frac@1` overall, English, Chinese.
    newer_first: (f64, f64, f64),
    /// `frac@1` without the older statements.
    ceiling: f64,
    /// Scenarios whose older statement the newer one linked (by rule).
    linked: usize,
    /// Other memories linked along the way (out of ~4,600 stores).
    false_links: usize,
    /// Of the scenarios not linked, those whose older statement is among the newer one's
    /// possible updates (what an agent needs in order to confirm).
    offered: usize,
    /// Possible updates listed that are not the scenario's older statement, over all stores.
    false_offers: usize,
    /// Stores.
    stores: usize,
    /// Newer first once an agent has confirmed every offered older statement (a link made by the
    /// caller), by default and without answering history by its successor.
    confirmed_newer_first: (f64, f64),
    /// Older statements in the top 10 of a recall with `include_superseded`.
    reachable_with_history: usize,
    /// Older statements in the top 10 of a recall `as_of` just before the change, newer absent.
    reachable_as_of: usize,
    /// Older statements reachable by one of the two.
    reachable: usize,
    scenarios: usize,
}

impl Figures {
    /// The share of unlinked scenarios whose older statement is offered (1 with none unlinked).
    fn offered_share(&self) -> f64 {
        let unlinked = self.scenarios - self.linked;
        if unlinked == 0 { 1.0 } else { self.offered as f64 / unlinked as f64 }
    }
}

/// The model, each text embedded once for every run of a test.
async fn cached(model: Option<Arc<dyn Embedder>>) -> Option<Arc<dyn Embedder>> {
    let cache = Arc::new(CachingEmbedder::new(model?));
    let mut texts: Vec<String> =
        ALL_SETS.into_iter().flat_map(|set| data(set).memories).map(|m| m.text).collect();
    texts.sort();
    texts.dedup();
    cache.warm(&texts, TextKind::Passage).await.unwrap();
    Some(cache)
}

/// Every set, tuned first.
const ALL_SETS: [Set; 7] = [
    Set::Tuned,
    Set::HeldOut1,
    Set::HeldOut2,
    Set::HeldOut3,
    Set::HeldOut4,
    Set::HeldOut5,
    Set::HeldOut6,
];

/// The set measured by default (links by rule, no LLM), through `rearview_eval::run` and again
/// through the service to read the links and possible updates.
async fn measure(set: Set, embedder: Option<Arc<dyn Embedder>>) -> Figures {
    let data = data(set);
    let default = [config("default").unwrap()];
    let report = rearview_eval::run(&data, embedder.clone(), &default, &NoProgress).await.unwrap();
    let json = report.to_json();
    let by_language = |lang: &str| {
        json["configs"][0]["categories"][lang]["scores"]["frac"]["@1"].as_f64().unwrap()
    };
    let by_run = (report.get("default", "frac", 1).unwrap(), by_language("en"), by_language("zh"));
    let mut without_older = data.clone();
    without_older.memories.retain(|m| m.id != "old");
    let control = rearview_eval::run(&without_older, embedder.clone(), &default, &NoProgress).await;
    let ceiling = control.unwrap().get("default", "frac", 1).unwrap();

    // The service path of `rearview_eval::run` once more, to look at what was linked and offered.
    let latest = data.questions.iter().map(|q| q.as_of).max().unwrap();
    let clock = Arc::new(ManualClock::new(latest));
    let service = MemoryService::open(
        Arc::new(SqliteStore::in_memory().unwrap()),
        embedder,
        Arc::clone(&clock) as Arc<dyn Clock>,
        ServiceConfig { max_top_k: 100, ..ServiceConfig::default() },
    )
    .await
    .unwrap();
    let mut figures = Figures {
        newer_first: (0.0, 0.0, 0.0),
        ceiling,
        linked: 0,
        false_links: 0,
        offered: 0,
        false_offers: 0,
        stores: data.memories.len(),
        confirmed_newer_first: (0.0, 0.0),
        reachable_with_history: 0,
        reachable_as_of: 0,
        reachable: 0,
        scenarios: data.questions.len(),
    };
    let mut ids: HashMap<(String, String), MemoryId> = HashMap::new();
    // The scenarios whose older statement the newer one offered: (namespace, newer, older).
    let mut offers: Vec<(Namespace, MemoryId, MemoryId)> = Vec::new();
    for (i, m) in data.memories.iter().enumerate() {
        // One millisecond apart, as `rearview_eval::run` stores them: ids (and so exact ties)
        // follow the data's order, the same on every run.
        clock.set(latest + TimeDelta::milliseconds(i as i64));
        let ns: Namespace = m.namespace.parse().unwrap();
        let request = RememberRequest {
            occurred_at: Some(m.timestamp),
            ttl_secs: Some(0),
            ..RememberRequest::new(m.text.clone())
        };
        let stored = service.remember(&ns, request).await.unwrap();
        ids.insert((m.namespace.clone(), m.id.clone()), stored.memory.id);
        let old = ids.get(&(m.namespace.clone(), "old".to_owned()));
        for offer in &stored.possible_updates {
            if m.id == "new" && old == Some(&offer.update.id) {
                figures.offered += 1;
                offers.push((ns.clone(), stored.memory.id, offer.update.id));
            } else {
                figures.false_offers += 1;
            }
        }
    }
    let everything = MemoryFilter { include_superseded: true, ..MemoryFilter::default() };
    let mut first = [0usize; 2];
    for q in &data.questions {
        let ns: Namespace = q.namespace.parse().unwrap();
        let old = ids[&(q.namespace.clone(), "old".to_owned())];
        let new = ids[&(q.namespace.clone(), "new".to_owned())];
        let asked = RecallRequest {
            top_k: 1,
            as_of: Some(q.as_of),
            record_access: false,
            ..RecallRequest::new(q.text.clone())
        };
        let hits = service.recall(&ns, asked).await.unwrap().hits;
        if hits.first().is_some_and(|h| h.memory.id == new) {
            first[usize::from(q.category == "zh")] += 1;
        } else if std::env::var_os("REARVIEW_FACTS_MISSES").is_some() {
            let top: Vec<String> = hits.into_iter().map(|h| h.memory.content).collect();
            let (old, new) = (service.get(&ns, old).await.unwrap(), service.get(&ns, new).await);
            eprintln!(
                "miss in {ns}: {:?}\n  older {:?}\n  newer {:?}\n  top {top:?}",
                q.text,
                old.content,
                new.unwrap().content
            );
        }
        let page = Page { offset: 0, limit: 100 };
        for m in service.list(&ns, &everything, page).await.unwrap() {
            match m.superseded_by {
                Some(by) if m.id == old && by == new => figures.linked += 1,
                Some(by) => {
                    figures.false_links += 1;
                    let by = service.get(&ns, by).await.unwrap();
                    eprintln!("false link in {ns}: {:?} by {:?}", m.content, by.content);
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
    figures.confirmed_newer_first = confirmed(&service, &data, &ids, &offers).await;
    let share = |n: usize, of: usize| n as f64 / of as f64;
    let per_language = data.questions.len() / 2;
    figures.newer_first = (
        share(first[0] + first[1], data.questions.len()),
        share(first[0], per_language),
        share(first[1], per_language),
    );
    // This is the protocol of `rearview_eval::run`: the same answer. (The report rounds its
    // per-language figures to four places.)
    let (a, b) = (figures.newer_first, by_run);
    let close = (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-3 && (a.2 - b.2).abs() < 1e-3;
    assert!(close, "the service path agrees with rearview_eval::run: {a:?} / {b:?}");
    eprintln!(
        "{set:?} {}: {figures:?}, offered {:.3}, false offers per store {:.3}",
        if report.model.is_some() { "model" } else { "keyword-only" },
        figures.offered_share(),
        figures.false_offers as f64 / figures.stores as f64
    );
    figures
}

/// Newer first after an agent confirmed every offered older statement (`MemoryService::link`),
/// by default and without answering history by its successor (`+nohistory`).
async fn confirmed(
    service: &MemoryService,
    data: &Dataset,
    ids: &HashMap<(String, String), MemoryId>,
    offers: &[(Namespace, MemoryId, MemoryId)],
) -> (f64, f64) {
    for (ns, newer, older) in offers {
        service.link(ns, *newer, &[*older], Some("the agent confirmed".into())).await.unwrap();
    }
    let mut first = [0usize; 2];
    for q in &data.questions {
        let ns: Namespace = q.namespace.parse().unwrap();
        let new = ids[&(q.namespace.clone(), "new".to_owned())];
        for (n, answer_history) in [true, false].into_iter().enumerate() {
            let ranking = RankingConfig { answer_history, ..RankingConfig::default() };
            let asked = RecallRequest {
                top_k: 1,
                as_of: Some(q.as_of),
                record_access: false,
                ranking: Some(ranking),
                ..RecallRequest::new(q.text.clone())
            };
            let hits = service.recall(&ns, asked).await.unwrap().hits;
            first[n] += usize::from(hits.first().is_some_and(|h| h.memory.id == new));
        }
    }
    let of = data.questions.len() as f64;
    (first[0] as f64 / of, first[1] as f64 / of)
}

/// Floors of one set: newer first, ceiling, linked, false links at most, offered share,
/// reachable, newer first once the offered updates are confirmed.
struct Floors {
    newer_first: f64,
    confirmed: f64,
    ceiling: f64,
    linked: usize,
    false_links: usize,
    offered: f64,
    reachable: usize,
}

fn hold(set: Set, what: &str, f: &Figures, floors: &Floors) {
    let what = format!("{set:?} {what}");
    at_least(&format!("{what} newer first"), f.newer_first.0, floors.newer_first);
    at_least(&format!("{what} ceiling"), f.ceiling, floors.ceiling);
    assert!(f.linked >= floors.linked, "{what} linked: {f:?}");
    assert!(f.false_links <= floors.false_links, "{what} false links: {f:?}");
    at_least(&format!("{what} offered"), f.offered_share(), floors.offered);
    assert!(f.reachable >= floors.reachable, "{what} reachable: {f:?}");
    at_least(&format!("{what} confirmed"), f.confirmed_newer_first.0, floors.confirmed);
    // Links confirmed, answering history by its successor is what puts the newer one first.
    assert!(f.confirmed_newer_first.0 > f.confirmed_newer_first.1, "{what}: {f:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn facts_that_change_keyword_only() {
    for set in ALL_SETS {
        let f = measure(set, None).await;
        assert_eq!(f.scenarios, if set == Set::Tuned { 128 } else { 80 });
        hold(set, "keyword-only", &f, &keyword_only_floors(set));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn facts_that_change_with_the_default_model() {
    let Some(model) =
        rearview_embed_local::testing::installed_or_skip(rearview_embed_local::DEFAULT_MODEL)
    else {
        return;
    };
    let model = cached(Some(Arc::new(model))).await;
    for set in ALL_SETS {
        let f = measure(set, model.clone()).await;
        hold(set, "model", &f, &model_floors(set));
    }
}

/// Floors a little under what was measured, keyword-only (in the module docs).
fn keyword_only_floors(set: Set) -> Floors {
    let (newer_first, ceiling, linked, offered, reachable, confirmed) = match set {
        Set::Tuned => (0.32, 0.75, 28, 0.84, 124, 0.87),
        Set::HeldOut1 => (0.10, 0.46, 1, 0.46, 63, 0.41),
        Set::HeldOut2 => (0.19, 0.58, 1, 0.44, 68, 0.51),
        Set::HeldOut3 => (0.09, 0.56, 1, 0.42, 74, 0.47),
        Set::HeldOut4 => (0.14, 0.66, 0, 0.53, 76, 0.61),
        Set::HeldOut5 => (0.15, 0.66, 1, 0.48, 74, 0.55),
        Set::HeldOut6 => (0.15, 0.72, 0, 0.53, 76, 0.59),
    };
    Floors { newer_first, confirmed, ceiling, linked, false_links: 2, offered, reachable }
}

/// Floors a little under what was measured with the default model (in the module docs).
fn model_floors(set: Set) -> Floors {
    let (newer_first, ceiling, linked, offered, reachable, confirmed) = match set {
        Set::Tuned => (0.31, 0.83, 28, 0.97, 125, 0.93),
        Set::HeldOut1 => (0.15, 0.68, 0, 0.92, 77, 0.84),
        Set::HeldOut2 => (0.29, 0.72, 1, 0.95, 77, 0.89),
        Set::HeldOut3 => (0.16, 0.75, 1, 0.92, 77, 0.92),
        Set::HeldOut4 => (0.18, 0.82, 0, 0.96, 78, 0.96),
        Set::HeldOut5 => (0.19, 0.87, 1, 0.95, 76, 0.94),
        Set::HeldOut6 => (0.15, 0.81, 0, 0.97, 78, 0.95),
    };
    Floors { newer_first, confirmed, ceiling, linked, false_links: 2, offered, reachable }
}

#[test]
fn the_generators_write_the_committed_sets() {
    // Each set is what its script writes (the held-out ones import the tuned one's pools).
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data");
    let sets = [
        "facts_change",
        "facts_change_holdout",
        "facts_change_holdout2",
        "facts_change_holdout3",
        "facts_change_holdout4",
        "facts_change_holdout5",
        "facts_change_holdout6",
    ];
    for set in sets {
        let written = std::process::Command::new("python3")
            .arg(dir.join(format!("{set}.py")))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            // Where `facts_change` is imported from, also under `PYTHONSAFEPATH`.
            .env("PYTHONPATH", &dir)
            .output()
            .expect("python3 runs");
        assert!(written.status.success(), "{set}.py: {}", String::from_utf8_lossy(&written.stderr));
        let committed = std::fs::read(dir.join(format!("{set}.jsonl"))).unwrap();
        assert!(written.stdout == committed, "{set}.jsonl is not what {set}.py writes");
    }
}

/// Memories of the shared benchmarks (stories, a conversation, templated facts; `$REARVIEW_DATA`
/// as in `slices.rs`) that the rule links by default, though none updates another. Before
/// issue 40's stricter reading: 2, 1 and 4 with the model (the rule was off by default then).
async fn supersessions_in(
    dir: &std::path::Path,
    embedder: Option<Arc<dyn Embedder>>,
) -> [usize; 3] {
    let madial = rearview_eval::adapters::madial(&dir.join("madial-bench"), "zh").unwrap();
    let mut locomo =
        rearview_eval::adapters::locomo(&dir.join("locomo-dev/locomo-dev.json")).unwrap();
    locomo.take_namespaces(1);
    let mut memdaily = rearview_eval::adapters::memdaily(&dir.join("memdaily")).unwrap();
    let keep: Vec<String> =
        memdaily.questions.iter().step_by(20).map(|q| q.namespace.clone()).collect();
    memdaily.memories.retain(|m| keep.contains(&m.namespace));
    let mut counts = [0; 3];
    for (count, data) in counts.iter_mut().zip([&madial, &locomo, &memdaily]) {
        let latest = data.memories.iter().map(|m| m.timestamp).max().unwrap();
        let service = MemoryService::open(
            Arc::new(SqliteStore::in_memory().unwrap()),
            embedder.clone(),
            Arc::new(ManualClock::new(latest)) as Arc<dyn Clock>,
            ServiceConfig::default(),
        )
        .await
        .unwrap();
        for m in &data.memories {
            let ns: Namespace = m.namespace.parse().unwrap();
            let request = RememberRequest {
                occurred_at: Some(m.timestamp),
                ttl_secs: Some(0),
                ..RememberRequest::new(m.text.clone())
            };
            *count += service.remember(&ns, request).await.unwrap().superseded.len();
        }
    }
    eprintln!("superseded (MADial-Bench zh, LoCoMo, MemDaily): {counts:?}");
    counts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn supersessions_stay_rare_in_conversations_stories_and_templated_facts() {
    let dir = std::env::var_os("REARVIEW_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        PathBuf::from,
    );
    if !dir.join("locomo-dev").is_dir() {
        assert!(!rearview_embed_local::testing::models_required(), "no benchmark data at {dir:?}");
        eprintln!("SKIPPED: benchmark data not found at {}", dir.display());
        return;
    }
    let [madial, locomo, memdaily] = supersessions_in(&dir, None).await;
    assert!(madial <= 1 && locomo <= 1 && memdaily <= 1, "measured 0, 0, 0");
    let Some(model) =
        rearview_embed_local::testing::installed_or_skip(rearview_embed_local::DEFAULT_MODEL)
    else {
        return;
    };
    let model: Arc<dyn Embedder> = Arc::new(CachingEmbedder::new(Arc::new(model)));
    let [madial, locomo, memdaily] = supersessions_in(&dir, Some(model)).await;
    assert!(madial <= 1 && locomo <= 1 && memdaily <= 1, "measured 0, 0, 0");
}

fn at_least(what: &str, got: f64, floor: f64) {
    assert!(got >= floor, "{what} = {got:.3}, below the floor {floor}");
}
