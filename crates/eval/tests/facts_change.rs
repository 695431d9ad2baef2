//! The facts-change evaluation (issue 15): 128 scenarios, 64 English and 64 Chinese, each a
//! namespace with 34 unrelated memories, an older statement of a fact, a newer one that changes
//! it (moved city, changed port, negated preference, new e-mail, new job, deadline, phone, from X
//! to Y…) and a question asked after the change whose gold is the newer statement
//! (`data/facts_change.jsonl`, written by `data/facts_change.py`); and the same measured on
//! five held-out sets of 80 (`data/facts_change_holdout{,2,…,5}.jsonl`, by the `.py` beside each).
//!
//! Each run reports, and holds floors on, with rule-based supersession off (the default:
//! `LifecycleConfig::supersede_by_rule`) and on:
//! - **newer first**: `frac@1` with the `default` ranking (what recall does with no options), by
//!   `rearview_eval::run` when the rule is off, by the same service path with the rule on;
//! - **ceiling**: the same with the older statements left out of the data, i.e. with perfect
//!   supersession: what ranking alone makes of each question;
//! - **detected**: scenarios whose older statement the newer one superseded, and **false**:
//!   other memories superseded along the way (out of ~4,600 stores);
//! - **reachable**: every older statement comes back as history, from a recall with
//!   `include_superseded` and from one `as_of` just before the change (top 10).
//!
//! Keyword-only needs nothing; the model run uses the default embedding model (skipped when it is
//! not installed, a failure under `REARVIEW_REQUIRE_MODELS=1`). Floors sit a little under the
//! measured values (in each assertion's message). Measured when they were set, with the default
//! ranking's newer-statements-first stage (`rearview_search::succession`), which puts a newer
//! statement right before the older one it updates at recall, nothing superseded:
//!
//! | | newer first | ceiling | detected | false | reachable |
//! |---|---|---|---|---|---|
//! | multilingual-e5-small, default (no rule) | 0.930 (en 0.938, zh 0.922) | 0.859 | 0 / 128 | 0 | 128 / 128 |
//! | multilingual-e5-small, `supersede_by_rule` | 0.930 (en 0.938, zh 0.922) | 0.859 | 110 / 128 | 3 | 128 / 128 |
//! | keyword-only, default (no rule) | 0.742 (en 0.750, zh 0.734) | 0.781 | 0 / 128 | 0 | 126 / 128 |
//! | keyword-only, `supersede_by_rule` | 0.758 (en 0.781, zh 0.734) | 0.781 | 91 / 128 | 5 | 126 / 128 |
//!
//! (Before the change words added after a7daec8 (`started`, `wait until`, `instead of` what the
//! older text names, `关闭`, `等到`): 0.812, 0.836, 0.711 and 0.719. Before the stage read
//! nearness from both sides and changes only marked (`started`, `开始`): 0.852 and 0.875 with the
//! model. Before the two best answers' near tie was broken by time: 0.883 and 0.898, ceiling
//! 0.852. Before a question about the user was also read in the user's words
//! (`rearview_search::speaker`): 0.898 and 0.914, ceiling 0.844, reachable 126. Before the near
//! tie was read on vectors centered on the ranked statements' mean, with no subject term needed:
//! 0.906 and 0.922, ceiling 0.867; centered by a margin of 0.05 before 0.03: 0.930 and 0.938.)
//!
//! **Held out**, by default with no rule: six sets of 80 scenarios (40 per language), each
//! written by someone who had read neither the rules nor the other sets' misses. Set 1
//! (`data/facts_change_holdout.jsonl`) was written after the words of change; the stage's near
//! tie of the two best answers was then designed from its misses, so only its figure before
//! the tie (0.400 with the model) is held out. Set 2 (`data/facts_change_holdout2.jsonl`) was
//! written after the tie and nothing was changed after measuring it (0.537 without the tie);
//! set 3 (`data/facts_change_holdout3.jsonl`) later the same way (0.438 without the tie), and
//! set 4 (`data/facts_change_holdout4.jsonl`) before the tie was read on centered vectors
//! (0.600 with the tie as it was, first measured together with the change), and set 5
//! (`data/facts_change_holdout5.jsonl`) to choose the centered tie's margin (0.725 with the tie
//! as it was, 0.775 at 0.05, 0.788 at 0.03); set 6 (`data/facts_change_holdout6.jsonl`) after
//! every rule was set, measured once looser ties had been tried on sets 1–5 and not taken
//! (0.725 with the tie before centering, ceiling 0.875):
//!
//! | | newer first | ceiling | reachable |
//! |---|---|---|---|
//! | set 1, multilingual-e5-small | 0.625 (en 0.475, zh 0.775) | 0.725 | 79 / 80 |
//! | set 1, keyword-only | 0.263 (en 0.225, zh 0.300) | 0.488 | 65 / 80 |
//! | set 2, multilingual-e5-small | 0.688 (en 0.725, zh 0.650) | 0.787 | 78 / 80 |
//! | set 2, keyword-only | 0.363 (en 0.325, zh 0.400) | 0.625 | 70 / 80 |
//! | set 3, multilingual-e5-small | 0.700 (en 0.675, zh 0.725) | 0.787 | 79 / 80 |
//! | set 3, keyword-only | 0.213 (en 0.275, zh 0.150) | 0.588 | 76 / 80 |
//! | set 4, multilingual-e5-small | 0.675 (en 0.625, zh 0.725) | 0.825 | 80 / 80 |
//! | set 4, keyword-only | 0.313 (en 0.250, zh 0.375) | 0.688 | 78 / 80 |
//! | set 5, multilingual-e5-small | 0.788 (en 0.800, zh 0.775) | 0.900 | 78 / 80 |
//! | set 5, keyword-only | 0.388 (en 0.350, zh 0.425) | 0.700 | 76 / 80 |
//! | set 6, multilingual-e5-small | 0.763 (en 0.775, zh 0.750) | 0.838 | 80 / 80 |
//! | set 6, keyword-only | 0.413 (en 0.300, zh 0.525) | 0.750 | 78 / 80 |
//!
//! The words of change read on the tuned set carry poorly to wording they were not read from;
//! the near tie carries (`rearview_search::succession`). The ceilings say that in 10–28 % of
//! the held-out questions an unrelated memory outranks the newer statement even with the older
//! one gone: ranking, not succession (the tie as first built changed neither ceiling of sets 1
//! and 2; read centered, it costs one question of three of them, below). Reading
//! a question about the user in the user's words raised the ceilings (0.700, 0.787, 0.763 →
//! 0.750, 0.800, 0.787) more than newer first (0.562, 0.650, 0.613 → 0.562, 0.662, 0.588):
//! it ranks both statements higher, often the older one first. Reading the near tie on
//! centered vectors (margin 0.03), with no subject term needed, raised newer first on every
//! held-out set (0.562, 0.662, 0.588, 0.600, 0.725 → 0.625, 0.688, 0.700, 0.675, 0.788) and
//! cost ceiling questions in sets 1, 2, 4 and 5 (0.750, 0.800, 0.838, 0.925 → 0.725, 0.787,
//! 0.825, 0.900): with no older statement, a later unrelated memory near-tied with the newer
//! one may go first (`我每天早上冥想十分钟。` before `换了早班，每天五点半就得起。` for
//! `用户每天几点起床？`).
//! `REARVIEW_FACTS_MISSES=1` prints each question whose newer statement is not first, with both
//! statements and the top 3.
//!
//! Before the stage, ranking alone put the newer statement first in 0.125 (model) and 0.148
//! (keyword-only) by default; with the rule, 0.742 and 0.648, the newer one ranking on its own
//! words once the older one was history. Now a superseded memory that matches the question is
//! answered by its current successor (`rearview_search::current_first`), so the rule adds to the
//! default instead of falling under it.
//!
//! The false supersessions are a few distinct pairs, repeated because the unrelated memories of
//! every namespace come from one pool. The rule trades recall for precision: its first version
//! detected 111 / 128 with the model but superseded 183 of 419 turns of a LoCoMo conversation
//! and 16 of 171 MADial-Bench stories. The last test holds that side of the trade: how many
//! memories of the shared benchmarks, where no statement updates another, the rule supersedes
//! (measured: MADial-Bench zh 2 of 171, a LoCoMo conversation 1 of 419, a MemDaily slice 4 of
//! 1,292 with the model; 1, 0 and 4 keyword-only).
#![expect(clippy::print_stderr, reason = "tests print the figures they check")]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use chrono::TimeDelta;
use rearview_core::{Clock, ManualClock, MemoryFilter, MemoryId, Namespace};
use rearview_embed::{Embedder, TextKind};
use rearview_eval::{CachingEmbedder, Dataset, NoProgress, config, load_jsonl};
use rearview_service::{
    LifecycleConfig, MemoryService, RecallRequest, RememberRequest, ServiceConfig,
};
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

/// The model, each text embedded once for every run of a test.
async fn cached(model: Option<Arc<dyn Embedder>>) -> Option<Arc<dyn Embedder>> {
    let cache = Arc::new(CachingEmbedder::new(model?));
    let mut texts: Vec<String> =
        [Set::Tuned, Set::HeldOut1, Set::HeldOut2, Set::HeldOut3, Set::HeldOut4, Set::HeldOut5]
            .into_iter()
            .flat_map(|set| data(set).memories)
            .map(|m| m.text)
            .collect();
    texts.sort();
    texts.dedup();
    cache.warm(&texts, TextKind::Passage).await.unwrap();
    Some(cache)
}

async fn measure(set: Set, embedder: Option<Arc<dyn Embedder>>, rule: bool) -> Figures {
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

    // The service path of `rearview_eval::run` once more, with the rule as asked, to look at
    // what was superseded (and, with the rule, at what ranks first).
    let latest = data.questions.iter().map(|q| q.as_of).max().unwrap();
    let clock = Arc::new(ManualClock::new(latest));
    let lifecycle = LifecycleConfig { supersede_by_rule: rule, ..LifecycleConfig::default() };
    let service = MemoryService::open(
        Arc::new(SqliteStore::in_memory().unwrap()),
        embedder,
        Arc::clone(&clock) as Arc<dyn Clock>,
        ServiceConfig { max_top_k: 100, lifecycle, ..ServiceConfig::default() },
    )
    .await
    .unwrap();
    let mut ids: HashMap<(String, String), MemoryId> = HashMap::new();
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
    }
    let mut figures = Figures {
        newer_first: (0.0, 0.0, 0.0),
        ceiling,
        detected: 0,
        false_supersessions: 0,
        reachable_with_history: 0,
        reachable_as_of: 0,
        reachable: 0,
        scenarios: data.questions.len(),
    };
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
            // What ranks above the newer statement, to read the misses.
            let asked = RecallRequest {
                top_k: 3,
                as_of: Some(q.as_of),
                record_access: false,
                ..RecallRequest::new(q.text.clone())
            };
            let top: Vec<String> = (service.recall(&ns, asked).await.unwrap().hits)
                .into_iter()
                .map(|h| h.memory.content)
                .collect();
            let (old, new) = (service.get(&ns, old).await.unwrap(), service.get(&ns, new).await);
            eprintln!(
                "miss in {ns} (rule {rule}): {:?}\n  older {:?}\n  newer {:?}\n  top {top:?}",
                q.text,
                old.content,
                new.unwrap().content
            );
        }
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
    let share = |n: usize, of: usize| n as f64 / of as f64;
    let per_language = data.questions.len() / 2;
    figures.newer_first = (
        share(first[0] + first[1], data.questions.len()),
        share(first[0], per_language),
        share(first[1], per_language),
    );
    if !rule {
        // Without the rule this is the protocol of `rearview_eval::run`: the same answer.
        // (The report rounds its per-language figures to four places.)
        let (a, b) = (figures.newer_first, by_run);
        let close =
            (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-3 && (a.2 - b.2).abs() < 1e-3;
        assert!(close, "the service path agrees with rearview_eval::run: {a:?} / {b:?}");
    }
    eprintln!("rule {rule}: {figures:?}");
    figures
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn facts_that_change_keyword_only() {
    // FIXME(issue 15): the target is the newer statement first in ≥ 95 % of the scenarios. Not
    // reached keyword-only: without vectors only a change about a shared subject term is read.
    let f = measure(Set::Tuned, None, false).await;
    assert_eq!(f.scenarios, 128);
    // By default the rule does not supersede (`LifecycleConfig::supersede_by_rule`): only an
    // explicit `supersedes` or an LLM does; recall puts the newer statement first.
    at_least("keyword-only newer first", f.newer_first.0, 0.72); // measured 0.742 (en 0.750, zh 0.734)
    at_least("keyword-only ceiling", f.ceiling, 0.76); // measured 0.781
    assert_eq!((f.detected, f.false_supersessions), (0, 0), "{f:?}");
    // Two older statements share no word with their question: reachable only by id or listing.
    assert!(f.reachable >= 125, "measured 126: {f:?}");

    let f = measure(Set::Tuned, None, true).await;
    at_least("keyword-only newer first, rule", f.newer_first.0, 0.73); // measured 0.758 (en 0.781, zh 0.734)
    at_least("keyword-only detected, rule", f.detected as f64 / 128.0, 0.67); // measured 91 of 128
    assert!(f.false_supersessions <= 6, "measured 5: {f:?}");
    assert!(f.reachable >= 125, "measured 126: {f:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn facts_that_change_with_the_default_model() {
    let Some(model) =
        rearview_embed_local::testing::installed_or_skip(rearview_embed_local::DEFAULT_MODEL)
    else {
        return;
    };
    let model = cached(Some(Arc::new(model))).await;
    // FIXME(issue 15): the target is the newer statement first in ≥ 95 % of the scenarios.
    // By default (the rule off, the newer statement placed before the older one at recall)
    // 93.0 %; with no older statement at all (perfect supersession) 85.9 %: lifting the newer
    // statement into the older one's place does better than removing the older one. Of the 9
    // misses: 5 put the older statement first, by changes no word marks whose newer statement
    // ranks under the second (`I took a full-time job at Canva` after `I freelance as a graphic
    // designer`, fourth), whose two statements are not each other's nearest (`上个月服务全部
    // 迁到了腾讯云。` is as near to `上个月云服务账单大约 8 万元。` as to `服务部署在阿里云上。`),
    // or whose newer text is no short statement (three clauses: `I graduated, so my university
    // mail is gone; write to …`); 4 rank unrelated memories above both.
    let f = measure(Set::Tuned, model.clone(), false).await;
    assert_eq!(f.scenarios, 128);
    at_least("model newer first", f.newer_first.0, 0.91); // measured 0.930 (en 0.938, zh 0.922)
    at_least("model ceiling", f.ceiling, 0.83); // measured 0.859
    assert_eq!((f.detected, f.false_supersessions), (0, 0), "{f:?}");
    assert!(f.reachable >= 126, "measured 128: {f:?}");

    let f = measure(Set::Tuned, model, true).await;
    at_least("model newer first, rule", f.newer_first.0, 0.91); // measured 0.930 (en 0.938, zh 0.922)
    at_least("model detected, rule", f.detected as f64 / 128.0, 0.83); // measured 110 of 128
    assert!(f.false_supersessions <= 6, "measured 3: {f:?}");
    assert!(f.reachable >= 126, "measured 128: {f:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_out_facts_that_change() {
    // FIXME(issue 15): the target is the newer statement first in ≥ 95 % of the scenarios.
    // The held-out sets say how far the rules carry to wording they were not read from.
    // Measured (newer first, ceiling, reachable), keyword-only:
    // 1: 0.263 (en 0.225, zh 0.300), 0.488, 65;  2: 0.363 (en 0.325, zh 0.400), 0.625, 70;
    // 3: 0.213 (en 0.275, zh 0.150), 0.588, 76;  4: 0.313 (en 0.250, zh 0.375), 0.688, 78;
    // 5: 0.388 (en 0.350, zh 0.425), 0.700, 76;  6: 0.413 (en 0.300, zh 0.525), 0.750, 78.
    let keyword_only = [
        (Set::HeldOut1, 0.24, 0.46, 63),
        (Set::HeldOut2, 0.33, 0.60, 68),
        (Set::HeldOut3, 0.18, 0.56, 74),
        (Set::HeldOut4, 0.28, 0.66, 76),
        (Set::HeldOut5, 0.36, 0.67, 74),
        (Set::HeldOut6, 0.38, 0.72, 76),
    ];
    for (set, newer_first, ceiling, reachable) in keyword_only {
        let f = held_out(set, None, newer_first, ceiling, reachable).await;
        assert_eq!(f.scenarios, 80);
    }
    let Some(model) =
        rearview_embed_local::testing::installed_or_skip(rearview_embed_local::DEFAULT_MODEL)
    else {
        return;
    };
    let model = cached(Some(Arc::new(model))).await;
    // With the model: 1: 0.625 (en 0.475, zh 0.775), 0.725, 79;  2: 0.688 (en 0.725, zh
    // 0.650), 0.787, 78;  3: 0.700 (en 0.675, zh 0.725), 0.787, 79;  4: 0.675 (en 0.625, zh
    // 0.725), 0.825, 80;  5: 0.788 (en 0.800, zh 0.775), 0.900, 78;  6: 0.763 (en 0.775, zh
    // 0.750), 0.838, 80.
    let with_model = [
        (Set::HeldOut1, 0.59, 0.69, 77),
        (Set::HeldOut2, 0.65, 0.76, 76),
        (Set::HeldOut3, 0.67, 0.76, 77),
        (Set::HeldOut4, 0.64, 0.79, 78),
        (Set::HeldOut5, 0.75, 0.87, 76),
        (Set::HeldOut6, 0.73, 0.81, 78),
    ];
    for (set, newer_first, ceiling, reachable) in with_model {
        held_out(set, model.clone(), newer_first, ceiling, reachable).await;
    }
}

/// Measures a held-out `set` by default (no rule) and holds its floors: newer first, ceiling
/// and reachable older statements; nothing is superseded.
async fn held_out(
    set: Set,
    model: Option<Arc<dyn Embedder>>,
    newer_first: f64,
    ceiling: f64,
    reachable: usize,
) -> Figures {
    let what = format!("{set:?} {}", if model.is_some() { "model" } else { "keyword-only" });
    let f = measure(set, model, false).await;
    at_least(&format!("{what} newer first"), f.newer_first.0, newer_first);
    at_least(&format!("{what} ceiling"), f.ceiling, ceiling);
    assert_eq!((f.detected, f.false_supersessions), (0, 0), "{what}: {f:?}");
    assert!(f.reachable >= reachable, "{what} reachable: {f:?}");
    f
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
/// as in `slices.rs`) that the rule supersedes, though none updates another.
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
            ServiceConfig {
                lifecycle: LifecycleConfig {
                    supersede_by_rule: true,
                    ..LifecycleConfig::default()
                },
                ..ServiceConfig::default()
            },
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
    assert!(madial <= 3 && locomo <= 3 && memdaily <= 8, "measured 1, 0, 4");
    let Some(model) =
        rearview_embed_local::testing::installed_or_skip(rearview_embed_local::DEFAULT_MODEL)
    else {
        return;
    };
    let model: Arc<dyn Embedder> = Arc::new(CachingEmbedder::new(Arc::new(model)));
    let [madial, locomo, memdaily] = supersessions_in(&dir, Some(model)).await;
    assert!(madial <= 4 && locomo <= 3 && memdaily <= 8, "measured 2, 1, 4");
}

fn at_least(what: &str, got: f64, floor: f64) {
    assert!(got >= floor, "{what} = {got:.3}, below the floor {floor}");
}
