//! The PostgreSQL + pgvector backend of rearview: several rearview servers on one database.
//!
//! [`PgStore`] implements [`MemoryStore`](rearview_store::MemoryStore) and passes the same contract suite as the SQLite
//! backend. Rows, keyword entries (`keyword.rs`: each memory's terms as rearview's tokenizer
//! produced them, what servers load their keyword indexes from and one-shot commands score by
//! BM25 in SQL) and vectors (pgvector's `vector`) are written in one transaction. Every
//! write that other servers must see appends to the change log in the same transaction (by
//! trigger, `migrations/0001_init.sql`) while holding the schema's write lock, a
//! transaction-level advisory lock, so log positions follow commit order; access counts are
//! plain atomic increments outside that lock. Migrations are versioned in `rearview_schema`
//! and applied under a session advisory lock, so servers starting together migrate once.

mod changes;
mod codec;
mod filter;
pub mod hnsw;
mod insert;
mod keys;
mod keyword;
mod loading;
mod maintenance;
mod search;
mod stats;
mod store;
mod tls;

use std::collections::HashMap;
use std::sync::Mutex;

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod};
use rearview_core::Namespace;
use rearview_store::StoreError;
use tokio_postgres::types::ToSql;

use crate::codec::{backend, with_causes};

/// The newest schema version this binary knows: the last migration's, so adding a migration
/// cannot leave it behind (0004 once did, and every second connection refused the schema).
pub const SCHEMA_VERSION: i64 = MIGRATIONS[MIGRATIONS.len() - 1].0;

const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("../migrations/0001_init.sql")),
    (2, include_str!("../migrations/0002_covering_postings.sql")),
    (3, include_str!("../migrations/0003_statement_counts.sql")),
    (4, include_str!("../migrations/0004_links.sql")),
    (5, include_str!("../migrations/0005_keywords_without_postings.sql")),
];

/// How to reach the database.
#[derive(Debug, Clone)]
pub struct PgConfig {
    /// A `postgres://` or `postgresql://` URL (libpq's key=value form works too).
    pub url: String,
    /// The password when the URL has none (e.g. from `PGPASSWORD`).
    pub password: Option<String>,
    /// The schema to keep rearview's tables in (created if missing); `None`: the server's
    /// default search path (normally `public`).
    pub schema: Option<String>,
    /// Connections kept open at most.
    pub pool_size: usize,
    /// Namespaces with at least this many memories are searched through an HNSW index
    /// ([`hnsw::HNSW_FROM`] by default).
    pub hnsw_from: i64,
    /// `hnsw.ef_search` of searches through an HNSW index: candidates kept per step, more for
    /// a larger share of the exact nearest at some latency ([`hnsw::EF_SEARCH`] by default;
    /// pgvector takes 1 to 1,000).
    pub ef_search: i32,
    /// The most memory (bytes) a build of an HNSW index may take for its graph: its session's
    /// `maintenance_work_mem` is raised to what the graph needs, up to this, when the server's
    /// setting is lower ([`hnsw::BUILD_MEMORY`], 1 GiB, by default).
    pub index_build_memory: u64,
    /// How densely a new HNSW index is built ([`hnsw::Graph`]; `m` 16, `ef_construction` 128
    /// by default). Checked at connect: a graph pgvector would refuse is an error.
    pub hnsw_graph: hnsw::Graph,
}

impl PgConfig {
    /// `url` with the default pool (16 connections) and schema.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            password: None,
            schema: None,
            pool_size: 16,
            hnsw_from: hnsw::HNSW_FROM,
            ef_search: hnsw::EF_SEARCH,
            index_build_memory: hnsw::BUILD_MEMORY,
            hnsw_graph: hnsw::Graph::default(),
        }
    }
}

/// `pg` set to work in `config.schema` (and `public`, where pgvector's type lives), if any.
fn in_schema(
    mut pg: tokio_postgres::Config,
    config: &PgConfig,
) -> Result<tokio_postgres::Config, StoreError> {
    if let Some(schema) = &config.schema {
        valid_schema(schema)?;
        pg.options(format!("-c search_path={schema},public"));
    }
    Ok(pg)
}

/// Whether `location` names a PostgreSQL database rather than a SQLite file.
pub fn is_postgres_url(location: &str) -> bool {
    let lower = location.trim_start().to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

/// `url` with any password replaced by `***`, for logs and `doctor` output. The user and
/// password run to the first `@` and the parameters start at the first `?` after it, as
/// tokio-postgres reads a URL (so a `?` or `/` in the password stays hidden).
pub fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else { return url.to_owned() };
    let (head, rest) = url.split_at(scheme_end);
    let (userinfo, rest) = match rest.find('@') {
        Some(at) => (Some(&rest[..at]), &rest[at + 1..]),
        None => (None, rest),
    };
    let (hostpath, query) = match rest.split_once('?') {
        Some((hostpath, query)) => (hostpath, Some(query)),
        None => (rest, None),
    };
    let mut out = head.to_owned();
    if let Some(userinfo) = userinfo {
        match userinfo.split_once(':') {
            Some((user, _)) => out.push_str(&format!("{user}:***@")),
            None => out.push_str(&format!("{userinfo}@")),
        }
    }
    out.push_str(hostpath);
    if let Some(query) = query {
        let query: Vec<String> = query
            .split('&')
            .map(|kv| match kv.split_once('=') {
                Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                _ => kv.to_owned(),
            })
            .collect();
        out.push('?');
        out.push_str(&query.join("&"));
    }
    out
}

/// What [`PgStore::inspect`] found, without changing anything.
#[derive(Debug, Clone)]
pub struct Inspection {
    /// `server_version`.
    pub server_version: String,
    /// The installed pgvector version, if the extension exists in the database.
    pub pgvector: Option<String>,
    /// rearview's schema version there (0: not created yet).
    pub schema_version: i64,
    /// Memories stored (0 before the schema exists).
    pub memories: i64,
    /// rearview's HNSW vector indexes in the schema (`hnsw.rs`), by name.
    pub vector_indexes: Vec<VectorIndex>,
}

/// One HNSW vector index, as [`PgStore::inspect`] found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorIndex {
    /// Schema-qualified name, as `DROP INDEX` takes it.
    pub name: String,
    /// Which vectors it holds (its predicate, e.g. `(model_id = 'm'::text)`).
    pub predicate: String,
    /// Usable: built and valid (invalid: being built, or a build that failed).
    pub valid: bool,
    /// The graph it was built with.
    pub graph: hnsw::Graph,
}

/// The PostgreSQL store. Cheap to share (`Arc`); every method takes a pooled connection.
pub struct PgStore {
    pool: Pool,
    /// Namespace name → id; ids never change once assigned.
    namespace_ids: Mutex<HashMap<String, i64>>,
    /// Where it is, password redacted.
    location: String,
    /// The HNSW indexes this process knows of (`hnsw.rs`).
    hnsw: std::sync::Arc<hnsw::Indexes>,
    /// [`PgConfig::hnsw_from`].
    pub(crate) hnsw_from: i64,
    /// [`PgConfig::ef_search`], within pgvector's range.
    pub(crate) ef_search: i32,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore").field("location", &self.location).finish()
    }
}

impl PgStore {
    /// Connects, creates the schema if asked, and migrates it to [`SCHEMA_VERSION`].
    pub async fn connect(config: &PgConfig) -> Result<Self, StoreError> {
        let graph = config.hnsw_graph.check().map_err(|reason| StoreError::Backend {
            context: format!("PgConfig::hnsw_graph: {reason}"),
            source: reason.into(),
        })?;
        let (pg, tls) = client_config(config)?;
        let mut pg = in_schema(pg, config)?;
        if pg.get_application_name().is_none() {
            pg.application_name("rearview");
        }
        let recycling = ManagerConfig { recycling_method: RecyclingMethod::Fast };
        let manager = match tls.mode {
            tls::Mode::Disable => Manager::from_config(pg, tokio_postgres::NoTls, recycling),
            _ => Manager::from_config(pg, tls.connector()?, recycling),
        };
        let pool =
            Pool::builder(manager).max_size(config.pool_size.max(1)).build().map_err(|e| {
                StoreError::Unavailable { message: format!("creating the connection pool: {e}") }
            })?;
        let store = Self {
            pool,
            namespace_ids: Mutex::new(HashMap::new()),
            location: format!("postgres {}", redact_url(&config.url)),
            hnsw: std::sync::Arc::new(hnsw::Indexes::new(config.index_build_memory, graph)),
            hnsw_from: config.hnsw_from,
            ef_search: config.ef_search.clamp(1, 1000),
        };
        store.migrate(config.schema.as_deref()).await?;
        Ok(store)
    }

    /// Connects once and reads the server version, pgvector, rearview's schema version and the
    /// number of memories, writing nothing (no migration): for `rearview doctor`.
    pub async fn inspect(config: &PgConfig) -> Result<Inspection, StoreError> {
        let (pg, tls) = client_config(config)?;
        let pg = in_schema(pg, config)?;
        let failed = |e: tokio_postgres::Error| StoreError::Unavailable {
            message: format!("connecting to {}: {}", redact_url(&config.url), with_causes(&e)),
        };
        let (client, task) = match tls.mode {
            tls::Mode::Disable => {
                let (client, connection) =
                    pg.connect(tokio_postgres::NoTls).await.map_err(failed)?;
                (client, tokio::spawn(connection))
            }
            _ => {
                let (client, connection) = pg.connect(tls.connector()?).await.map_err(failed)?;
                (client, tokio::spawn(connection))
            }
        };
        let found = async {
            let version: String = client
                .query_one("SHOW server_version", &[])
                .await
                .and_then(|r| r.try_get(0))
                .map_err(backend("reading the server version"))?;
            let pgvector: Option<String> = client
                .query_opt("SELECT extversion FROM pg_extension WHERE extname = 'vector'", &[])
                .await
                .map_err(backend("reading the pgvector version"))?
                .map(|r| r.try_get(0))
                .transpose()
                .map_err(backend("reading the pgvector version"))?;
            let exists: bool = client
                .query_one("SELECT to_regclass('rearview_schema') IS NOT NULL", &[])
                .await
                .and_then(|r| r.try_get(0))
                .map_err(backend("looking for rearview's schema"))?;
            let (schema_version, memories) = if exists {
                let v: i64 = client
                    .query_one("SELECT coalesce(max(version), 0) FROM rearview_schema", &[])
                    .await
                    .and_then(|r| r.try_get(0))
                    .map_err(backend("reading the schema version"))?;
                let n: i64 = client
                    .query_one("SELECT count(*) FROM memories", &[])
                    .await
                    .and_then(|r| r.try_get(0))
                    .map_err(backend("counting memories"))?;
                (v, n)
            } else {
                (0, 0)
            };
            let vector_indexes = if exists { hnsw::inspect(&client).await? } else { Vec::new() };
            Ok(Inspection {
                server_version: version,
                pgvector,
                schema_version,
                memories,
                vector_indexes,
            })
        }
        .await;
        drop(client);
        task.abort();
        found
    }

    /// Whether the HNSW index of `model` at `dims` is built and valid, starting its build if
    /// none exists (`hnsw.rs`): for benchmarks and operators that want to wait for it.
    pub async fn vector_index_ready(&self, model: &str, dims: usize) -> Result<bool, StoreError> {
        self.hnsw.ready(&self.pool, model, dims).await
    }

    /// A pooled connection.
    pub(crate) async fn client(&self) -> Result<Object, StoreError> {
        self.pool.get().await.map_err(|e| StoreError::Unavailable {
            message: format!("connecting to PostgreSQL at {}: {}", self.location, with_causes(&e)),
        })
    }

    async fn migrate(&self, schema: Option<&str>) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        if let Some(schema) = schema {
            client
                .batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {schema}"))
                .await
                .map_err(backend(format!("creating schema {schema}")))?;
        }
        // Servers starting together queue here; each applies what is still missing.
        client
            .batch_execute(
                "SELECT pg_advisory_lock(hashtext(current_schema() || '/migrations')); \
                 CREATE TABLE IF NOT EXISTS rearview_schema (version BIGINT NOT NULL)",
            )
            .await
            .map_err(backend("locking the schema for migration"))?;
        let result = self.apply_migrations(&mut client).await;
        client
            .batch_execute("SELECT pg_advisory_unlock(hashtext(current_schema() || '/migrations'))")
            .await
            .map_err(backend("unlocking the schema after migration"))?;
        result
    }

    async fn apply_migrations(&self, client: &mut Object) -> Result<(), StoreError> {
        let found: i64 = client
            .query_one("SELECT coalesce(max(version), 0) FROM rearview_schema", &[])
            .await
            .and_then(|r| r.try_get(0))
            .map_err(backend("reading the schema version"))?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::SchemaTooNew { found, supported: SCHEMA_VERSION });
        }
        for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > found) {
            let tx = client.transaction().await.map_err(backend("starting a migration"))?;
            tx.batch_execute(sql).await.map_err(backend(format!("migration {version}")))?;
            tx.execute("INSERT INTO rearview_schema (version) VALUES ($1)", &[version])
                .await
                .map_err(backend("recording the schema version"))?;
            tx.commit().await.map_err(backend(format!("committing migration {version}")))?;
            tracing::info!(version, "PostgreSQL schema migrated");
        }
        Ok(())
    }

    /// The id of `namespace`, if it has one.
    pub(crate) async fn namespace_id(
        &self,
        client: &tokio_postgres::Client,
        namespace: &Namespace,
    ) -> Result<Option<i64>, StoreError> {
        if let Some(id) = self.cached_id(namespace) {
            return Ok(Some(id));
        }
        let row = client
            .query_opt("SELECT id FROM namespaces WHERE name = $1", &[&namespace.as_str()])
            .await
            .map_err(backend("reading a namespace"))?;
        let id: Option<i64> =
            row.map(|r| r.try_get(0)).transpose().map_err(backend("reading a namespace"))?;
        if let Some(id) = id {
            self.cache_id(namespace, id);
        }
        Ok(id)
    }

    /// The id of `namespace` read inside the write transaction `tx`, if it has one.
    pub(crate) async fn namespace_id_in(
        &self,
        tx: &tokio_postgres::Transaction<'_>,
        namespace: &Namespace,
    ) -> Result<Option<i64>, StoreError> {
        if let Some(id) = self.cached_id(namespace) {
            return Ok(Some(id));
        }
        let row = tx
            .query_opt("SELECT id FROM namespaces WHERE name = $1", &[&namespace.as_str()])
            .await
            .map_err(backend("reading a namespace"))?;
        row.map(|r| r.try_get(0)).transpose().map_err(backend("reading a namespace"))
    }

    /// The id of `namespace`, created if new (inside the write transaction `tx`).
    pub(crate) async fn ensure_namespace(
        &self,
        tx: &tokio_postgres::Transaction<'_>,
        namespace: &Namespace,
    ) -> Result<i64, StoreError> {
        if let Some(id) = self.cached_id(namespace) {
            return Ok(id);
        }
        let id: i64 = tx
            .query_one(
                "WITH added AS (INSERT INTO namespaces (name) VALUES ($1) \
                   ON CONFLICT (name) DO NOTHING RETURNING id) \
                 SELECT id FROM added UNION ALL SELECT id FROM namespaces WHERE name = $1",
                &[&namespace.as_str()],
            )
            .await
            .and_then(|r| r.try_get(0))
            .map_err(backend("creating a namespace"))?;
        // Not cached here: the transaction may still roll back (reads cache committed ids).
        Ok(id)
    }

    fn cached_id(&self, namespace: &Namespace) -> Option<i64> {
        self.namespace_ids
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(namespace.as_str())
            .copied()
    }

    pub(crate) fn cache_id(&self, namespace: &Namespace, id: i64) {
        self.namespace_ids
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(namespace.as_str().to_owned(), id);
    }
}

/// The client settings of `config`'s connection string, with the password from `config` when
/// the string has none, and its TLS settings (`tls.rs`; `PGSSLMODE` and `PGSSLROOTCERT` for
/// what the string leaves out, as libpq reads them).
fn client_config(config: &PgConfig) -> Result<(tokio_postgres::Config, tls::Tls), StoreError> {
    let (rest, tls) = tls::split_with(&config.url, &tls::TlsDefaults::from_env())?;
    let mut pg: tokio_postgres::Config = rest.parse().map_err(|e| StoreError::Unavailable {
        message: format!("the PostgreSQL URL {} is not valid: {e}", redact_url(&config.url)),
    })?;
    if pg.get_ssl_mode() != tokio_postgres::config::SslMode::Prefer {
        // tls::split reads the string as tokio-postgres does, so this is a bug, not bad input;
        // never let a required TLS turn into the default `prefer`.
        return Err(StoreError::Unavailable {
            message: format!(
                "the PostgreSQL URL {}: sslmode was not understood; please report this",
                redact_url(&config.url)
            ),
        });
    }
    pg.ssl_mode(tls.ssl_mode());
    if pg.get_password().is_none()
        && let Some(password) = &config.password
    {
        pg.password(password.as_str());
    }
    Ok((pg, tls))
}

/// Schema names are put into SQL: only plain identifiers.
fn valid_schema(schema: &str) -> Result<(), StoreError> {
    let ok = !schema.is_empty()
        && schema.len() <= 63
        && schema.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && schema.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(StoreError::Unavailable {
            message: format!(
                "schema {schema:?} is not a plain identifier: use lower-case letters, digits and _"
            ),
        })
    }
}

/// Numbered query parameters built up alongside the SQL text.
#[derive(Default)]
pub(crate) struct Params(Vec<Box<dyn ToSql + Sync + Send>>);

impl Params {
    /// Adds `value`; returns its placeholder (`$n`).
    pub(crate) fn push(&mut self, value: impl ToSql + Sync + Send + 'static) -> String {
        self.0.push(Box::new(value));
        format!("${}", self.0.len())
    }

    pub(crate) fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.0.iter().map(|b| b.as_ref() as &(dyn ToSql + Sync)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_recognised_and_redacted() {
        assert!(is_postgres_url("postgres://u@h/db"));
        assert!(is_postgres_url("PostgreSQL://u@h/db"));
        assert!(!is_postgres_url("postgres:/u@h/db"));
        assert!(!is_postgres_url("./rearview.db"));
        assert_eq!(redact_url("postgres://u:secret@h:5432/db"), "postgres://u:***@h:5432/db");
        assert_eq!(redact_url("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(
            redact_url("postgres://u:p?a/s@h/db?sslmode=require"),
            "postgres://u:***@h/db?sslmode=require"
        );
        assert_eq!(
            redact_url("postgres://h/db?application_name=a@b"),
            "postgres://h/db?application_name=a@b"
        );
        assert_eq!(
            redact_url("postgresql://h/db?user=u&password=pw&sslmode=disable"),
            "postgresql://h/db?user=u&password=***&sslmode=disable"
        );
        assert_eq!(
            redact_url("postgresql://u@h/db?password=pw&sslmode=disable"),
            "postgresql://u@h/db?password=***&sslmode=disable"
        );
    }

    #[test]
    fn schema_names_must_be_plain_identifiers() {
        assert!(valid_schema("rearview_test_1").is_ok());
        assert!(valid_schema("x; DROP TABLE memories").is_err());
        assert!(valid_schema("").is_err());
    }
}
