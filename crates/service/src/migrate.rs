//! Copying every namespace from one store to another (`rearview migrate`): SQLite to PostgreSQL
//! and back, or between two databases of one backend.
//!
//! The copy is exact: each memory with its keyword terms and every vector, ids, timestamps and
//! access counts unchanged (`MemoryRecords::records` read, `insert_many` written, one transaction
//! per page), plus the settings that describe how the data was built (the tokenizer) and the
//! API keys. It is resumable: a
//! memory already in the target (same id) is skipped, so an interrupted run is simply run again.
//! At the end both stores are walked in id order and compared namespace by namespace: counts,
//! and a SHA-256 over every memory's id, content hash, timestamps, access count and vectors.

use std::sync::Arc;

use rearview_core::{InputError, Memory, MemoryId, Namespace, Timestamp};
use rearview_store::{MemoryStore, StoredVector};
use sha2::{Digest, Sha256};

use crate::ServiceError;

/// Memories read and written per round trip.
const PAGE: usize = 500;

/// Settings copied with the data (they describe how it was built).
const SETTINGS: &[&str] = &[crate::TOKENIZER_SETTING];

/// Progress of a copy, for a progress bar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Copied {
    /// Memories written to the target.
    pub inserted: u64,
    /// Memories the target had already (an earlier, interrupted run).
    pub skipped: u64,
}

/// One namespace as both stores hold it after the copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The namespace.
    pub namespace: Namespace,
    /// Memories in the source (expired and archived ones included).
    pub memories: u64,
    /// SHA-256 over every memory of the source, in id order (see the module docs).
    pub digest: String,
}

/// What a migration did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Migrated {
    /// Memories copied and skipped.
    pub copied: Copied,
    /// API keys copied (keys already present are left as they are).
    pub keys: u64,
    /// Every namespace, verified equal in both stores.
    pub namespaces: Vec<Verified>,
}

/// Copies everything in `from` into `to`, then verifies the two agree; `progress` is called
/// after every page. Fails (having written what it wrote, which a re-run skips) when the target
/// holds a different memory under an id of the source, or when verification finds a difference.
pub async fn migrate(
    from: Arc<dyn MemoryStore>,
    to: Arc<dyn MemoryStore>,
    now: Timestamp,
    mut progress: impl FnMut(&Namespace, Copied),
) -> Result<Migrated, ServiceError> {
    for key in SETTINGS {
        if let Some(value) = from.setting(key).await? {
            match to.setting(key).await? {
                Some(theirs) if theirs != value => {
                    return Err(InputError::new(
                        "to",
                        format!(
                            "its setting {key} is {theirs:?}, the source's {value:?}: its data was built differently; migrate into an empty database"
                        ),
                    )
                    .into());
                }
                Some(_) => {}
                None => to.set_setting(key, &value).await?,
            }
        }
    }
    let mut keys = 0;
    for key in from.list_keys().await? {
        keys += u64::from(to.insert_key(&key).await?);
    }
    let mut namespaces: Vec<Namespace> =
        from.stats(now).await?.tiers.into_iter().map(|t| t.namespace).collect();
    namespaces.dedup();
    let mut copied = Copied::default();
    for namespace in &namespaces {
        copy_namespace(from.as_ref(), to.as_ref(), namespace, &mut copied, &mut progress).await?;
    }
    if let Err(e) = to.refresh_statistics().await {
        tracing::warn!(error = %e, "refreshing the target's statistics failed; autovacuum will");
    }
    let mut verified = Vec::with_capacity(namespaces.len());
    for namespace in namespaces {
        let (count, digest) = digest_of(from.as_ref(), &namespace).await?;
        let (theirs, their_digest) = digest_of(to.as_ref(), &namespace).await?;
        if theirs != count {
            return Err(InputError::new(
                "to",
                format!(
                    "verification failed for namespace {namespace}: the target holds {theirs} memories there, the source {count}; it had memories of its own (migrate into an empty database) or was written to during the copy"
                ),
            )
            .into());
        }
        if digest != their_digest {
            return Err(InputError::new(
                "to",
                format!(
                    "verification failed for namespace {namespace}: {count} memories on both sides, but their contents differ (digests {digest} and {their_digest}); the target held other memories under the source's ids, or one side was written to during the copy"
                ),
            )
            .into());
        }
        verified.push(Verified { namespace, memories: count, digest });
    }
    Ok(Migrated { copied, keys, namespaces: verified })
}

async fn copy_namespace(
    from: &dyn MemoryStore,
    to: &dyn MemoryStore,
    namespace: &Namespace,
    copied: &mut Copied,
    progress: &mut impl FnMut(&Namespace, Copied),
) -> Result<(), ServiceError> {
    let mut after: Option<MemoryId> = None;
    loop {
        let page = from.export_page(namespace, after, PAGE, false).await?;
        let Some(last) = page.last().map(|(m, _)| m.id) else { return Ok(()) };
        let ids: Vec<MemoryId> = page.iter().map(|(m, _)| m.id).collect();
        // A record skipped was written by an earlier run, or is a different memory under the
        // same id; the verification at the end tells them apart.
        for written in to.insert_many(&from.records(namespace, &ids).await?).await? {
            if written {
                copied.inserted += 1;
            } else {
                copied.skipped += 1;
            }
        }
        progress(namespace, *copied);
        after = Some(last);
    }
}

/// Count and digest of a namespace in `store`.
async fn digest_of(
    store: &dyn MemoryStore,
    namespace: &Namespace,
) -> Result<(u64, String), ServiceError> {
    let mut hash = Sha256::new();
    let mut count = 0;
    let mut after = None;
    loop {
        let page = store.export_page(namespace, after, PAGE, true).await?;
        let Some(last) = page.last().map(|(m, _)| m.id) else { break };
        for (memory, vectors) in &page {
            hash.update(fingerprint(memory, vectors));
            count += 1;
        }
        after = Some(last);
    }
    let digest = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok((count, digest))
}

/// What must survive a migration of one memory, as bytes.
fn fingerprint(m: &Memory, vectors: &[StoredVector]) -> Vec<u8> {
    let mut out = format!(
        "{}\n{}\n{}\n{}\n{}\n{}\n{:?}\n{:?}\n{}\n{}\n{:?}\n{:?}\n{:?}\n{}\n",
        m.id,
        m.content_hash,
        m.memory_type.as_str(),
        m.timestamp.timestamp_micros(),
        m.occurred_at.timestamp_micros(),
        m.updated_at.timestamp_micros(),
        m.last_accessed_at.map(|t| t.timestamp_micros()),
        m.expires_at.map(|t| t.timestamp_micros()),
        m.access_count,
        m.archived,
        m.superseded_by,
        m.invalid_at.map(|t| t.timestamp_micros()),
        m.source_ids,
        serde_json::Value::Object(m.metadata.clone()),
    )
    .into_bytes();
    for v in vectors {
        out.extend_from_slice(v.model_id.as_bytes());
        // As stores keep vectors now: a PostgreSQL vector written at f32 before they were
        // rounded matches its copy in SQLite, which keeps half precision.
        for x in v.embedding.to_half_precision().as_slice() {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out
}
