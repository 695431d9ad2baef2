//! Exact top-k BM25 with MaxScore pruning (Turtle & Flood, 1995), term at a time.
//!
//! A long question is mostly common words ("what", "the", "的", "了") whose postings cover a
//! large share of a big namespace and whose IDF is tiny; summing every one of their postings was
//! most of a keyword search at 1M memories. Here the terms are summed strongest first (by the
//! most each can add to a score) into dense accumulators. Before a long list is summed, the k-th
//! best accepted score so far is taken as a threshold, where one could stop the walk (the k-th
//! best can be no more than the last threshold plus what the lists walked since can add): once
//! the terms left could not together lift any document to it, they are not walked. Only the
//! documents already within reach of the threshold (partial score plus what the terms left could
//! add) are completed, by a binary search per document in each remaining list, or by reading the
//! list where that costs less. Everything else provably scores below the k-th best.
//!
//! The answer is the one full scoring gives: scores add in the same order for every document
//! (strongest term first, then query order), whether a term was walked or looked up, and ties
//! rank by smaller id.

use rearview_core::Facets;

use super::{B, DEAD, K1, SCRATCH, Scratch, TextHit, TextIndex};

/// One query term's postings while searching.
struct List<'a> {
    postings: &'a [(u32, u32)],
    /// The term's IDF times its query weight.
    weight: f32,
    /// No document gains more than this from the term.
    bound: f32,
    /// The term's place in the query (the order among equal bounds).
    order: usize,
}

/// Lists at least this long (and longer than the documents touched so far) are worth finding
/// a threshold before; small in tests, so the pruning runs on their small indexes.
const CHECK_FROM: usize = if cfg!(test) { 4 } else { 1024 };

/// The least weight a term must have to count: what it adds to any document (at least
/// `weight · 2.2 / (1 + 0.9 · N)`) stays far above zero in `f32` for any namespace size.
const MIN_WEIGHT: f32 = 1e-20;

/// Relative slack on every comparison with the threshold, far above f32 rounding of sums of a
/// few dozen terms.
const SLACK: f32 = 1e-4;

impl TextIndex {
    /// The best `k` live documents by BM25 for the weighted `query_terms` whose facets `accept`,
    /// best first, ties by id (see the module docs).
    pub(super) fn max_score(
        &self,
        query_terms: &[(String, f32)],
        k: usize,
        avgdl: f32,
        accept: &dyn Fn(&Facets) -> bool,
        range: std::ops::Range<u32>,
    ) -> Vec<TextHit> {
        let mut lists = self.lists(query_terms, avgdl, range);
        if lists.is_empty() || k == 0 {
            return Vec::new();
        }
        lists.sort_by(|a, b| b.bound.total_cmp(&a.bound).then(a.order.cmp(&b.order)));
        let norms = Norms::new(avgdl);
        SCRATCH.with_borrow_mut(|Scratch { scores, touched }| {
            scores.resize(self.slots.len(), 0.0);
            // One place per slot and one to spare: `walk` writes before it knows a slot is new.
            touched.resize(self.slots.len() + 1, 0);
            // `rests[i]`: the most lists i.. can add together.
            let mut rests: Vec<f32> = lists
                .iter()
                .rev()
                .scan(0.0f32, |sum, l| {
                    *sum += l.bound;
                    Some(*sum)
                })
                .collect();
            rests.reverse();
            let mut n_touched = 0;
            let mut walked = 0;
            let mut threshold = None;
            // The threshold last found, and what the lists walked could add by then.
            let mut last: Option<(f32, f32)> = None;
            while walked < lists.len() {
                let rest = rests[walked];
                // The most the k-th best can be now: no more than the lists walked can add, and
                // no more than the last threshold plus what the lists walked since can add.
                // While the lists left can add as much, no threshold stops the walk.
                let walked_bound = rests[0] - rest;
                let ceiling = last.map_or(walked_bound, |(t, then)| t + (walked_bound - then));
                // Worth a look only before a list longer than what a threshold costs to find.
                if lists[walked].postings.len() > n_touched.max(CHECK_FROM) && rest < ceiling {
                    threshold = self.kth_accepted(&touched[..n_touched], scores, k, accept);
                    last = threshold.map(|t| (t, walked_bound));
                    if threshold.is_some_and(|t| rest < t * (1.0 - SLACK)) {
                        break;
                    }
                }
                n_touched = self.walk(&lists[walked], &norms, scores, touched, n_touched);
                walked += 1;
            }
            let touched = &mut touched[..n_touched];
            let contenders = match threshold.filter(|_| walked < lists.len()) {
                None => touched,
                Some(t) => {
                    let reach = t * (1.0 - SLACK) - rests[walked];
                    let contenders = within_reach(touched, scores, reach);
                    for list in &lists[walked..] {
                        self.complete(list, &norms, scores, contenders);
                    }
                    contenders
                }
            };
            let hits = self.best_accepted(contenders, scores, k, accept);
            for &slot in contenders.iter() {
                scores[slot as usize] = 0.0;
            }
            hits
        })
    }

    /// Adds what `list` gives each of the `contenders` (the only slots of `scores` not zero)
    /// into `scores`: by a binary search per contender, or where that would cost more than
    /// reading the whole list, by reading it. Either way each contender gains the same sum.
    fn complete(&self, list: &List<'_>, norms: &Norms, scores: &mut [f32], contenders: &[u32]) {
        let searches = contenders.len() * (list.postings.len().max(2).ilog2() as usize);
        if searches < list.postings.len() {
            for &slot in contenders {
                if let Ok(at) = list.postings.binary_search_by_key(&slot, |p| p.0) {
                    let impact = norms.impact(list.postings[at].1, self.lens[slot as usize]);
                    scores[slot as usize] += list.weight * impact;
                }
            }
        } else {
            for &(slot, tf) in list.postings {
                let acc = &mut scores[slot as usize];
                if *acc != 0.0 {
                    *acc += list.weight * norms.impact(tf, self.lens[slot as usize]);
                }
            }
        }
    }

    /// Adds every live posting of `list` into `scores`, noting in `touched[n_touched..]` the
    /// slots it touches first; returns how many `touched` now holds. Without a branch on
    /// whether a slot is new (which half the postings of a common term are, unpredictably):
    /// every slot is written at the end and only a new one moves the end on.
    fn walk(
        &self,
        list: &List<'_>,
        norms: &Norms,
        scores: &mut [f32],
        touched: &mut [u32],
        n_touched: usize,
    ) -> usize {
        let mut end = n_touched;
        for &(slot, tf) in list.postings {
            let len = self.lens[slot as usize];
            if len == DEAD {
                continue;
            }
            let acc = &mut scores[slot as usize];
            touched[end] = slot;
            end += usize::from(*acc == 0.0);
            *acc += list.weight * norms.impact(tf, len);
        }
        end
    }

    /// The score of the k-th best document so far whose facets `accept`, looking at the best
    /// 4·k by score (`accepted_in_pool`); `None` if fewer than `k` of those pass.
    fn kth_accepted(
        &self,
        touched: &[u32],
        scores: &[f32],
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Option<f32> {
        if touched.len() < k {
            return None;
        }
        let (accepted, _) = self.accepted_in_pool(touched, scores, k, accept);
        accepted.get(k - 1).map(|(score, _)| *score)
    }

    /// The query's distinct terms present in the index with a positive weight, in query order,
    /// with their postings in the slot `range` (terms with none there left out).
    fn lists(
        &self,
        query_terms: &[(String, f32)],
        avgdl: f32,
        range: std::ops::Range<u32>,
    ) -> Vec<List<'_>> {
        let n = self.rows.len();
        let mut seen = std::collections::HashSet::new();
        let mut lists = Vec::new();
        for (order, (term, weight)) in query_terms.iter().enumerate() {
            let Some(&term_id) = self.term_ids.get(term.as_str()) else { continue };
            if !seen.insert(term_id) {
                continue;
            }
            let df = self.df[term_id as usize];
            if df == 0 {
                continue;
            }
            let weight = super::idf(n, df) * weight;
            if weight.is_nan() || weight < MIN_WEIGHT {
                // Adds nothing, and a zero score must keep meaning "no match" (`walk` counts a
                // document as new while its score is zero, so every term must add to it).
                continue;
            }
            let (max_tf, min_len) = self.bounds[term_id as usize];
            let best = impact(max_tf, norm(min_len, avgdl));
            // A hair above the exact bound, so rounding can never make it fall short.
            let bound = weight * best * (1.0 + 1e-5);
            let postings = &self.postings[term_id as usize];
            let from = postings.partition_point(|p| p.0 < range.start);
            let to = postings.partition_point(|p| p.0 < range.end);
            if from == to {
                continue;
            }
            lists.push(List { postings: &postings[from..to], weight, bound, order });
        }
        lists
    }
}

/// The slots of `touched` whose score reaches `reach`, moved to its front (in their order), the
/// others' accumulators set back to zero: no copy of a list that may hold most of the index.
fn within_reach<'t>(touched: &'t mut [u32], scores: &mut [f32], reach: f32) -> &'t [u32] {
    let mut kept = 0;
    for i in 0..touched.len() {
        let slot = touched[i];
        let score = &mut scores[slot as usize];
        if *score >= reach {
            touched[kept] = slot;
            kept += 1;
        } else {
            *score = 0.0;
        }
    }
    &touched[..kept]
}

/// The length normalisations `k1 · (1 − b + b · |D| / avgdl)` of one search, and what one
/// occurrence of a term adds per unit of weight, looked up for the common lengths (computed once
/// per search, not once per posting) and computed for the rest.
struct Norms {
    avgdl: f32,
    /// Per length: the normalisation, and [`impact`] of one occurrence.
    table: Vec<(f32, f32)>,
}

/// Document lengths below this have their normalisation in [`Norms`]' table; small in tests,
/// so their short documents take both paths.
const NORM_TABLE: u32 = if cfg!(test) { 4 } else { 512 };

impl Norms {
    fn new(avgdl: f32) -> Self {
        let table = (0..NORM_TABLE)
            .map(|len| {
                let norm = norm(len, avgdl);
                (norm, impact(1, norm))
            })
            .collect();
        Norms { avgdl, table }
    }

    /// [`impact`] of `tf` occurrences in a document of `len` terms: the same `f32` either way.
    fn impact(&self, tf: u32, len: u32) -> f32 {
        match self.table.get(len as usize) {
            Some(&(_, one)) if tf == 1 => one,
            Some(&(norm, _)) => impact(tf, norm),
            None => impact(tf, norm(len, self.avgdl)),
        }
    }
}

/// BM25's length normalisation of a document of `len` terms: `k1 · (1 − b + b · len / avgdl)`.
fn norm(len: u32, avgdl: f32) -> f32 {
    K1 * (1.0 - B + B * len as f32 / avgdl)
}

/// What `tf` occurrences of a term add to the score of a document whose length normalisation
/// is `norm`, per unit of the term's weight; a term of weight `w` adds `w` times this.
fn impact(tf: u32, norm: f32) -> f32 {
    let tf = tf as f32;
    tf * (K1 + 1.0) / (tf + norm)
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;
    use proptest::prelude::*;
    use rearview_core::{MemoryId, MemoryType};

    use super::*;

    fn facets(archived: bool) -> Facets {
        Facets {
            memory_type: MemoryType::Episodic,
            archived,
            expires_at: None,
            occurred_at: DateTime::from_timestamp(0, 0).unwrap(),
            invalid_at: None,
            session_id: None,
            tags: vec![],
        }
    }

    /// Every live document scored in full, in the order scores add up: the answer MaxScore
    /// must give.
    fn full_scoring(
        index: &TextIndex,
        query: &[(String, f32)],
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Vec<TextHit> {
        let n = index.rows.len();
        let avgdl = index.total_len as f32 / n as f32;
        // Every term in the order scores add up: strongest bound first, then query order.
        let mut lists = index.lists(query, avgdl, 0..u32::MAX);
        lists.sort_by(|a, b| b.bound.total_cmp(&a.bound).then(a.order.cmp(&b.order)));
        let mut hits: Vec<TextHit> = index
            .rows
            .iter()
            .filter(|(_, slot)| accept(&index.slots[**slot as usize].facets))
            .filter_map(|(&id, &slot)| {
                let mut score = 0.0f32;
                for list in &lists {
                    if let Ok(at) = list.postings.binary_search_by_key(&slot, |p| p.0) {
                        let norm = super::norm(index.lens[slot as usize], avgdl);
                        score += list.weight * super::impact(list.postings[at].1, norm);
                    }
                }
                (score > 0.0).then_some(TextHit { id, bm25: score })
            })
            .collect();
        hits.sort_by(|a, b| b.bm25.total_cmp(&a.bm25).then(a.id.cmp(&b.id)));
        hits.truncate(k);
        hits
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Documents over a small skewed vocabulary (a few words in most documents, many rare
        /// ones), some removed or replaced, searched with and without a filter.
        #[test]
        fn max_score_finds_exactly_what_full_scoring_finds(
            docs in proptest::collection::vec(
                proptest::collection::vec((0u32..40).prop_map(|w| w * w / 40), 0..12), 1..150),
            removed in proptest::collection::vec(0usize..150, 0..30),
            query in proptest::collection::vec((0u32..40, 1u32..4), 1..8),
            k in 1usize..20,
        ) {
            let mut index = TextIndex::new();
            for (n, words) in docs.iter().enumerate() {
                let terms: Vec<String> = words.iter().map(|w| format!("w{w}")).collect();
                let id = MemoryId(uuid::Uuid::from_u128(n as u128 + 1));
                index.upsert(id, facets(n % 3 == 0), &terms);
            }
            for r in removed {
                index.remove(MemoryId(uuid::Uuid::from_u128(r as u128 + 1)));
            }
            let query: Vec<(String, f32)> =
                query.iter().map(|(w, q)| (format!("w{}", w * w / 40), *q as f32 / 2.0)).collect();
            let all = |_: &Facets| true;
            let archived = |f: &Facets| f.archived;
            prop_assert_eq!(
                index.search_weighted(&query, k, &all),
                full_scoring(&index, &query, k, &all)
            );
            prop_assert_eq!(
                index.search_weighted(&query, k, &archived),
                full_scoring(&index, &query, k, &archived)
            );
            // Searched in parts and merged: the same answer.
            for n in [2, 3] {
                let parts = (0..n).map(|i| index.search_part(&query, k, &archived, (i, n)));
                prop_assert_eq!(
                    TextIndex::merge(parts.collect(), k),
                    full_scoring(&index, &query, k, &archived)
                );
            }
        }
    }
}
