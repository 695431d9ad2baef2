//! Approximate nearest neighbours for large namespaces: an HNSW graph (usearch) over f16 copies
//! of the vectors.
//!
//! [`AnnIndex`] keeps the [`VectorIndex`] contract with one difference: search is approximate
//! (recall@10 against the exact scan is measured in `benches/ann.rs` and BENCHMARKS.md), and
//! cosines are computed on f16 vectors (off by at most ~1e-3). The filter is applied during the
//! graph search; when it is so selective that the graph search finds fewer than `k` accepted
//! vectors, the index scans the accepted ones exactly instead.
//!
//! Memory per vector at 384 dimensions: 768 bytes of f16, about 150 bytes of graph links, and the
//! id and facets: roughly half of [`FlatIndex`](crate::FlatIndex)'s f32 rows alone.

use std::path::Path;

use rearview_core::{Embedding, Facets, MemoryId, dot};
use rustc_hash::FxHashMap;
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use crate::vector::{VectorHit, VectorIndex};

mod graph_file;

/// Links per node (usearch's default, HNSW's `M`).
const CONNECTIVITY: usize = 16;
/// Candidate list while inserting (`ef_construction`).
const EXPANSION_ADD: usize = 128;
/// Candidate list while searching (`ef`), at least `k`: the recall/latency dial. 512 reaches
/// recall@10 0.99 on 1M clustered vectors (128: 0.94, 256: 0.97) for ~1.7 ms (benches/ann.rs).
pub const EXPANSION_SEARCH: usize = 512;
/// Candidate list of [`VectorIndex::search_near`]: a store's look for the few memories close to
/// the new one (cosine ≥ 0.8) needs far fewer candidates than recall's nearest 50 (see
/// benches/ann.rs, "near duplicates").
pub const NEAR_EXPANSION: usize = 64;
/// Concurrent searches the graph keeps scratch space for; more at once fall back to a scan.
/// Searches run on tokio's blocking pool (up to 512 threads), so this matches it.
const THREADS: usize = 512;
/// Largest difference between a unit vector's component and its f16 copy (half an f16 ulp
/// below 1.0 is 2⁻¹², rounded up).
const F16_EPSILON: f32 = 5e-4;

/// An HNSW index of one namespace's vectors of one model.
pub struct AnnIndex {
    dims: usize,
    graph: Index,
    /// Per graph key: the memory and its facets (`None` once removed). Keys are never reused.
    ids: Vec<Option<(MemoryId, Facets)>>,
    keys: FxHashMap<MemoryId, u64>,
    /// [`VectorIndex::search`]'s candidate list (`ef`).
    expansion: std::sync::atomic::AtomicUsize,
}

impl std::fmt::Debug for AnnIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnnIndex").field("dims", &self.dims).field("len", &self.len()).finish()
    }
}

/// Why an ANN index could not be built (usearch's C++ side refused: out of memory, bad options).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnError(pub String);

impl std::fmt::Display for AnnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "vector index (usearch): {}", self.0)
    }
}

impl std::error::Error for AnnError {}

/// The first bytes of an ids file.
const IDS_MAGIC: &[u8] = b"RVIDS1\0\0";

fn ann_error(e: impl std::fmt::Display) -> AnnError {
    AnnError(e.to_string())
}

impl AnnIndex {
    /// An empty index of `dims`-dimensional unit vectors with room for `capacity`.
    pub fn new(dims: usize, capacity: usize) -> Result<Self, AnnError> {
        let options = IndexOptions {
            dimensions: dims,
            metric: MetricKind::Cos,
            quantization: ScalarKind::F16,
            connectivity: CONNECTIVITY,
            expansion_add: EXPANSION_ADD,
            // The least any search asks for; a search asks for more by requesting more results
            // (usearch searches with the larger of the two and keeps the best).
            expansion_search: NEAR_EXPANSION,
            multi: false,
        };
        let graph = Index::new(&options).map_err(ann_error)?;
        graph.reserve_capacity_and_threads(capacity.max(1024), THREADS).map_err(ann_error)?;
        Ok(Self {
            dims,
            graph,
            ids: Vec::new(),
            keys: FxHashMap::default(),
            expansion: EXPANSION_SEARCH.into(),
        })
    }

    /// An index of `entries` (id, facets, vector), inserted on `threads` threads.
    pub fn build<'a>(
        dims: usize,
        entries: impl ExactSizeIterator<Item = (MemoryId, Facets, &'a [f32])>,
        threads: usize,
    ) -> Result<Self, AnnError> {
        let mut index = Self::new(dims, entries.len())?;
        let mut rows: Vec<(u64, &[f32])> = Vec::with_capacity(entries.len());
        for (id, facets, vector) in entries {
            if vector.len() != dims {
                continue;
            }
            let key = index.ids.len() as u64;
            if let Some(old) = index.keys.insert(id, key) {
                index.ids[old as usize] = None;
                rows.retain(|(k, _)| *k != old);
            }
            index.ids.push(Some((id, facets)));
            rows.push((key, vector));
        }
        let chunk = rows.len().div_ceil(threads.max(1)).max(1);
        let graph = &index.graph;
        std::thread::scope(|scope| {
            let handles: Vec<_> = rows
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || -> Result<(), AnnError> {
                        for (key, vector) in part {
                            graph.add(*key, vector).map_err(ann_error)?;
                        }
                        Ok(())
                    })
                })
                .collect();
            handles.into_iter().try_for_each(|h| h.join().expect("index builders do not panic"))
        })?;
        Ok(index)
    }

    /// Writes the graph to `{stem}.graph` (usearch's links without the vectors the store holds:
    /// `ann/graph_file.rs`) and the memory of each key to `{stem}.ids` in `dir`, each through a
    /// temporary file and a rename: a crash leaves the old pair or the new one, and `load` checks
    /// that the two agree.
    pub fn save(&self, dir: &Path, stem: &str) -> Result<(), AnnError> {
        let mut serialized = vec![0u8; self.graph.serialized_length()];
        self.graph.save_to_buffer(&mut serialized).map_err(ann_error)?;
        let graph = graph_file::encode(&serialized, self.dims * 2)?;
        drop(serialized);
        let mut ids = Vec::with_capacity(IDS_MAGIC.len() + 8 + self.ids.len() * 16);
        ids.extend_from_slice(IDS_MAGIC);
        ids.extend_from_slice(&(self.ids.len() as u64).to_le_bytes());
        for entry in &self.ids {
            let id = entry.as_ref().map_or(0u128, |(id, _)| id.0.as_u128());
            ids.extend_from_slice(&id.to_le_bytes());
        }
        let graph_path = dir.join(format!("{stem}.graph"));
        let graph_tmp = dir.join(format!("{stem}.graph.tmp"));
        let ids_path = dir.join(format!("{stem}.ids"));
        let ids_tmp = dir.join(format!("{stem}.ids.tmp"));
        std::fs::write(&graph_tmp, &graph).map_err(ann_error)?;
        std::fs::write(&ids_tmp, &ids).map_err(ann_error)?;
        std::fs::rename(&graph_tmp, &graph_path).map_err(ann_error)?;
        std::fs::rename(&ids_tmp, &ids_path).map_err(ann_error)?;
        Ok(())
    }

    /// Loads what [`AnnIndex::save`] wrote ([`SavedGraph`] in one go): `vector` gives a
    /// memory's stored vector (f16 values, as the store keeps them), `facets` its current facets.
    pub fn load<'v>(
        dir: &Path,
        stem: &str,
        dims: usize,
        facets: impl FnMut(MemoryId) -> Option<Facets>,
        mut vector: impl FnMut(MemoryId) -> Option<&'v [f32]>,
    ) -> Result<Self, AnnError> {
        let mut saved = SavedGraph::open(dir, stem, dims)?;
        for id in saved.memories() {
            if let Some(stored) = vector(id) {
                saved.put(id, &rearview_core::half_bytes(stored));
            }
        }
        saved.finish(facets)
    }

    /// Sets [`VectorIndex::search`]'s candidate list (`ef`, at least `k` and at least
    /// [`NEAR_EXPANSION`], the graph's own setting): more finds more true neighbours and takes
    /// longer. Default [`EXPANSION_SEARCH`].
    pub fn set_expansion(&self, expansion: usize) {
        self.expansion.store(expansion, std::sync::atomic::Ordering::Relaxed);
    }

    /// Makes room for one more vector (doubling), so `add` never runs out of capacity.
    fn reserve_one(&self) -> bool {
        let (size, capacity) = (self.graph.size(), self.graph.capacity());
        size < capacity
            || self.graph.reserve_capacity_and_threads((capacity * 2).max(1024), THREADS).is_ok()
    }

    /// The `k` best accepted vectors by a graph search over `expansion` candidates (at least
    /// `k`), or by the exact scan when the filter leaves the graph search short.
    fn search_with(
        &self,
        query: &Embedding,
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
        expansion: usize,
    ) -> Vec<VectorHit> {
        if k == 0 || query.dimensions() != self.dims || self.keys.is_empty() {
            return Vec::new();
        }
        let wanted = k.min(self.keys.len());
        // usearch searches with max(its expansion, the results asked for): asking for
        // `expansion` results is a search of that effort, whatever the index's setting.
        let asked = wanted.max(expansion).min(self.keys.len());
        let entry = |key: u64| self.ids.get(key as usize).and_then(Option::as_ref);
        let found = self.graph.filtered_search(query.as_slice(), asked, |key: u64| {
            entry(key).is_some_and(|(_, facets)| accept(facets))
        });
        let mut hits: Vec<VectorHit> = match found {
            Ok(matches) => matches
                .keys
                .iter()
                .zip(&matches.distances)
                .filter_map(|(&key, &distance)| {
                    entry(key).map(|(id, _)| VectorHit { id: *id, cosine: 1.0 - distance })
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        if hits.len() < wanted {
            // A selective filter (or no free search slot): the graph found too few; the exact
            // scan finds every accepted vector there is.
            return self.scan(query.as_slice(), k, accept);
        }
        sort_hits(&mut hits);
        hits.truncate(k);
        hits
    }

    /// The exact scan over accepted vectors, for filters too selective for the graph.
    fn scan(&self, query: &[f32], k: usize, accept: &dyn Fn(&Facets) -> bool) -> Vec<VectorHit> {
        let mut buffer = vec![0.0f32; self.dims];
        let mut hits: Vec<VectorHit> = self
            .ids
            .iter()
            .enumerate()
            .filter_map(|(key, entry)| entry.as_ref().map(|(id, facets)| (key, id, facets)))
            .filter(|(_, _, facets)| accept(facets))
            .filter_map(|(key, id, _)| {
                let found = self.graph.get(key as u64, &mut buffer).ok()?;
                (found > 0).then(|| VectorHit { id: *id, cosine: dot(&buffer, query) })
            })
            .collect();
        sort_hits(&mut hits);
        hits.truncate(k);
        hits
    }
}

/// A saved graph being loaded: its files read, waiting for the store's vectors, which the graph
/// file leaves out. [`SavedGraph::open`], then [`SavedGraph::put`] for each stored vector of the
/// namespace (streamed from the store), then [`SavedGraph::finish`]. A memory deleted or edited
/// since the save (its vector not given back as saved) leaves the graph: its links were made for
/// the old vector, and replaying the change log adds the edited memory back.
pub struct SavedGraph {
    dims: usize,
    /// The memory of each graph key (0: none), from the ids file.
    memories: Vec<u128>,
    /// Where each memory's vector goes.
    slots: FxHashMap<MemoryId, usize>,
    assembly: graph_file::Assembly,
}

impl SavedGraph {
    /// Reads `{stem}.ids` and `{stem}.graph` in `dir`, of `dims`-dimensional vectors.
    pub fn open(dir: &Path, stem: &str, dims: usize) -> Result<Self, AnnError> {
        let bytes = std::fs::read(dir.join(format!("{stem}.ids"))).map_err(ann_error)?;
        let body = bytes
            .strip_prefix(IDS_MAGIC)
            .filter(|b| b.len() >= 8)
            .ok_or_else(|| AnnError("the ids file is not one rearview wrote".into()))?;
        let (count, rows) = body.split_at(8);
        let count = u64::from_le_bytes(count.try_into().expect("8 bytes")) as usize;
        if count.checked_mul(16) != Some(rows.len()) {
            return Err(AnnError(format!("the ids file is cut short ({count} keys)")));
        }
        let memories: Vec<u128> = rows
            .chunks_exact(16)
            .map(|row| u128::from_le_bytes(row.try_into().expect("16 bytes")))
            .collect();
        let file = std::fs::read(dir.join(format!("{stem}.graph"))).map_err(ann_error)?;
        let assembly = graph_file::Assembly::read(&file, dims * 2)?;
        let slots = assembly
            .wanted()
            .filter_map(|(slot, key)| {
                let raw = *memories.get(key as usize)?;
                (raw != 0).then(|| (MemoryId(uuid::Uuid::from_u128(raw)), slot))
            })
            .collect();
        Ok(Self { dims, memories, slots, assembly })
    }

    /// The memories whose vectors the graph needs back.
    pub fn memories(&self) -> Vec<MemoryId> {
        self.slots.keys().copied().collect()
    }

    /// Memory `id`'s stored vector (`half`: its f16 bytes) back in its place; a memory the graph
    /// does not hold is ignored.
    pub fn put(&mut self, id: MemoryId, half: &[u8]) {
        if let Some(&slot) = self.slots.get(&id) {
            self.assembly.put(slot, half);
        }
    }

    /// The index, keeping the keys whose memory `facets` still knows (the store's current facets)
    /// and whose vector came back as saved.
    pub fn finish(
        self,
        mut facets: impl FnMut(MemoryId) -> Option<Facets>,
    ) -> Result<AnnIndex, AnnError> {
        let Self { dims, memories, slots, assembly } = self;
        drop(slots);
        let (serialized, changed) = assembly.finish();
        let changed: rustc_hash::FxHashSet<u64> = changed.into_iter().collect();
        let mut index = AnnIndex::new(dims, 0)?;
        index.graph.load_from_buffer(&serialized).map_err(ann_error)?;
        drop(serialized);
        if index.graph.dimensions() != dims {
            return Err(AnnError(format!(
                "the saved graph has {} dimensions, the model {dims}",
                index.graph.dimensions()
            )));
        }
        index
            .graph
            .reserve_capacity_and_threads(index.graph.size() + 1024, THREADS)
            .map_err(ann_error)?;
        index.graph.change_expansion_search(NEAR_EXPANSION);
        index.ids.reserve(memories.len());
        index.keys.reserve(memories.len());
        for (key, raw) in memories.into_iter().enumerate() {
            let id = MemoryId(uuid::Uuid::from_u128(raw));
            let known =
                (raw != 0 && !changed.contains(&(key as u64))).then(|| facets(id)).flatten();
            match known {
                Some(f) if index.graph.contains(key as u64) => {
                    index.keys.insert(id, key as u64);
                    index.ids.push(Some((id, f)));
                }
                _ => {
                    let _ = index.graph.remove(key as u64);
                    index.ids.push(None);
                }
            }
        }
        if index.graph.size() != index.keys.len() {
            return Err(AnnError(format!(
                "the saved graph holds {} vectors, its ids file {}",
                index.graph.size(),
                index.keys.len()
            )));
        }
        Ok(index)
    }
}

impl VectorIndex for AnnIndex {
    fn dimensions(&self) -> usize {
        self.dims
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    fn upsert(&mut self, id: MemoryId, facets: Facets, embedding: &Embedding) -> bool {
        if embedding.dimensions() != self.dims {
            return false;
        }
        // The same vector again (a refresh from the store): new facets only. Re-inserting would
        // leave a deleted node in the graph for nothing.
        if let Some(stored) = self.vector(id)
            && stored.iter().zip(embedding.as_slice()).all(|(a, b)| (a - b).abs() <= F16_EPSILON)
        {
            return self.set_facets(id, facets);
        }
        if !self.reserve_one() {
            return false;
        }
        let key = self.ids.len() as u64;
        if self.graph.add(key, embedding.as_slice()).is_err() {
            return false;
        }
        if let Some(old) = self.keys.insert(id, key) {
            let _ = self.graph.remove(old);
            self.ids[old as usize] = None;
        }
        self.ids.push(Some((id, facets)));
        true
    }

    fn set_facets(&mut self, id: MemoryId, facets: Facets) -> bool {
        let Some(&key) = self.keys.get(&id) else { return false };
        self.ids[key as usize] = Some((id, facets));
        true
    }

    fn remove(&mut self, id: MemoryId) -> bool {
        let Some(key) = self.keys.remove(&id) else { return false };
        let _ = self.graph.remove(key);
        self.ids[key as usize] = None;
        true
    }

    fn vector(&self, id: MemoryId) -> Option<Vec<f32>> {
        let key = *self.keys.get(&id)?;
        let mut buffer = vec![0.0f32; self.dims];
        let found = self.graph.get(key, &mut buffer).ok()?;
        (found > 0).then_some(buffer)
    }

    fn similarity(&self, id: MemoryId, query: &Embedding) -> Option<f32> {
        if query.dimensions() != self.dims {
            return None;
        }
        self.vector(id).map(|v| dot(&v, query.as_slice()))
    }

    fn search(
        &self,
        query: &Embedding,
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Vec<VectorHit> {
        let expansion = self.expansion.load(std::sync::atomic::Ordering::Relaxed);
        self.search_with(query, k, accept, expansion)
    }

    fn search_near(
        &self,
        query: &Embedding,
        k: usize,
        accept: &dyn Fn(&Facets) -> bool,
    ) -> Vec<VectorHit> {
        self.search_with(query, k, accept, NEAR_EXPANSION)
    }
}

/// Cosine descending, ties by id ascending (the trait's order).
fn sort_hits(hits: &mut [VectorHit]) {
    hits.sort_by(|a, b| b.cosine.total_cmp(&a.cosine).then(a.id.cmp(&b.id)));
}

#[cfg(test)]
mod tests {
    use rearview_core::MemoryType;

    use super::*;
    use crate::FlatIndex;

    fn facets(tier: MemoryType) -> Facets {
        Facets {
            memory_type: tier,
            archived: false,
            expires_at: None,
            occurred_at: chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
            invalid_at: None,
            session_id: None,
            tags: Vec::new(),
        }
    }

    /// Deterministic pseudo-random unit vectors (xorshift), clustered around 20 centres so
    /// neighbours are meaningful, as with real embeddings.
    fn vectors(n: usize, dims: usize, seed: u64) -> Vec<Embedding> {
        let mut state = seed.max(1);
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 2_000_000) as f32 / 1_000_000.0 - 1.0
        };
        let centres: Vec<Vec<f32>> = (0..20).map(|_| (0..dims).map(|_| next()).collect()).collect();
        (0..n)
            .map(|i| {
                let c = &centres[i % centres.len()];
                Embedding::new(c.iter().map(|x| x + 0.6 * next()).collect()).unwrap()
            })
            .collect()
    }

    fn id(i: usize) -> MemoryId {
        MemoryId(uuid::Uuid::from_u128(i as u128 + 1))
    }

    #[test]
    fn finds_what_the_exact_scan_finds_and_honours_filters_updates_and_removals() {
        let (dims, n) = (32, 3000);
        let data = vectors(n, dims, 7);
        let tier = |i: usize| {
            if i.is_multiple_of(10) { MemoryType::Semantic } else { MemoryType::Episodic }
        };
        let mut exact = FlatIndex::new(dims);
        for (i, v) in data.iter().enumerate() {
            exact.upsert(id(i), facets(tier(i)), v);
        }
        let mut ann = AnnIndex::build(
            dims,
            data.iter().enumerate().map(|(i, v)| (id(i), facets(tier(i)), v.as_slice())),
            2,
        )
        .unwrap();
        assert_eq!(ann.len(), n);
        let queries = vectors(50, dims, 99);
        let all = |_: &Facets| true;
        let mut found = 0;
        for q in &queries {
            let want: Vec<MemoryId> = exact.search(q, 10, &all).iter().map(|h| h.id).collect();
            let got = ann.search(q, 10, &all);
            assert!(got.windows(2).all(|w| w[0].cosine >= w[1].cosine), "sorted");
            found += got.iter().filter(|h| want.contains(&h.id)).count();
            let cosine = exact.similarity(got[0].id, q).unwrap();
            assert!((got[0].cosine - cosine).abs() < 2e-3, "f16 cosine {}", got[0].cosine);
        }
        assert!(found as f32 / 500.0 >= 0.98, "recall@10 {found}/500");

        // A selective filter (one memory in ten) still returns only, and enough, accepted hits.
        let semantic = |f: &Facets| f.memory_type == MemoryType::Semantic;
        let hits = ann.search(&queries[0], 10, &semantic);
        assert_eq!(hits.len(), 10);
        assert!(hits.iter().all(|h| h.id.0.as_u128() % 10 == 1), "only semantic memories");
        // The same vector again only updates facets: no new graph node.
        let nodes = ann.ids.len();
        assert!(ann.upsert(id(3), facets(MemoryType::Working), &data[3]));
        assert_eq!(ann.ids.len(), nodes, "an unchanged vector is not re-inserted");
        let working = |f: &Facets| f.memory_type == MemoryType::Working;
        assert_eq!(ann.search(&data[3], 1, &working)[0].id, id(3));
        assert!(ann.set_facets(id(3), facets(tier(3))));
        // Updates move a vector; removals and facet changes take effect at once.
        let target = queries[1].clone();
        assert!(ann.upsert(id(5), facets(MemoryType::Episodic), &target));
        assert_eq!(ann.search(&target, 1, &all)[0].id, id(5));
        assert_eq!(ann.len(), n, "an update is not a new memory");
        assert!(ann.set_facets(id(5), facets(MemoryType::Working)));
        assert_eq!(
            ann.search(&target, 3, &working).iter().map(|h| h.id).collect::<Vec<_>>(),
            [id(5)]
        );
        assert!(ann.remove(id(5)));
        assert!(ann.search(&target, 10, &all).iter().all(|h| h.id != id(5)));
        assert!(ann.search(&target, 3, &working).is_empty());
        assert!(ann.vector(id(5)).is_none());
        assert_eq!(ann.len(), n - 1);
    }

    #[test]
    fn a_near_search_finds_the_close_vectors_the_exact_scan_finds() {
        let (dims, n) = (32, 3000);
        let data = vectors(n, dims, 11);
        // Working memories are one in twenty: a selective filter.
        let tier = |i: usize| match i {
            i if i.is_multiple_of(20) => MemoryType::Working,
            i if i.is_multiple_of(3) => MemoryType::Semantic,
            _ => MemoryType::Episodic,
        };
        let mut exact = FlatIndex::new(dims);
        for (i, v) in data.iter().enumerate() {
            exact.upsert(id(i), facets(tier(i)), v);
        }
        let ann = AnnIndex::build(
            dims,
            data.iter().enumerate().map(|(i, v)| (id(i), facets(tier(i)), v.as_slice())),
            2,
        )
        .unwrap();
        // Stored vectors moved a little (cosine about 0.9 to their origin): what a store's
        // near-duplicate check looks for, without a filter, with a tier most memories have, and
        // with a rare one (from a memory of that tier).
        let noise = vectors(200, dims, 5);
        let episodic = |f: &Facets| f.memory_type == MemoryType::Episodic;
        let working = |f: &Facets| f.memory_type == MemoryType::Working;
        let all = |_: &Facets| true;
        let (mut close, mut near) = (0, 0);
        for (i, shift) in noise.iter().enumerate() {
            type Accept<'a> = &'a dyn Fn(&Facets) -> bool;
            let cases: [(usize, Accept<'_>); 3] =
                [(i * 13 % n, &all), (i * 13 % n, &episodic), (i * 20 % n, &working)];
            for (origin, accept) in cases {
                let moved: Vec<f32> = data[origin]
                    .as_slice()
                    .iter()
                    .zip(shift.as_slice())
                    .map(|(b, s)| b + 0.45 * s)
                    .collect();
                let query = Embedding::new(moved).unwrap();
                let want: Vec<MemoryId> = exact
                    .search(&query, 5, accept)
                    .iter()
                    .filter(|h| h.cosine >= 0.8)
                    .map(|h| h.id)
                    .collect();
                close += want.len();
                let got = ann.search_near(&query, 5, accept);
                let accepted = |h: &VectorHit| accept(&facets(tier(h.id.0.as_u128() as usize - 1)));
                assert!(got.len() == 5 && got.iter().all(accepted), "five accepted hits");
                near += want.iter().filter(|id| got.iter().any(|h| h.id == **id)).count();
            }
        }
        // The odd miss is a tie at the fifth place that f16 cosines order differently (recall's
        // wider search has as many), not a vector the graph search did not reach.
        assert!(close >= 400, "the moved vectors stay close to their origin ({close})");
        assert!(near as f32 >= 0.98 * close as f32, "{near} of {close} close vectors found");
    }

    #[test]
    fn grows_past_its_capacity_and_refuses_wrong_dimensions() {
        let mut ann = AnnIndex::new(8, 1).unwrap();
        let data = vectors(3000, 8, 3);
        for (i, v) in data.iter().enumerate() {
            assert!(ann.upsert(id(i), facets(MemoryType::Episodic), v), "insert {i}");
        }
        assert_eq!(ann.len(), 3000);
        let wrong = Embedding::new(vec![1.0; 9]).unwrap();
        assert!(!ann.upsert(id(1), facets(MemoryType::Episodic), &wrong));
        assert!(ann.search(&wrong, 3, &|_| true).is_empty());
    }

    #[test]
    fn a_saved_graph_loads_back_without_what_was_deleted_since() {
        let dir = std::env::temp_dir().join(format!("rearview-ann-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data = vectors(600, 16, 5);
        // One thread: the graph is then the same on every run. Built by two, in whatever order
        // they were scheduled, the search below missed a vector's own entry in about one full
        // run of this crate's tests in sixteen.
        let mut ann = AnnIndex::build(
            16,
            data.iter()
                .enumerate()
                .map(|(i, v)| (id(i), facets(MemoryType::Episodic), v.as_slice())),
            1,
        )
        .unwrap();
        // Memory 600 says what memory 7 says: two slots with one vector.
        assert!(ann.upsert(id(600), facets(MemoryType::Episodic), &data[7]));
        assert!(ann.remove(id(10)));
        let usearch = ann.graph.serialized_length();
        ann.save(&dir, "ns-model").unwrap();
        // Memory 20 was deleted after the save: the store no longer knows it.
        let stored = |m: MemoryId| match (0..601).find(|&i| id(i) == m) {
            Some(600) => Some(data[7].as_slice()),
            found => found.map(|i| data[i].as_slice()),
        };
        // Memory 30 was edited after the save: the store's vector is another one now.
        let edited = |m: MemoryId| if m == id(30) { Some(data[31].as_slice()) } else { stored(m) };
        let loaded = AnnIndex::load(
            &dir,
            "ns-model",
            16,
            |m| (m != id(20)).then(|| facets(MemoryType::Semantic)),
            |m| edited(m).filter(|_| m != id(20)),
        );
        let mut loaded = loaded.unwrap();
        assert_eq!(loaded.len(), 598, "601 − removed 10 − deleted 20 − edited 30");
        assert!(loaded.vector(id(30)).is_none(), "an edited memory leaves, for the log to re-add");
        let twins = loaded.search(&data[7], 2, &|_: &Facets| true);
        let mut found: Vec<MemoryId> = twins.iter().map(|h| h.id).collect();
        found.sort();
        assert_eq!(found, [id(7), id(600)], "two memories with one vector both kept theirs");
        let all = |_: &Facets| true;
        for i in [0, 300, 599] {
            let hits = loaded.search(&data[i], 1, &all);
            assert_eq!(hits[0].id, id(i), "vector {i} found again after loading");
        }
        assert!(loaded.vector(id(10)).is_none() && loaded.vector(id(20)).is_none());
        let semantic = |f: &Facets| f.memory_type == MemoryType::Semantic;
        assert_eq!(loaded.search(&data[5], 3, &semantic).len(), 3, "facets come from the store");
        assert!(loaded.upsert(id(5000), facets(MemoryType::Episodic), &data[8]), "still writable");
        assert_eq!(loaded.len(), 599);
        // usearch's bytes, less 600 vectors of 32 bytes, plus a key and a hash per slot: only
        // the removed memory's vector is kept.
        let graph_file = std::fs::metadata(dir.join("ns-model.graph")).unwrap().len() as usize;
        assert_eq!(graph_file, usearch + 24 + 601 * 16 - 600 * 32);
        assert!(
            AnnIndex::load(&dir, "ns-model", 32, |_| None, stored).is_err(),
            "wrong dimensions"
        );
        std::fs::write(dir.join("ns-model.ids"), b"garbage").unwrap();
        assert!(
            AnnIndex::load(&dir, "ns-model", 16, |_| None, stored).is_err(),
            "a broken ids file"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
