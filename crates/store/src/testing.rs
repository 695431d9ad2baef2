//! The store contract suite: one check per behaviour, written once against `&dyn MemoryStore`.
//!
//! A backend runs it with [`store_contract_tests!`](crate::store_contract_tests), naming a
//! function that returns a fresh, empty store:
//!
//! ```text
//! rearview_store::store_contract_tests!(fresh_store);
//! async fn fresh_store() -> std::sync::Arc<dyn rearview_store::MemoryStore> { … }
//! ```
//!
//! Keyword tokens in these checks are plain whitespace splits: tokenisation is the search crate's
//! business, the store only indexes the terms it is given.

mod hooked;

use std::sync::Arc;

use chrono::{DateTime, TimeDelta};
use rearview_core::{
    Embedding, LinkMaker, LinkNote, Memory, MemoryFilter, MemoryId, MemoryType, Metadata,
    Namespace, PossibleUpdate, Timestamp, content_hash,
};

pub use hooked::{HookedStore, InsertHook};

use crate::prelude::*;
use crate::{
    ApiKeyRecord, MemoryRecord, MemoryUpdate, Page, StoreError, StoredVector, Superseding,
};

/// The PostgreSQL server tests run against: `REARVIEW_TEST_PG_URL` (`scripts/pg-up.sh` starts
/// one and prints it). Without it a test skips (the caller returns on `None`, and this says so
/// in the test output), unless `REARVIEW_REQUIRE_PG` is set, as in CI, when it fails.
#[allow(clippy::print_stderr)] // a skipped test must say so in the test output
pub fn pg_test_url() -> Option<String> {
    if let Ok(url) = std::env::var("REARVIEW_TEST_PG_URL") {
        return Some(url);
    }
    assert!(
        std::env::var_os("REARVIEW_REQUIRE_PG").is_none(),
        "REARVIEW_REQUIRE_PG is set but REARVIEW_TEST_PG_URL is not: run scripts/pg-up.sh"
    );
    eprintln!("skipped: no PostgreSQL configured (REARVIEW_TEST_PG_URL)");
    None
}

/// Generates one `#[tokio::test]` per contract check, each on a fresh store from `$make`
/// (an async fn returning `Arc<dyn MemoryStore>`, or `Option` of one to allow skipping).
#[macro_export]
macro_rules! store_contract_tests {
    ($make:path) => {
        $crate::store_contract_tests!(@each $make,
            insert_then_get_round_trips_every_field,
            duplicate_id_is_a_conflict,
            insert_many_writes_the_new_and_skips_stored_ids,
            namespaces_are_isolated,
            expired_memories_are_invisible_from_the_boundary_on,
            list_filters_agree_with_memory_filter,
            list_orders_newest_first_and_pages,
            keyword_search_ranks_by_bm25_and_respects_filters,
            keyword_search_keeps_terms_whole_in_every_script,
            keyword_search_prunes_common_terms_in_a_large_namespace,
            delete_removes_row_terms_and_vectors,
            update_replaces_content_terms_and_vectors,
            concurrent_record_access_loses_no_increment,
            vectors_are_kept_per_model,
            pending_embeddings_lists_memories_without_a_vector,
            delete_expired_sweeps_exactly_the_expired,
            find_by_hash_finds_exact_duplicates_only,
            archive_idle_moves_exactly_the_idle,
            update_sets_event_time_and_summary,
            stats_count_tiers_and_expired,
            keyword_entries_return_normalised_terms_in_order,
            settings_persist_and_replace,
            export_pages_every_memory_of_a_namespace_with_vectors,
            api_keys_round_trip_revoke_and_count,
            superseded_memories_are_history_from_invalid_at_on,
            predecessors_are_the_memories_one_superseded,
            possible_updates_are_kept_and_listed_for_review,
            change_log_names_every_searchable_change,
            daily_counts_group_event_days_per_tier,
            a_sweep_is_claimed_once_per_interval,
            an_overlong_term_is_not_indexed_and_fails_nothing,
            in_store_search_scores_as_the_in_memory_indexes_do,
        );
    };
    (@each $make:path, $($check:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $check() {
                // `$make` returns a store, or `Option` of one: `None` skips (a backend whose
                // server is not configured here; its CI sets it up and requires it).
                let store: Option<std::sync::Arc<dyn $crate::MemoryStore>> = $make().await.into();
                let Some(store) = store else {
                    eprintln!("skipped {}: no store configured", stringify!($check));
                    return;
                };
                $crate::testing::$check(store).await;
            }
        )+
    };
}

/// A fixed instant all checks start from.
pub fn t0() -> Timestamp {
    DateTime::from_timestamp(1_750_000_000, 123_456_000).expect("valid instant")
}

/// A namespace from a literal.
pub fn ns(name: &str) -> Namespace {
    name.parse().expect("valid namespace")
}

/// An episodic, never-expiring memory created at `at`.
pub fn memory(namespace: &str, content: &str, at: Timestamp) -> Memory {
    Memory {
        id: MemoryId::new_v7(at),
        namespace: ns(namespace),
        memory_type: MemoryType::Episodic,
        content: content.to_owned(),
        metadata: Metadata::new(),
        session_id: None,
        ttl_secs: 0,
        timestamp: at,
        occurred_at: at,
        updated_at: at,
        last_accessed_at: None,
        expires_at: None,
        access_count: 0,
        archived: false,
        source_ids: Vec::new(),
        content_hash: content_hash(content),
        summary: None,
        superseded_by: None,
        invalid_at: None,
        link: None,
        possible_updates: Vec::new(),
    }
}

/// A record of `memory` with whitespace terms and no vectors.
pub fn record(memory: Memory) -> MemoryRecord {
    let terms = memory.content.split_whitespace().map(str::to_lowercase).collect();
    MemoryRecord { memory, terms, vectors: Vec::new() }
}

fn vector(model: &str, values: Vec<f32>) -> StoredVector {
    StoredVector {
        model_id: model.to_owned(),
        embedding: Embedding::new(values).expect("non-zero"),
    }
}

fn terms(q: &str) -> Vec<String> {
    q.split_whitespace().map(str::to_owned).collect()
}

/// Every field survives a write and a read, including metadata, provenance and vectors.
pub async fn insert_then_get_round_trips_every_field(store: Arc<dyn MemoryStore>) {
    let mut m = memory("a", "moved to Lisbon in 2023", t0());
    m.memory_type = MemoryType::Semantic;
    m.session_id = Some("s-1".into());
    m.metadata.insert("tags".into(), serde_json::json!(["travel", "城市"]));
    m.metadata.insert("confidence".into(), serde_json::json!(0.9));
    m.ttl_secs = 3600;
    m.expires_at = Some(t0() + TimeDelta::hours(1));
    m.occurred_at = t0() - TimeDelta::days(400);
    m.source_ids = vec![MemoryId::new_v7(t0()), MemoryId::new_v7(t0())];
    m.summary = Some("Lisbon since 2023".into());
    m.superseded_by = Some(MemoryId::new_v7(t0()));
    m.invalid_at = Some(t0() + TimeDelta::minutes(5));
    m.link = Some(LinkNote::new(LinkMaker::Llm, "the LLM read 迁居 as an update"));
    m.possible_updates = vec![PossibleUpdate {
        id: MemoryId::new_v7(t0()),
        similarity: Some(0.5),
        why: "近".into(),
    }];
    let mut rec = record(m.clone());
    rec.vectors.push(vector("model-a", vec![1.0, 0.0, 0.0]));
    store.insert(&rec).await.unwrap();

    let got = store.get(&ns("a"), m.id, t0()).await.unwrap().expect("stored memory is readable");
    assert_eq!(got, m);
    let many = store.get_many(&ns("a"), &[m.id, MemoryId::new_v7(t0())], t0()).await.unwrap();
    assert_eq!(many, vec![m.clone()]);
    let vectors = store.vectors("model-a").await.unwrap();
    assert_eq!(vectors.len(), 1);
    assert_eq!(vectors[0].id, m.id);
    assert_eq!(vectors[0].facets, m.facets());
}

/// Inserting an id twice fails and leaves the first write intact.
pub async fn duplicate_id_is_a_conflict(store: Arc<dyn MemoryStore>) {
    let m = memory("a", "likes tea", t0());
    store.insert(&record(m.clone())).await.unwrap();
    let mut again = m.clone();
    again.content = "likes coffee".into();
    let err = store.insert(&record(again)).await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict { .. }), "{err:?}");
    assert_eq!(store.get(&ns("a"), m.id, t0()).await.unwrap().unwrap().content, "likes tea");
    let any = MemoryFilter::default();
    let hits = store.keyword_search(&ns("a"), &terms("coffee"), &any, t0(), 10).await.unwrap();
    assert!(hits.is_empty(), "the failed write left no keyword entry");
}

/// A batch writes each new record as `insert` would, skips ids already stored or repeated in
/// the batch (the first one wins), and spans namespaces and statement-sized chunks.
pub async fn insert_many_writes_the_new_and_skips_stored_ids(store: Arc<dyn MemoryStore>) {
    assert!(store.insert_many(&[]).await.unwrap().is_empty());
    let stored = memory("a", "likes tea", t0());
    store.insert(&record(stored.clone())).await.unwrap();
    let mut clash = stored.clone();
    clash.content = "likes coffee".into();
    let fresh = memory("a", "moved to Porto", t0());
    let mut elsewhere = record(memory("b", "moved to Porto as well", t0()));
    elsewhere.vectors.push(vector("model-a", vec![0.0, 2.0, 0.0]));
    let mut repeated = record(fresh.clone());
    repeated.memory.content = "moved to Faro".into();
    let batch = [record(clash), record(fresh.clone()), elsewhere.clone(), repeated];
    assert_eq!(store.insert_many(&batch).await.unwrap(), [false, true, true, false]);

    assert_eq!(store.get(&ns("a"), stored.id, t0()).await.unwrap().unwrap().content, "likes tea");
    assert_eq!(store.get(&ns("a"), fresh.id, t0()).await.unwrap().unwrap(), fresh);
    let any = MemoryFilter::default();
    let search = |namespace: &'static str, q: &'static str| {
        let store = Arc::clone(&store);
        let any = any.clone();
        async move {
            let hits = store.keyword_search(&ns(namespace), &terms(q), &any, t0(), 10).await;
            hits.unwrap().into_iter().map(|h| h.id).collect::<Vec<_>>()
        }
    };
    assert_eq!(search("a", "porto").await, [fresh.id]);
    assert!(search("a", "coffee").await.is_empty(), "a skipped record leaves no keyword entry");
    assert!(search("a", "faro").await.is_empty(), "the repeated id kept the first record");
    assert_eq!(search("b", "porto").await, [elsewhere.memory.id]);
    let in_b = store.namespace_vectors("model-a", &ns("b")).await.unwrap();
    assert_eq!(in_b.iter().map(|e| e.id).collect::<Vec<_>>(), [elsewhere.memory.id]);
    assert_eq!(in_b[0].embedding.as_slice(), &[0.0, 1.0, 0.0]);

    // Past one statement's worth of rows, and all skipped the second time.
    let bulk: Vec<MemoryRecord> = (0..1203)
        .map(|i| record(memory("bulk", &format!("entry{i} of the bulk load"), t0())))
        .collect();
    assert!(store.insert_many(&bulk).await.unwrap().iter().all(|&w| w));
    assert!(store.insert_many(&bulk).await.unwrap().iter().all(|&w| !w));
    assert_eq!(store.count(&ns("bulk"), &any, t0()).await.unwrap(), 1203);
    assert_eq!(search("bulk", "entry1202").await, [bulk[1202].memory.id]);
}

/// No read, write or search crosses a namespace.
pub async fn namespaces_are_isolated(store: Arc<dyn MemoryStore>) {
    let a = memory("alice", "port 8765 is ours", t0());
    let b = memory("bob", "port 8765 is theirs", t0());
    store.insert(&record(a.clone())).await.unwrap();
    store.insert(&record(b.clone())).await.unwrap();
    let any = MemoryFilter::default();

    assert!(store.get(&ns("bob"), a.id, t0()).await.unwrap().is_none());
    assert!(store.get_many(&ns("bob"), &[a.id], t0()).await.unwrap().is_empty());
    let listed = store.list(&ns("alice"), &any, t0(), Page::default()).await.unwrap();
    assert_eq!(listed.iter().map(|m| m.id).collect::<Vec<_>>(), vec![a.id]);
    let hits = store.keyword_search(&ns("alice"), &terms("8765"), &any, t0(), 10).await.unwrap();
    assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![a.id]);
    assert!(!store.delete(&ns("bob"), a.id).await.unwrap(), "bob cannot delete alice's memory");
    store.record_access(&ns("bob"), &[a.id], t0()).await.unwrap();
    assert_eq!(store.get(&ns("alice"), a.id, t0()).await.unwrap().unwrap().access_count, 0);
    assert!(!store.put_vector(&ns("bob"), a.id, &vector("m", vec![1.0])).await.unwrap());
    assert_eq!(store.count(&ns("alice"), &any, t0()).await.unwrap(), 1);
    assert_eq!(store.count(&ns("nobody"), &any, t0()).await.unwrap(), 0);
}

/// A memory is visible strictly before `expires_at` and invisible from it on, everywhere.
pub async fn expired_memories_are_invisible_from_the_boundary_on(store: Arc<dyn MemoryStore>) {
    let mut m = memory("a", "working note about 爬山", t0());
    m.ttl_secs = 60;
    m.expires_at = Some(t0() + TimeDelta::seconds(60));
    store.insert(&record(m.clone())).await.unwrap();
    let any = MemoryFilter::default();
    let before = t0() + TimeDelta::seconds(60) - TimeDelta::microseconds(1);
    let at = t0() + TimeDelta::seconds(60);

    assert!(store.get(&ns("a"), m.id, before).await.unwrap().is_some());
    assert!(store.get(&ns("a"), m.id, at).await.unwrap().is_none());
    assert!(store.get_many(&ns("a"), &[m.id], at).await.unwrap().is_empty());
    assert_eq!(store.list(&ns("a"), &any, before, Page::default()).await.unwrap().len(), 1);
    assert!(store.list(&ns("a"), &any, at, Page::default()).await.unwrap().is_empty());
    assert_eq!(store.count(&ns("a"), &any, at).await.unwrap(), 0);
    let q = terms("爬山");
    assert_eq!(store.keyword_search(&ns("a"), &q, &any, before, 5).await.unwrap().len(), 1);
    assert!(store.keyword_search(&ns("a"), &q, &any, at, 5).await.unwrap().is_empty());
}

/// The backend's translation of [`MemoryFilter`] selects exactly what `MemoryFilter::matches` does.
pub async fn list_filters_agree_with_memory_filter(store: Arc<dyn MemoryStore>) {
    let mut all = Vec::new();
    for (i, tier) in [MemoryType::Working, MemoryType::Episodic, MemoryType::Semantic]
        .into_iter()
        .cycle()
        .take(12)
        .enumerate()
    {
        let at = t0() + TimeDelta::days(i as i64);
        let mut m = memory("a", &format!("fact number {i}"), at);
        m.memory_type = tier;
        m.session_id = (i % 2 == 0).then(|| "s-even".to_owned());
        let tags: Vec<&str> = match i % 4 {
            0 => vec!["red"],
            1 => vec!["red", "blue"],
            2 => vec!["蓝色"],
            _ => vec![],
        };
        m.metadata.insert("tags".into(), serde_json::json!(tags));
        m.archived = i % 5 == 0;
        // Some were superseded before `now` (history), one will be after it (still current).
        if i % 3 == 1 {
            m.superseded_by = Some(MemoryId::new_v7(at));
            m.invalid_at = Some(at + TimeDelta::days(if i == 10 { 40 } else { 1 }));
        }
        store.insert(&record(m.clone())).await.unwrap();
        all.push(m);
    }
    let now = t0() + TimeDelta::days(30);
    let filters = [
        MemoryFilter::default(),
        MemoryFilter { include_archived: true, ..Default::default() },
        MemoryFilter { memory_types: vec![MemoryType::Semantic], ..Default::default() },
        MemoryFilter {
            memory_types: vec![MemoryType::Working, MemoryType::Semantic],
            include_archived: true,
            ..Default::default()
        },
        MemoryFilter { session_id: Some("s-even".into()), ..Default::default() },
        MemoryFilter { tags: vec!["red".into()], ..Default::default() },
        MemoryFilter { tags: vec!["red".into(), "blue".into()], ..Default::default() },
        MemoryFilter { tags: vec!["蓝色".into()], include_archived: true, ..Default::default() },
        MemoryFilter {
            occurred_after: Some(t0() + TimeDelta::days(3)),
            occurred_before: Some(t0() + TimeDelta::days(7)),
            ..Default::default()
        },
        MemoryFilter { include_superseded: true, ..Default::default() },
        MemoryFilter { include_superseded: true, include_archived: true, ..Default::default() },
        MemoryFilter {
            include_superseded: true,
            memory_types: vec![MemoryType::Episodic],
            ..Default::default()
        },
    ];
    for filter in &filters {
        let mut expected: Vec<MemoryId> =
            all.iter().filter(|m| filter.matches(&m.facets(), now)).map(|m| m.id).collect();
        expected.sort();
        let page = Page { offset: 0, limit: 100 };
        let mut listed: Vec<MemoryId> =
            store.list(&ns("a"), filter, now, page).await.unwrap().iter().map(|m| m.id).collect();
        listed.sort();
        assert_eq!(listed, expected, "filter {filter:?}");
        assert_eq!(store.count(&ns("a"), filter, now).await.unwrap(), expected.len() as u64);
        let hits = store.keyword_search(&ns("a"), &terms("fact"), filter, now, 100).await.unwrap();
        let mut found: Vec<MemoryId> = hits.iter().map(|h| h.id).collect();
        found.sort();
        assert_eq!(found, expected, "keyword search with filter {filter:?}");
    }
}

/// Listings are newest event first and pages neither skip nor repeat.
pub async fn list_orders_newest_first_and_pages(store: Arc<dyn MemoryStore>) {
    let mut ids = Vec::new();
    for i in 0..7 {
        let m = memory("a", &format!("note {i}"), t0() + TimeDelta::minutes(i));
        store.insert(&record(m.clone())).await.unwrap();
        ids.push(m.id);
    }
    ids.reverse();
    let any = MemoryFilter::default();
    let mut paged = Vec::new();
    for offset in (0..7).step_by(3) {
        let page = Page { offset, limit: 3 };
        paged.extend(store.list(&ns("a"), &any, t0(), page).await.unwrap().iter().map(|m| m.id));
    }
    assert_eq!(paged, ids);
}

/// More matching terms and rarer terms score higher; filters apply before the limit.
pub async fn keyword_search_ranks_by_bm25_and_respects_filters(store: Arc<dyn MemoryStore>) {
    let both = memory("a", "香山 爬山 weekend", t0());
    let one = memory("a", "爬山 shoes", t0());
    let none = memory("a", "likes tea", t0());
    let mut working = memory("a", "爬山 爬山 香山 plan", t0());
    working.memory_type = MemoryType::Working;
    for m in [&both, &one, &none, &working] {
        store.insert(&record(m.clone())).await.unwrap();
    }
    let episodic = MemoryFilter { memory_types: vec![MemoryType::Episodic], ..Default::default() };
    let hits =
        store.keyword_search(&ns("a"), &terms("香山 爬山"), &episodic, t0(), 10).await.unwrap();
    assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![both.id, one.id]);
    assert!(hits[0].bm25 > hits[1].bm25 && hits[1].bm25 > 0.0, "{hits:?}");
    let limited = store.keyword_search(&ns("a"), &terms("爬山"), &episodic, t0(), 1).await.unwrap();
    assert_eq!(limited.len(), 1);
    let empty = store.keyword_search(&ns("a"), &[], &episodic, t0(), 10).await.unwrap();
    assert!(empty.is_empty());
    let odd = terms("\"quoted\" OR NEAR ( * ) -");
    assert!(store.keyword_search(&ns("a"), &odd, &episodic, t0(), 10).await.is_ok());
}

/// In a namespace of [`crate::PRUNE_MIN_DOCS`] memories or more, a query term found in more than
/// half of them is dropped unless every term is that common: "common" (in 600 of 1,000) leaves
/// "rare" to choose; "common" with "filler" (in all) are both common and both kept.
pub async fn keyword_search_prunes_common_terms_in_a_large_namespace(store: Arc<dyn MemoryStore>) {
    let docs = usize::try_from(crate::PRUNE_MIN_DOCS).expect("a small constant");
    let mut rare = Vec::new();
    let records: Vec<MemoryRecord> = (0..docs)
        .map(|i| {
            let mut text = format!("filler doc{i}");
            if i % 5 < 3 {
                text.push_str(" common");
            }
            let m = memory("big", &text, t0());
            let mut r = record(m);
            if i % 200 == 1 {
                r.memory.content.push_str(" rare");
                r.terms.push("rare".into());
                rare.push(r.memory.id);
            }
            r
        })
        .collect();
    store.insert_many(&records).await.unwrap();
    let any = MemoryFilter::default();
    let big = ns("big");
    let hits = store.keyword_search(&big, &terms("common rare"), &any, t0(), 100).await.unwrap();
    let mut found: Vec<_> = hits.iter().map(|h| h.id).collect();
    found.sort();
    rare.sort();
    assert_eq!(found, rare, "only the rare term is matched");
    let all_common = terms("common filler");
    let hits = store.keyword_search(&big, &all_common, &any, t0(), 10).await.unwrap();
    assert_eq!(hits.len(), 10, "every term common: none dropped");
    let with_common = records.iter().filter(|r| r.terms.iter().any(|t| t == "common"));
    let with_common: std::collections::HashSet<_> = with_common.map(|r| r.memory.id).collect();
    assert!(hits.iter().all(|h| with_common.contains(&h.id)), "both terms beat one: {hits:?}");
}

/// A term is matched whole in every script: the combining marks `normalize_term` keeps
/// (Devanagari, Thai and Arabic vowel signs) and circled letters are part of it, so words that
/// share only their base letters never match each other.
pub async fn keyword_search_keeps_terms_whole_in_every_script(store: Arc<dyn MemoryStore>) {
    // (content, a query that must find it, a word with the same base letters that must not).
    let cases = [
        ("मेला देखा", "मेला", "मूल"),                   // Hindi: fair / root
        ("ไป กิน ข้าว", "กิน", "กัน"),                  // Thai: eat / together
        ("كَتَبَ رسالة", "كَتَبَ", "كُتُب"),                // Arabic: he wrote / books
        ("tiếng Việt", "việt", "viet"),             // Vietnamese, precomposed
        ("한국어 공부", "한국어", "한국"),          // Korean
        ("喜欢 爬山", "爬山", "爬"),                // Chinese
        ("ⓐⓑⓒ circled", "ⓐⓑⓒ", "ⓧⓨ"),               // circled letters
        ("☕coffee 咖啡☕\u{fe0f}", "咖啡", "tea"), // emoji next to a word
    ];
    let mut ids = Vec::new();
    for (content, _, _) in cases {
        let m = memory("scripts", content, t0());
        store.insert(&record(m.clone())).await.unwrap();
        ids.push(m.id);
    }
    let any = MemoryFilter::default();
    for ((content, found_by, missed_by), id) in cases.into_iter().zip(ids) {
        let hits =
            store.keyword_search(&ns("scripts"), &terms(found_by), &any, t0(), 20).await.unwrap();
        assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![id], "{found_by:?}");
        let hits =
            store.keyword_search(&ns("scripts"), &terms(missed_by), &any, t0(), 20).await.unwrap();
        assert!(hits.is_empty(), "{missed_by:?} matched {content:?}: {hits:?}");
    }
    let coffee = store.keyword_search(&ns("scripts"), &terms("coffee"), &any, t0(), 5).await;
    assert_eq!(coffee.unwrap().len(), 1, "an emoji glued to a word does not hide the word");
}

/// Deleting removes the memory from every read path.
pub async fn delete_removes_row_terms_and_vectors(store: Arc<dyn MemoryStore>) {
    let m = memory("a", "temporary secret", t0());
    let mut rec = record(m.clone());
    rec.vectors.push(vector("model-a", vec![0.0, 1.0]));
    store.insert(&rec).await.unwrap();
    assert!(store.delete(&ns("a"), m.id).await.unwrap());
    assert!(!store.delete(&ns("a"), m.id).await.unwrap());
    assert!(store.get(&ns("a"), m.id, t0()).await.unwrap().is_none());
    let any = MemoryFilter::default();
    let hits = store.keyword_search(&ns("a"), &terms("secret"), &any, t0(), 5).await.unwrap();
    assert!(hits.is_empty());
    assert!(store.vectors("model-a").await.unwrap().is_empty());
}

/// An update changes row, keyword entry and vectors together.
pub async fn update_replaces_content_terms_and_vectors(store: Arc<dyn MemoryStore>) {
    let m = memory("a", "lives in Paris", t0());
    let mut rec = record(m.clone());
    rec.vectors.push(vector("model-a", vec![1.0, 0.0]));
    store.insert(&rec).await.unwrap();
    let later = t0() + TimeDelta::hours(1);
    let update = MemoryUpdate {
        content: Some(("lives in Lisbon".into(), terms("lives in lisbon"), content_hash("x"))),
        memory_type: Some(MemoryType::Semantic),
        ttl: Some((60, Some(later + TimeDelta::seconds(60)))),
        vectors: Some(vec![vector("model-b", vec![0.0, 1.0])]),
        at: later,
        ..Default::default()
    };
    let updated = store.update(&ns("a"), m.id, &update).await.unwrap().expect("exists");
    assert_eq!(updated.content, "lives in Lisbon");
    assert_eq!(updated.memory_type, MemoryType::Semantic);
    assert_eq!(updated.updated_at, later);
    assert_eq!(updated.ttl_secs, 60);
    assert_eq!(updated.timestamp, m.timestamp, "creation time never changes");
    let any = MemoryFilter::default();
    assert!(
        store.keyword_search(&ns("a"), &terms("paris"), &any, later, 5).await.unwrap().is_empty()
    );
    assert_eq!(
        store.keyword_search(&ns("a"), &terms("lisbon"), &any, later, 5).await.unwrap().len(),
        1
    );
    assert!(store.vectors("model-a").await.unwrap().is_empty());
    assert_eq!(store.vectors("model-b").await.unwrap().len(), 1);
    let archive = MemoryUpdate { archived: Some(true), at: later, ..Default::default() };
    assert!(store.update(&ns("a"), m.id, &archive).await.unwrap().unwrap().archived);
    let missing = store.update(&ns("b"), m.id, &archive).await.unwrap();
    assert!(missing.is_none(), "updates never cross namespaces");
}

/// Concurrent recalls of the same memory count every access exactly once.
pub async fn concurrent_record_access_loses_no_increment(store: Arc<dyn MemoryStore>) {
    let m = memory("a", "hot memory", t0());
    store.insert(&record(m.clone())).await.unwrap();
    let tasks: Vec<_> = (0..8)
        .map(|task| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                for i in 0..25 {
                    let at = t0() + TimeDelta::seconds(task * 100 + i);
                    store.record_access(&ns("a"), &[m.id], at).await.unwrap();
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let got = store.get(&ns("a"), m.id, t0()).await.unwrap().unwrap();
    assert_eq!(got.access_count, 200);
    assert!(got.last_accessed_at.is_some());
    // Several recalls' ids batched into one call: each occurrence is one access.
    store.record_access(&ns("a"), &[m.id, m.id, m.id], t0()).await.unwrap();
    let got = store.get(&ns("a"), m.id, t0()).await.unwrap().unwrap();
    assert_eq!(got.access_count, 203, "an id given three times counts three accesses");
}

/// Vectors are stored per model and never mixed.
pub async fn vectors_are_kept_per_model(store: Arc<dyn MemoryStore>) {
    let m = memory("a", "bilingual note", t0());
    let mut rec = record(m.clone());
    rec.vectors.push(vector("model-a", vec![1.0, 0.0, 0.0]));
    rec.vectors.push(vector("model-b", vec![0.0, 1.0]));
    store.insert(&rec).await.unwrap();
    let a = store.vectors("model-a").await.unwrap();
    let b = store.vectors("model-b").await.unwrap();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].embedding.dimensions(), 3);
    assert_eq!(b[0].embedding.dimensions(), 2);
    assert!(store.vectors("model-c").await.unwrap().is_empty());
    assert!(
        store.put_vector(&ns("a"), m.id, &vector("model-a", vec![0.0, 0.0, 2.0])).await.unwrap()
    );
    let replaced = store.vectors("model-a").await.unwrap();
    assert_eq!(replaced.len(), 1);
    assert_eq!(replaced[0].embedding.as_slice(), &[0.0, 0.0, 1.0]);

    // Per namespace, and facets without vectors.
    let other = memory("b", "other tenant", t0());
    let mut rec = record(other.clone());
    rec.vectors.push(vector("model-a", vec![0.0, 1.0, 0.0]));
    store.insert(&rec).await.unwrap();
    let in_b = store.namespace_vectors("model-a", &ns("b")).await.unwrap();
    assert_eq!(in_b.iter().map(|e| e.id).collect::<Vec<_>>(), [other.id]);
    assert!(store.namespace_vectors("model-a", &ns("nobody")).await.unwrap().is_empty());
    // The same vectors as half precision, streamed.
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let visit = Box::new(move |id, half: &[u8]| sink.lock().unwrap().push((id, half.to_vec())));
    store.visit_namespace_half_vectors("model-a", &ns("b"), visit).await.unwrap();
    let one = 0x3c00u16.to_le_bytes(); // 1.0 as an IEEE half
    assert_eq!(*seen.lock().unwrap(), [(other.id, vec![0, 0, one[0], one[1], 0, 0])]);
    let none = Box::new(|_, _: &[u8]| panic!("no vector in an unknown namespace"));
    store.visit_namespace_half_vectors("model-a", &ns("nobody"), none).await.unwrap();
    let mut facets = store.vector_facets("model-a").await.unwrap();
    facets.sort_by_key(|f| f.namespace.as_str().to_owned());
    let seen: Vec<_> = facets.iter().map(|f| (f.namespace.as_str(), f.id)).collect();
    assert_eq!(seen, [("a", m.id), ("b", other.id)]);
    assert_eq!(facets[0].facets, m.facets());
    assert_eq!(store.vector_facets("model-b").await.unwrap().len(), 1);
}

/// Memories stored without a vector are listed for backfill until they get one.
pub async fn pending_embeddings_lists_memories_without_a_vector(store: Arc<dyn MemoryStore>) {
    let first = memory("a", "stored while the model was down", t0());
    let second = memory("b", "也是在模型不可用时保存的", t0() + TimeDelta::seconds(1));
    store.insert(&record(first.clone())).await.unwrap();
    store.insert(&record(second.clone())).await.unwrap();
    let pending = store.pending_embeddings("model-a", None, 10).await.unwrap();
    assert_eq!(pending.iter().map(|p| p.id).collect::<Vec<_>>(), vec![first.id, second.id]);
    assert_eq!(pending[1].namespace, ns("b"));
    assert_eq!(pending[1].content, second.content);
    let only_b = store.pending_embeddings("model-a", Some(&ns("b")), 10).await.unwrap();
    assert_eq!(only_b.iter().map(|p| p.id).collect::<Vec<_>>(), vec![second.id]);
    store.put_vector(&ns("a"), first.id, &vector("model-a", vec![1.0])).await.unwrap();
    let pending = store.pending_embeddings("model-a", None, 10).await.unwrap();
    assert_eq!(pending.iter().map(|p| p.id).collect::<Vec<_>>(), vec![second.id]);
    assert!(store.pending_embeddings("model-a", Some(&ns("a")), 10).await.unwrap().is_empty());
    assert_eq!(store.pending_embeddings("model-a", None, 0).await.unwrap().len(), 0);
}

/// The sweep deletes what expired at or before `now` (row, terms, vectors), per namespace or in
/// all, and nothing else; keyword statistics stay consistent.
pub async fn delete_expired_sweeps_exactly_the_expired(store: Arc<dyn MemoryStore>) {
    let expiring = |namespace: &str, content: &str, expires: Timestamp| {
        let mut m = memory(namespace, content, t0());
        m.ttl_secs = (expires - t0()).num_seconds() as u64;
        m.expires_at = Some(expires);
        m
    };
    let a_due = expiring("a", "port 8080 scratch note", t0() + TimeDelta::seconds(10));
    let a_later = expiring("a", "port 9090 scratch note", t0() + TimeDelta::seconds(20));
    let b_due = expiring("b", "临时笔记 端口 8080", t0() + TimeDelta::seconds(10));
    let keep = memory("a", "port 8080 is the api", t0());
    for m in [&a_due, &a_later, &b_due, &keep] {
        let mut r = record(m.clone());
        r.vectors.push(vector("model-a", vec![1.0, 0.0]));
        store.insert(&r).await.unwrap();
    }
    let now = t0() + TimeDelta::seconds(10);
    assert!(
        store.delete_expired(Some(&ns("a")), now - TimeDelta::seconds(1)).await.unwrap().is_empty()
    );
    let swept = store.delete_expired(Some(&ns("a")), now).await.unwrap();
    assert_eq!(swept, vec![(ns("a"), a_due.id)], "exactly at the boundary, only namespace a");
    assert!(store.get(&ns("b"), b_due.id, t0()).await.unwrap().is_some(), "b untouched");
    let swept = store.delete_expired(None, now + TimeDelta::seconds(10)).await.unwrap();
    let mut ids: Vec<MemoryId> = swept.iter().map(|(_, id)| *id).collect();
    ids.sort();
    let mut expected = vec![a_later.id, b_due.id];
    expected.sort();
    assert_eq!(ids, expected);
    // Only the never-expiring memory is left: its row, its vector, and a keyword index that
    // finds it alone.
    assert!(store.get(&ns("a"), keep.id, t0()).await.unwrap().is_some());
    assert_eq!(store.vectors("model-a").await.unwrap().len(), 1);
    let hits = store
        .keyword_search(&ns("a"), &["8080".to_owned()], &MemoryFilter::default(), t0(), 10)
        .await
        .unwrap();
    assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![keep.id]);
    assert_eq!(store.keyword_entries().await.unwrap().len(), 1);
}

/// `find_by_hash` returns the visible memories of one namespace with that hash, archived included.
pub async fn find_by_hash_finds_exact_duplicates_only(store: Arc<dyn MemoryStore>) {
    let first = memory("a", "端口 8765", t0());
    let mut archived = memory("a", "端口   8765\n", t0() + TimeDelta::seconds(1));
    archived.archived = true;
    let other_ns = memory("b", "端口 8765", t0());
    let different = memory("a", "端口 8766", t0());
    let mut expired = memory("a", "端口 8765", t0());
    expired.ttl_secs = 1;
    expired.expires_at = Some(t0() + TimeDelta::seconds(1));
    for m in [&first, &archived, &other_ns, &different, &expired] {
        store.insert(&record(m.clone())).await.unwrap();
    }
    let found = store
        .find_by_hash(&ns("a"), &first.content_hash, t0() + TimeDelta::seconds(1))
        .await
        .unwrap();
    assert_eq!(found.iter().map(|m| m.id).collect::<Vec<_>>(), vec![first.id, archived.id]);
    assert!(store.find_by_hash(&ns("c"), &first.content_hash, t0()).await.unwrap().is_empty());
}

/// `archive_idle` archives the unarchived, unexpired memories of one tier not written or
/// recalled since the cut-off, in one namespace or all, and nothing else.
pub async fn archive_idle_moves_exactly_the_idle(store: Arc<dyn MemoryStore>) {
    let day = TimeDelta::days(1);
    let old = memory("a", "old trip to Kyoto", t0() - day * 100);
    let recalled = memory("a", "old but recalled", t0() - day * 100);
    let fresh = memory("a", "fresh news", t0() - day * 10);
    let mut semantic = memory("a", "likes tea", t0() - day * 100);
    semantic.memory_type = MemoryType::Semantic;
    let other_ns = memory("b", "old in b", t0() - day * 100);
    for m in [&old, &recalled, &fresh, &semantic, &other_ns] {
        store.insert(&record(m.clone())).await.unwrap();
    }
    store.record_access(&ns("a"), &[recalled.id], t0() - day * 5).await.unwrap();
    let cut = t0() - day * 90;
    let moved = store.archive_idle(Some(&ns("a")), MemoryType::Episodic, cut, t0()).await.unwrap();
    assert_eq!(moved, vec![(ns("a"), old.id)]);
    let got = store.get(&ns("a"), old.id, t0()).await.unwrap().expect("archived stays readable");
    assert!(got.archived);
    let listed =
        store.list(&ns("a"), &MemoryFilter::default(), t0(), Page::default()).await.unwrap();
    assert!(!listed.iter().any(|m| m.id == old.id), "archived memories leave default listings");
    assert!(
        store
            .archive_idle(Some(&ns("a")), MemoryType::Episodic, cut, t0())
            .await
            .unwrap()
            .is_empty(),
        "already archived"
    );
    let moved = store.archive_idle(None, MemoryType::Episodic, cut, t0()).await.unwrap();
    assert_eq!(moved, vec![(ns("b"), other_ns.id)]);
}

/// An update can move the event time and set or clear the recall summary.
pub async fn update_sets_event_time_and_summary(store: Arc<dyn MemoryStore>) {
    let m = memory("a", "a long text", t0());
    store.insert(&record(m.clone())).await.unwrap();
    let later = t0() + TimeDelta::hours(2);
    let update = MemoryUpdate {
        occurred_at: Some(later),
        summary: Some(Some("short".into())),
        at: later,
        ..MemoryUpdate::default()
    };
    let got = store.update(&ns("a"), m.id, &update).await.unwrap().unwrap();
    assert_eq!(
        (got.occurred_at, got.summary.as_deref(), got.updated_at),
        (later, Some("short"), later)
    );
    let clear = MemoryUpdate { summary: Some(None), at: later, ..MemoryUpdate::default() };
    let got = store.update(&ns("a"), m.id, &clear).await.unwrap().unwrap();
    assert_eq!(got.summary, None);
}

/// Stats count live, archived, superseded and expired memories per namespace and tier, each
/// memory once (expired first, then superseded, then archived).
pub async fn stats_count_tiers_and_expired(store: Arc<dyn MemoryStore>) {
    let live = memory("a", "live", t0());
    let mut archived = memory("a", "cold", t0());
    archived.archived = true;
    let mut expired = memory("a", "gone", t0());
    expired.expires_at = Some(t0() + TimeDelta::seconds(1));
    let mut history = memory("a", "lived in Berlin", t0());
    history.superseded_by = Some(live.id);
    history.invalid_at = Some(t0() + TimeDelta::seconds(1));
    let mut cold_history = Memory { id: MemoryId::new_v7(t0()), archived: true, ..history.clone() };
    cold_history.content_hash = content_hash("cold history");
    let mut later = memory("a", "changes tomorrow", t0());
    later.superseded_by = Some(live.id);
    later.invalid_at = Some(t0() + TimeDelta::days(1));
    let mut working = memory("b", "scratch", t0());
    working.memory_type = MemoryType::Working;
    for m in [&live, &archived, &expired, &history, &cold_history, &later, &working] {
        store.insert(&record(m.clone())).await.unwrap();
    }
    let stats = store.stats(t0() + TimeDelta::seconds(2)).await.unwrap();
    let a = stats.tiers.iter().find(|t| t.namespace == ns("a")).unwrap();
    assert_eq!(
        (a.memory_type, a.live, a.archived, a.superseded, a.expired),
        (MemoryType::Episodic, 2, 1, 2, 1)
    );
    let b = stats.tiers.iter().find(|t| t.namespace == ns("b")).unwrap();
    assert_eq!((b.memory_type, b.live), (MemoryType::Working, 1));
}

/// Stored terms come back per memory, in order, normalised, with current facets.
pub async fn keyword_entries_return_normalised_terms_in_order(store: Arc<dyn MemoryStore>) {
    let mut m = memory("a", "ignored: terms are given", t0());
    m.memory_type = MemoryType::Semantic;
    let rec = MemoryRecord {
        memory: m.clone(),
        terms: ["Port", "8765", "爬山", "()", "port"].map(str::to_owned).to_vec(),
        vectors: Vec::new(),
    };
    store.insert(&rec).await.unwrap();
    let other = memory("b", "likes tea", t0());
    store.insert(&record(other.clone())).await.unwrap();
    let mut entries = store.keyword_entries().await.unwrap();
    entries.sort_by_key(|e| e.namespace.clone());
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].id, m.id);
    assert_eq!(entries[0].facets, m.facets());
    assert_eq!(entries[0].terms, ["port", "8765", "爬山", "port"]);
    assert_eq!((entries[1].namespace.as_str(), entries[1].terms.len()), ("b", 2));

    // Skipping a namespace (its index was loaded from a saved copy) reads only the others.
    let visited = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&visited);
    store
        .visit_keyword_entries(
            &[ns("a")],
            Box::new(move |e| sink.lock().unwrap().push((e.namespace, e.id))),
        )
        .await
        .unwrap();
    assert_eq!(*visited.lock().unwrap(), vec![(ns("b"), other.id)]);

    // One namespace alone (loaded when first used); an unknown one visits nothing.
    for (only, expected) in [("a", vec![(ns("a"), m.id)]), ("b", vec![(ns("b"), other.id)])] {
        let visited = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = Arc::clone(&visited);
        store
            .visit_namespace_keyword_entries(
                &ns(only),
                Box::new(move |e| sink.lock().unwrap().push((e.namespace, e.id))),
            )
            .await
            .unwrap();
        assert_eq!(*visited.lock().unwrap(), expected);
    }
    let none = Arc::new(std::sync::Mutex::new(0));
    let sink = Arc::clone(&none);
    store
        .visit_namespace_keyword_entries(
            &ns("nobody"),
            Box::new(move |_| *sink.lock().unwrap() += 1),
        )
        .await
        .unwrap();
    assert_eq!(*none.lock().unwrap(), 0);
}

/// Settings read back what was last written, and unknown keys are `None`.
pub async fn settings_persist_and_replace(store: Arc<dyn MemoryStore>) {
    assert_eq!(store.setting("tokenizer").await.unwrap(), None);
    store.set_setting("tokenizer", "cjk-bigram-v1").await.unwrap();
    store.set_setting("tokenizer", "jieba-search-v1").await.unwrap();
    assert_eq!(store.setting("tokenizer").await.unwrap().as_deref(), Some("jieba-search-v1"));
    assert_eq!(store.setting("other").await.unwrap(), None);
}

/// An export sees every memory of its namespace (expired and archived ones too), in id order,
/// page by page, with exactly its vectors; never another namespace's.
pub async fn export_pages_every_memory_of_a_namespace_with_vectors(store: Arc<dyn MemoryStore>) {
    let mut ids = Vec::new();
    for i in 0..5 {
        let mut m = memory("a", &format!("export me {i}"), t0() + TimeDelta::seconds(i));
        if i == 1 {
            m.ttl_secs = 1;
            m.expires_at = Some(t0());
        }
        m.archived = i == 2;
        let mut rec = record(m.clone());
        if i % 2 == 0 {
            rec.vectors.push(vector("model-a", vec![1.0, 0.0]));
            rec.vectors.push(vector("model-b", vec![0.0, 1.0, 0.0]));
        }
        store.insert(&rec).await.unwrap();
        ids.push(m.id);
    }
    store.insert(&record(memory("b", "not mine", t0()))).await.unwrap();
    ids.sort();

    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let page = store.export_page(&ns("a"), after, 2, true).await.unwrap();
        if page.is_empty() {
            break;
        }
        assert!(page.len() <= 2);
        after = page.last().map(|(m, _)| m.id);
        seen.extend(page);
    }
    assert_eq!(seen.iter().map(|(m, _)| m.id).collect::<Vec<_>>(), ids);
    assert!(seen.iter().all(|(m, _)| m.namespace == ns("a")));
    let with_vectors: Vec<_> = seen.iter().filter(|(_, v)| !v.is_empty()).collect();
    assert_eq!(with_vectors.len(), 3);
    for (_, vectors) in with_vectors {
        let models: Vec<_> = vectors.iter().map(|v| v.model_id.as_str()).collect();
        assert_eq!(models, ["model-a", "model-b"]);
    }
    assert!(seen.iter().any(|(m, _)| m.archived));
    assert!(seen.iter().any(|(m, _)| m.expires_at == Some(t0())));
    let bare = store.export_page(&ns("a"), None, 10, false).await.unwrap();
    assert!(bare.iter().all(|(_, v)| v.is_empty()) && bare.len() == 5);
    assert!(store.export_page(&ns("nobody"), None, 10, true).await.unwrap().is_empty());
}

/// API keys round-trip every field; inserting an existing id changes nothing; revoking keeps the
/// first instant; only unrevoked, unexpired keys count as active.
pub async fn api_keys_round_trip_revoke_and_count(store: Arc<dyn MemoryStore>) {
    let key = |id: &str, byte: u8| ApiKeyRecord {
        id: id.to_owned(),
        digest: [byte; 32],
        label: Some("助手 agent".to_owned()),
        namespaces: vec![ns("alice"), ns("项目")],
        admin: false,
        created_at: t0(),
        expires_at: None,
        revoked_at: None,
    };
    assert_eq!(store.count_active_keys(t0()).await.unwrap(), 0);
    assert!(store.find_key("rvk_a").await.unwrap().is_none());
    let a = key("rvk_a", 1);
    assert!(store.insert_key(&a).await.unwrap());
    assert!(!store.insert_key(&key("rvk_a", 9)).await.unwrap(), "an existing id is kept");
    assert_eq!(store.find_key("rvk_a").await.unwrap(), Some(a.clone()));
    let b = ApiKeyRecord {
        admin: true,
        namespaces: Vec::new(),
        label: None,
        expires_at: Some(t0() + TimeDelta::days(1)),
        ..key("rvk_b", 2)
    };
    store.insert_key(&b).await.unwrap();
    assert_eq!(store.list_keys().await.unwrap(), vec![a.clone(), b.clone()]);
    assert_eq!(store.count_active_keys(t0()).await.unwrap(), 2);
    assert_eq!(store.count_active_keys(t0() + TimeDelta::days(2)).await.unwrap(), 1);
    let at = t0() + TimeDelta::hours(1);
    assert!(store.revoke_key("rvk_a", at).await.unwrap());
    assert!(store.revoke_key("rvk_a", at + TimeDelta::hours(1)).await.unwrap());
    assert!(!store.revoke_key("rvk_missing", at).await.unwrap());
    let revoked = store.find_key("rvk_a").await.unwrap().unwrap();
    assert_eq!(revoked.revoked_at, Some(at));
    assert!(!revoked.is_active(at));
    assert_eq!(store.count_active_keys(at).await.unwrap(), 1);
}

/// A superseded memory keeps being readable by id with its link and end of validity, leaves
/// listings, counts and keyword search from `invalid_at` on (unless they include superseded
/// memories), carries `invalid_at` in the facets the in-memory indexes are built from, and can be
/// made current again. Superseding is not an edit: `updated_at` stays.
pub async fn superseded_memories_are_history_from_invalid_at_on(store: Arc<dyn MemoryStore>) {
    let old = memory("a", "lives in Berlin", t0());
    let new = memory("a", "moved to Paris", t0() + TimeDelta::days(10));
    for m in [&old, &new] {
        let mut rec = record(m.clone());
        rec.vectors.push(vector("model-a", vec![1.0, 0.0]));
        store.insert(&rec).await.unwrap();
    }
    let change = t0() + TimeDelta::days(10);
    let later = t0() + TimeDelta::days(20);
    let link = LinkNote::new(LinkMaker::Rule, "states a change from \"berlin\" to \"paris\"");
    let update = MemoryUpdate {
        superseded: Some(Some(Superseding { by: new.id, at: change, link: link.clone() })),
        at: later,
        ..MemoryUpdate::default()
    };
    let got = store.update(&ns("a"), old.id, &update).await.unwrap().expect("old memory exists");
    assert_eq!((got.superseded_by, got.invalid_at), (Some(new.id), Some(change)));
    assert_eq!(got.link, Some(link), "who linked it and why is kept");
    assert_eq!(got.updated_at, old.updated_at, "superseding is not an edit");
    assert_eq!(store.get(&ns("a"), old.id, later).await.unwrap(), Some(got.clone()));
    assert_eq!(store.get_many(&ns("a"), &[old.id], later).await.unwrap(), vec![got.clone()]);

    let current = MemoryFilter::default();
    let history = MemoryFilter { include_superseded: true, ..Default::default() };
    let ids = |memories: Vec<Memory>| memories.iter().map(|m| m.id).collect::<Vec<_>>();
    let page = Page::default();
    let before = change - TimeDelta::microseconds(1);
    assert_eq!(ids(store.list(&ns("a"), &current, later, page).await.unwrap()), vec![new.id]);
    assert_eq!(ids(store.list(&ns("a"), &current, before, page).await.unwrap()), [new.id, old.id]);
    assert_eq!(ids(store.list(&ns("a"), &history, later, page).await.unwrap()), [new.id, old.id]);
    assert_eq!(store.count(&ns("a"), &current, later).await.unwrap(), 1);
    assert_eq!(store.count(&ns("a"), &history, later).await.unwrap(), 2);
    let berlin = terms("berlin");
    assert!(store.keyword_search(&ns("a"), &berlin, &current, change, 5).await.unwrap().is_empty());
    assert_eq!(
        store.keyword_search(&ns("a"), &berlin, &current, before, 5).await.unwrap().len(),
        1
    );
    assert_eq!(store.keyword_search(&ns("a"), &berlin, &history, later, 5).await.unwrap().len(), 1);

    let vectors = store.vectors("model-a").await.unwrap();
    let facets = &vectors.iter().find(|v| v.id == old.id).expect("old vector").facets;
    assert_eq!(*facets, got.facets());
    assert_eq!(facets.invalid_at, Some(change));
    let entries = store.keyword_entries().await.unwrap();
    let entry = entries.iter().find(|e| e.id == old.id).expect("old keyword entry");
    assert_eq!(entry.facets.invalid_at, Some(change));

    let revive = MemoryUpdate { superseded: Some(None), at: later, ..MemoryUpdate::default() };
    let got = store.update(&ns("a"), old.id, &revive).await.unwrap().unwrap();
    assert_eq!((got.superseded_by, got.invalid_at, got.link), (None, None, None));
    assert_eq!(store.count(&ns("a"), &current, later).await.unwrap(), 2);
}

/// Possible updates are kept on the memory that lists them (from insert and from an update),
/// round-trip every field, can be cleared, and the review list holds exactly the visible
/// memories of the namespace that list some, latest stored first.
pub async fn possible_updates_are_kept_and_listed_for_review(store: Arc<dyn MemoryStore>) {
    let old = memory("a", "lives in Berlin", t0());
    let other = memory("a", "likes tea", t0() + TimeDelta::seconds(1));
    let mut new = memory("a", "moved to Paris", t0() + TimeDelta::days(1));
    new.possible_updates = vec![
        PossibleUpdate { id: old.id, similarity: Some(0.875), why: "states a change".into() },
        PossibleUpdate { id: other.id, similarity: None, why: "near in meaning".into() },
    ];
    let elsewhere =
        Memory { possible_updates: new.possible_updates.clone(), ..memory("b", "x", t0()) };
    for m in [&old, &other, &new, &elsewhere] {
        store.insert(&record(m.clone())).await.unwrap();
    }
    let at = t0() + TimeDelta::days(2);
    let got = store.get(&ns("a"), new.id, at).await.unwrap().unwrap();
    assert_eq!(got.possible_updates, new.possible_updates);
    let page = Page::default();
    let review = store.pending_review(&ns("a"), at, page).await.unwrap();
    assert_eq!(review.iter().map(|m| m.id).collect::<Vec<_>>(), [new.id], "namespace a only");

    // A later memory listing one goes first; an update that clears the list takes it off.
    let mut later =
        memory("a", "works at Acme now", t0() + TimeDelta::days(1) + TimeDelta::seconds(1));
    later.possible_updates =
        vec![PossibleUpdate { id: other.id, similarity: Some(0.9), why: "x".into() }];
    store.insert(&record(later.clone())).await.unwrap();
    let review = store.pending_review(&ns("a"), at, page).await.unwrap();
    assert_eq!(review.iter().map(|m| m.id).collect::<Vec<_>>(), [later.id, new.id]);
    let one = Page { offset: 1, limit: 1 };
    assert_eq!(store.pending_review(&ns("a"), at, one).await.unwrap()[0].id, new.id);
    let kept = vec![new.possible_updates[0].clone()];
    let update =
        MemoryUpdate { possible_updates: Some(kept.clone()), at, ..MemoryUpdate::default() };
    let got = store.update(&ns("a"), new.id, &update).await.unwrap().unwrap();
    assert_eq!((got.possible_updates, got.updated_at), (kept, new.updated_at), "not an edit");
    let clear = MemoryUpdate { possible_updates: Some(Vec::new()), at, ..MemoryUpdate::default() };
    store.update(&ns("a"), later.id, &clear).await.unwrap().unwrap();
    let review = store.pending_review(&ns("a"), at, page).await.unwrap();
    assert_eq!(review.iter().map(|m| m.id).collect::<Vec<_>>(), [new.id]);
}

/// `predecessors` lists what one memory superseded, in its namespace only, latest change first,
/// archived ones included and expired ones not.
pub async fn predecessors_are_the_memories_one_superseded(store: Arc<dyn MemoryStore>) {
    let now = memory("a", "port 8767", t0() + TimeDelta::days(3));
    let superseded = |content: &str, days: i64, by: MemoryId| {
        let mut m = memory("a", content, t0() + TimeDelta::days(days));
        m.superseded_by = Some(by);
        m.invalid_at = Some(t0() + TimeDelta::days(days + 1));
        m
    };
    let first = superseded("port 8765", 0, now.id);
    let mut second = superseded("port 8766", 1, now.id);
    second.archived = true;
    let mut gone = superseded("port 8764", 0, now.id);
    gone.ttl_secs = 1;
    gone.expires_at = Some(t0() + TimeDelta::seconds(1));
    let unrelated = memory("a", "likes tea", t0());
    let elsewhere = superseded("port 9000", 0, now.id);
    let elsewhere = Memory { namespace: ns("b"), ..elsewhere };
    for m in [&now, &first, &second, &gone, &unrelated, &elsewhere] {
        store.insert(&record(m.clone())).await.unwrap();
    }
    let found = store.predecessors(&ns("a"), now.id, t0() + TimeDelta::days(5)).await.unwrap();
    assert_eq!(found.iter().map(|m| m.id).collect::<Vec<_>>(), vec![second.id, first.id]);
    assert!(store.predecessors(&ns("a"), unrelated.id, t0()).await.unwrap().is_empty());
    assert!(store.predecessors(&ns("c"), now.id, t0()).await.unwrap().is_empty());
}

/// Every write that changes what a search may find is logged, in commit order; access counts are
/// not; `records` reads back what an index needs; pruning past a reader's position tells it.
pub async fn change_log_names_every_searchable_change(store: Arc<dyn MemoryStore>) {
    let start = store.change_position().await.unwrap();
    let kept = memory("a", "lives in Paris", t0());
    let mut rec = record(kept.clone());
    rec.vectors.push(vector("model-a", vec![1.0, 0.0]));
    store.insert(&rec).await.unwrap();
    let gone = memory("b", "short lived", t0());
    store.insert(&record(gone.clone())).await.unwrap();
    let update = MemoryUpdate {
        content: Some(("lives in Lisbon".into(), terms("lives in lisbon"), content_hash("x"))),
        vectors: Some(vec![vector("model-a", vec![0.0, 1.0])]),
        at: t0(),
        ..Default::default()
    };
    store.update(&ns("a"), kept.id, &update).await.unwrap().expect("exists");
    assert!(store.delete(&ns("b"), gone.id).await.unwrap());
    let before_access = store.change_position().await.unwrap();
    store.record_access(&ns("a"), &[kept.id], t0()).await.unwrap();
    assert_eq!(store.change_position().await.unwrap(), before_access, "access is not a change");

    let log = store.changes_since(start, 100).await.unwrap();
    assert!(log.complete);
    assert!(log.changes.windows(2).all(|w| w[0].position < w[1].position), "commit order");
    assert_eq!(log.changes.last().map(|c| c.position), Some(before_access));
    let named = |id: MemoryId| log.changes.iter().filter(|c| c.id == id).collect::<Vec<_>>();
    assert!(named(kept.id).len() >= 2, "insert and update of {:?}: {log:?}", kept.id);
    assert!(named(kept.id).iter().all(|c| c.namespace == ns("a")));
    let last_gone = named(gone.id).last().map(|c| c.position);
    assert!(named(gone.id).iter().all(|c| c.namespace == ns("b")));
    assert!(last_gone > named(kept.id).first().map(|c| c.position), "the delete comes later");
    let paged = store.changes_since(start, 1).await.unwrap();
    assert_eq!(paged.changes, log.changes[..1]);

    let records = store.records(&ns("a"), &[kept.id, gone.id]).await.unwrap();
    assert_eq!(records.len(), 1, "a deleted memory has no record");
    assert_eq!(records[0].memory.content, "lives in Lisbon");
    assert_eq!(records[0].terms, terms("lives in lisbon"));
    assert_eq!(records[0].vectors, vec![vector("model-a", vec![0.0, 1.0])]);
    assert!(store.records(&ns("b"), &[kept.id]).await.unwrap().is_empty(), "namespaced");

    assert!(store.prune_changes(1).await.unwrap() >= 3);
    assert!(!store.changes_since(start, 100).await.unwrap().complete, "pruned past start");
    let tail = store.changes_since(before_access - 1, 100).await.unwrap();
    assert!(tail.complete);
    assert_eq!(tail.changes.len(), 1);
    let head = store.changes_since(before_access, 100).await.unwrap();
    assert!(head.complete && head.changes.is_empty());
}

/// Daily counts group one namespace's memories by the UTC day of their event time and tier,
/// from the first day asked for, without expired memories or other namespaces.
pub async fn daily_counts_group_event_days_per_tier(store: Arc<dyn MemoryStore>) {
    let midnight = DateTime::from_timestamp(t0().timestamp().div_euclid(86_400) * 86_400, 0)
        .expect("valid instant");
    let day = |n: i64| midnight + TimeDelta::days(n);
    let mut semantic = memory("a", "a fact", day(1) + TimeDelta::hours(23));
    semantic.memory_type = MemoryType::Semantic;
    let mut archived = memory("a", "cold but counted", day(1));
    archived.archived = true;
    let mut expired = memory("a", "gone", day(1));
    expired.expires_at = Some(day(1) + TimeDelta::seconds(1));
    let memories = [
        memory("a", "too early", day(0)),
        memory("a", "first", day(1)),
        semantic,
        archived,
        expired,
        memory("a", "two days on", day(3)),
        memory("b", "another tenant", day(1)),
    ];
    for m in &memories {
        store.insert(&record(m.clone())).await.unwrap();
    }
    let first_day = day(1).timestamp().div_euclid(86_400);
    let got = store.daily_counts(&ns("a"), day(1) + TimeDelta::hours(5), day(4)).await.unwrap();
    let got: Vec<_> =
        got.into_iter().map(|d| (d.day - first_day, d.memory_type, d.count)).collect();
    assert_eq!(
        got,
        vec![
            (0, MemoryType::Episodic, 2),
            (0, MemoryType::Semantic, 1),
            (2, MemoryType::Episodic, 1),
        ]
    );
}

/// One sweep claim per interval: a second claim within it is refused, one after it granted;
/// of claims racing for one interval exactly one wins.
pub async fn a_sweep_is_claimed_once_per_interval(store: Arc<dyn MemoryStore>) {
    let hour = TimeDelta::hours(1);
    assert!(store.claim_sweep(t0(), hour).await.unwrap(), "the first claim");
    assert!(!store.claim_sweep(t0() + TimeDelta::minutes(20), hour).await.unwrap());
    assert!(store.claim_sweep(t0() + hour, hour).await.unwrap(), "the next interval");
    let later = t0() + TimeDelta::hours(5);
    let racing: Vec<_> = (0..8)
        .map(|_| {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.claim_sweep(later, hour).await.unwrap() })
        })
        .collect();
    let mut won = 0;
    for claim in racing {
        won += usize::from(claim.await.unwrap());
    }
    assert_eq!(won, 1, "one of the racing claims");
}

/// A term longer than `MAX_TERM_CHARS` (a blob, not a word) is left out of the keyword index;
/// the memory is stored and found by its other terms.
pub async fn an_overlong_term_is_not_indexed_and_fails_nothing(store: Arc<dyn MemoryStore>) {
    let blob = "ab".repeat(1500);
    let m = memory("a", "blob", t0());
    let rec = MemoryRecord {
        memory: m.clone(),
        terms: vec!["payload".to_owned(), blob.clone(), "泰文".repeat(700)],
        vectors: Vec::new(),
    };
    store.insert(&rec).await.unwrap();
    let filter = MemoryFilter::default();
    let hits = store.keyword_search(&ns("a"), &terms("payload"), &filter, t0(), 5).await.unwrap();
    assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), [m.id]);
    let hits = store.keyword_search(&ns("a"), &[blob], &filter, t0(), 5).await.unwrap();
    assert!(hits.is_empty(), "not indexed, not matched");
    let entries = store.keyword_entries().await.unwrap();
    assert_eq!(entries[0].terms, ["payload"]);
}

/// A store that searches in itself (`searches_in_store`) answers as the in-memory indexes do:
/// nearest vectors by cosine within the filter and namespace, similarities of given ids, and
/// BM25 (FTS5's k1 1.2, b 0.75, namespace-local statistics) with per-term weights and the
/// full-match score. A store that does not answers `None` to all three.
pub async fn in_store_search_scores_as_the_in_memory_indexes_do(store: Arc<dyn MemoryStore>) {
    let query = Embedding::new(vec![1.0, 0.0]).expect("non-zero");
    let any = MemoryFilter::default();
    if !store.searches_in_store() {
        assert!(
            store.nearest_vectors(&ns("a"), "m", &query, &any, t0(), 3).await.unwrap().is_none()
        );
        assert!(store.vector_similarities(&ns("a"), "m", &[], &query).await.unwrap().is_none());
        let weighted = store.weighted_keyword_search(&ns("a"), &[], &any, t0(), 3).await.unwrap();
        assert!(weighted.is_none());
        return;
    }
    let with = |namespace: &str, text: &str, v: Option<[f32; 2]>, archived: bool| {
        let mut m = memory(namespace, text, t0());
        m.archived = archived;
        let vectors = v.map(|v| vec![vector("m", v.to_vec())]).unwrap_or_default();
        MemoryRecord {
            terms: text.split_whitespace().map(str::to_owned).collect(),
            memory: m,
            vectors,
        }
    };
    let records = [
        with("a", "near", Some([0.99, 0.141]), false),
        with("a", "mid", Some([0.6, 0.8]), false),
        with("a", "far", Some([-0.5, 0.866]), false),
        with("a", "cold", Some([1.0, 0.0]), true),
        with("a", "plain", None, false),
        with("b", "elsewhere", Some([1.0, 0.0]), false),
    ];
    for r in &records {
        store.insert(r).await.unwrap();
    }
    let id = |i: usize| records[i].memory.id;
    let found = store.nearest_vectors(&ns("a"), "m", &query, &any, t0(), 10).await.unwrap();
    let found = found.expect("searches in store");
    assert_eq!(found.iter().map(|m| m.id).collect::<Vec<_>>(), [id(0), id(1), id(2)]);
    assert!((found[0].cosine - 0.99).abs() < 1e-3 && (found[2].cosine + 0.5).abs() < 1e-3);
    let two = store.nearest_vectors(&ns("a"), "m", &query, &any, t0(), 2).await.unwrap().unwrap();
    assert_eq!(two.len(), 2);
    let archived = MemoryFilter { include_archived: true, ..MemoryFilter::default() };
    let all = store.nearest_vectors(&ns("a"), "m", &query, &archived, t0(), 1).await.unwrap();
    assert_eq!(all.unwrap()[0].id, id(3), "the archived one when archived are included");
    let asked = [id(2), id(4), id(5), id(0)];
    let sims = store.vector_similarities(&ns("a"), "m", &asked, &query).await.unwrap().unwrap();
    assert_eq!(sims.iter().map(Option::is_some).collect::<Vec<_>>(), [true, false, false, true]);
    assert!((sims[0].unwrap() + 0.5).abs() < 1e-3);

    // Keywords, in a namespace of their own: three documents with the terms, three without.
    let docs = ["redis port 6380", "redis cache", "port 8080 port", "x", "y", "z"];
    let mut keyword_ids = Vec::new();
    for text in docs {
        let r = with("k", text, None, false);
        keyword_ids.push(r.memory.id);
        store.insert(&r).await.unwrap();
    }
    let terms: Vec<(String, f32)> =
        [("port", 1.0), ("redis", 0.5), ("port", 0.2), ("missing", 1.0)]
            .map(|(t, w)| (t.to_owned(), w))
            .to_vec();
    let got = store.weighted_keyword_search(&ns("k"), &terms, &any, t0(), 10).await.unwrap();
    let got = got.expect("searches in store");
    let idf = |n: f64, df: f64| ((n - df + 0.5) / (df + 0.5)).ln().max(1e-6);
    let avgdl = 11.0 / 6.0;
    let bm25 = |tf: f64, len: f64| tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / avgdl));
    let expected = [
        (0, idf(6.0, 2.0) * (bm25(1.0, 3.0) + 0.5 * bm25(1.0, 3.0))),
        (2, idf(6.0, 2.0) * bm25(2.0, 3.0)),
        (1, idf(6.0, 2.0) * 0.5 * bm25(1.0, 2.0)),
    ];
    let mut want: Vec<(MemoryId, f64)> =
        expected.iter().map(|(i, s)| (keyword_ids[*i], *s)).collect();
    want.sort_by(|a, b| b.1.total_cmp(&a.1));
    assert_eq!(
        got.hits.iter().map(|h| h.id).collect::<Vec<_>>(),
        want.iter().map(|w| w.0).collect::<Vec<_>>()
    );
    for (hit, (_, score)) in got.hits.iter().zip(&want) {
        assert!((f64::from(hit.bm25) - score).abs() < 1e-4, "{hit:?} against {score}");
    }
    let full = 1.5 * idf(6.0, 2.0) + idf(6.0, 0.0);
    assert!((f64::from(got.full_match) - full).abs() < 1e-4, "{} against {full}", got.full_match);

    // The statistics follow deletes and edits: "port 8080 port" deleted and "redis cache" now
    // "redis port" leave N = 5, df(port) = 2 and 8 terms in all.
    assert!(store.delete(&ns("k"), keyword_ids[2]).await.unwrap());
    let text = "redis port";
    let edit = MemoryUpdate {
        content: Some((text.into(), self::terms(text), content_hash(text))),
        at: t0(),
        ..MemoryUpdate::default()
    };
    store.update(&ns("k"), keyword_ids[1], &edit).await.unwrap().expect("edited");
    let port = vec![("port".to_owned(), 1.0)];
    let got = store.weighted_keyword_search(&ns("k"), &port, &any, t0(), 10).await.unwrap();
    let got = got.expect("searches in store");
    let bm25 = |tf: f64, len: f64| tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / (8.0 / 5.0)));
    let want = [(keyword_ids[1], bm25(1.0, 2.0)), (keyword_ids[0], bm25(1.0, 3.0))];
    assert_eq!(got.hits.iter().map(|h| h.id).collect::<Vec<_>>(), want.map(|w| w.0));
    for (hit, (_, score)) in got.hits.iter().zip(want) {
        let score = idf(5.0, 2.0) * score;
        assert!((f64::from(hit.bm25) - score).abs() < 1e-4, "{hit:?} against {score}");
    }
}
