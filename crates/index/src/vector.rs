//! In-memory vector search over one namespace's vectors of one embedding model.
//!
//! The store is the source of truth; an index is rebuilt from it at start-up and kept in step by
//! the service after every write. [`FlatIndex`] scans every vector (exact cosine); it answers a
//! 10k × 384 namespace in about a millisecond on one core, which is why we start with it. An ANN
//! index (HNSW) can replace it behind [`VectorIndex`] for very large namespaces.

use std::collections::HashMap;

use rearview_core::{Embedding, Facets, MemoryId, dot};

/// A vector match. `cosine` is in [-1, 1]; higher is more similar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VectorHit {
    /// Memory id.
    pub id: MemoryId,
    /// Cosine similarity to the query.
    pub cosine: f32,
}

/// Nearest-neighbour search over unit vectors of one dimension.
///
/// Implementations: [`FlatIndex`] (exact). Invariants: all vectors have [`VectorIndex::dimensions`]
/// components; an id appears at most once; `search` results are sorted by cosine descending, ties
/// by id ascending, and contain only entries whose facets `accept`.
pub trait VectorIndex: Send + Sync {
    /// Number of components of every vector.
    fn dimensions(&self) -> usize;
    /// Number of vectors.
    fn len(&self) -> usize;
    /// Whether the index is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Adds or replaces the vector of `id`. Panics never; a wrong dimension is the caller's bug
    /// and is refused with `false`.
    fn upsert(&mut self, id: MemoryId, facets: Facets, embedding: &Embedding) -> bool;
    /// Replaces the facets of `id` (after an archive or tier change). Returns whether it exists.
    fn set_facets(&mut self, id: MemoryId, facets: Facets) -> bool;
    /// Removes `id`. Returns whether it existed.
    fn remove(&mut self, id: MemoryId) -> bool;
    /// A copy of `id`'s vector, if it is indexed.
    fn vector(&self, id: MemoryId) -> Option<Vec<f32>>;
    /// Cosine similarity of `id`'s vector to `query`, if `id` is indexed.
    fn similarity(&self, id: MemoryId, query: &Embedding) -> Option<f32>;
    /// The `k` most similar vectors among those whose facets `accept`.
    fn search(
        &self,
        query: &Embedding,
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Vec<VectorHit>;
    /// [`VectorIndex::search`] for vectors close to `query` (near duplicates, cosine ≥ 0.8): an
    /// approximate index may look at fewer candidates than for recall's wider net. Exact
    /// indexes answer as `search` does.
    fn search_near(
        &self,
        query: &Embedding,
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Vec<VectorHit> {
        self.search(query, k, accept)
    }
}

/// Exact search: one contiguous `Vec<f32>` scanned with a vectorised dot product.
#[derive(Debug, Clone)]
pub struct FlatIndex {
    dims: usize,
    /// Row-major vectors; row `i` belongs to `ids[i]`.
    data: Vec<f32>,
    ids: Vec<MemoryId>,
    facets: Vec<Facets>,
    /// id → row, so updates and removals are O(1).
    rows: HashMap<MemoryId, usize>,
}

impl FlatIndex {
    /// An empty index of `dims`-dimensional vectors.
    pub fn new(dims: usize) -> Self {
        Self { dims, data: Vec::new(), ids: Vec::new(), facets: Vec::new(), rows: HashMap::new() }
    }

    /// Every entry: id, facets, vector (for building another index from this one).
    pub fn entries(&self) -> impl ExactSizeIterator<Item = (MemoryId, &Facets, &[f32])> {
        self.ids
            .iter()
            .zip(&self.facets)
            .zip(self.data.chunks_exact(self.dims.max(1)))
            .map(|((id, facets), vector)| (*id, facets, vector))
    }

    /// The facets and vector of `id`, if it is indexed.
    pub fn entry(&self, id: MemoryId) -> Option<(&Facets, &[f32])> {
        let row = *self.rows.get(&id)?;
        Some((&self.facets[row], &self.data[row * self.dims..(row + 1) * self.dims]))
    }
}

impl VectorIndex for FlatIndex {
    fn dimensions(&self) -> usize {
        self.dims
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    fn upsert(&mut self, id: MemoryId, facets: Facets, embedding: &Embedding) -> bool {
        if embedding.dimensions() != self.dims {
            return false;
        }
        match self.rows.get(&id) {
            Some(&row) => {
                self.data[row * self.dims..(row + 1) * self.dims]
                    .copy_from_slice(embedding.as_slice());
                self.facets[row] = facets;
            }
            None => {
                self.rows.insert(id, self.ids.len());
                self.ids.push(id);
                self.facets.push(facets);
                self.data.extend_from_slice(embedding.as_slice());
            }
        }
        true
    }

    fn set_facets(&mut self, id: MemoryId, facets: Facets) -> bool {
        match self.rows.get(&id) {
            Some(&row) => {
                self.facets[row] = facets;
                true
            }
            None => false,
        }
    }

    fn remove(&mut self, id: MemoryId) -> bool {
        let Some(row) = self.rows.remove(&id) else { return false };
        let last = self.ids.len() - 1;
        if row != last {
            // Move the last row into the hole so storage stays contiguous.
            let (head, tail) = self.data.split_at_mut(last * self.dims);
            head[row * self.dims..(row + 1) * self.dims].copy_from_slice(&tail[..self.dims]);
            self.ids.swap(row, last);
            self.facets.swap(row, last);
            self.rows.insert(self.ids[row], row);
        }
        self.ids.pop();
        self.facets.pop();
        self.data.truncate(last * self.dims);
        true
    }

    fn vector(&self, id: MemoryId) -> Option<Vec<f32>> {
        let row = *self.rows.get(&id)?;
        Some(self.data[row * self.dims..(row + 1) * self.dims].to_vec())
    }

    fn similarity(&self, id: MemoryId, query: &Embedding) -> Option<f32> {
        let row = *self.rows.get(&id)?;
        (query.dimensions() == self.dims)
            .then(|| dot(&self.data[row * self.dims..(row + 1) * self.dims], query.as_slice()))
    }

    fn search(
        &self,
        query: &Embedding,
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Vec<VectorHit> {
        if k == 0 || query.dimensions() != self.dims {
            return Vec::new();
        }
        let rows = self.ids.len();
        let threads = scan_threads(rows);
        let mut best: Vec<(f32, usize)> = if threads <= 1 {
            self.scan(query.as_slice(), 0..rows, k, |row| accept(&self.facets[row]))
        } else {
            // The scan is bound by memory bandwidth per core, so splitting it across cores cuts
            // latency roughly in proportion. `accept` need not be `Sync`, so we evaluate it here
            // first (cheap next to 384 multiply-adds per row) and share the verdicts.
            let eligible: Vec<bool> = self.facets.iter().map(accept).collect();
            let chunk = rows.div_ceil(threads);
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        let range = t * chunk..((t + 1) * chunk).min(rows);
                        let eligible = &eligible;
                        scope.spawn(move || {
                            self.scan(query.as_slice(), range, k, |row| eligible[row])
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().expect("vector scan threads do not panic"))
                    .collect()
            })
        };
        best.sort_unstable_by(|a, b| self.by_score(a, b));
        best.truncate(k);
        best.into_iter().map(|(cosine, row)| VectorHit { id: self.ids[row], cosine }).collect()
    }
}

impl FlatIndex {
    /// The `k` best rows of `range` by dot product with `q` among those `accept_row` admits,
    /// unordered.
    fn scan(
        &self,
        q: &[f32],
        range: std::ops::Range<usize>,
        k: usize,
        accept_row: impl Fn(usize) -> bool,
    ) -> Vec<(f32, usize)> {
        let start = range.start;
        let mut scored: Vec<(f32, usize)> = self.data
            [range.start * self.dims..range.end * self.dims]
            .chunks_exact(self.dims)
            .enumerate()
            .map(|(i, v)| (start + i, v))
            .filter(|(row, _)| accept_row(*row))
            .map(|(row, v)| (dot(v, q), row))
            .collect();
        if scored.len() > k {
            scored.select_nth_unstable_by(k - 1, |a, b| self.by_score(a, b));
            scored.truncate(k);
        }
        scored
    }

    /// Best first: cosine descending, then id ascending.
    fn by_score(&self, a: &(f32, usize), b: &(f32, usize)) -> std::cmp::Ordering {
        b.0.total_cmp(&a.0).then_with(|| self.ids[a.1].cmp(&self.ids[b.1]))
    }
}

/// Threads for scanning `rows` vectors: one below 8,192 rows (spawning would cost more than it
/// saves), else one per available core, at most 4.
fn scan_threads(rows: usize) -> usize {
    if rows < 8_192 {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(4)
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;
    use rearview_core::MemoryType;

    use super::*;

    fn facets(tier: MemoryType) -> Facets {
        Facets {
            memory_type: tier,
            archived: false,
            expires_at: None,
            occurred_at: DateTime::from_timestamp(0, 0).unwrap(),
            invalid_at: None,
            session_id: None,
            tags: vec![],
        }
    }

    fn emb(v: &[f32]) -> Embedding {
        Embedding::new(v.to_vec()).unwrap()
    }

    fn id(n: u128) -> MemoryId {
        MemoryId(uuid::Uuid::from_u128(n))
    }

    #[test]
    fn finds_nearest_and_respects_filter() {
        let mut index = FlatIndex::new(2);
        index.upsert(id(1), facets(MemoryType::Episodic), &emb(&[1.0, 0.0]));
        index.upsert(id(2), facets(MemoryType::Working), &emb(&[0.9, 0.1]));
        index.upsert(id(3), facets(MemoryType::Episodic), &emb(&[0.0, 1.0]));
        let q = emb(&[1.0, 0.05]);
        let all = index.search(&q, 2, &|_| true);
        assert_eq!(all.iter().map(|h| h.id).collect::<Vec<_>>(), vec![id(1), id(2)]);
        let episodic = index.search(&q, 5, &|f| f.memory_type == MemoryType::Episodic);
        assert_eq!(episodic.iter().map(|h| h.id).collect::<Vec<_>>(), vec![id(1), id(3)]);
    }

    #[test]
    fn remove_keeps_remaining_rows_correct() {
        let mut index = FlatIndex::new(2);
        for n in 1..=4 {
            index.upsert(id(n), facets(MemoryType::Episodic), &emb(&[n as f32, 1.0]));
        }
        assert!(index.remove(id(2)));
        assert!(!index.remove(id(2)));
        assert_eq!(index.len(), 3);
        for n in [1, 3, 4] {
            let sim = index.similarity(id(n), &emb(&[n as f32, 1.0])).unwrap();
            assert!((sim - 1.0).abs() < 1e-5, "row of {n} moved intact");
        }
        assert!(!index.upsert(id(9), facets(MemoryType::Episodic), &emb(&[1.0, 2.0, 3.0])));
    }

    #[test]
    fn parallel_scan_of_a_large_index_equals_brute_force() {
        let mut index = FlatIndex::new(8);
        let mut x: u64 = 12345;
        let mut vectors = Vec::new();
        for n in 0..10_000u128 {
            let v: Vec<f32> = (0..8)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % 2000) as f32 / 1000.0 - 1.0
                })
                .collect();
            let e = emb(&v);
            let tier = if n % 2 == 0 { MemoryType::Episodic } else { MemoryType::Working };
            index.upsert(id(n), facets(tier), &e);
            vectors.push((id(n), tier, e));
        }
        let q = emb(&[0.3, -0.2, 0.9, 0.1, 0.0, 0.5, -0.7, 0.2]);
        let hits = index.search(&q, 25, &|f| f.memory_type == MemoryType::Episodic);
        let mut expected: Vec<(f32, MemoryId)> = vectors
            .iter()
            .filter(|(_, tier, _)| *tier == MemoryType::Episodic)
            .map(|(i, _, e)| (e.cosine(&q), *i))
            .collect();
        expected.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let expected: Vec<MemoryId> = expected.iter().take(25).map(|x| x.1).collect();
        assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), expected);
    }

    #[test]
    fn ties_break_by_id() {
        let mut index = FlatIndex::new(2);
        for n in [5, 3, 4] {
            index.upsert(id(n), facets(MemoryType::Episodic), &emb(&[1.0, 0.0]));
        }
        let hits = index.search(&emb(&[1.0, 0.0]), 2, &|_| true);
        assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![id(3), id(4)]);
    }
}
