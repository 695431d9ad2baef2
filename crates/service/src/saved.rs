//! Saved indexes: what graphs (`graphs.rs`) and keyword indexes (`keywords.rs`) share.
//!
//! A large namespace's in-memory indexes are saved next to the SQLite file (`<db>.graphs/`) so a
//! restart loads them instead of rebuilding them from the store. Each saved index is a `.json`
//! (what it is, which files hold it, and the change-log point it reflects) plus files of its own,
//! `{stem}.{random}.{extension}`, written first; the `.json` is renamed into place last, so a
//! save is complete once its `.json` names its files, and two processes saving at once never mix
//! their files. At start-up a saved index whose point is on this store's change log is loaded and
//! the changes committed since are replayed onto it.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use rearview_core::{MemoryId, Namespace};
use rearview_store::MemoryRecord;
use sha2::{Digest, Sha256};

use crate::{MemoryService, ServiceError};

/// Where in the change log a save was taken: the position and its change's memory id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LogPoint {
    pub position: u64,
    pub anchor: Option<String>,
}

/// How many indexes [`MemoryService::save_indexes`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SavedIndexes {
    /// Vector graphs (one per namespace and model).
    pub graphs: usize,
    /// Keyword indexes (one per namespace).
    pub keywords: usize,
}

/// Whether an in-memory index still equals its saved files, and which files those are.
#[derive(Debug, Default)]
pub(crate) struct SaveState {
    /// The index is as last saved or loaded; any change clears it.
    saved: AtomicBool,
    /// The files the index was last saved to or loaded from.
    files: Mutex<Option<String>>,
}

impl SaveState {
    /// The state of an index just loaded from `files`; `clean` if nothing was replayed onto it.
    pub(crate) fn loaded(files: String, clean: bool) -> Self {
        Self { saved: AtomicBool::new(clean), files: Mutex::new(Some(files)) }
    }

    /// The index changed.
    pub(crate) fn changed(&mut self) {
        *self.saved.get_mut() = false;
    }

    /// The files the index equals, if it is unchanged since it was saved or loaded.
    pub(crate) fn clean_files(&self) -> Option<String> {
        if !self.saved.load(Ordering::SeqCst) {
            return None;
        }
        self.files.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether the index changed since its last save; marks it saved (a failed save calls
    /// [`SaveState::save_failed`]).
    pub(crate) fn claim_unsaved(&self) -> bool {
        !self.saved.swap(true, Ordering::SeqCst)
    }

    /// Notes the files the index was just saved to.
    pub(crate) fn set_files(&self, files: String) {
        *self.files.lock().unwrap_or_else(|p| p.into_inner()) = Some(files);
    }

    /// The save claimed by [`SaveState::claim_unsaved`] failed.
    pub(crate) fn save_failed(&self) {
        self.saved.store(false, Ordering::SeqCst);
    }
}

/// The file stem of `namespace`'s index of `kind` (a model id, for graphs).
pub(crate) fn stem(namespace: &Namespace, kind: &str) -> String {
    let digest = Sha256::digest(format!("{}\n{kind}", namespace.as_str()));
    digest.iter().take(12).map(|b| format!("{b:02x}")).collect()
}

/// Writes `meta` to `path` through a temporary file and a rename.
fn write_meta(
    dir: &Path,
    files: &str,
    path: &Path,
    meta: &serde_json::Value,
) -> Result<(), String> {
    let tmp = dir.join(format!("{files}.json.tmp"));
    std::fs::write(&tmp, meta.to_string())
        .map_err(|e| format!("writing {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("writing {}: {e}", path.display()))
}

pub(crate) fn read_meta(path: &Path) -> Option<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Every `.json` in `dir`, read.
pub(crate) fn metas(dir: &Path) -> Vec<serde_json::Value> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter_map(|p| read_meta(&p))
        .collect()
}

/// Saves an index as `{stem}.{random}.{extension}` files (`write` writes them, given the
/// directory and the `{stem}.{random}` name) and then its `.json` (`meta`, given that name);
/// deletes the files the `.json` named before. Returns the name.
pub(crate) fn save_files(
    dir: &Path,
    stem: &str,
    extensions: &[&str],
    write: impl FnOnce(&Path, &str) -> Result<(), String>,
    meta: impl FnOnce(&str) -> serde_json::Value,
) -> Result<String, String> {
    if !dir.exists() {
        // Saved indexes hold what the memories say: owner only, like the database.
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    let mut nonce = [0u8; 6];
    getrandom::fill(&mut nonce).map_err(|e| format!("random file name: {e}"))?;
    let files = format!("{stem}.{}", nonce.iter().map(|b| format!("{b:02x}")).collect::<String>());
    write(dir, &files)?;
    let path = dir.join(format!("{stem}.json"));
    let before = read_meta(&path).and_then(|m| m["files"].as_str().map(str::to_owned));
    write_meta(dir, &files, &path, &meta(&files))?;
    if let Some(old) = before.filter(|old| *old != files) {
        for extension in extensions {
            let _ = std::fs::remove_file(dir.join(format!("{old}.{extension}")));
        }
    }
    Ok(files)
}

/// Moves the `.json` of an unchanged index on to `at`, if it still names `files` (the ones this
/// process saved or loaded, equal to its index). Another process's newer save is left as it is:
/// those files reflect only its own position.
pub(crate) fn touch(dir: &Path, stem: &str, files: &str, at: &LogPoint) -> Result<bool, String> {
    let path = dir.join(format!("{stem}.json"));
    let Some(mut meta) = read_meta(&path) else { return Ok(false) };
    if meta["files"] != files || meta["position"].as_u64() == Some(at.position) {
        return Ok(false);
    }
    meta["position"] = at.position.into();
    meta["anchor"] = at.anchor.clone().into();
    write_meta(dir, files, &path, &meta)?;
    Ok(true)
}

impl MemoryService {
    /// Where the change log stands at `position`: its change's memory id.
    pub(crate) async fn log_point(&self, position: u64) -> Result<LogPoint, ServiceError> {
        if position == 0 {
            return Ok(LogPoint { position, anchor: None });
        }
        let page = self.store.changes_since(position - 1, 1).await?;
        let anchor = page
            .changes
            .first()
            .filter(|c| page.complete && c.position == position)
            .map(|c| c.id.to_string());
        Ok(LogPoint { position, anchor })
    }

    /// Whether `at` is a point of this store's change log (not of another database's, nor of
    /// this one's future, as after a backup was restored).
    pub(crate) async fn is_on_log(&self, at: &LogPoint) -> Result<bool, ServiceError> {
        if at.anchor.is_none() {
            // Saved at position 0 (nothing logged yet) or where the log had been pruned: only
            // position 0 can be told apart from another history, by the log being empty there.
            return Ok(at.position == 0 && self.store.change_position().await? == 0);
        }
        Ok(self.log_point(at.position).await? == *at)
    }

    /// The stored records of `ids` in `namespace`, by id (a deleted memory has none).
    pub(crate) async fn records_by_id(
        &self,
        namespace: &Namespace,
        ids: &[MemoryId],
    ) -> Result<HashMap<MemoryId, MemoryRecord>, ServiceError> {
        let records = self.store.records(namespace, ids).await?;
        Ok(records.into_iter().map(|r| (r.memory.id, r)).collect())
    }

    /// The memories changed in each of `saved`'s namespaces after its position there (the
    /// namespace, the position its saved index reflects); `None` if the log no longer reaches
    /// back that far.
    pub(crate) async fn changed_since(
        &self,
        saved: &[(Namespace, u64)],
    ) -> Result<Option<HashMap<Namespace, HashSet<MemoryId>>>, ServiceError> {
        let mut changed: HashMap<Namespace, HashSet<MemoryId>> = HashMap::new();
        let Some(mut position) = saved.iter().map(|(_, p)| *p).min() else {
            return Ok(Some(changed));
        };
        loop {
            let page = self.store.changes_since(position, 5_000).await?;
            if !page.complete {
                return Ok(None);
            }
            let Some(last) = page.changes.last().map(|c| c.position) else { break };
            for change in page.changes {
                let newer =
                    saved.iter().any(|(ns, p)| *ns == change.namespace && change.position > *p);
                if newer {
                    changed.entry(change.namespace).or_default().insert(change.id);
                }
            }
            position = last;
        }
        Ok(Some(changed))
    }

    /// Saves every index changed since its last save (graphs, and the keyword indexes of
    /// namespaces past the exact-scan limit), with the change-log position the indexes have
    /// caught up to, and moves the saves of unchanged ones on to it. Returns how many were
    /// written. Does nothing without a directory for them (`ServiceConfig::graph_dir`).
    pub async fn save_indexes(&self) -> Result<SavedIndexes, ServiceError> {
        let Some(dir) = self.config.graph_dir.clone() else { return Ok(SavedIndexes::default()) };
        // Catch up first, so the saved position is the head of the log (servers follow every
        // 250 ms anyway; embedded uses may never have), then hold the position while saving, so
        // it cannot move past what the indexes reflect.
        self.follow_changes().await?;
        let position = self.followed.lock().await;
        let at = self.log_point(*position).await?;
        let saver = self.indexes.saver(dir, at);
        let written = tokio::task::spawn_blocking(saver)
            .await
            .map_err(|e| ServiceError::Unavailable(format!("index save task: {e}")))?;
        Ok(written)
    }
}
