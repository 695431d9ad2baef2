//! Exact top-k BM25 by MaxScore (Turtle & Flood, 1995): documents are visited in slot order
//! across the query terms' postings, and a term whose best possible contribution, added to
//! those of all weaker terms, cannot lift a document past the current k-th best score is no
//! longer walked: it is only looked up (by galloping search) for documents the stronger terms
//! already made contenders.
//!
//! A long question is mostly common words ("what", "the", "的", "了") whose postings cover a
//! large share of a big namespace and whose IDF is tiny. Scoring every one of their postings was
//! most of a keyword search at 1M memories; with MaxScore they are walked only until the top k
//! fills with documents that share the question's rare words, which happens within the first
//! few thousand documents.
//!
//! The answer is the one a full scoring gives, bit for bit: a contender's score is summed in
//! query-term order, as the full scoring adds it, and ties rank by smaller id. The filter runs
//! only on documents that would enter the top k.

use std::collections::BinaryHeap;

use rearview_core::Facets;

use super::{B, DEAD, K1, Ranked, TextHit, TextIndex};

/// One query term's postings while searching.
struct List<'a> {
    postings: &'a [(u32, u32)],
    /// The term's IDF times its query weight.
    weight: f32,
    /// No document gains more than this from the term.
    bound: f32,
    /// The term's place in the query (scores add in that order).
    order: usize,
    /// Next posting to look at.
    cursor: usize,
}

impl List<'_> {
    /// The slot at the cursor, if any postings are left.
    fn current(&self) -> Option<u32> {
        self.postings.get(self.cursor).map(|p| p.0)
    }

    /// Moves the cursor to the first posting at or after `slot` (galloping, then binary search)
    /// and returns its term frequency if that posting is `slot`'s.
    fn seek(&mut self, slot: u32) -> Option<u32> {
        let rest = &self.postings[self.cursor..];
        let mut step = 1;
        while step < rest.len() && rest[step].0 < slot {
            step *= 2;
        }
        let window = &rest[step / 2..rest.len().min(step + 1)];
        let found = window.partition_point(|p| p.0 < slot);
        self.cursor += step / 2 + found;
        self.postings.get(self.cursor).filter(|p| p.0 == slot).map(|p| p.1)
    }
}

impl TextIndex {
    /// The best `k` live documents by BM25 for the weighted `query_terms` whose facets `accept`,
    /// best first, ties by id (see the module docs).
    pub(super) fn max_score(
        &self,
        query_terms: &[(String, f32)],
        k: usize,
        avgdl: f32,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Vec<TextHit> {
        let mut lists = self.lists(query_terms, avgdl);
        if lists.is_empty() || k == 0 {
            return Vec::new();
        }
        // Weakest first; `reach[i]`: the most lists 0..=i can add together.
        lists.sort_by(|a, b| a.bound.total_cmp(&b.bound));
        let reach: Vec<f32> = lists
            .iter()
            .scan(0.0f32, |sum, l| {
                *sum += l.bound;
                Some(*sum)
            })
            .collect();
        let mut heap: BinaryHeap<Ranked> = BinaryHeap::with_capacity(k + 1);
        // Lists before `essential` are only looked up: together they cannot reach the k-th score.
        let mut essential = 0;
        let mut contributions: Vec<Option<f32>> = vec![None; query_terms.len()];
        while let Some(slot) = lists[essential..].iter().filter_map(List::current).min() {
            contributions.iter_mut().for_each(|c| *c = None);
            let mut partial = 0.0f32;
            for list in &mut lists[essential..] {
                if list.current() == Some(slot) {
                    let tf = list.postings[list.cursor].1;
                    list.cursor += 1;
                    let c = self.contribution(list.weight, tf, slot, avgdl);
                    partial += c;
                    contributions[list.order] = Some(c);
                }
            }
            if self.lens[slot as usize] == DEAD {
                continue;
            }
            let threshold = heap.peek().filter(|_| heap.len() == k).map(|w| w.score);
            let mut contender = true;
            for i in (0..essential).rev() {
                if threshold.is_some_and(|t| partial + reach[i] < t) {
                    contender = false;
                    break;
                }
                if let Some(tf) = lists[i].seek(slot) {
                    let c = self.contribution(lists[i].weight, tf, slot, avgdl);
                    partial += c;
                    contributions[lists[i].order] = Some(c);
                }
            }
            if !contender {
                continue;
            }
            // Exactly as a full scoring sums it: in query order, from zero.
            let score = contributions.iter().flatten().fold(0.0f32, |sum, c| sum + c);
            let id = self.slots[slot as usize].id;
            if score <= 0.0 {
                continue;
            }
            if let Some(worst) = heap.peek().filter(|_| heap.len() == k)
                && (score < worst.score || (score == worst.score && id > worst.id))
            {
                continue;
            }
            if !accept(&self.slots[slot as usize].facets) {
                continue;
            }
            heap.push(Ranked { score, id });
            if heap.len() > k {
                heap.pop();
            }
            if heap.len() == k {
                let threshold = heap.peek().expect("full").score;
                // A document scoring exactly the threshold may still enter on a smaller id,
                // so only lists that together fall short of it stop being walked.
                while essential < lists.len() && reach[essential] < threshold {
                    essential += 1;
                }
            }
        }
        let mut best: Vec<Ranked> = heap.into_vec();
        best.sort_unstable();
        best.into_iter().map(|r| TextHit { id: r.id, bm25: r.score }).collect()
    }

    /// The query's distinct terms present in the index with a positive weight, in query order.
    fn lists(&self, query_terms: &[(String, f32)], avgdl: f32) -> Vec<List<'_>> {
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
            lists.push(List { postings, weight, bound, order, cursor: 0 });
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

    /// Every live document scored in full, in query order: the answer MaxScore must give.
    fn full_scoring(
        index: &TextIndex,
        query: &[(String, f32)],
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Vec<TextHit> {
        let n = index.rows.len();
        let avgdl = index.total_len as f32 / n as f32;
        let mut seen = std::collections::HashSet::new();
        let terms: Vec<(u32, f32)> = query
            .iter()
            .filter_map(|(t, w)| index.term_ids.get(t.as_str()).map(|&id| (id, *w)))
            .filter(|(id, _)| seen.insert(*id) && index.df[*id as usize] > 0)
            .map(|(id, w)| (id, super::super::idf(n, index.df[id as usize]) * w))
            .filter(|(_, w)| *w > 0.0)
            .collect();
        let mut hits: Vec<TextHit> = index
            .rows
            .iter()
            .filter(|(_, slot)| accept(&index.slots[**slot as usize].facets))
            .filter_map(|(&id, &slot)| {
                let mut score = 0.0f32;
                for &(term, weight) in &terms {
                    let list = &index.postings[term as usize];
                    if let Ok(at) = list.binary_search_by_key(&slot, |p| p.0) {
                        score += index.contribution(weight, list[at].1, slot, avgdl);
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
        }
    }
}
