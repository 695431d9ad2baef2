//! Exact top-k BM25 with MaxScore pruning (Turtle & Flood, 1995), term at a time.
//!
//! A long question is mostly common words ("what", "the", "的", "了") whose postings cover a
//! large share of a big namespace and whose IDF is tiny; summing every one of their postings was
//! most of a keyword search at 1M memories. Here the terms are summed strongest first (by the
//! most each can add to a score) into dense accumulators. Before a long list is summed, the k-th
//! best accepted score so far is taken as a threshold: once the terms left could not together
//! lift any document to it, they are not walked. Only the documents already within reach of the
//! threshold (partial score plus what the terms left could add) are completed, each by a binary
//! search per remaining term. Everything else provably scores below the k-th best.
//!
//! The answer is the one full scoring gives: scores add in the same order for every document
//! (strongest term first, then query order), whether a term was walked or looked up, and ties
//! rank by smaller id.

use rearview_core::Facets;

use super::{B, DEAD, K1, SCORES, TextHit, TextIndex};

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
        SCORES.with_borrow_mut(|scores| {
            scores.resize(self.slots.len(), 0.0);
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
            let mut touched: Vec<u32> = Vec::new();
            let mut walked = 0;
            let mut threshold = None;
            while walked < lists.len() {
                let rest = rests[walked];
                // Worth a look only before a list longer than what a threshold costs to find.
                if lists[walked].postings.len() > touched.len().max(CHECK_FROM) {
                    threshold = self.kth_accepted(&touched, scores, k, accept);
                    if threshold.is_some_and(|t| rest < t * (1.0 - SLACK)) {
                        break;
                    }
                }
                self.walk(&lists[walked], avgdl, scores, &mut touched);
                walked += 1;
            }
            let contenders = match threshold.filter(|_| walked < lists.len()) {
                None => std::mem::take(&mut touched),
                Some(t) => {
                    let reach = t * (1.0 - SLACK) - rests[walked];
                    let (contenders, others): (Vec<u32>, Vec<u32>) =
                        touched.iter().partition(|&&slot| scores[slot as usize] >= reach);
                    for &slot in &others {
                        scores[slot as usize] = 0.0;
                    }
                    for &slot in &contenders {
                        for list in &lists[walked..] {
                            if let Ok(at) = list.postings.binary_search_by_key(&slot, |p| p.0) {
                                let tf = list.postings[at].1;
                                scores[slot as usize] +=
                                    self.contribution(list.weight, tf, slot, avgdl);
                            }
                        }
                    }
                    contenders
                }
            };
            let hits = self.best_accepted(&contenders, scores, k, accept);
            for &slot in &contenders {
                scores[slot as usize] = 0.0;
            }
            hits
        })
    }

    /// Adds every live posting of `list` into `scores`, noting the slots it touches first.
    fn walk(&self, list: &List<'_>, avgdl: f32, scores: &mut [f32], touched: &mut Vec<u32>) {
        for &(slot, tf) in list.postings {
            if self.lens[slot as usize] == DEAD {
                continue;
            }
            let acc = &mut scores[slot as usize];
            if *acc == 0.0 {
                touched.push(slot);
            }
            *acc += self.contribution(list.weight, tf, slot, avgdl);
        }
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
            if weight <= 0.0 {
                // Adds nothing, and a zero score must keep meaning "no match".
                continue;
            }
            let (max_tf, min_len) = self.bounds[term_id as usize];
            let norm = K1 * (1.0 - B + B * min_len as f32 / avgdl);
            let best = max_tf as f32 * (K1 + 1.0) / (max_tf as f32 + norm);
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

    /// What a term of `weight` occurring `tf` times adds to the score of the document at `slot`.
    fn contribution(&self, weight: f32, tf: u32, slot: u32, avgdl: f32) -> f32 {
        let len = self.lens[slot as usize];
        let tf = tf as f32;
        let norm = K1 * (1.0 - B + B * len as f32 / avgdl);
        weight * tf * (K1 + 1.0) / (tf + norm)
    }
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
                        score += index.contribution(list.weight, list.postings[at].1, slot, avgdl);
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
