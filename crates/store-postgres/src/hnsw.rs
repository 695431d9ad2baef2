//! pgvector HNSW indexes for large namespaces.
//!
//! A `vector` column of mixed dimensions cannot be indexed as a whole, so each embedding model
//! (with its dimension) gets a partial expression index: `(embedding::vector(D))` with cosine
//! ops, `WHERE model_id = '<model>'`. It is built the first time a search meets a namespace of
//! [`HNSW_FROM`] memories or more, concurrently (writes go on) and in the background: until it is
//! valid, searches scan exactly, as they do below that size. Searches through it keep the
//! namespace and filter as conditions and use pgvector's iterative scan, so a filter that rejects
//! most neighbours still fills `k` when it can; [`EF_SEARCH`] candidates per step.

use std::collections::HashMap;
use std::sync::Arc;

use rearview_store::StoreError;

use crate::codec::backend;

/// Namespaces with at least this many memories are searched through the model's HNSW index
/// (`PgConfig::hnsw_from`). Lower than the in-memory path's 20,000: an exact scan in PostgreSQL
/// reads every row of the namespace (measured at 10k memories, 384 dimensions: 17–38 ms, where
/// the in-memory scan takes ~1 ms).
pub const HNSW_FROM: i64 = 2_000;

/// `hnsw.ef_search` for searches through the index (pgvector's default is 40; 1,000 is its
/// most). Measured on 14,220 real multilingual-e5 vectors of the shared benchmarks with 300 real
/// query vectors (`bench/pg_hnsw_recall.py`, BENCHMARKS.md): recall@10 against the exact scan
/// 0.970–0.971 at 200, 0.989–0.996 at 400 (1.1–1.2 ms a query), 1.0 at 800 (2.0 ms), with the
/// index built at [`EF_CONSTRUCTION`]. At 1M synthetic vectors (the scale bench's, hard for any
/// graph: near-copies and little structure) 0.73–0.79 of answers as near as the exact 10th at
/// 400 and 0.89–0.92 at 1,000, where a whole recall took 44–46 ms p50 instead of 25–31 (p99
/// 115–120 instead of 60–81): kept at 400 ([`crate::PgConfig::ef_search`] sets another).
pub const EF_SEARCH: i32 = 400;

/// `ef_construction` of the index (pgvector's default is 64; the in-memory graph's is 128): at
/// 128 the build takes 1.5× as long and every `ef_search` finds more of the exact top 10 (see
/// [`EF_SEARCH`]). An index built by an earlier version keeps its own until it is dropped.
pub const EF_CONSTRUCTION: i32 = 128;

/// `m` of the index: neighbours per node (pgvector's default, as the in-memory graph's).
pub const M: i32 = 16;

/// How densely a new HNSW index is built (`PgConfig::hnsw_graph`): pgvector's `m` and
/// `ef_construction`. Denser graphs find more of the exact nearest at every `ef_search`, for a
/// longer build, a larger index and slower searches (BENCHMARKS.md, "PostgreSQL: recall@10 of
/// the vector index at 1M"). An index keeps what it was built with: a server configured otherwise logs the
/// difference and goes on using it until it is dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Graph {
    /// Neighbours per node: pgvector takes 2 to 100.
    pub m: i32,
    /// Candidates kept while inserting: pgvector takes 4 to 1,000, at least twice `m`.
    pub ef_construction: i32,
}

impl Default for Graph {
    fn default() -> Self {
        Self { m: M, ef_construction: EF_CONSTRUCTION }
    }
}

impl Graph {
    /// `self` when pgvector accepts it, else what is wrong, naming the allowed range.
    pub fn check(self) -> Result<Self, String> {
        if !(2..=100).contains(&self.m) {
            return Err(format!("m {} is outside pgvector's 2 to 100", self.m));
        }
        if !(4..=1000).contains(&self.ef_construction) {
            return Err(format!(
                "ef_construction {} is outside pgvector's 4 to 1000",
                self.ef_construction
            ));
        }
        if self.ef_construction < 2 * self.m {
            return Err(format!(
                "ef_construction {} is less than twice m {} (pgvector requires at least {})",
                self.ef_construction,
                self.m,
                2 * self.m
            ));
        }
        Ok(self)
    }

    /// The graph an index was built with, from its `reloptions` (pgvector's defaults for what
    /// they do not name).
    fn from_reloptions(options: &[String]) -> Self {
        let value = |key: &str, default: i32| {
            options
                .iter()
                .find_map(|o| o.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
                .unwrap_or(default)
        };
        Self { m: value("m", 16), ef_construction: value("ef_construction", 64) }
    }
}

/// What this process knows of one model's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// Valid: search through it.
    Ready,
    /// Being built (by this process or found building): scan exactly meanwhile.
    Building,
    /// The build failed: scan exactly (logged once).
    Failed,
}

/// The most memory a build's graph may take by default (`PgConfig::index_build_memory`).
pub const BUILD_MEMORY: u64 = 1 << 30;

/// What pgvector's graph holds per vector while building, beyond the vector itself, at `m` 16:
/// measured with 384 dimensions, PostgreSQL's default 64 MB held 28,361 vectors (2,366 bytes
/// each, 1,536 of them the vector); rounded up. Neighbour lists grow with `m`.
const GRAPH_BYTES_PER_VECTOR: u64 = 1024;

/// The index states of this process, by index name, and how much memory a build may take.
/// How long a valid index is taken as still there before the catalog is read again: an index
/// dropped under a running server (to rebuild it) is noticed within this, and rebuilt.
const RECHECK: std::time::Duration = std::time::Duration::from_secs(60);

#[derive(Debug)]
pub(crate) struct Indexes {
    /// By index name: what is known, and when it was last read from the catalog.
    states: std::sync::Mutex<HashMap<String, (State, std::time::Instant)>>,
    build_memory: u64,
    graph: Graph,
}

/// The `maintenance_work_mem` (in kB) a build of `rows` vectors of `dims` dimensions wants, at
/// most `cap` bytes, or `None` when the session's `current` (kB) is already as large.
///
/// pgvector builds much faster while the whole graph fits in `maintenance_work_mem` (it says
/// "hnsw graph no longer fits into maintenance_work_mem after N tuples" otherwise): measured on
/// 100,000 random 384-d vectors, 139–181 s at PostgreSQL's default 64 MB against 48–53 s at 1 GB.
/// The setting is raised for the build's own session only, and only as far as its graph needs.
pub(crate) fn build_memory_kb(
    rows: u64,
    dims: usize,
    m: i32,
    current_kb: u64,
    cap: u64,
) -> Option<u64> {
    let links = GRAPH_BYTES_PER_VECTOR * u64::try_from(m.max(1)).unwrap_or(1) / u64::from(M as u32);
    let graph = rows.saturating_mul(dims as u64 * 4 + links);
    // A tenth more for what the estimate misses; at least PostgreSQL's floor of 1 MB.
    let wanted_kb = (graph.saturating_add(graph / 10).min(cap) / 1024).max(1024);
    (wanted_kb > current_kb).then_some(wanted_kb)
}

/// The index name for `model` at `dims` dimensions: a stable FNV-1a digest, as identifiers are
/// short and model ids hold any character.
pub(crate) fn name(model: &str, dims: usize) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in model.bytes().chain(dims.to_le_bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("vectors_hnsw_{hash:016x}")
}

/// `model` as a SQL string literal (the partial index's predicate must be a constant for the
/// planner to match a query to it).
pub(crate) fn literal(model: &str) -> Result<String, StoreError> {
    if model.contains('\0') {
        return Err(StoreError::Corrupt { message: "a model id holds NUL".into() });
    }
    Ok(format!("'{}'", model.replace('\'', "''")))
}

impl Indexes {
    /// No index known yet; builds make `graph` and take at most `build_memory` bytes for it.
    pub(crate) fn new(build_memory: u64, graph: Graph) -> Self {
        Self { states: std::sync::Mutex::default(), build_memory, graph }
    }

    /// Whether searches of `model` at `dims` may use its index now; starts its build when it
    /// is missing (on a connection of its own, in the background).
    pub(crate) async fn ready(
        self: &Arc<Self>,
        pool: &deadpool_postgres::Pool,
        model: &str,
        dims: usize,
    ) -> Result<bool, StoreError> {
        let name = name(model, dims);
        let known = self.states.lock().unwrap_or_else(|p| p.into_inner()).get(&name).copied();
        match known {
            Some((State::Ready, read)) if read.elapsed() < RECHECK => return Ok(true),
            Some((State::Failed, _)) => return Ok(false),
            // Another build may have finished, or the index been dropped: look again below.
            Some((State::Ready | State::Building, _)) | None => {}
        }
        let client = pool.get().await.map_err(|e| StoreError::Unavailable {
            message: format!("connecting to PostgreSQL: {e}"),
        })?;
        let row = client
            .query_opt(
                "SELECT i.indisvalid, coalesce(c.reloptions, '{}'), current_schema() FROM pg_index i \
                 JOIN pg_class c ON c.oid = i.indexrelid \
                 JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE c.relname = $1 AND n.nspname = current_schema()",
                &[&name],
            )
            .await
            .map_err(backend("looking for a vector index"))?;
        let state = match row.as_ref().map(|r| r.try_get::<_, bool>(0)).transpose() {
            Ok(Some(true)) => {
                // Said when the index is first found, not at every look.
                if !matches!(known, Some((State::Ready, _)))
                    && let Some(row) = &row
                {
                    let options: Vec<String> = row.try_get(1).unwrap_or_default();
                    let schema: String = row.try_get(2).unwrap_or_default();
                    self.compare_graph(&format!("{schema}.{name}"), &options);
                }
                State::Ready
            }
            // Invalid: being built concurrently by someone, or a failed build; either way not
            // usable yet. A build of our own is only started when there is none.
            Ok(Some(false)) => State::Building,
            Ok(None) => {
                self.build(pool.clone(), model, dims, name.clone())?;
                State::Building
            }
            Err(e) => return Err(backend("reading a vector index")(e)),
        };
        let now = std::time::Instant::now();
        self.states.lock().unwrap_or_else(|p| p.into_inner()).insert(name, (state, now));
        Ok(state == State::Ready)
    }

    /// Logs an index built otherwise than this server would build it (when this process finds
    /// it): it is used as it is until someone drops it.
    fn compare_graph(&self, name: &str, options: &[String]) {
        let built = Graph::from_reloptions(options);
        if built != self.graph {
            tracing::warn!(
                index = name,
                built_m = built.m,
                built_ef_construction = built.ef_construction,
                configured_m = self.graph.m,
                configured_ef_construction = self.graph.ef_construction,
                "the HNSW vector index was built with other parameters than this server's \
                 (pg_hnsw_m, pg_hnsw_ef_construction); it is used as it is. To rebuild it with \
                 this server's: DROP INDEX CONCURRENTLY {name}; within a minute the next search \
                 starts the build, and searches scan exactly until it is done"
            );
        }
    }

    fn build(
        self: &Arc<Self>,
        pool: deadpool_postgres::Pool,
        model: &str,
        dims: usize,
        name: String,
    ) -> Result<(), StoreError> {
        let sql = format!(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON vectors \
             USING hnsw ((embedding::vector({dims})) vector_cosine_ops) \
             WITH (m = {}, ef_construction = {}) WHERE model_id = {}",
            self.graph.m,
            self.graph.ef_construction,
            literal(model)?
        );
        let indexes = Arc::clone(self);
        let model = model.to_owned();
        let cap = self.build_memory;
        let m = self.graph.m;
        tokio::spawn(async move {
            let started = std::time::Instant::now();
            tracing::info!(
                model,
                index = name,
                "building the HNSW vector index (searches scan exactly meanwhile)"
            );
            let built = match pool.get().await {
                Ok(client) => {
                    let raised = raise_build_memory(&client, &model, dims, m, cap).await;
                    let mut built = client.batch_execute(&sql).await.map_err(|e| e.to_string());
                    let mut reset_failed = false;
                    if raised {
                        // The connection goes back to the pool: its other users get the default.
                        match client.batch_execute("RESET maintenance_work_mem").await {
                            // A parallel build with more memory can fail where the server's
                            // setting would not (a container's small `/dev/shm`): build again.
                            Ok(()) => {
                                if let Err(e) = &built {
                                    tracing::warn!(error = %e, "the HNSW build with more memory failed; building again with the server's setting");
                                    built = rebuild(&client, &name, &sql).await;
                                }
                            }
                            Err(e) => {
                                tracing::warn!(error = %e, "resetting maintenance_work_mem failed; closing that connection");
                                reset_failed = true;
                            }
                        }
                    }
                    // The index serves only searches planned with the namespace's real size.
                    if built.is_ok()
                        && let Err(e) = client.batch_execute(crate::store::ANALYZE).await
                    {
                        tracing::warn!(error = %e, "refreshing the planner statistics failed");
                    }
                    if reset_failed {
                        // Out of the pool, so no later user inherits the raised setting.
                        drop(deadpool_postgres::Object::take(client));
                    }
                    built
                }
                Err(e) => Err(e.to_string()),
            };
            let state = match built {
                Ok(()) => {
                    tracing::info!(
                        model,
                        index = name,
                        seconds = started.elapsed().as_secs_f32(),
                        "HNSW vector index built"
                    );
                    State::Ready
                }
                Err(e) => {
                    tracing::warn!(model, index = name, error = %e, "building the HNSW vector index failed; searches scan exactly");
                    State::Failed
                }
            };
            let now = std::time::Instant::now();
            indexes.states.lock().unwrap_or_else(|p| p.into_inner()).insert(name, (state, now));
        });
        Ok(())
    }
}

/// rearview's HNSW indexes in the current schema, for `rearview doctor`.
pub(crate) async fn inspect(
    client: &tokio_postgres::Client,
) -> Result<Vec<crate::VectorIndex>, StoreError> {
    let rows = client
        .query(
            "SELECT n.nspname || '.' || c.relname, coalesce(pg_get_expr(i.indpred, i.indrelid), ''), \
                    i.indisvalid, coalesce(c.reloptions, '{}') \
             FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = current_schema() AND c.relname LIKE 'vectors\\_hnsw\\_%' \
             ORDER BY c.relname",
            &[],
        )
        .await
        .map_err(backend("listing the vector indexes"))?;
    rows.iter()
        .map(|r| {
            let options: Vec<String> = r.try_get(3)?;
            Ok(crate::VectorIndex {
                name: r.try_get(0)?,
                predicate: r.try_get(1)?,
                valid: r.try_get(2)?,
                graph: Graph::from_reloptions(&options),
            })
        })
        .collect::<Result<_, tokio_postgres::Error>>()
        .map_err(backend("reading a vector index"))
}

/// Drops what a failed concurrent build of `name` left (an invalid index) and runs `sql` again.
async fn rebuild(client: &tokio_postgres::Client, name: &str, sql: &str) -> Result<(), String> {
    let drop = format!("DROP INDEX CONCURRENTLY IF EXISTS {name}");
    client.batch_execute(&drop).await.map_err(|e| e.to_string())?;
    client.batch_execute(sql).await.map_err(|e| e.to_string())
}

/// Raises `maintenance_work_mem` for this session to what building `model`'s graph wants
/// ([`build_memory_kb`]); returns whether it did. A failure only costs speed: logged.
async fn raise_build_memory(
    client: &tokio_postgres::Client,
    model: &str,
    dims: usize,
    m: i32,
    cap: u64,
) -> bool {
    let sizes = client
        .query_one(
            "SELECT (SELECT count(*) FROM vectors WHERE model_id = $1), \
             (SELECT setting::bigint FROM pg_settings WHERE name = 'maintenance_work_mem')",
            &[&model],
        )
        .await
        .and_then(|row| Ok((row.try_get::<_, i64>(0)?, row.try_get::<_, i64>(1)?)));
    let (rows, current_kb) = match sizes {
        Ok(sizes) => sizes,
        Err(e) => {
            tracing::warn!(error = %e, "sizing the HNSW build's memory failed; building with the server's setting");
            return false;
        }
    };
    let Some(kb) = build_memory_kb(rows.max(0) as u64, dims, m, current_kb.max(0) as u64, cap)
    else {
        return false;
    };
    match client.batch_execute(&format!("SET maintenance_work_mem = '{kb}kB'")).await {
        Ok(()) => {
            tracing::info!(
                rows,
                maintenance_work_mem_kb = kb,
                "HNSW build memory raised for its session"
            );
            true
        }
        Err(e) => {
            tracing::warn!(error = %e, "raising maintenance_work_mem failed; building with the server's setting");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_stable_and_literals_quoted() {
        assert_eq!(name("m", 384), name("m", 384));
        assert_ne!(name("m", 384), name("m", 768));
        assert!(name("intfloat/multilingual-e5-small", 384).starts_with("vectors_hnsw_"));
        assert_eq!(literal("it's").unwrap(), "'it''s'");
    }

    #[test]
    fn a_build_asks_for_its_graph_and_no_more_than_the_cap() {
        let default_kb = 64 * 1024;
        // 100,000 vectors of 384 dimensions: ~280 MB, over the default 64 MB.
        let kb = build_memory_kb(100_000, 384, M, default_kb, BUILD_MEMORY).unwrap();
        assert_eq!(kb, 100_000 * (384 * 4 + 1024) * 11 / 10 / 1024);
        // Twice the neighbours, twice their share.
        let dense = build_memory_kb(100_000, 384, 32, default_kb, BUILD_MEMORY).unwrap();
        assert_eq!(dense, 100_000 * (384 * 4 + 2048) * 11 / 10 / 1024);
        // A million: the cap.
        assert_eq!(build_memory_kb(1_000_000, 384, M, default_kb, BUILD_MEMORY), Some(1 << 20));
        // Small builds, or a server already set higher: left alone.
        assert_eq!(build_memory_kb(2_000, 384, M, default_kb, BUILD_MEMORY), None);
        assert_eq!(build_memory_kb(100_000, 384, M, 4 << 20, BUILD_MEMORY), None);
        // Never under PostgreSQL's floor of 1 MB.
        assert_eq!(build_memory_kb(10, 384, M, 0, BUILD_MEMORY), Some(1024));
    }

    #[test]
    fn graphs_pgvector_refuses_are_named() {
        assert_eq!(Graph::default().check(), Ok(Graph { m: 16, ef_construction: 128 }));
        assert!(Graph { m: 1, ef_construction: 64 }.check().unwrap_err().contains("2 to 100"));
        assert!(Graph { m: 16, ef_construction: 2000 }.check().unwrap_err().contains("4 to 1000"));
        let err = Graph { m: 32, ef_construction: 48 }.check().unwrap_err();
        assert!(err.contains("at least 64"), "{err}");
    }

    #[test]
    fn an_index_tells_how_it_was_built() {
        let options = ["m=32".to_owned(), "ef_construction=256".to_owned()];
        assert_eq!(Graph::from_reloptions(&options), Graph { m: 32, ef_construction: 256 });
        // What it does not name is pgvector's default.
        assert_eq!(Graph::from_reloptions(&[]), Graph { m: 16, ef_construction: 64 });
        let options = ["ef_construction=128".to_owned()];
        assert_eq!(Graph::from_reloptions(&options), Graph::default());
    }
}
