//! The graph file: usearch's serialized index without the vectors the store already holds.
//!
//! usearch serializes an index as `[slots u32][bytes per vector u32][one vector per slot]` then
//! its 64-byte head (beginning `usearch`) and the graph. Saved as is, a million 384-dimension
//! f16 vectors would sit on disk twice (768 MB beside the store's copy), so the graph file keeps,
//! for each slot, the graph key whose vector it holds instead, and only the vectors the store
//! cannot give back (a removed memory's, still a node of the graph):
//!
//! `RVGRAPH1` · slots u64 · bytes per vector u64 · one key u64 per slot (`KEPT`: its vector is
//! below) · kept vectors · usearch's bytes after its vectors.
//!
//! Loading puts usearch's layout back together from the store's vectors (the same f16 values:
//! the store keeps each vector in half precision, as the graph does) and hands it to usearch.

use super::AnnError;

/// The first bytes of a graph file.
const MAGIC: &[u8] = b"RVGRAPH1";
/// A slot whose vector is kept in the file.
const KEPT: u64 = u64::MAX;
/// What usearch's head begins with, right after the vectors.
const USEARCH_HEAD: &[u8] = b"usearch";

/// usearch's `serialized` index as a graph file; `key_of` names the graph key whose vector a
/// slot's bytes are (`None`: keep the bytes in the file).
pub(super) fn encode(
    serialized: &[u8],
    vector_bytes: usize,
    mut key_of: impl FnMut(&[u8]) -> Option<u64>,
) -> Result<Vec<u8>, AnnError> {
    let (slots, vectors, rest) = split(serialized, vector_bytes)?;
    let mut keys = Vec::with_capacity(slots);
    let mut kept = Vec::new();
    for vector in vectors.chunks_exact(vector_bytes) {
        match key_of(vector) {
            Some(key) if key != KEPT => keys.push(key),
            _ => {
                keys.push(KEPT);
                kept.extend_from_slice(vector);
            }
        }
    }
    let mut file = Vec::with_capacity(MAGIC.len() + 16 + slots * 8 + kept.len() + rest.len());
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&(slots as u64).to_le_bytes());
    file.extend_from_slice(&(vector_bytes as u64).to_le_bytes());
    for key in keys {
        file.extend_from_slice(&key.to_le_bytes());
    }
    file.extend_from_slice(&kept);
    file.extend_from_slice(rest);
    Ok(file)
}

/// usearch's serialized index back from a graph `file`: `vector_of` writes a key's vector (its
/// f16 bytes) into the slice it is given, or fails (the store no longer has it).
pub(super) fn decode(
    file: &[u8],
    vector_bytes: usize,
    mut vector_of: impl FnMut(u64, &mut [u8]) -> Result<(), AnnError>,
) -> Result<Vec<u8>, AnnError> {
    let cut = || AnnError("the graph file is cut short or not one rearview wrote".into());
    let body = file.strip_prefix(MAGIC).ok_or_else(cut)?;
    let number = |at: usize| -> Result<u64, AnnError> {
        let bytes = body.get(at..at + 8).ok_or_else(cut)?;
        Ok(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    };
    let (slots, width) = (number(0)? as usize, number(8)? as usize);
    if width != vector_bytes {
        return Err(AnnError(format!(
            "the graph file holds {width}-byte vectors, not {vector_bytes}"
        )));
    }
    let keys_end = 16 + slots.checked_mul(8).ok_or_else(cut)?;
    let keys = body.get(16..keys_end).ok_or_else(cut)?;
    let rows = u32::try_from(slots).map_err(|_| cut())?;
    let mut serialized = Vec::with_capacity(8 + slots * width + body.len() - keys_end);
    serialized.extend_from_slice(&rows.to_le_bytes());
    serialized.extend_from_slice(&(width as u32).to_le_bytes());
    let mut kept_at = keys_end;
    for key in keys.chunks_exact(8) {
        let key = u64::from_le_bytes(key.try_into().expect("8 bytes"));
        let at = serialized.len();
        serialized.resize(at + width, 0);
        if key == KEPT {
            let kept = body.get(kept_at..kept_at + width).ok_or_else(cut)?;
            serialized[at..].copy_from_slice(kept);
            kept_at += width;
        } else {
            vector_of(key, &mut serialized[at..])?;
        }
    }
    let rest = &body[kept_at..];
    if !rest.starts_with(USEARCH_HEAD) {
        return Err(cut());
    }
    serialized.extend_from_slice(rest);
    Ok(serialized)
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

    fn serialized(vectors: &[[u8; 4]]) -> Vec<u8> {
        let mut s = (vectors.len() as u32).to_le_bytes().to_vec();
        s.extend_from_slice(&4u32.to_le_bytes());
        for v in vectors {
            s.extend_from_slice(v);
        }
        s.extend_from_slice(b"usearch and the graph");
        s
    }

    #[test]
    fn vectors_the_store_holds_are_left_out_and_put_back() {
        let original = serialized(&[[1, 1, 1, 1], [2, 2, 2, 2], [9, 9, 9, 9]]);
        // Slots 0 and 1 hold keys 10 and 11; slot 2 a removed memory's vector, kept.
        let key_of = |v: &[u8]| match v[0] {
            1 => Some(10),
            2 => Some(11),
            _ => None,
        };
        let file = encode(&original, 4, key_of).unwrap();
        assert_eq!(file.len(), 8 + 16 + 3 * 8 + 4 + 21, "one vector of three kept");
        let store = |key: u64, out: &mut [u8]| {
            out.fill(key as u8 - 9);
            Ok(())
        };
        assert_eq!(decode(&file, 4, store).unwrap(), original);
        let gone = |_: u64, _: &mut [u8]| Err(AnnError("no vector".into()));
        assert!(decode(&file, 4, gone).is_err(), "a vector the store lacks fails the load");
        assert!(decode(&file[..30], 4, store).is_err(), "a cut file fails");
        assert!(decode(&file, 8, store).is_err(), "another model's width fails");
    }
}
