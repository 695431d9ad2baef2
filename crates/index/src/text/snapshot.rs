//! A [`TextIndex`] written to bytes and read back, so a large namespace's keyword index loads in
//! a fraction of the time rebuilding it from the stored terms takes (at 1M memories: reading and
//! splitting 30 million stored terms).
//!
//! Layout, little-endian throughout:
//!
//! ```text
//! magic "RVKWIDX1"
//! terms:    u32 count, then per term: u32 byte length, UTF-8 bytes
//! postings: per term: u32 count, then count × (u32 slot, u32 term frequency), slots ascending
//! slots:    u32 count, then per slot: 16-byte memory id, u32 length, facets
//! crc32 of everything before it (u32)
//! ```
//!
//! Only live documents are written (slots renumbered densely), so a loaded index has no dead
//! slots. A slot's distinct terms and every term's document frequency are derived from the
//! postings on load rather than stored, so they cannot disagree with them.

use std::collections::HashMap;
use std::io::{self, Read, Write};

use rearview_core::{Facets, MemoryId, MemoryType, Timestamp};
use rustc_hash::FxHashMap;

use super::{Slot, TextIndex};

const MAGIC: &[u8; 8] = b"RVKWIDX1";

/// A snapshot that cannot be read: not one this version wrote, cut short or damaged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotError(pub String);

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "keyword index snapshot: {}", self.0)
    }
}

impl std::error::Error for SnapshotError {}

impl TextIndex {
    /// Writes the index for [`TextIndex::read_snapshot`]: live documents only, streamed through
    /// a small buffer (a million memories' index is hundreds of megabytes, never all in memory
    /// twice).
    pub fn write_snapshot(&self, out: impl Write) -> io::Result<()> {
        let mut live = vec![u32::MAX; self.slots.len()];
        let mut next = 0u32;
        for (slot, len) in self.lens.iter().enumerate() {
            if *len != super::DEAD {
                live[slot] = next;
                next += 1;
            }
        }
        let mut w = Sink::new(out);
        w.buf.extend_from_slice(MAGIC);
        let mut terms: Vec<(&str, u32)> = self.term_ids.iter().map(|(t, id)| (&**t, *id)).collect();
        terms.sort_unstable_by_key(|(_, id)| *id);
        w.u32(terms.len())?;
        for (term, _) in &terms {
            w.str(term)?;
        }
        for list in &self.postings {
            let count = list.iter().filter(|(slot, _)| live[*slot as usize] != u32::MAX).count();
            w.u32(count)?;
            for &(slot, tf) in list {
                let slot = live[slot as usize];
                if slot != u32::MAX {
                    w.buf.extend_from_slice(&slot.to_le_bytes());
                    w.buf.extend_from_slice(&tf.to_le_bytes());
                }
            }
            w.spill()?;
        }
        w.u32(next as usize)?;
        for (slot, len) in self.slots.iter().zip(&self.lens).filter(|(_, len)| **len != super::DEAD)
        {
            w.buf.extend_from_slice(&slot.id.0.as_u128().to_le_bytes());
            w.buf.extend_from_slice(&len.to_le_bytes());
            w.facets(&slot.facets)?;
        }
        w.finish()
    }

    /// Reads what [`TextIndex::write_snapshot`] wrote. The bytes are read whole and checked
    /// against their checksum before any is parsed; a slot's terms are derived from the postings
    /// on a second thread while the slots are parsed (at 1M memories the two take about a
    /// second each).
    pub fn read_snapshot(mut input: impl Read) -> Result<TextIndex, SnapshotError> {
        let mut bytes = Vec::new();
        input.read_to_end(&mut bytes).map_err(|e| SnapshotError(format!("reading: {e}")))?;
        if !bytes.starts_with(MAGIC) {
            return Err(SnapshotError("not a keyword index this version wrote".into()));
        }
        let Some(body_len) = bytes.len().checked_sub(4).filter(|&n| n >= MAGIC.len()) else {
            return Err(SnapshotError("cut short".into()));
        };
        let (body, sum) = bytes.split_at(body_len);
        if crc32fast::hash(body) != le_u32(sum) {
            return Err(SnapshotError(
                "checksum mismatch: the file is damaged or cut short".into(),
            ));
        }
        let mut r = Source { rest: &body[MAGIC.len()..] };
        let term_count = r.u32()? as usize;
        // Each term takes at least its 4-byte length and its 4-byte postings count: a damaged
        // count allocates nothing.
        if term_count > r.rest.len() / 8 {
            return Err(SnapshotError(format!("{term_count} terms in {} bytes", r.rest.len())));
        }
        let mut term_ids = HashMap::with_capacity(term_count.min(1 << 24));
        for id in 0..term_count {
            term_ids.insert(r.str()?.into(), id as u32);
        }
        let mut postings = Vec::with_capacity(term_count.min(1 << 24));
        for _ in 0..term_count {
            let count = r.u32()? as usize;
            let raw = r.take(count.checked_mul(8).ok_or_else(too_long)?)?;
            let list: Vec<(u32, u32)> =
                raw.chunks_exact(8).map(|p| (le_u32(&p[..4]), le_u32(&p[4..]))).collect();
            postings.push(list);
        }
        let slot_count = r.u32()? as usize;
        // Each slot takes at least 41 bytes (id 16, length 4, facets 21): a damaged count
        // allocates nothing.
        if slot_count > r.rest.len() / 41 {
            return Err(SnapshotError(format!("{slot_count} slots in {} bytes", r.rest.len())));
        }
        let (slots, lens, rows, derived) = std::thread::scope(|scope| {
            let derived = scope.spawn(|| derive_terms(&postings, slot_count));
            let parsed = parse_slots(&mut r, slot_count);
            let derived = derived.join().expect("deriving terms does not panic");
            parsed.map(|(slots, lens, rows)| (slots, lens, rows, derived))
        })?;
        if !r.rest.is_empty() {
            return Err(SnapshotError(format!("{} bytes follow the last slot", r.rest.len())));
        }
        let (df, terms) = derived?;
        let mut slots = slots;
        for (slot, terms) in slots.iter_mut().zip(terms) {
            slot.terms = terms;
        }
        let total_len = lens.iter().map(|&l| u64::from(l)).sum();
        let bounds = postings
            .iter()
            .map(|list| {
                list.iter().fold((0, u32::MAX), |(tf, len), &(slot, t)| {
                    (tf.max(t), len.min(lens[slot as usize]))
                })
            })
            .collect();
        Ok(TextIndex { term_ids, postings, df, bounds, slots, lens, rows, total_len, dead: 0 })
    }
}

/// The slots section: per slot its memory, length and facets (terms left empty).
#[allow(clippy::type_complexity, reason = "three parallel results of one pass")]
fn parse_slots(
    r: &mut Source<'_>,
    slot_count: usize,
) -> Result<(Vec<Slot>, Vec<u32>, FxHashMap<MemoryId, u32>), SnapshotError> {
    let mut slots = Vec::with_capacity(slot_count);
    let mut lens = Vec::with_capacity(slot_count);
    let mut rows = FxHashMap::with_capacity_and_hasher(slot_count, Default::default());
    for slot in 0..slot_count {
        let id = MemoryId(uuid::Uuid::from_u128(u128::from_le_bytes(
            r.take(16)?.try_into().expect("16 bytes"),
        )));
        lens.push(r.u32()?);
        let facets = r.facets()?;
        if rows.insert(id, slot as u32).is_some() {
            return Err(SnapshotError(format!("memory {id} is in it twice")));
        }
        slots.push(Slot { id, facets, terms: Box::default() });
    }
    Ok((slots, lens, rows))
}

/// Per term its document frequency, and per slot its distinct term ids, from the postings;
/// refuses a posting naming a slot that does not exist.
#[allow(clippy::type_complexity, reason = "two parallel results of one pass")]
fn derive_terms(
    postings: &[Vec<(u32, u32)>],
    slot_count: usize,
) -> Result<(Vec<u32>, Vec<Box<[u32]>>), SnapshotError> {
    let mut counts = vec![0u32; slot_count];
    for list in postings {
        for &(slot, _) in list {
            let count = counts.get_mut(slot as usize).ok_or_else(|| {
                SnapshotError(format!("a posting names slot {slot} of {slot_count}"))
            })?;
            *count += 1;
        }
    }
    let mut terms: Vec<Vec<u32>> = counts.iter().map(|&c| Vec::with_capacity(c as usize)).collect();
    let mut df = Vec::with_capacity(postings.len());
    for (term_id, list) in postings.iter().enumerate() {
        df.push(list.len() as u32);
        for &(slot, _) in list {
            terms[slot as usize].push(term_id as u32);
        }
    }
    Ok((df, terms.into_iter().map(Vec::into_boxed_slice).collect()))
}

fn too_long() -> SnapshotError {
    SnapshotError("a length overflows".into())
}

fn le_u32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes.try_into().expect("4 bytes"))
}

/// What [`TextIndex::write_snapshot`] writes through: fields are encoded into `buf`, which goes
/// to the writer (and the checksum) whenever it passes [`SPILL_AT`].
struct Sink<W: Write> {
    out: W,
    crc: crc32fast::Hasher,
    buf: Vec<u8>,
}

/// Bytes buffered before a write.
const SPILL_AT: usize = 1 << 20;

impl<W: Write> Sink<W> {
    fn new(out: W) -> Self {
        Self { out, crc: crc32fast::Hasher::new(), buf: Vec::with_capacity(SPILL_AT + 4096) }
    }

    fn spill(&mut self) -> io::Result<()> {
        if self.buf.len() >= SPILL_AT {
            self.crc.update(&self.buf);
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn finish(mut self) -> io::Result<()> {
        self.crc.update(&self.buf);
        let crc = self.crc.clone().finalize();
        self.buf.extend_from_slice(&crc.to_le_bytes());
        self.out.write_all(&self.buf)?;
        self.out.flush()
    }

    fn u32(&mut self, n: usize) -> io::Result<()> {
        let n = u32::try_from(n).expect("a keyword index holds fewer than 2^32 of anything");
        self.buf.extend_from_slice(&n.to_le_bytes());
        self.spill()
    }

    fn str(&mut self, s: &str) -> io::Result<()> {
        self.u32(s.len())?;
        self.buf.extend_from_slice(s.as_bytes());
        self.spill()
    }

    fn time(&mut self, t: &Timestamp) {
        self.buf.extend_from_slice(&t.timestamp().to_le_bytes());
        self.buf.extend_from_slice(&t.timestamp_subsec_nanos().to_le_bytes());
    }

    fn opt_time(&mut self, t: Option<&Timestamp>) {
        match t {
            Some(t) => {
                self.buf.push(1);
                self.time(t);
            }
            None => self.buf.push(0),
        }
    }

    fn facets(&mut self, f: &Facets) -> io::Result<()> {
        self.buf.push(match f.memory_type {
            MemoryType::Working => 0,
            MemoryType::Episodic => 1,
            MemoryType::Semantic => 2,
        });
        self.buf.push(u8::from(f.archived));
        self.opt_time(f.expires_at.as_ref());
        self.time(&f.occurred_at);
        self.opt_time(f.invalid_at.as_ref());
        match &f.session_id {
            Some(s) => {
                self.buf.push(1);
                self.str(s)?;
            }
            None => self.buf.push(0),
        }
        self.u32(f.tags.len())?;
        for tag in &f.tags {
            self.str(tag)?;
        }
        Ok(())
    }
}

/// Reads a checked snapshot's fields in order.
struct Source<'a> {
    /// What is left to read.
    rest: &'a [u8],
}

impl<'a> Source<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], SnapshotError> {
        if n > self.rest.len() {
            return Err(SnapshotError("cut short".into()));
        }
        let (field, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(field)
    }

    fn u8(&mut self) -> Result<u8, SnapshotError> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, SnapshotError> {
        Ok(le_u32(self.take(4)?))
    }

    fn str(&mut self) -> Result<&'a str, SnapshotError> {
        let len = self.u32()? as usize;
        std::str::from_utf8(self.take(len)?)
            .map_err(|_| SnapshotError("a string is not valid UTF-8".into()))
    }

    fn time(&mut self) -> Result<Timestamp, SnapshotError> {
        let secs = i64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes"));
        let nanos = self.u32()?;
        chrono::DateTime::from_timestamp(secs, nanos)
            .ok_or_else(|| SnapshotError(format!("{secs}.{nanos} is not a valid instant")))
    }

    fn opt_time(&mut self) -> Result<Option<Timestamp>, SnapshotError> {
        match self.u8()? {
            0 => Ok(None),
            _ => self.time().map(Some),
        }
    }

    fn facets(&mut self) -> Result<Facets, SnapshotError> {
        let memory_type = match self.u8()? {
            0 => MemoryType::Working,
            1 => MemoryType::Episodic,
            2 => MemoryType::Semantic,
            other => return Err(SnapshotError(format!("unknown tier {other}"))),
        };
        let archived = self.u8()? != 0;
        let expires_at = self.opt_time()?;
        let occurred_at = self.time()?;
        let invalid_at = self.opt_time()?;
        let session_id = match self.u8()? {
            0 => None,
            _ => Some(self.str()?.to_owned()),
        };
        let tag_count = self.u32()? as usize;
        let mut tags = Vec::with_capacity(tag_count.min(64));
        for _ in 0..tag_count {
            tags.push(self.str()?.to_owned());
        }
        Ok(Facets { memory_type, archived, expires_at, occurred_at, invalid_at, session_id, tags })
    }
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;

    use super::*;

    fn snapshot(index: &TextIndex) -> Vec<u8> {
        let mut out = Vec::new();
        index.write_snapshot(&mut out).expect("writing to memory cannot fail");
        out
    }

    fn from_snapshot(bytes: &[u8]) -> Result<TextIndex, SnapshotError> {
        TextIndex::read_snapshot(bytes)
    }

    fn id(n: u128) -> MemoryId {
        MemoryId(uuid::Uuid::from_u128(n))
    }

    fn terms(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    fn facets(n: i64) -> Facets {
        Facets {
            memory_type: MemoryType::Episodic,
            archived: n % 3 == 0,
            expires_at: (n % 2 == 0).then(|| DateTime::from_timestamp(n * 1000, 7).unwrap()),
            occurred_at: DateTime::from_timestamp(n, 123_456_789).unwrap(),
            invalid_at: None,
            session_id: (n % 4 == 0).then(|| format!("s{n}")),
            tags: (0..n % 3).map(|t| format!("标签{t}")).collect(),
        }
    }

    /// An index with removals (dead slots) and replacements.
    fn index() -> TextIndex {
        let mut index = TextIndex::new();
        for n in 0..40 {
            let text = format!("word{} common 端口 {} w{n} w{n}", n % 5, 8000 + n);
            index.upsert(id(n as u128), facets(n), &terms(&text));
        }
        for n in [3, 9, 17] {
            index.remove(id(n));
        }
        index.upsert(id(5), facets(99), &terms("replaced entirely 端口"));
        index
    }

    #[test]
    fn a_loaded_snapshot_searches_exactly_as_its_source() {
        let source = index();
        let loaded = from_snapshot(&snapshot(&source)).unwrap();
        assert_eq!(loaded.len(), source.len());
        assert_eq!(loaded.total_len, source.total_len);
        for query in ["common", "端口 w7", "word2 8012", "replaced", "w3", "missing"] {
            let q = terms(query);
            let all = |_: &Facets| true;
            assert_eq!(loaded.search(&q, 10, &all), source.search(&q, 10, &all), "{query}");
            let archived = |f: &Facets| f.archived;
            assert_eq!(loaded.search(&q, 10, &archived), source.search(&q, 10, &archived));
            let weighted: Vec<(String, f32)> = q.iter().map(|t| (t.clone(), 0.5)).collect();
            assert_eq!(loaded.full_match(&weighted), source.full_match(&weighted));
        }
        for n in 0..40 {
            let (a, b) = (source.rows.get(&id(n)), loaded.rows.get(&id(n)));
            assert_eq!(a.is_some(), b.is_some(), "memory {n}");
            if let (Some(&a), Some(&b)) = (a, b) {
                assert_eq!(source.slots[a as usize].facets, loaded.slots[b as usize].facets);
            }
        }
    }

    #[test]
    fn a_loaded_snapshot_takes_further_changes() {
        let mut loaded = from_snapshot(&snapshot(&index())).unwrap();
        assert!(loaded.remove(id(1)));
        loaded.upsert(id(100), facets(1), &terms("brand new 端口"));
        let mut rebuilt = index();
        rebuilt.remove(id(1));
        rebuilt.upsert(id(100), facets(1), &terms("brand new 端口"));
        let q = terms("端口 common new word1");
        assert_eq!(loaded.search(&q, 50, &|_| true), rebuilt.search(&q, 50, &|_| true));
    }

    #[test]
    fn damaged_or_foreign_bytes_are_refused() {
        let bytes = snapshot(&index());
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 1;
        assert!(from_snapshot(&flipped).is_err());
        let mut wrong_sum = bytes.clone();
        *wrong_sum.last_mut().unwrap() ^= 1;
        assert!(from_snapshot(&wrong_sum).unwrap_err().0.contains("checksum"));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(from_snapshot(&longer).is_err());
        assert!(from_snapshot(&bytes[..bytes.len() - 9]).is_err());
        assert!(from_snapshot(b"RVIDS1\0\0").is_err());
        assert!(from_snapshot(&[]).is_err());
        let empty = TextIndex::new();
        assert!(from_snapshot(&snapshot(&empty)).unwrap().is_empty());
    }
}
