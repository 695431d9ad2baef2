//! Saved keyword indexes: a large namespace's BM25 index survives a restart.
//!
//! Rebuilding the in-memory keyword index of a million memories reads and splits 30 million
//! stored terms, most of a start-up. Like graphs (`graphs.rs`, with which they share the files'
//! life cycle, `saved.rs`), the keyword index of each namespace past the exact-scan limit is
//! saved when a server stops and after each sweep, only if it changed, as
//! `{stem}.{random}.keywords` (`TextIndex::write_snapshot`: terms, postings, lengths and facets,
//! checksummed) with a `.json` naming it and the change-log point it reflects. At start-up a
//! saved index on this store's log is loaded, the changes committed since are replayed onto it,
//! and only the other namespaces are read from the store. One that cannot be used (another
//! history, a log pruned past it, a damaged file) is rebuilt from the store as before.

use std::io::BufWriter;
use std::path::Path;

use rearview_core::{MemoryId, Namespace};
use rearview_index::TextIndex;
use serde_json::json;

use crate::saved::{self, LogPoint, SaveState};
use crate::{MemoryService, ServiceError};

/// What a keyword index's stem is derived from, with its namespace: no model id contains NUL,
/// so it never names a graph's.
const KIND: &str = "\0keywords";
/// The extension of a saved keyword index.
const EXTENSION: &str = "keywords";
/// The `.json` format of a saved keyword index.
const FORMAT: u64 = 1;

/// A keyword index loaded from its files and brought up to date.
pub(crate) struct RestoredKeywords {
    pub namespace: Namespace,
    pub index: TextIndex,
    /// The file pair it was loaded from.
    pub files: String,
    /// Nothing was replayed onto it: it equals its files.
    pub clean: bool,
}

/// Saves `text`, `namespace`'s keyword index, if it changed since its last save, or else moves
/// its save on to `at`; returns whether it wrote one. A failure is logged: a save is an
/// optimisation, a missing file only means a rebuild at the next start.
pub(crate) fn save_if_changed(
    dir: &Path,
    namespace: &Namespace,
    text: &TextIndex,
    save: &SaveState,
    at: &LogPoint,
) -> bool {
    let stem = saved::stem(namespace, KIND);
    if !save.claim_unsaved() {
        if let Some(files) = save.clean_files()
            && let Err(e) = saved::touch(dir, &stem, &files, at)
        {
            tracing::warn!(namespace = %namespace, error = %e, "moving a saved keyword index on failed");
        }
        return false;
    }
    let started = std::time::Instant::now();
    let written = saved::save_files(
        dir,
        &stem,
        &[EXTENSION],
        |dir, files| write(dir, files, text),
        |files| {
            json!({
                "format": FORMAT, "kind": "keywords", "namespace": namespace.as_str(),
                "files": files, "documents": text.len(), "position": at.position,
                "anchor": at.anchor,
            })
        },
    );
    match written {
        Ok(files) => {
            tracing::info!(
                namespace = %namespace, documents = text.len(), position = at.position,
                seconds = started.elapsed().as_secs_f32(), "keyword index saved"
            );
            save.set_files(files);
            true
        }
        Err(e) => {
            tracing::warn!(namespace = %namespace, error = %e, "saving the keyword index failed");
            save.save_failed();
            false
        }
    }
}

/// Writes `{files}.keywords` through a temporary file and a rename.
fn write(dir: &Path, files: &str, text: &TextIndex) -> Result<(), String> {
    let path = dir.join(format!("{files}.{EXTENSION}"));
    let tmp = dir.join(format!("{files}.{EXTENSION}.tmp"));
    let written = std::fs::File::create(&tmp)
        .and_then(|file| text.write_snapshot(BufWriter::with_capacity(1 << 20, file)))
        .and_then(|()| std::fs::rename(&tmp, &path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("writing {}: {e}", path.display())
    })
}

/// A saved keyword index's `.json`, read.
struct Saved {
    namespace: Namespace,
    files: String,
    at: LogPoint,
}

fn saved(dir: &Path) -> Vec<Saved> {
    let mut out = Vec::new();
    for meta in saved::metas(dir) {
        if meta["kind"] != "keywords" || meta["format"].as_u64() != Some(FORMAT) {
            continue;
        }
        let namespace = meta["namespace"].as_str().and_then(|n| n.parse().ok());
        if let (Some(namespace), Some(position), Some(files)) =
            (namespace, meta["position"].as_u64(), meta["files"].as_str())
        {
            let anchor = meta["anchor"].as_str().map(str::to_owned);
            let at = LogPoint { position, anchor };
            out.push(Saved { namespace, files: files.to_owned(), at });
        }
    }
    out
}

impl MemoryService {
    /// Loads the saved keyword indexes that belong to this store's history and brings them up
    /// to date from the change log (none without a directory for saved indexes).
    pub(crate) async fn restore_keywords(&self) -> Result<Vec<RestoredKeywords>, ServiceError> {
        let Some(dir) = self.config.graph_dir.clone() else { return Ok(Vec::new()) };
        let mut restored = Vec::new();
        let mut points = Vec::new();
        for meta in saved(&dir) {
            if !self.is_on_log(&meta.at).await? {
                tracing::warn!(
                    namespace = %meta.namespace, position = meta.at.position,
                    "saved keyword index is from another database or an earlier state of this one; rebuilding it"
                );
                continue;
            }
            let started = std::time::Instant::now();
            let path = dir.join(format!("{}.{EXTENSION}", meta.files));
            let loaded = tokio::task::spawn_blocking(move || {
                let file = std::fs::File::open(&path).map_err(|e| e.to_string())?;
                TextIndex::read_snapshot(file).map_err(|e| e.to_string())
            })
            .await
            .map_err(|e| ServiceError::Unavailable(format!("keyword index load task: {e}")))?;
            match loaded {
                Ok(index) => {
                    tracing::info!(
                        namespace = %meta.namespace, documents = index.len(),
                        seconds = started.elapsed().as_secs_f32(), "saved keyword index loaded"
                    );
                    points.push((meta.namespace.clone(), meta.at.position));
                    let (namespace, files) = (meta.namespace, meta.files);
                    restored.push(RestoredKeywords { namespace, index, files, clean: true });
                }
                Err(e) => tracing::warn!(
                    namespace = %meta.namespace, error = %e,
                    "saved keyword index unusable; rebuilding it from the store"
                ),
            }
        }
        let Some(mut changed) = self.changed_since(&points).await? else {
            tracing::warn!(
                "the change log no longer reaches the saved keyword indexes; rebuilding"
            );
            return Ok(Vec::new());
        };
        for r in &mut restored {
            let Some(ids) = changed.remove(&r.namespace) else { continue };
            r.clean = false;
            let ids: Vec<MemoryId> = ids.into_iter().collect();
            let mut records = self.records_by_id(&r.namespace, &ids).await?;
            for id in ids {
                match records.remove(&id) {
                    Some(record) => r.index.upsert(id, record.memory.facets(), &record.terms),
                    None => {
                        r.index.remove(id);
                    }
                }
            }
        }
        Ok(restored)
    }
}
