//! The keyword search checks its filter on the best few times `limit` by score first, and on
//! every scored memory when too few of those pass: here the best-scored memories are all
//! archived, so only the second pass finds the live ones. Needs `REARVIEW_TEST_PG_URL`
//! (required in CI).

use rearview_core::MemoryFilter;
use rearview_store::prelude::*;
use rearview_store::testing::{memory, ns, t0};

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_selective_filter_still_gets_the_best_matches_that_pass_it() {
    let Some((store, schema, url)) = common::fresh_store("kw").await else {
        return;
    };
    let mut live = Vec::new();
    for i in 0..40 {
        let archived = i >= 5;
        let mut m = memory("n", &format!("note {i}"), t0());
        m.archived = archived;
        // The archived ones say "alpha" three times and outscore every live one.
        let alpha = if archived { 3 } else { 1 };
        let mut terms = vec!["alpha".to_owned(); alpha];
        terms.extend(["filler".to_owned(), format!("n{i}")]);
        terms.resize(5, "pad".to_owned());
        if !archived {
            live.push(m.id);
        }
        store
            .insert(&rearview_store::MemoryRecord { memory: m, terms, vectors: vec![] })
            .await
            .unwrap();
    }
    let found = store
        .keyword_search(&ns("n"), &["alpha".to_owned()], &MemoryFilter::default(), t0(), 3)
        .await
        .unwrap();
    assert_eq!(found.len(), 3);
    assert!(found.iter().all(|h| live.contains(&h.id)), "{found:?}");
    // With archived memories allowed, the first pass answers: the archived ones, best first.
    let any = MemoryFilter { include_archived: true, ..MemoryFilter::default() };
    let found = store.keyword_search(&ns("n"), &["alpha".to_owned()], &any, t0(), 3).await.unwrap();
    assert!(found.iter().all(|h| !live.contains(&h.id)), "{found:?}");

    common::drop_schema(&url, &schema).await;
}

/// In a namespace of 1,000+ memories (where the search drops terms found in more than half of
/// them) the weighted search gives the exact BM25 top `k`, as computed here from the corpus:
/// common and rare terms, weights, repeated terms, with and without a filter that rejects some
/// of the best.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyword_search_gives_the_exact_bm25_top_k_of_a_large_namespace() {
    let Some((store, schema, url)) = common::fresh_store("kw").await else {
        return;
    };
    // 3,000 memories: "rare" in 1 %, "mid" in 8 %, "wide" in 30 %, "common" in 40 %, "often"
    // in 45 % (none above half, which the search would drop), 2–7 filler terms each.
    let mut seed: u64 = 42;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let mut docs: Vec<(rearview_core::MemoryId, Vec<String>, bool)> = Vec::new();
    let mut records = Vec::new();
    for i in 0..3000 {
        let mut terms: Vec<String> = Vec::new();
        for (term, per_mille) in
            [("rare", 10), ("mid", 80), ("wide", 300), ("common", 400), ("often", 450)]
        {
            if next(1000) < per_mille {
                for _ in 0..=next(3) {
                    terms.push(term.to_owned());
                }
            }
        }
        for _ in 0..2 + next(6) {
            terms.push(format!("filler{}", next(500)));
        }
        let mut m = memory("n", &format!("doc {i}"), t0());
        m.archived = i % 7 == 0;
        docs.push((m.id, terms.clone(), m.archived));
        records.push(rearview_store::MemoryRecord { memory: m, terms, vectors: vec![] });
    }
    store.insert_many(&records).await.unwrap();

    let n = docs.len() as f64;
    let avgdl = docs.iter().map(|d| d.1.len()).sum::<usize>() as f64 / n;
    let mut frequency: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
    for (_, terms, _) in &docs {
        let distinct: std::collections::HashSet<&str> = terms.iter().map(String::as_str).collect();
        for t in distinct {
            *frequency.entry(t).or_default() += 1.0;
        }
    }
    let df = |t: &str| frequency.get(t).copied().unwrap_or(0.0);
    // Every match, best first.
    let expected = |query: &[(&str, f32)], archived_too: bool| {
        let mut scored: Vec<(rearview_core::MemoryId, f64)> = docs
            .iter()
            .filter(|d| archived_too || !d.2)
            .filter_map(|(id, terms, _)| {
                let len = terms.len() as f64;
                let mut score = 0.0;
                let mut matched = false;
                for (t, w) in query {
                    let tf = terms.iter().filter(|x| x == t).count() as f64;
                    if tf > 0.0 {
                        matched = true;
                        let idf = ((n - df(t) + 0.5) / (df(t) + 0.5)).ln().max(1e-6);
                        score += f64::from(*w) * idf * tf * 2.2
                            / (tf + 1.2 * (0.25 + 0.75 * len / avgdl));
                    }
                }
                matched.then_some((*id, score))
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.0.cmp(&b.0.0)));
        scored
    };
    let queries: [&[(&str, f32)]; 4] = [
        &[("rare", 1.0), ("common", 1.0), ("often", 1.0)],
        &[("mid", 1.0), ("wide", 0.5), ("common", 1.0), ("often", 1.0)],
        &[("wide", 1.0), ("common", 1.0), ("often", 1.0), ("filler7", 1.0)],
        &[("rare", 0.2), ("mid", 1.0), ("common", 1.0), ("often", 0.8)],
    ];
    for query in queries {
        for archived_too in [false, true] {
            for k in [1, 10, 40] {
                let filter =
                    MemoryFilter { include_archived: archived_too, ..MemoryFilter::default() };
                let terms: Vec<(String, f32)> =
                    query.iter().map(|(t, w)| ((*t).to_owned(), *w)).collect();
                let got = store.weighted_keyword_search(&ns("n"), &terms, &filter, t0(), k).await;
                let got = got.unwrap().expect("searched in the store").hits;
                let every = expected(query, archived_too);
                let want = &every[..k.min(every.len())];
                let context = format!("{query:?}, archived {archived_too}, k {k}");
                assert_eq!(got.len(), want.len(), "{context}");
                for (hit, (id, score)) in got.iter().zip(want) {
                    assert!(
                        (f64::from(hit.bm25) - score).abs() < 1e-4,
                        "{context}: {hit:?} against {score}"
                    );
                    // Equal scores may come in either order; different ones may not.
                    if hit.id != *id {
                        let theirs = every.iter().find(|w| w.0 == hit.id).map(|w| w.1);
                        assert!(theirs.is_some_and(|s| (s - score).abs() < 1e-9), "{context}");
                    }
                }
            }
        }
    }
    common::drop_schema(&url, &schema).await;
}
