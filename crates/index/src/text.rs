//! In-memory BM25 over one namespace's keyword terms.
//!
//! The store's full-text index (SQLite FTS5) is the durable copy; this is the fast one. FTS5 spends
//! about 1.5 µs scoring each matching row, which at 10k chat messages and a nine-word question is
//! several milliseconds; summing pre-computed postings here takes tens of microseconds. It is built
//! from the stored terms at start-up, or for a large namespace loaded from its saved snapshot
//! (`text/snapshot.rs`); searches prune by MaxScore (`text/max_score.rs`).
//!
//! Scoring is Okapi BM25 exactly as FTS5's `bm25()` computes it, so both paths rank alike:
//!
//! ```text
//! bm25(D, Q) = Σ_{t ∈ Q} idf(t) · tf(t, D) · (k1 + 1) / (tf(t, D) + k1 · (1 − b + b · |D| / avgdl))
//! idf(t)     = ln((N − df(t) + 0.5) / (df(t) + 0.5)), replaced by 1e-6 when ≤ 0
//! k1 = 1.2, b = 0.75
//! ```
//!
//! `N` and `avgdl` are this namespace's (FTS5 uses the whole table's; in a database holding one
//! namespace the two agree to the last digit, which a test checks). A term in more than half the
//! documents thus weighs almost nothing, as in FTS5. Query terms are de-duplicated.
//!
//! Removal leaves a tombstone (statistics are corrected at once); the index compacts itself when a
//! quarter of its slots are dead.

use std::collections::{BinaryHeap, HashMap};

use rearview_core::{Facets, MemoryId};
use rustc_hash::FxHashMap;

mod max_score;
mod snapshot;

pub use snapshot::SnapshotError;

/// BM25 term-frequency saturation (FTS5's value).
pub const K1: f32 = 1.2;
/// BM25 length normalisation (FTS5's value).
pub const B: f32 = 0.75;

/// A keyword match. `bm25` > 0; higher is better.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextHit {
    /// Memory id.
    pub id: MemoryId,
    /// BM25 score.
    pub bm25: f32,
}

/// Inverted index of one namespace.
#[derive(Debug, Clone, Default)]
pub struct TextIndex {
    /// Term → term id.
    term_ids: HashMap<Box<str>, u32>,
    /// Per term id: (slot, term frequency), slots ascending; may include dead slots.
    postings: Vec<Vec<(u32, u32)>>,
    /// Per term id: live documents containing it.
    df: Vec<u32>,
    /// Per term id: the largest term frequency and the shortest document length among the
    /// documents ever given the term: a bound on what the term adds to any score (removals
    /// leave it loose, never wrong).
    bounds: Vec<(u32, u32)>,
    /// Per slot.
    slots: Vec<Slot>,
    /// Per slot: the document's length, [`DEAD`] once removed (the one record of which slots
    /// are live). Scoring reads this for every posting, so it is kept apart from the slots
    /// (4 bytes a slot, not a cache line).
    lens: Vec<u32>,
    /// Id → live slot.
    rows: FxHashMap<MemoryId, u32>,
    /// Sum of live document lengths.
    total_len: u64,
    /// Dead slots not yet compacted away.
    dead: usize,
}

/// The length of a removed document's slot in [`TextIndex::lens`].
const DEAD: u32 = u32::MAX;

/// How many times `k` of the best-scored documents are checked against the filter before all
/// the others are.
const FILTER_POOL: usize = 4;

thread_local! {
    /// Scratch space of this thread's searches, kept between them: allocating and zeroing
    /// fresh accumulators per search cost 4 MB of page clearing at 1M documents.
    static SCRATCH: std::cell::RefCell<Scratch> = const {
        std::cell::RefCell::new(Scratch { scores: Vec::new(), touched: Vec::new() })
    };
}

/// A search's working arrays, one place per slot (and one to spare in `touched`): 8 bytes a
/// slot of the largest index the thread has searched, kept for its next search.
struct Scratch {
    /// Score accumulators, all zero between searches.
    scores: Vec<f32>,
    /// The slots a search touched, in the order it first did (its first entries; the rest is
    /// left over from earlier searches).
    touched: Vec<u32>,
}

/// A scored slot in [`TextIndex::best_of`]'s heap, ordered worst first: lower score, then
/// larger id (the ranking breaks ties by smaller id).
struct Ranked {
    score: f32,
    id: MemoryId,
    slot: u32,
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.score.total_cmp(&self.score).then_with(|| self.id.cmp(&other.id))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

#[derive(Debug, Clone)]
struct Slot {
    id: MemoryId,
    facets: Facets,
    /// Distinct term ids of the document (to correct `df` on removal).
    terms: Box<[u32]>,
}

impl TextIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Live documents.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Roughly the heap bytes the index holds (postings, terms, slots, id map), for a memory
    /// budget: counted from lengths and capacities, not measured.
    pub fn approx_bytes(&self) -> usize {
        let postings: usize = self.postings.iter().map(|p| 24 + p.capacity() * 8).sum();
        let terms: usize = self.term_ids.keys().map(|t| t.len() + 16 + 8).sum();
        let slots: usize = self
            .slots
            .iter()
            .map(|s| std::mem::size_of::<Slot>() + s.terms.len() * 4)
            .sum::<usize>()
            + (self.slots.capacity() - self.slots.len()) * std::mem::size_of::<Slot>();
        let per_term = self.df.capacity() * 4 + self.bounds.capacity() * 8;
        postings + terms + slots + per_term + self.lens.capacity() * 4 + self.rows.len() * 40
    }

    /// Whether there are no live documents.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Indexes a document (replacing an earlier one with the same id). `terms` are in document
    /// order with repeats, as `Tokenizer::index_terms` returns them.
    pub fn upsert(&mut self, id: MemoryId, facets: Facets, terms: &[String]) {
        self.remove(id);
        let slot = self.slots.len() as u32;
        // Term ids in document order, then sorted and counted: no map and no key allocated per
        // occurrence (a start-up indexes 30 million of them at 1M memories).
        let mut ids: Vec<u32> = Vec::with_capacity(terms.len());
        for term in terms.iter().filter(|t| !t.is_empty()) {
            let term_id = match self.term_ids.get(term.as_str()) {
                Some(&known) => known,
                None => {
                    let new = self.postings.len() as u32;
                    self.term_ids.insert(term.as_str().into(), new);
                    self.postings.push(Vec::new());
                    self.df.push(0);
                    self.bounds.push((0, u32::MAX));
                    new
                }
            };
            ids.push(term_id);
        }
        let len = ids.len() as u32;
        ids.sort_unstable();
        let mut distinct: Vec<u32> = Vec::with_capacity(ids.len());
        for run in ids.chunk_by(|a, b| a == b) {
            let (term_id, tf) = (run[0], run.len() as u32);
            self.postings[term_id as usize].push((slot, tf));
            self.df[term_id as usize] += 1;
            let bound = &mut self.bounds[term_id as usize];
            *bound = (bound.0.max(tf), bound.1.min(len));
            distinct.push(term_id);
        }
        self.total_len += u64::from(len);
        self.slots.push(Slot { id, facets, terms: distinct.into() });
        self.lens.push(len);
        self.rows.insert(id, slot);
    }

    /// The facets of `id`, if it is indexed.
    pub fn facets(&self, id: MemoryId) -> Option<&Facets> {
        self.rows.get(&id).map(|&slot| &self.slots[slot as usize].facets)
    }

    /// Replaces the facets of `id`. Returns whether it exists.
    pub fn set_facets(&mut self, id: MemoryId, facets: Facets) -> bool {
        match self.rows.get(&id) {
            Some(&slot) => {
                self.slots[slot as usize].facets = facets;
                true
            }
            None => false,
        }
    }

    /// Removes `id`. Returns whether it existed.
    pub fn remove(&mut self, id: MemoryId) -> bool {
        let Some(slot) = self.rows.remove(&id) else { return false };
        let len = std::mem::replace(&mut self.lens[slot as usize], DEAD);
        self.total_len -= u64::from(len);
        for &term_id in self.slots[slot as usize].terms.iter() {
            self.df[term_id as usize] -= 1;
        }
        self.dead += 1;
        if self.dead * 4 > self.slots.len() && self.slots.len() > 64 {
            self.compact();
        }
        true
    }

    /// The best `k` documents by BM25 for any of `query_terms`, among live documents whose facets
    /// `accept`. Best first; ties by id.
    pub fn search(
        &self,
        query_terms: &[String],
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Vec<TextHit> {
        let weighted: Vec<(String, f32)> = query_terms.iter().map(|t| (t.clone(), 1.0)).collect();
        self.search_weighted(&weighted, k, accept)
    }

    /// The BM25 score of a document of average length that contains every one of `query_terms`
    /// once: `Σ weight · idf` (a term found nowhere gets the IDF of a term in no document). A
    /// match's share of it says how much of the query it covers, in any corpus size: one
    /// common character out of seven terms covers little; the one rare token of a short query
    /// covers most.
    pub fn full_match(&self, query_terms: &[(String, f32)]) -> f32 {
        let n = self.rows.len();
        let mut seen = std::collections::HashSet::new();
        query_terms
            .iter()
            .filter(|(term, _)| seen.insert(term.as_str()))
            .map(|(term, weight)| {
                let df = self.term_ids.get(term.as_str()).map_or(0, |&id| self.df[id as usize]);
                weight * idf(n, df)
            })
            .sum()
    }

    /// [`TextIndex::search`] with a weight per query term: each term's BM25 contribution is
    /// multiplied by its weight (1 for every term gives plain BM25). Exact, by MaxScore
    /// (`text/max_score.rs`).
    pub fn search_weighted(
        &self,
        query_terms: &[(String, f32)],
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Vec<TextHit> {
        self.search_part(query_terms, k, accept, (0, 1))
    }

    /// [`TextIndex::search_weighted`] over part `i` of `n` of the index (`part = (i, n)`): the
    /// best `k` among that share of the documents. The parts together hold every document
    /// once, so searching them on separate threads and keeping the best `k` of their answers
    /// ([`TextIndex::merge`]) gives exactly the answer of one search: a document's score is the
    /// same sum in either.
    pub fn search_part(
        &self,
        query_terms: &[(String, f32)],
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
        (i, n_parts): (usize, usize),
    ) -> Vec<TextHit> {
        let n = self.rows.len();
        if k == 0 || n == 0 || i >= n_parts {
            return Vec::new();
        }
        let avgdl = self.total_len as f32 / n as f32;
        let slots = self.slots.len();
        let range = (slots * i / n_parts) as u32..(slots * (i + 1) / n_parts) as u32;
        self.max_score(query_terms, k, avgdl, accept, range)
    }

    /// The best `k` of the answers of [`TextIndex::search_part`] for every part: best first,
    /// ties by id. An id found by two parts (the index changed between their searches) is kept
    /// once, at its better score.
    pub fn merge(parts: Vec<Vec<TextHit>>, k: usize) -> Vec<TextHit> {
        let mut hits: Vec<TextHit> = parts.into_iter().flatten().collect();
        hits.sort_by(|a, b| b.bm25.total_cmp(&a.bm25).then(a.id.cmp(&b.id)));
        let mut seen = std::collections::HashSet::with_capacity(hits.len());
        hits.retain(|hit| seen.insert(hit.id));
        hits.truncate(k);
        hits
    }

    /// The best `k` of the `touched` slots by score whose facets `accept`, best first, ties by
    /// id. The filter is checked on the best [`FILTER_POOL`]·`k` first, best first, and on the
    /// rest only when fewer than `k` of those pass: a long question touches most of a large
    /// namespace, and checking every touched document's facets cost more than scoring them.
    /// Either way the answer is the exact best `k`.
    fn best_accepted(
        &self,
        touched: &[u32],
        scores: &[f32],
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Vec<TextHit> {
        let by_score = |a: &(f32, u32), b: &(f32, u32)| self.by_score(a, b);
        let accepted = |hit: &&(f32, u32)| accept(&self.slots[hit.1 as usize].facets);
        let (mut hits, pooled) = self.accepted_in_pool(touched, scores, k, accept);
        if hits.len() < k && touched.len() > pooled {
            // A selective filter: the best that pass may lie anywhere.
            hits = touched.iter().map(|&slot| (scores[slot as usize], slot)).collect();
            hits.retain(|hit| accepted(&hit));
            if hits.len() > k {
                hits.select_nth_unstable_by(k - 1, by_score);
                hits.truncate(k);
            }
            hits.sort_unstable_by(by_score);
        }
        hits.into_iter()
            .map(|(bm25, slot)| TextHit { id: self.slots[slot as usize].id, bm25 })
            .collect()
    }

    /// The best (at most) `k` of the best [`FILTER_POOL`]·`k` touched slots whose facets
    /// `accept`, best first, ties by id; and how many slots that pool held.
    fn accepted_in_pool(
        &self,
        touched: &[u32],
        scores: &[f32],
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> (Vec<(f32, u32)>, usize) {
        let mut best = self.best_of(touched, scores, k.saturating_mul(FILTER_POOL));
        best.sort_unstable_by(|a, b| self.by_score(a, b));
        let pooled = best.len();
        best.retain(|hit| accept(&self.slots[hit.1 as usize].facets));
        best.truncate(k);
        (best, pooled)
    }

    /// Best first, ties by smaller id.
    fn by_score(&self, a: &(f32, u32), b: &(f32, u32)) -> std::cmp::Ordering {
        b.0.total_cmp(&a.0)
            .then_with(|| self.slots[a.1 as usize].id.cmp(&self.slots[b.1 as usize].id))
    }

    /// The best `n` of the `touched` slots by score (ties by id), in no order: one pass that
    /// keeps a heap of the best so far, so most slots cost one comparison with its worst and
    /// none is copied or sorted (partitioning every touched slot took 9 % of a 1M recall).
    fn best_of(&self, touched: &[u32], scores: &[f32], n: usize) -> Vec<(f32, u32)> {
        let mut heap: BinaryHeap<Ranked> = BinaryHeap::with_capacity(n + 1);
        for &slot in touched {
            let score = scores[slot as usize];
            if heap.len() == n {
                let worst = heap.peek().expect("n > 0: the heap is full");
                if score < worst.score
                    || (score == worst.score && self.slots[slot as usize].id > worst.id)
                {
                    continue;
                }
                heap.pop();
            }
            heap.push(Ranked { score, id: self.slots[slot as usize].id, slot });
        }
        heap.into_iter().map(|r| (r.score, r.slot)).collect()
    }

    /// Rebuilds postings without dead slots.
    fn compact(&mut self) {
        let mut remap = vec![u32::MAX; self.slots.len()];
        let mut slots = Vec::with_capacity(self.rows.len());
        let mut lens = Vec::with_capacity(self.rows.len());
        for (old, (slot, len)) in self.slots.drain(..).zip(&self.lens).enumerate() {
            if *len != DEAD {
                remap[old] = slots.len() as u32;
                slots.push(slot);
                lens.push(*len);
            }
        }
        for list in &mut self.postings {
            list.retain(|(slot, _)| remap[*slot as usize] != u32::MAX);
            for entry in list.iter_mut() {
                entry.0 = remap[entry.0 as usize];
            }
        }
        for (slot, s) in slots.iter().enumerate() {
            self.rows.insert(s.id, slot as u32);
        }
        self.lens = lens;
        self.slots = slots;
        self.dead = 0;
    }
}

/// FTS5's IDF: `ln((N − df + 0.5) / (df + 0.5))`, or 1e-6 when that is not positive.
fn idf(n: usize, df: u32) -> f32 {
    let v = ((n as f64 - f64::from(df) + 0.5) / (f64::from(df) + 0.5)).ln();
    if v <= 0.0 { 1e-6 } else { v as f32 }
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;
    use rearview_core::MemoryType;

    use super::*;

    fn facets() -> Facets {
        Facets {
            memory_type: MemoryType::Episodic,
            archived: false,
            expires_at: None,
            occurred_at: DateTime::from_timestamp(0, 0).unwrap(),
            invalid_at: None,
            session_id: None,
            tags: vec![],
        }
    }

    fn id(n: u128) -> MemoryId {
        MemoryId(uuid::Uuid::from_u128(n))
    }

    fn terms(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn matches_the_bm25_formula() {
        let mut index = TextIndex::new();
        index.upsert(id(1), facets(), &terms("香山 爬山 weekend"));
        index.upsert(id(2), facets(), &terms("likes tea"));
        index.upsert(id(3), facets(), &terms("drinks coffee daily"));
        let hits = index.search(&terms("爬山"), 5, &|_| true);
        // N = 3, df = 1, |D| = 3, avgdl = 8/3.
        let idf = (2.5f32 / 1.5).ln();
        let expected = idf * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * 3.0 / (8.0 / 3.0)));
        assert_eq!(hits.len(), 1);
        assert!((hits[0].bm25 - expected).abs() < 1e-5, "{} vs {expected}", hits[0].bm25);
    }

    #[test]
    fn removal_and_compaction_keep_results_right() {
        let mut index = TextIndex::new();
        for n in 0..200 {
            index.upsert(id(n), facets(), &terms(&format!("common t{n}")));
        }
        for n in 0..150 {
            assert!(index.remove(id(n)));
        }
        assert!(!index.remove(id(3)));
        assert_eq!(index.len(), 50);
        let hits = index.search(&terms("t170"), 5, &|_| true);
        assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![id(170)]);
        assert!(index.search(&terms("t10"), 5, &|_| true).is_empty());
        assert_eq!(index.search(&terms("common"), 100, &|_| true).len(), 50);
    }

    #[test]
    fn a_selective_filter_finds_the_best_that_pass_below_the_first_pool() {
        let mut index = TextIndex::new();
        // 50 strong matches the filter rejects, then 10 weaker ones it accepts.
        for n in 0..50 {
            index.upsert(id(n), facets(), &terms("apple apple"));
        }
        let archived = Facets { archived: true, ..facets() };
        for n in 50..60 {
            index.upsert(id(n), archived.clone(), &terms(&format!("apple pie with cream n{n}")));
        }
        let hits = index.search(&terms("apple"), 2, &|f| f.archived);
        assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![id(50), id(51)]);
        let unfiltered = index.search(&terms("apple"), 2, &|_| true);
        assert!(unfiltered[0].bm25 > hits[0].bm25, "the rejected ones scored higher");
        // The scratch accumulators are clean for the next search.
        let again = index.search(&terms("apple"), 2, &|f| f.archived);
        assert_eq!(again, hits);
    }

    #[test]
    fn equal_scores_rank_by_id_however_many_tie() {
        let mut index = TextIndex::new();
        // Inserted in an order unlike the ids', more than the first pool holds.
        for n in (0..100).map(|n| (n * 37) % 100) {
            index.upsert(id(n), facets(), &terms("same words here"));
        }
        let hits = index.search(&terms("words"), 3, &|_| true);
        assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![id(0), id(1), id(2)]);
    }

    #[test]
    fn upsert_replaces_and_filters_apply() {
        let mut index = TextIndex::new();
        index.upsert(id(1), facets(), &terms("lives in paris"));
        index.upsert(id(1), facets(), &terms("lives in lisbon"));
        assert!(index.search(&terms("paris"), 5, &|_| true).is_empty());
        assert_eq!(index.search(&terms("lisbon"), 5, &|_| true).len(), 1);
        assert!(index.search(&terms("lisbon"), 5, &|f| f.archived).is_empty());
    }
}
