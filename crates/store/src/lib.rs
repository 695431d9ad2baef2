//! The persistence contract of rearview.
//!
//! This crate owns [`MemoryStore`], the trait every storage backend implements, the types that
//! cross it, and [`StoreError`]. It knows no SQL dialect: the SQLite backend
//! (`rearview-store-sqlite`, the default) and a PostgreSQL + pgvector backend implement the same
//! trait and pass the same suite, [`testing`] (feature `testing`). That suite, not the prose here,
//! is the specification.
//!
//! A store keeps three things per memory, always in step: the row, its full-text entry (the
//! keyword tokens the search crate produced) and its vectors (one per embedding model). Each
//! write touches all three in one transaction, so a crash never leaves them out of step.
//!
//! The store never reads the clock: every operation that depends on expiry takes `now`.

mod error;
#[cfg(feature = "testing")]
pub mod testing;

use std::sync::Arc;

use async_trait::async_trait;
use rearview_core::{
    Embedding, Facets, InputError, LinkNote, Memory, MemoryFilter, MemoryId, MemoryType, Namespace,
    PossibleUpdate, Timestamp,
};

pub use error::StoreError;

/// One memory as written: the row, the keyword tokens for its full-text entry, and its vectors.
#[derive(Debug, Clone)]
pub struct MemoryRecord {
    /// The row.
    pub memory: Memory,
    /// Keyword tokens of the content, as produced by the search crate's tokenizer.
    pub terms: Vec<String>,
    /// Zero or more vectors, each from a different model.
    pub vectors: Vec<StoredVector>,
}

/// A vector tagged with the model that produced it. Vectors of different models are never
/// compared with each other.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredVector {
    /// Embedding model id, e.g. `intfloat/multilingual-e5-small`.
    pub model_id: String,
    /// The unit-length vector.
    pub embedding: Embedding,
}

/// A vector read back for building the in-memory index at start-up.
#[derive(Debug, Clone)]
pub struct VectorEntry {
    /// Owner namespace.
    pub namespace: Namespace,
    /// Memory id.
    pub id: MemoryId,
    /// Filterable attributes of the memory.
    pub facets: Facets,
    /// The vector.
    pub embedding: Embedding,
}

/// A memory's facets, read back with no vector (the caller has the vectors saved elsewhere).
#[derive(Debug, Clone)]
pub struct FacetEntry {
    /// Owner namespace.
    pub namespace: Namespace,
    /// Memory id.
    pub id: MemoryId,
    /// Filterable attributes of the memory.
    pub facets: Facets,
}

/// A memory's keyword terms, read back for building an in-memory keyword index at start-up.
#[derive(Debug, Clone)]
pub struct KeywordEntry {
    /// Owner namespace.
    pub namespace: Namespace,
    /// Memory id.
    pub id: MemoryId,
    /// Filterable attributes of the memory.
    pub facets: Facets,
    /// The terms as indexed: in document order, each passed through [`normalize_term`], empty
    /// ones dropped.
    pub terms: Vec<String>,
}

/// What [`KeywordStore::visit_keyword_entries`] calls with each entry.
pub type KeywordVisitor = Box<dyn FnMut(KeywordEntry) + Send>;

/// What [`VectorStore::visit_namespace_half_vectors`] calls with each memory's vector.
pub type HalfVectorVisitor = Box<dyn FnMut(MemoryId, &[u8]) + Send>;

/// How every backend normalises a keyword term before indexing or matching it: lower-cased, only
/// letters and digits kept. Returns `None` when nothing is left, or for a term longer than
/// [`MAX_TERM_CHARS`].
///
/// Terms from the search crate's tokenizer already have this form; the store normalises anyway so
/// that no input can break out of a backend's query syntax.
pub fn normalize_term(term: &str) -> Option<String> {
    let clean: String =
        term.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    let chars = clean.chars().count();
    (chars > 0 && chars <= MAX_TERM_CHARS).then_some(clean)
}

/// Longer terms are not indexed: they are blobs (encoded data, unbroken script runs), not words,
/// and an index entry has a size limit in PostgreSQL (2,704 bytes; 256 characters of UTF-8 are
/// at most 1,024). A 64-character hash or a long URL stays a term.
pub const MAX_TERM_CHARS: usize = 256;

/// A memory that has no vector yet for some model (stored while no model was available).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingEmbedding {
    /// Owner namespace.
    pub namespace: Namespace,
    /// Memory id.
    pub id: MemoryId,
    /// The text to embed.
    pub content: String,
}

/// A keyword match.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeywordHit {
    /// Memory id.
    pub id: MemoryId,
    /// Okapi BM25 score; higher is better, always > 0 for a match.
    pub bm25: f32,
}

/// The answer of [`KeywordStore::weighted_keyword_search`].
#[derive(Debug, Clone, PartialEq)]
pub struct WeightedKeywordHits {
    /// The best matches, best first.
    pub hits: Vec<KeywordHit>,
    /// The score of a document of average length holding every query term once: `Σ weight ·
    /// idf` over the distinct terms (a term found nowhere gets the IDF of a term in no document),
    /// as the in-memory index's `TextIndex::full_match` computes it.
    pub full_match: f32,
}

/// A vector match: a memory and its cosine similarity to the query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VectorMatch {
    /// Memory id.
    pub id: MemoryId,
    /// Cosine similarity in [-1, 1].
    pub cosine: f32,
}

/// Which slice of a listing to return. Listings are ordered newest event first, then by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Memories to skip.
    pub offset: u64,
    /// Most memories to return.
    pub limit: u64,
}

impl Default for Page {
    fn default() -> Self {
        Self { offset: 0, limit: 50 }
    }
}

/// Changes to apply to an existing memory. `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct MemoryUpdate {
    /// New content with its new keyword tokens and content hash.
    pub content: Option<(String, Vec<String>, String)>,
    /// New recall summary (`Some(None)` removes it).
    pub summary: Option<Option<String>>,
    /// New event time (a merge keeps the newest).
    pub occurred_at: Option<Timestamp>,
    /// Replacement metadata.
    pub metadata: Option<rearview_core::Metadata>,
    /// New tier.
    pub memory_type: Option<MemoryType>,
    /// New TTL (seconds, 0 = never) and the `expires_at` derived from it.
    pub ttl: Option<(u64, Option<Timestamp>)>,
    /// Move into (`true`) or out of (`false`) the cold tier.
    pub archived: Option<bool>,
    /// Mark the memory superseded by another one from an instant on (`Some(Some(…))`:
    /// `superseded_by`, `invalid_at` and `link` set), or current again (`Some(None)`: all three
    /// cleared). Like archiving, this is a change of state, not an edit: `updated_at` stays.
    pub superseded: Option<Option<Superseding>>,
    /// Replace the memory's possible updates (`Some(vec![])` clears them); a change of state,
    /// `updated_at` stays.
    pub possible_updates: Option<Vec<PossibleUpdate>>,
    /// Replacement vectors (all old vectors are dropped when content changes).
    pub vectors: Option<Vec<StoredVector>>,
    /// The instant of the change (`updated_at`).
    pub at: Timestamp,
}

/// What a memory that becomes history is marked with.
#[derive(Debug, Clone, PartialEq)]
pub struct Superseding {
    /// The memory that replaced it.
    pub by: MemoryId,
    /// The end of its validity.
    pub at: Timestamp,
    /// Who linked it, and why.
    pub link: LinkNote,
}

/// Possible updates as stored: a JSON array of `{"id", "similarity", "why"}` (`None` for none).
pub fn encode_possible_updates(updates: &[PossibleUpdate]) -> Option<String> {
    if updates.is_empty() {
        return None;
    }
    let items: Vec<serde_json::Value> = updates
        .iter()
        .map(|u| serde_json::json!({"id": u.id.to_string(), "similarity": u.similarity, "why": u.why}))
        .collect();
    Some(serde_json::Value::Array(items).to_string())
}

/// Possible updates from what [`encode_possible_updates`] wrote.
pub fn decode_possible_updates(json: Option<&str>) -> Result<Vec<PossibleUpdate>, StoreError> {
    let Some(json) = json else { return Ok(Vec::new()) };
    let bad = |what: String| StoreError::Corrupt { message: format!("possible_updates: {what}") };
    let items: Vec<serde_json::Value> =
        serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
    items
        .iter()
        .map(|item| {
            let id = item["id"].as_str().ok_or_else(|| bad(format!("no id in {item}")))?;
            Ok(PossibleUpdate {
                id: id.parse().map_err(|e: InputError| bad(e.message))?,
                similarity: item["similarity"].as_f64().map(|s| s as f32),
                why: item["why"].as_str().unwrap_or_default().to_owned(),
            })
        })
        .collect()
}

/// Counts for one namespace and tier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierCount {
    /// Namespace.
    pub namespace: Namespace,
    /// Tier.
    pub memory_type: MemoryType,
    /// Live memories: unarchived, current (not superseded), not expired.
    pub live: u64,
    /// Archived (cold) memories, current and not expired.
    pub archived: u64,
    /// Superseded memories (history), archived or not, that have not expired.
    pub superseded: u64,
    /// Expired memories not yet removed by a sweep.
    pub expired: u64,
}

/// A memory whose searchable state changed: inserted, updated (content, tier, TTL, metadata,
/// archive, supersession), given a vector, or deleted. Other processes on the same store tail
/// these to keep their in-memory indexes in step (`StoreMaintenance::changes_since`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Position in the store's change log; strictly increasing in commit order.
    pub position: u64,
    /// Owner namespace.
    pub namespace: Namespace,
    /// The memory that changed (it may no longer exist).
    pub id: MemoryId,
}

/// A page of the change log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Changes after the requested position, oldest first.
    pub changes: Vec<Change>,
    /// `false` when the log no longer reaches back to the requested position (older entries
    /// were pruned): the caller missed changes and must rebuild from the store.
    pub complete: bool,
}

/// How many memories of one tier have their event time on one day (UTC).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayCount {
    /// The day, counted from 1970-01-01 (UTC).
    pub day: i64,
    /// Tier.
    pub memory_type: MemoryType,
    /// Memories.
    pub count: u64,
}

/// What a store holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreStats {
    /// Counts per namespace and tier, sorted by namespace then tier.
    pub tiers: Vec<TierCount>,
    /// Number of stored vectors per embedding model, sorted by model id.
    pub vectors_per_model: Vec<(String, u64)>,
    /// Bytes the store occupies on disk, when it knows (0 for in-memory stores).
    pub size_bytes: u64,
    /// A short description of the backend and its location, for `stats` output.
    pub location: String,
}

/// An API key as stored: never the secret, only its SHA-256 digest.
///
/// The id is derived from the digest (see the service's `keys` module), so a presented secret
/// finds its record without a scan; the digest is then compared in constant time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyRecord {
    /// Public identifier, safe to log and show (`rvk_…`).
    pub id: String,
    /// SHA-256 of the secret.
    pub digest: [u8; 32],
    /// Free text for people (`--label`).
    pub label: Option<String>,
    /// Namespaces the key may read and write (ignored for admin keys).
    pub namespaces: Vec<Namespace>,
    /// May use every namespace and see server-wide details.
    pub admin: bool,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it stops working, if ever.
    pub expires_at: Option<Timestamp>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<Timestamp>,
}

impl ApiKeyRecord {
    /// Whether the key authenticates requests at `now`: not revoked and not expired.
    pub fn is_active(&self, now: Timestamp) -> bool {
        self.revoked_at.is_none() && self.expires_at.is_none_or(|t| now < t)
    }
}

/// Below this many memories in a namespace, every query term is matched (FTS5 is fast enough,
/// and common terms still match with a near-zero score); from it on, [`informative_terms`]
/// prunes the common ones. Both backends apply the rule, so they rank alike.
pub const PRUNE_MIN_DOCS: i64 = 1000;

/// Common-term pruning, the rule both backends apply to a keyword query in a namespace of `docs`
/// memories (at least [`PRUNE_MIN_DOCS`]): of the query's terms with their document frequencies
/// `df` (terms found nowhere left out), drop each found in more than half of the memories (its
/// IDF is near zero, so it adds nothing to any score, yet matching it visits most postings),
/// unless every term is that common: then keep the rarest, so the query still matches. Ties in
/// frequency break by term.
pub fn informative_terms(docs: i64, mut df: Vec<(String, i64)>) -> Vec<String> {
    df.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    let Some(rarest) = df.first().map(|(term, _)| term.clone()) else { return Vec::new() };
    let kept: Vec<String> = df.into_iter().filter(|(_, n)| n * 2 <= docs).map(|(t, _)| t).collect();
    if kept.is_empty() { vec![rarest] } else { kept }
}

#[async_trait]
/// The memories themselves: write, read, change and page through them (one namespace at a
/// time), and their access counts.
pub trait MemoryRecords: Send + Sync {
    /// Writes a new memory with its keyword tokens and vectors in one transaction.
    ///
    /// Fails with [`StoreError::Conflict`] if the id exists.
    async fn insert(&self, record: &MemoryRecord) -> Result<(), StoreError>;

    /// Writes many new memories (of any namespaces) in one transaction, for bulk loads
    /// (`rearview import`, `rearview migrate`): what [`MemoryRecords::insert`] does for each, with
    /// one commit instead of one per memory. A record whose id is already stored (or appears
    /// earlier in `records`) is skipped rather than failing the batch: the answer says, per
    /// record in order, whether it was written. Any other failure writes nothing.
    async fn insert_many(&self, records: &[MemoryRecord]) -> Result<Vec<bool>, StoreError>;

    /// The memory with this id, if it exists in `namespace` and has not expired at `now`
    /// (superseded and archived memories included): [`MemoryRecords::get_many`] of one.
    async fn get(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        now: Timestamp,
    ) -> Result<Option<Memory>, StoreError> {
        Ok(self.get_many(namespace, &[id], now).await?.pop())
    }

    /// The visible memories among `ids`, in no particular order; unknown ids are skipped.
    async fn get_many(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
        now: Timestamp,
    ) -> Result<Vec<Memory>, StoreError>;

    /// Applies `update` to a visible memory in one transaction; returns the updated memory, or
    /// `None` if there is no such memory.
    async fn update(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        update: &MemoryUpdate,
    ) -> Result<Option<Memory>, StoreError>;

    /// Removes a memory with its keyword entry and vectors. Returns whether it existed.
    async fn delete(&self, namespace: &Namespace, id: MemoryId) -> Result<bool, StoreError>;

    /// Memories matching `filter` at `now`, newest event first (ties by id), one page.
    async fn list(
        &self,
        namespace: &Namespace,
        filter: &MemoryFilter,
        now: Timestamp,
        page: Page,
    ) -> Result<Vec<Memory>, StoreError>;

    /// Number of memories matching `filter` at `now`.
    async fn count(
        &self,
        namespace: &Namespace,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<u64, StoreError>;

    /// Atomically adds one to the access count of each id per occurrence in `ids` (several
    /// recalls' ids are batched into one call) and sets its last access to `at`.
    async fn record_access(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
        at: Timestamp,
    ) -> Result<(), StoreError>;

    /// The memories of `namespace` that `id` superseded directly (whose `superseded_by` is
    /// `id`), archived ones included, not expired at `now`; the latest `invalid_at` first (ties
    /// by id).
    async fn predecessors(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        now: Timestamp,
    ) -> Result<Vec<Memory>, StoreError>;

    /// The visible memories of `namespace` (archived and superseded ones included) that list
    /// possible updates, for a person to confirm or dismiss: the latest stored first (ties by
    /// id), one page.
    async fn pending_review(
        &self,
        namespace: &Namespace,
        now: Timestamp,
        page: Page,
    ) -> Result<Vec<Memory>, StoreError>;

    /// The visible memories (archived and superseded ones included) of `namespace` whose
    /// `content_hash` is `hash`: exact duplicates of a text.
    async fn find_by_hash(
        &self,
        namespace: &Namespace,
        hash: &str,
        now: Timestamp,
    ) -> Result<Vec<Memory>, StoreError>;

    /// Up to `limit` memories of `namespace` with id greater than `after` (all when `None`), in
    /// id order, expired and archived ones included, each with its vectors when `with_vectors`:
    /// one page of a full export. Pass the last id of a page as `after` for the next.
    async fn export_page(
        &self,
        namespace: &Namespace,
        after: Option<MemoryId>,
        limit: usize,
        with_vectors: bool,
    ) -> Result<Vec<(Memory, Vec<StoredVector>)>, StoreError>;

    /// The memories of `ids` in `namespace` that exist (expired ones included) with their
    /// keyword terms and every vector: what an in-memory index holds for each.
    async fn records(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
    ) -> Result<Vec<MemoryRecord>, StoreError>;
}

#[async_trait]
/// The keyword index: BM25 search, and the terms an in-memory index is built from.
pub trait KeywordStore: Send + Sync {
    /// The best `limit` keyword matches for any of `terms` among memories matching `filter`,
    /// by BM25, best first. An empty `terms` matches nothing.
    async fn keyword_search(
        &self,
        namespace: &Namespace,
        terms: &[String],
        filter: &MemoryFilter,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<KeywordHit>, StoreError>;

    /// Calls `visit` with every memory's keyword terms (expired ones included), for building an
    /// in-memory index, except in the namespaces `except` names (their index was loaded from a
    /// saved copy; they are not read at all). Entries are streamed one at a time, on the thread
    /// that reads them: a million memories' terms never sit in memory as entries all at once.
    async fn visit_keyword_entries(
        &self,
        except: &[Namespace],
        visit: KeywordVisitor,
    ) -> Result<(), StoreError>;

    /// Calls `visit` with the keyword terms of every memory of `namespace` (expired ones
    /// included): for loading one namespace's index when it is first used. The default visits
    /// every namespace and keeps this one's; backends override it with an indexed read.
    async fn visit_namespace_keyword_entries(
        &self,
        namespace: &Namespace,
        mut visit: KeywordVisitor,
    ) -> Result<(), StoreError> {
        let wanted = namespace.clone();
        self.visit_keyword_entries(
            &[],
            Box::new(move |e| {
                if e.namespace == wanted {
                    visit(e);
                }
            }),
        )
        .await
    }

    /// Every memory's keyword terms (expired ones included), collected
    /// ([`KeywordStore::visit_keyword_entries`] into a list).
    async fn keyword_entries(&self) -> Result<Vec<KeywordEntry>, StoreError> {
        let entries = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = Arc::clone(&entries);
        self.visit_keyword_entries(
            &[],
            Box::new(move |e| {
                sink.lock().unwrap_or_else(|p| p.into_inner()).push(e);
            }),
        )
        .await?;
        let entries = std::mem::take(&mut *entries.lock().unwrap_or_else(|p| p.into_inner()));
        Ok(entries)
    }

    /// [`KeywordStore::keyword_search`] with a weight per term (each term's BM25 contribution
    /// multiplied by it; a repeated term counts once, with its first weight), and the query's
    /// full-match score; `None` unless [`VectorStore::searches_in_store`].
    async fn weighted_keyword_search(
        &self,
        _namespace: &Namespace,
        _terms: &[(String, f32)],
        _filter: &MemoryFilter,
        _now: Timestamp,
        _k: usize,
    ) -> Result<Option<WeightedKeywordHits>, StoreError> {
        Ok(None)
    }
}

#[async_trait]
/// The vectors: one per memory and embedding model; what an in-memory vector index is built
/// from, and the vector search of a store that searches itself.
pub trait VectorStore: Send + Sync {
    /// Stores (or replaces) one vector of a memory. Returns `false` if the memory is gone.
    async fn put_vector(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        vector: &StoredVector,
    ) -> Result<bool, StoreError>;

    /// Every stored vector of `model_id`, for building the in-memory index.
    async fn vectors(&self, model_id: &str) -> Result<Vec<VectorEntry>, StoreError>;

    /// The id and facets of every memory with a vector of `model_id` (no vectors): for an index
    /// whose vectors were saved elsewhere.
    async fn vector_facets(&self, model_id: &str) -> Result<Vec<FacetEntry>, StoreError>;

    /// The stored vectors of `model_id` in one namespace.
    async fn namespace_vectors(
        &self,
        model_id: &str,
        namespace: &Namespace,
    ) -> Result<Vec<VectorEntry>, StoreError>;

    /// Calls `visit` with each memory of `namespace` that has a vector of `model_id`, and that
    /// vector as half precision: little-endian IEEE f16, two bytes per dimension (how a saved
    /// graph holds it). Streamed one at a time: for putting a million vectors back into a saved
    /// graph without holding them as f32. The default reads [`VectorStore::namespace_vectors`];
    /// a backend that stores half precision streams its rows.
    async fn visit_namespace_half_vectors(
        &self,
        model_id: &str,
        namespace: &Namespace,
        mut visit: HalfVectorVisitor,
    ) -> Result<(), StoreError> {
        for entry in self.namespace_vectors(model_id, namespace).await? {
            visit(entry.id, &entry.embedding.to_half_bytes());
        }
        Ok(())
    }

    /// Up to `limit` memories with no vector of `model_id`, oldest first (backfill work), in
    /// `namespace` or in all namespaces.
    async fn pending_embeddings(
        &self,
        model_id: &str,
        namespace: Option<&Namespace>,
        limit: usize,
    ) -> Result<Vec<PendingEmbedding>, StoreError>;

    /// Whether this store answers searches itself, so that a server keeps no copy of vectors or
    /// keyword postings in memory: [`VectorStore::nearest_vectors`],
    /// [`VectorStore::vector_similarities`] and [`KeywordStore::weighted_keyword_search`] then
    /// answer `Some`. Backends without it (SQLite, searched from in-memory indexes) answer
    /// `None` to all three.
    fn searches_in_store(&self) -> bool {
        false
    }

    /// The `k` memories of `namespace` matching `filter` at `now` whose vector of `model_id` is
    /// nearest `query` (cosine), nearest first (ties by id); `None` unless
    /// [`VectorStore::searches_in_store`]. Approximate past a size, as an in-memory graph is.
    async fn nearest_vectors(
        &self,
        _namespace: &Namespace,
        _model_id: &str,
        _query: &Embedding,
        _filter: &MemoryFilter,
        _now: Timestamp,
        _k: usize,
    ) -> Result<Option<Vec<VectorMatch>>, StoreError> {
        Ok(None)
    }

    /// Each of `ids`' cosine to `query` in `model_id`'s space, in order (`None` for a memory
    /// without such a vector, or not in `namespace`); `None` unless
    /// [`VectorStore::searches_in_store`].
    async fn vector_similarities(
        &self,
        _namespace: &Namespace,
        _model_id: &str,
        _ids: &[MemoryId],
        _query: &Embedding,
    ) -> Result<Option<Vec<Option<f32>>>, StoreError> {
        Ok(None)
    }
}

#[async_trait]
/// API keys: stored as digests, never secrets.
pub trait KeyStore: Send + Sync {
    /// Saves a new API key. Returns `false` and changes nothing if a key with this id exists
    /// (seeding the same key twice is a no-op).
    async fn insert_key(&self, key: &ApiKeyRecord) -> Result<bool, StoreError>;

    /// The key with this id, revoked and expired ones included.
    async fn find_key(&self, id: &str) -> Result<Option<ApiKeyRecord>, StoreError>;

    /// Every key, oldest first, revoked and expired ones included.
    async fn list_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError>;

    /// Marks a key revoked at `at`. Returns `false` if no such key exists; revoking twice keeps
    /// the first instant.
    async fn revoke_key(&self, id: &str, at: Timestamp) -> Result<bool, StoreError>;

    /// How many keys are active at `now` (servers on loopback enforce keys once one exists).
    async fn count_active_keys(&self, now: Timestamp) -> Result<u64, StoreError>;
}

#[async_trait]
/// What keeps a store in shape and in step: expiry and archive sweeps, the change log other
/// processes tail, settings, statistics.
pub trait StoreMaintenance: Send + Sync {
    /// Deletes every memory (row, keyword entry, vectors) whose `expires_at` is at or before
    /// `now`, in `namespace` or in all namespaces, in one transaction; returns what it deleted.
    async fn delete_expired(
        &self,
        namespace: Option<&Namespace>,
        now: Timestamp,
    ) -> Result<Vec<(Namespace, MemoryId)>, StoreError>;

    /// Moves to the archive every visible, unarchived memory of `memory_type` (in `namespace`,
    /// or in all) that has not been written or recalled since `idle_since`, i.e. whose
    /// `max(updated_at, last_accessed_at)` is before it, in one transaction; returns them.
    async fn archive_idle(
        &self,
        namespace: Option<&Namespace>,
        memory_type: MemoryType,
        idle_since: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<(Namespace, MemoryId)>, StoreError>;

    /// The position of the latest change in the change log (0 when there is none). Read it
    /// before loading indexes from the store, then tail [`StoreMaintenance::changes_since`] from it.
    async fn change_position(&self) -> Result<u64, StoreError>;

    /// Up to `limit` changes after `position`, oldest first. Every committed write that changes
    /// what a search may find (insert, update other than access counts, vectors written, delete,
    /// expiry sweep, archive sweep) appends one change per memory in the same transaction.
    async fn changes_since(&self, position: u64, limit: usize) -> Result<Changes, StoreError>;

    /// Drops all but the latest `keep` changes; returns how many were dropped. A reader that
    /// falls further behind sees `complete: false` and rebuilds.
    async fn prune_changes(&self, keep: u64) -> Result<u64, StoreError>;

    /// A persisted setting, or `None` if it was never set.
    ///
    /// # Warning
    /// Settings describe how the stored data was built (for example `tokenizer`: which tokenizer
    /// produced the keyword terms). Changing one without rebuilding that data makes it
    /// inconsistent; the service checks them at start-up.
    async fn setting(&self, key: &str) -> Result<Option<String>, StoreError>;

    /// Stores a setting, replacing any earlier value.
    async fn set_setting(&self, key: &str, value: &str) -> Result<(), StoreError>;

    /// Claims the lifecycle sweep at `now` unless one was claimed less than `every` before
    /// (by any server or process on this store): records `now` and returns `true` if claimed.
    /// Servers claim before each periodic sweep, so the sweep runs once per interval however
    /// many share the store. Atomic: of two claims racing for one interval, one wins.
    async fn claim_sweep(
        &self,
        now: Timestamp,
        every: chrono::TimeDelta,
    ) -> Result<bool, StoreError>;

    /// What the store holds, at `now` (for telling live from expired).
    async fn stats(&self, now: Timestamp) -> Result<StoreStats, StoreError>;

    /// How many memories of `namespace` (archived and superseded ones included, those expired
    /// at `now` not) have their event time (`occurred_at`) on each UTC day from `since`'s day
    /// on, per tier: oldest day first, then by tier name; days without any are left out.
    async fn daily_counts(
        &self,
        namespace: &Namespace,
        since: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<DayCount>, StoreError>;

    /// Brings the query planner's statistics up to date after a bulk load (`rearview import`,
    /// `rearview migrate`), so the next searches are planned for the data as it now is rather
    /// than as it was (an empty table's statistics make a large namespace look tiny). A no-op
    /// where plans do not depend on gathered statistics.
    async fn refresh_statistics(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

/// Durable home of memories, their keyword index, their vectors and their access statistics:
/// every role a backend plays ([`MemoryRecords`], [`KeywordStore`], [`VectorStore`],
/// [`KeyStore`], [`StoreMaintenance`]). Implemented for every type that plays them all; callers
/// hold an `Arc<dyn MemoryStore>` and bring the roles they call into scope (`use
/// rearview_store::prelude::*`).
///
/// Implementations: `SqliteStore` (crate `rearview-store-sqlite`), the zero-config default, and
/// `PgStore` (crate `rearview-store-postgres`), PostgreSQL + pgvector. Every implementation must pass
/// [`store_contract_tests!`] (feature `testing`).
///
/// Invariants callers may rely on:
/// - Every method is scoped to one namespace; no method returns another namespace's memory.
/// - A memory is invisible to every read from its `expires_at` on, whether or not a sweep has run.
/// - A superseded memory leaves filtered reads (list, count, keyword search) from its
///   `invalid_at` on unless the filter includes superseded memories; reads by id still see it.
/// - A write is atomic: row, keyword entry and vectors change together or not at all.
/// - [`MemoryRecords::record_access`] increments are never lost under concurrency.
/// - When a method returns `Ok`, the change is durable.
pub trait MemoryStore:
    MemoryRecords + KeywordStore + VectorStore + KeyStore + StoreMaintenance + 'static
{
}

impl<T> MemoryStore for T where
    T: MemoryRecords + KeywordStore + VectorStore + KeyStore + StoreMaintenance + 'static
{
}

/// The store's traits, for calling a store's methods: `use rearview_store::prelude::*;`.
pub mod prelude {
    pub use crate::{
        KeyStore, KeywordStore, MemoryRecords, MemoryStore, StoreMaintenance, VectorStore,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn df(pairs: &[(&str, i64)]) -> Vec<(String, i64)> {
        pairs.iter().map(|(t, n)| ((*t).to_owned(), *n)).collect()
    }

    #[test]
    fn common_terms_are_pruned_unless_every_term_is_common() {
        // 2,000 memories: a term in more than 1,000 of them goes, rarest first among the rest.
        let kept = informative_terms(2000, df(&[("我", 1900), ("爬山", 12), ("周末", 1000)]));
        assert_eq!(kept, ["爬山", "周末"]);
        let only_common = informative_terms(2000, df(&[("的", 1990), ("我", 1900)]));
        assert_eq!(only_common, ["我"], "the rarest common term keeps the query matching");
        assert!(informative_terms(2000, Vec::new()).is_empty(), "no term found: nothing to match");
    }
}
