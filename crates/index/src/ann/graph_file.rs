//! The graph file: usearch's serialized index without the vectors the store already holds.
//!
//! usearch serializes an index as `[slots u32][bytes per vector u32][one vector per slot]` then
//! its 64-byte head (beginning `usearch`) and the graph. Saved as is, a million 384-dimension
//! f16 vectors would sit on disk twice (768 MB beside the store's copy), so the graph file keeps,
//! for each slot, the graph key whose vector it holds (read from usearch's graph) and a hash of
//! that vector instead, and only the vectors the store cannot give back: a removed memory's
//! (still a node of the graph):
//!
//! `RVGRAPH3` · slots u64 · bytes per vector u64 · kept vectors u64 · per slot a key u64 and
//! its vector's hash u64, or `KEPT` and the number of its kept vector · the kept vectors, each
//! distinct one once · usearch's bytes after its vectors.
//!
//! Loading ([`Assembly`]) puts usearch's layout back together from the store's vectors (the same f16 values:
//! the store keeps each vector in half precision, as the graph does) and hands it to usearch. A
//! key whose stored vector is gone or is not the one saved (its memory deleted or edited since
//! the save) gets a placeholder and is reported, for the caller to remove: the graph's links
//! were made for the old vector, and the change log brings the new one.

use rustc_hash::FxHashMap;

use super::AnnError;

/// The first bytes of a graph file.
const MAGIC: &[u8] = b"RVGRAPH3";
/// A slot whose vector is kept in the file.
const KEPT: u64 = u64::MAX;
/// What usearch's head begins with, right after the vectors.
const USEARCH_HEAD: &[u8] = b"usearch";

/// A 64-bit hash of a vector's bytes.
pub(super) fn hash(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    bytes.hash(&mut hasher);
    hasher.finish()
}

/// usearch's `serialized` index as a graph file. Each slot's key is read from usearch's own graph
/// ([`slot_keys`]); a removed key's slot keeps its vector in the file.
pub(super) fn encode(serialized: &[u8], vector_bytes: usize) -> Result<Vec<u8>, AnnError> {
    let (slots, vectors, rest) = split(serialized, vector_bytes)?;
    let keys = slot_keys(rest, slots)?;
    let mut entries = Vec::with_capacity(slots);
    let mut kept = Vec::new();
    let mut kept_at: FxHashMap<&[u8], u64> = FxHashMap::default();
    for (vector, key) in vectors.chunks_exact(vector_bytes).zip(keys) {
        if key == KEPT {
            let next = kept_at.len() as u64;
            let at = *kept_at.entry(vector).or_insert_with(|| {
                kept.extend_from_slice(vector);
                next
            });
            entries.push((KEPT, at));
        } else {
            entries.push((key, hash(vector)));
        }
    }
    let mut file = Vec::with_capacity(MAGIC.len() + 24 + slots * 16 + kept.len() + rest.len());
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&(slots as u64).to_le_bytes());
    file.extend_from_slice(&(vector_bytes as u64).to_le_bytes());
    file.extend_from_slice(&(kept_at.len() as u64).to_le_bytes());
    for (key, hash) in entries {
        file.extend_from_slice(&key.to_le_bytes());
        file.extend_from_slice(&hash.to_le_bytes());
    }
    file.extend_from_slice(&kept);
    file.extend_from_slice(rest);
    Ok(file)
}

/// A graph file read back: usearch's layout with the kept vectors in place, the others to be put
/// back from the store ([`Assembly::put`]) before [`Assembly::finish`].
pub(super) struct Assembly {
    serialized: Vec<u8>,
    width: usize,
    /// Per slot: the key whose vector it holds and that vector's saved hash (`KEPT`: in place).
    entries: Vec<(u64, u64)>,
}

impl Assembly {
    /// The graph `file` of `vector_bytes`-byte vectors.
    pub(super) fn read(file: &[u8], vector_bytes: usize) -> Result<Self, AnnError> {
        let cut = || AnnError("the graph file is cut short or not one rearview wrote".into());
        let body = file.strip_prefix(MAGIC).ok_or_else(cut)?;
        let number = |at: usize| -> Result<u64, AnnError> {
            let bytes = body.get(at..at + 8).ok_or_else(cut)?;
            Ok(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
        };
        let (slots, width) = (number(0)?, number(8)? as usize);
        if width != vector_bytes || width < 2 {
            let why = format!("the graph file holds {width}-byte vectors, not {vector_bytes}");
            return Err(AnnError(why));
        }
        let rows = u32::try_from(slots).map_err(|_| cut())?;
        let slots = rows as usize;
        let kept = usize::try_from(number(16)?).map_err(|_| cut())?;
        let entries_end = 24 + slots * 16;
        let entries: Vec<(u64, u64)> = body
            .get(24..entries_end)
            .ok_or_else(cut)?
            .chunks_exact(16)
            .map(|e| {
                let key = u64::from_le_bytes(e[..8].try_into().expect("8 bytes"));
                (key, u64::from_le_bytes(e[8..].try_into().expect("8 bytes")))
            })
            .collect();
        let kept_end = kept.checked_mul(width).and_then(|n| n.checked_add(entries_end));
        let kept_end = kept_end.filter(|&end| end <= body.len()).ok_or_else(cut)?;
        let rest = body.get(kept_end..).filter(|r| r.starts_with(USEARCH_HEAD)).ok_or_else(cut)?;
        let kept_vectors = &body[entries_end..kept_end];
        let mut serialized = Vec::with_capacity(8 + slots * width + rest.len());
        serialized.extend_from_slice(&rows.to_le_bytes());
        serialized.extend_from_slice(&(width as u32).to_le_bytes());
        for &(key, at) in &entries {
            if key == KEPT {
                let at = usize::try_from(at).ok().filter(|&at| at < kept).ok_or_else(cut)?;
                serialized.extend_from_slice(&kept_vectors[at * width..(at + 1) * width]);
            } else {
                serialized.resize(serialized.len() + width, 0);
            }
        }
        serialized.extend_from_slice(rest);
        Ok(Self { serialized, width, entries })
    }

    /// The slots to put back from the store, with the key whose vector each holds.
    pub(super) fn wanted(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, (key, _))| *key != KEPT)
            .map(|(s, (k, _))| (s, *k))
    }

    /// `half` (a stored vector's f16 bytes) into `slot`; a vector of another width is left out.
    pub(super) fn put(&mut self, slot: usize, half: &[u8]) {
        if half.len() == self.width {
            let at = 8 + slot * self.width;
            self.serialized[at..at + self.width].copy_from_slice(half);
        }
    }

    /// usearch's serialized index, and the keys whose vector the store did not give back as
    /// saved (never put, or other bytes: the memory deleted or edited since the save): each has
    /// a placeholder (a unit vector: distances through the node stay finite) for the caller to
    /// remove.
    pub(super) fn finish(mut self) -> (Vec<u8>, Vec<u64>) {
        let mut changed = Vec::new();
        for (slot, &(key, saved)) in self.entries.iter().enumerate() {
            let at = 8 + slot * self.width;
            let vector = &mut self.serialized[at..at + self.width];
            if key != KEPT && hash(vector) != saved {
                vector.fill(0);
                vector[..2].copy_from_slice(&half::f16::ONE.to_le_bytes());
                changed.push(key);
            }
        }
        (self.serialized, changed)
    }
}

/// The key of each slot, read from usearch's graph (`index_gt::save_to_stream`, after the 64-byte
/// dense head): a header of five u64 (nodes, connectivity, base connectivity, top level, entry),
/// each node's level (i16), then each node: its key (u64), its level, and its neighbour lists
/// (per level a u32 count and `connectivity` u32 slots; the base level `connectivity_base`). A
/// removed key reads as `u64::MAX`, usearch's free key. The layout is checked to the last byte,
/// so another usearch version's fails the save rather than naming wrong keys.
fn slot_keys(rest: &[u8], slots: usize) -> Result<Vec<u64>, AnnError> {
    let unknown = || AnnError("usearch's graph is in a layout this build does not know".into());
    let graph = rest.get(64..).ok_or_else(unknown)?;
    let header = |i: usize| -> Result<usize, AnnError> {
        let bytes = graph.get(i * 8..i * 8 + 8).ok_or_else(unknown)?;
        usize::try_from(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
            .map_err(|_| unknown())
    };
    let (nodes, connectivity, base) = (header(0)?, header(1)?, header(2)?);
    if nodes != slots {
        return Err(unknown());
    }
    let levels_at = 40;
    let mut at = levels_at + nodes * 2;
    let (neighbors, base_neighbors) = (connectivity * 4 + 4, base * 4 + 4);
    let mut keys = Vec::with_capacity(nodes);
    for node in 0..nodes {
        let level =
            graph.get(levels_at + node * 2..levels_at + node * 2 + 2).ok_or_else(unknown)?;
        let level = i16::from_le_bytes(level.try_into().expect("2 bytes"));
        let level = usize::try_from(level).map_err(|_| unknown())?;
        let key = graph.get(at..at + 8).ok_or_else(unknown)?;
        keys.push(u64::from_le_bytes(key.try_into().expect("8 bytes")));
        at += 10 + base_neighbors + neighbors * level;
    }
    if at != graph.len() {
        return Err(unknown());
    }
    Ok(keys)
}

/// usearch's serialized index as (slots, their vectors, what follows them).
fn split(serialized: &[u8], vector_bytes: usize) -> Result<(usize, &[u8], &[u8]), AnnError> {
    let unexpected =
        || AnnError("usearch serialized the index in a layout this build does not know".into());
    let header = |at: usize| {
        serialized.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    };
    let (slots, width) = (header(0).ok_or_else(unexpected)?, header(4).ok_or_else(unexpected)?);
    if width as usize != vector_bytes {
        return Err(unexpected());
    }
    let end = 8 + slots as usize * vector_bytes;
    let rest =
        serialized.get(end..).filter(|r| r.starts_with(USEARCH_HEAD)).ok_or_else(unexpected)?;
    Ok((slots as usize, &serialized[8..end], rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// usearch's layout for 4-byte vectors with `keys` (each node at level 0, connectivity 1).
    fn serialized(vectors: &[[u8; 4]], keys: &[u64]) -> Vec<u8> {
        let mut s = (vectors.len() as u32).to_le_bytes().to_vec();
        s.extend_from_slice(&4u32.to_le_bytes());
        for v in vectors {
            s.extend_from_slice(v);
        }
        let mut head = b"usearch".to_vec();
        head.resize(64, 0);
        s.extend_from_slice(&head);
        for field in [keys.len() as u64, 1, 2, 0, 0] {
            s.extend_from_slice(&field.to_le_bytes());
        }
        s.extend(keys.iter().flat_map(|_| 0i16.to_le_bytes()));
        for key in keys {
            s.extend_from_slice(&key.to_le_bytes());
            s.extend_from_slice(&0i16.to_le_bytes());
            s.extend_from_slice(&[0; 12]); // a count and two neighbours at the base level
        }
        s
    }

    #[test]
    fn vectors_the_store_holds_are_left_out_and_put_back() {
        // Slots 0 and 1 hold keys 10 and 11, slot 3 key 12 with the vector of slot 2, a removed
        // key's: the one vector kept in the file.
        let original = serialized(
            &[[1, 1, 1, 1], [2, 2, 2, 2], [9, 9, 9, 9], [9, 9, 9, 9]],
            &[10, 11, u64::MAX, 12],
        );
        let file = encode(&original, 4).unwrap();
        let rest = original.len() - 8 - 16;
        assert_eq!(file.len(), 8 + 24 + 4 * 16 + 4 + rest, "one vector kept");
        let load = |file: &[u8], vector: &dyn Fn(u64) -> Option<[u8; 4]>| {
            let mut assembly = Assembly::read(file, 4).unwrap();
            let wanted: Vec<(usize, u64)> = assembly.wanted().collect();
            for (slot, key) in wanted {
                if let Some(v) = vector(key) {
                    assembly.put(slot, &v);
                }
            }
            assembly.finish()
        };
        let store = |key: u64| Some(if key == 12 { [9; 4] } else { [key as u8 - 9; 4] });
        assert_eq!(load(&file, &store), (original.clone(), vec![]));
        // Key 11's memory was deleted, key 10's edited since the save: both come back to be
        // removed, under a placeholder; the kept vector is as it was.
        let (loaded, changed) = load(&file, &|key| (key == 10).then_some([7; 4]));
        assert_eq!(changed, [10, 11, 12]);
        let one = half::f16::ONE.to_le_bytes();
        assert_eq!(&loaded[8..12], &[one[0], one[1], 0, 0], "a placeholder, not the edited vector");
        assert_eq!(&loaded[16..20], &[9; 4], "the kept vector as it was");
        let wrong = serialized(&[[1, 1, 1, 1]], &[10, 11]);
        assert!(encode(&wrong, 4).is_err(), "a graph that does not add up is refused");
        assert!(Assembly::read(&file[..30], 4).is_err(), "a cut file fails");
        assert!(Assembly::read(&file, 8).is_err(), "another model's width fails");
    }
}
