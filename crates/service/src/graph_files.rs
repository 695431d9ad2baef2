//! The files of a saved graph: writing a graph with its `.json`, finding the saved ones, and
//! the graphs loaded from them. What a server does with them at start-up is `graphs.rs`; the
//! layout of the files is described there.

use std::path::{Path, PathBuf};

use rearview_core::Namespace;
use rearview_index::{AnnIndex, VectorIndex};
use serde_json::json;

use crate::saved::{self, LogPoint};

/// What a `.json` file says about its graph.
pub(crate) struct Saved {
    /// The stem of the graph's file pair.
    pub files: String,
    pub namespace: Namespace,
    pub position: u64,
    /// The memory id of the change at `position` (none at position 0).
    pub anchor: Option<String>,
}

/// The `.json` naming `files`.
fn meta_json(
    namespace: &Namespace,
    model: &str,
    files: &str,
    graph: (usize, usize),
    at: &LogPoint,
) -> serde_json::Value {
    json!({
        "format": 3, "namespace": namespace.as_str(), "model": model, "files": files,
        "dimensions": graph.0, "vectors": graph.1, "position": at.position, "anchor": at.anchor,
    })
}

/// Writes `graph` and its `.json` (namespace, model, dimensions, position, anchor, files);
/// returns the name of the file pair (`saved::save_files`).
pub(crate) fn save(
    dir: &Path,
    namespace: &Namespace,
    model: &str,
    graph: &AnnIndex,
    at: &LogPoint,
) -> Result<String, String> {
    saved::save_files(
        dir,
        &saved::stem(namespace, model),
        // `usearch`: the graph file of format 2 (vectors included), deleted with its pair.
        &["graph", "ids", "usearch"],
        |dir, files| graph.save(dir, files).map_err(|e| e.to_string()),
        |files| meta_json(namespace, model, files, (graph.dimensions(), graph.len()), at),
    )
}

/// The saved graphs of `model` with `dims` dimensions in `dir`.
pub(crate) fn saved(dir: &Path, model: &str, dims: usize) -> Vec<Saved> {
    let mut out = Vec::new();
    for meta in saved::metas(dir) {
        let matches = meta["format"] == 3
            && meta["model"] == model
            && meta["dimensions"].as_u64() == Some(dims as u64);
        let namespace = meta["namespace"].as_str().and_then(|n| n.parse().ok());
        if let (true, Some(namespace), Some(position), Some(files)) =
            (matches, namespace, meta["position"].as_u64(), meta["files"].as_str())
        {
            let anchor = meta["anchor"].as_str().map(str::to_owned);
            out.push(Saved { files: files.to_owned(), namespace, position, anchor });
        }
    }
    out
}

/// A graph loaded from its files.
pub(crate) struct RestoredGraph {
    pub namespace: Namespace,
    pub graph: AnnIndex,
    /// The change-log position it was saved at.
    pub position: u64,
    /// Nothing was replayed onto it: it equals its files.
    pub clean: bool,
    /// The pair of files it was loaded from.
    pub files: String,
}

/// Graphs loaded from files.
pub(crate) type Restored = Vec<RestoredGraph>;

/// Where the CLI keeps the graphs of the SQLite database at `db`: `<db>.graphs`.
pub fn graph_dir_for(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".graphs");
    PathBuf::from(name)
}

/// Saves `graph` of `model` in `namespace`, logging a failure (a save is an optimisation: a
/// missing file only means a rebuild at the next start).
pub(crate) fn save_logged(
    dir: &Path,
    namespace: &Namespace,
    model: &str,
    graph: &AnnIndex,
    at: &LogPoint,
) -> Option<String> {
    let started = std::time::Instant::now();
    match save(dir, namespace, model, graph, at) {
        Ok(files) => {
            tracing::info!(
                namespace = %namespace, model, vectors = graph.len(), position = at.position,
                seconds = started.elapsed().as_secs_f32(), "vector graph saved"
            );
            Some(files)
        }
        Err(e) => {
            tracing::warn!(namespace = %namespace, model, error = %e, "saving the vector graph failed");
            None
        }
    }
}
