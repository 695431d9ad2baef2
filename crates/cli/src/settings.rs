//! Layered configuration: compiled-in defaults < config file < environment < flags.
//!
//! Every setting has one key (`sweep_interval`), read from, in rising precedence:
//! - the config file (`--config` / `$REARVIEW_CONFIG`, else `$XDG_CONFIG_HOME/rearview/config.toml`
//!   when it exists): TOML, or YAML for the design's `config/settings.yaml`. Keys are flat
//!   (`embed_url = …`) or one table deep (`[embed] url = …`); `-` and `_` are the same;
//! - the environment: `REARVIEW_<KEY>`, plus the design's names `EMBEDDING_MODEL`, `DB_PATH` and
//!   `VECTOR_DIM` (the `REARVIEW_` name wins when both are set);
//! - the command line (`--sweep-interval`).
//!
//! [`Settings::load`] validates everything once, before any command runs, into typed values. An
//! error names the key, where the value came from and what is allowed. API keys can be given
//! directly only in the file or the environment (never as a flag, which process lists show), and
//! [`Settings::show`] redacts them.

use std::fmt;
use std::path::PathBuf;

use rearview_core::Namespace;

use crate::args::Cli;

mod layers;

use layers::{Layers, boolean, default_db, non_empty, url};

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Compiled in.
    Default,
    /// The config file.
    File(PathBuf),
    /// An environment variable.
    Env(&'static str),
    /// A command-line flag.
    Flag(&'static str),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File(path) => write!(f, "config file {}", path.display()),
            Source::Env(name) => write!(f, "environment variable {name}"),
            Source::Flag(flag) => write!(f, "flag {flag}"),
        }
    }
}

/// A setting that could not be accepted.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// A value is not allowed.
    #[error("invalid setting `{key}` = {value:?} (from {origin}): allowed: {allowed}")]
    Invalid {
        /// The key.
        key: &'static str,
        /// The raw value.
        value: String,
        /// Where it came from.
        origin: Source,
        /// What is allowed.
        allowed: String,
    },
    /// A key in the config file that rearview does not know.
    #[error("unknown setting `{key}` in config file {path}: known keys are {known}")]
    UnknownKey {
        /// The key as written.
        key: String,
        /// The file.
        path: PathBuf,
        /// Every key.
        known: String,
    },
    /// The config file could not be read or parsed.
    #[error("config file {path}: {reason}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong, with the fix.
        reason: String,
    },
}

/// One setting's definition.
struct Key {
    name: &'static str,
    /// Environment variables, in precedence order.
    env: &'static [&'static str],
    /// The flag, if the setting has one.
    flag: Option<&'static str>,
    /// Shown as `<redacted>`.
    secret: bool,
}

const fn key(name: &'static str, env: &'static [&'static str], flag: &'static str) -> Key {
    Key { name, env, flag: Some(flag), secret: false }
}

/// Every setting. Keep in step with [`Settings`], `Cli` and the manual's table
/// (`docs/manual/configuration.md`).
const KEYS: &[Key] = &[
    key("db", &["REARVIEW_DB", "DB_PATH"], "--db"),
    key("namespace", &["REARVIEW_NAMESPACE"], "--namespace"),
    key("model", &["REARVIEW_MODEL", "EMBEDDING_MODEL"], "--model"),
    key("models_dir", &["REARVIEW_MODELS_DIR"], "--models-dir"),
    key("embed_threads", &["REARVIEW_EMBED_THREADS"], "--embed-threads"),
    key("vector_dim", &["REARVIEW_VECTOR_DIM", "VECTOR_DIM"], "--vector-dim"),
    key("embed_url", &["REARVIEW_EMBED_URL"], "--embed-url"),
    key("embed_model", &["REARVIEW_EMBED_MODEL"], "--embed-model"),
    key("embed_dimensions", &["REARVIEW_EMBED_DIMENSIONS"], "--embed-dimensions"),
    key("embed_api_key_env", &["REARVIEW_EMBED_API_KEY_ENV"], "--embed-api-key-env"),
    Key { name: "embed_api_key", env: &["REARVIEW_EMBED_API_KEY"], flag: None, secret: true },
    key("llm_url", &["REARVIEW_LLM_URL"], "--llm-url"),
    key("llm_model", &["REARVIEW_LLM_MODEL"], "--llm-model"),
    key("llm_extract_model", &["REARVIEW_LLM_EXTRACT_MODEL"], "--llm-extract-model"),
    key("llm_distill_model", &["REARVIEW_LLM_DISTILL_MODEL"], "--llm-distill-model"),
    key("llm_summary_model", &["REARVIEW_LLM_SUMMARY_MODEL"], "--llm-summary-model"),
    key("llm_api_key_env", &["REARVIEW_LLM_API_KEY_ENV"], "--llm-api-key-env"),
    Key { name: "llm_api_key", env: &["REARVIEW_LLM_API_KEY"], flag: None, secret: true },
    key("llm_timeout", &["REARVIEW_LLM_TIMEOUT"], "--llm-timeout"),
    key("sweep_interval", &["REARVIEW_SWEEP_INTERVAL"], "--sweep-interval"),
    key("index_memory", &["REARVIEW_INDEX_MEMORY"], "--index-memory"),
    key("pg_ef_search", &["REARVIEW_PG_EF_SEARCH"], "--pg-ef-search"),
    key("pg_hnsw_m", &["REARVIEW_PG_HNSW_M"], "--pg-hnsw-m"),
    key(
        "pg_hnsw_ef_construction",
        &["REARVIEW_PG_HNSW_EF_CONSTRUCTION"],
        "--pg-hnsw-ef-construction",
    ),
    key("max_content_chars", &["REARVIEW_MAX_CONTENT_CHARS"], "--max-content-chars"),
    key("dedup_threshold", &["REARVIEW_DEDUP_THRESHOLD"], "--dedup-threshold"),
    key("supersede_threshold", &["REARVIEW_SUPERSEDE_THRESHOLD"], "--supersede-threshold"),
    key("supersede_by_rule", &["REARVIEW_SUPERSEDE_BY_RULE"], "--supersede-by-rule"),
    key("archive_after_days", &["REARVIEW_ARCHIVE_AFTER_DAYS"], "--archive-after-days"),
    key("auto_distill", &["REARVIEW_AUTO_DISTILL"], "--auto-distill"),
    key("listen", &["REARVIEW_LISTEN"], "--listen"),
    key("max_request_bytes", &["REARVIEW_MAX_REQUEST_BYTES"], "--max-request-bytes"),
    key("allowed_hosts", &["REARVIEW_ALLOWED_HOSTS"], "--allowed-hosts"),
    key("console_dir", &["REARVIEW_CONSOLE_DIR"], "--console-dir"),
    key("insecure_no_auth", &["REARVIEW_INSECURE_NO_AUTH"], "--insecure-no-auth"),
    key("metrics_public", &["REARVIEW_METRICS_PUBLIC"], "--metrics-public"),
    key("rate_limit", &["REARVIEW_RATE_LIMIT"], "--rate-limit"),
    key("max_in_flight", &["REARVIEW_MAX_IN_FLIGHT"], "--max-in-flight"),
    key("max_mcp_sessions", &["REARVIEW_MAX_MCP_SESSIONS"], "--max-mcp-sessions"),
    key(
        "max_mcp_sessions_per_key",
        &["REARVIEW_MAX_MCP_SESSIONS_PER_KEY"],
        "--max-mcp-sessions-per-key",
    ),
    // An admin key for containers without a shell: hashed and stored at start-up.
    Key { name: "api_key", env: &["REARVIEW_API_KEY"], flag: None, secret: true },
];

/// The effective configuration, validated. `Debug` shows what `config show` shows: API keys
/// never reach a log.
#[derive(Clone)]
pub struct Settings {
    /// Database file (SQLite), or the URL as given when `postgres` is set.
    pub db: PathBuf,
    /// When `db` is a `postgres://` or `postgresql://` URL: the server to use instead of a file.
    pub postgres: Option<Postgres>,
    /// Namespace of one-shot commands and the servers' default.
    pub namespace: Namespace,
    /// Local model list as given (`None`: decided by `embed_url`).
    pub model: Option<String>,
    /// Where models live.
    pub models_dir: Option<PathBuf>,
    /// Inference threads.
    pub embed_threads: Option<usize>,
    /// The design's `VECTOR_DIM`: the primary model's dimension must equal it.
    pub vector_dim: Option<usize>,
    /// OpenAI-compatible embedding endpoint.
    pub embed_url: Option<String>,
    /// Model name at `embed_url`.
    pub embed_model: Option<String>,
    /// Expected vector length from `embed_url`.
    pub embed_dimensions: Option<usize>,
    /// API key for `embed_url` (given directly, or read from `embed_api_key_env`).
    pub embed_api_key: Option<String>,
    /// OpenAI-compatible chat endpoint.
    pub llm_url: Option<String>,
    /// Chat model for every operation without its own.
    pub llm_model: Option<String>,
    /// Chat model for session extraction.
    pub llm_extract_model: Option<String>,
    /// Chat model for distillation.
    pub llm_distill_model: Option<String>,
    /// Chat model for long-memory summaries.
    pub llm_summary_model: Option<String>,
    /// API key for `llm_url`.
    pub llm_api_key: Option<String>,
    /// Seconds one chat request may take.
    pub llm_timeout: u64,
    /// Seconds between sweeps; 0 = off.
    pub sweep_interval: u64,
    /// Bytes of search indexes kept in memory, namespaces loaded when first used; `None`:
    /// every namespace loaded at start (`all`).
    pub index_memory: Option<usize>,
    /// PostgreSQL's vector search: `ef_search`, and the graph of an index it builds.
    pub pg_tuning: PgTuning,
    /// Longest memory in characters.
    pub max_content_chars: usize,
    /// Near-duplicate cosine, `None` = off.
    pub dedup_threshold: Option<f32>,
    /// Cosine of the candidates a new memory may supersede, `None` = no detection.
    pub supersede_threshold: Option<f32>,
    /// Without an LLM, the rule decides what a new memory supersedes.
    pub supersede_by_rule: bool,
    /// Days before idle episodes are archived; 0 = never.
    pub archive_after_days: u64,
    /// Distil in the sweep.
    pub auto_distill: bool,
    /// HTTP listen address.
    pub listen: String,
    /// Largest HTTP body.
    pub max_request_bytes: u64,
    /// Extra host names the HTTP server answers.
    pub allowed_hosts: Vec<String>,
    /// Serve the console from this directory (development).
    pub console_dir: Option<std::path::PathBuf>,
    /// Serve without keys on any address.
    pub insecure_no_auth: bool,
    /// `/metrics` without a key.
    pub metrics_public: bool,
    /// Requests per second per API key; 0 = unlimited.
    pub rate_limit: u32,
    /// Requests processed at once.
    pub max_in_flight: usize,
    /// Open MCP sessions.
    pub max_mcp_sessions: usize,
    /// MCP sessions per API key.
    pub max_mcp_sessions_per_key: usize,
    /// A secret to seed as an admin key at start-up.
    pub api_key: Option<String>,
    /// Each key's value as shown (secrets redacted) and its source, for `config show`.
    shown: Vec<(&'static str, Option<String>, Source)>,
    /// The config file read, if any.
    pub file: Option<PathBuf>,
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (key, value, source) in self.show() {
            map.entry(&key, &format!("{} ({source})", value.as_deref().unwrap_or("unset")));
        }
        map.finish()
    }
}

/// Reads environment variables; a test passes a map instead of the process environment.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// A PostgreSQL database named by `db`.
#[derive(Clone)]
pub struct Postgres {
    /// The URL as given (it may hold the password).
    pub url: String,
    /// `PGPASSWORD`, used when the URL has no password.
    pub password: Option<String>,
}

/// How a PostgreSQL database's vectors are searched (`pg_ef_search`) and its HNSW index built
/// (`pg_hnsw_m`, `pg_hnsw_ef_construction`); unused on SQLite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PgTuning {
    /// `hnsw.ef_search`, 1 to 1,000.
    pub ef_search: i32,
    /// `m` and `ef_construction` of an index built from now on.
    pub graph: rearview_store_postgres::hnsw::Graph,
}

impl Default for PgTuning {
    fn default() -> Self {
        Self {
            ef_search: rearview_store_postgres::hnsw::EF_SEARCH,
            graph: rearview_store_postgres::hnsw::Graph::default(),
        }
    }
}

impl PgTuning {
    /// A connection's configuration for `url` (with `password` when the URL has none).
    pub fn config(
        self,
        url: impl Into<String>,
        password: Option<String>,
    ) -> rearview_store_postgres::PgConfig {
        rearview_store_postgres::PgConfig {
            password,
            ef_search: self.ef_search,
            hnsw_graph: self.graph,
            ..rearview_store_postgres::PgConfig::new(url)
        }
    }

    fn load(layers: &mut Layers<'_>) -> Result<Self, SettingsError> {
        let ef_search = layers.parse(
            "pg_ef_search",
            &rearview_store_postgres::hnsw::EF_SEARCH.to_string(),
            "a whole number from 1 to 1000 (pgvector's range)",
            |v| v.parse::<i32>().ok().filter(|n| (1..=1000).contains(n)),
        )?;
        let m = layers.parse(
            "pg_hnsw_m",
            &rearview_store_postgres::hnsw::M.to_string(),
            "a whole number from 2 to 100 (pgvector's range)",
            |v| v.parse::<i32>().ok().filter(|n| (2..=100).contains(n)),
        )?;
        let ef_construction = layers.parse(
            "pg_hnsw_ef_construction",
            &rearview_store_postgres::hnsw::EF_CONSTRUCTION.to_string(),
            "a whole number from 4 to 1000 (pgvector's range), at least twice pg_hnsw_m",
            |v| v.parse::<i32>().ok().filter(|n| (4..=1000).contains(n)),
        )?;
        let graph = rearview_store_postgres::hnsw::Graph { m, ef_construction };
        // Each is within pgvector's range: what is left is ef_construction against m, blamed
        // on the one the user set (m, when ef_construction is the default).
        let graph = graph.check().map_err(|_| match layers.source_of("pg_hnsw_ef_construction") {
            Source::Default => SettingsError::Invalid {
                key: "pg_hnsw_m",
                value: m.to_string(),
                origin: layers.source_of("pg_hnsw_m"),
                allowed: format!(
                    "at most {} with the default pg_hnsw_ef_construction {ef_construction} \
                     (pgvector requires ef_construction of at least twice m), or set \
                     pg_hnsw_ef_construction too",
                    ef_construction / 2
                ),
            },
            origin => SettingsError::Invalid {
                key: "pg_hnsw_ef_construction",
                value: ef_construction.to_string(),
                origin,
                allowed: format!(
                    "a whole number from {} to 1000: at least twice pg_hnsw_m ({m}), as pgvector \
                     requires",
                    2 * m
                ),
            },
        })?;
        Ok(Self { ef_search, graph })
    }
}

impl Postgres {
    /// The URL with its password redacted.
    pub fn shown(&self) -> String {
        rearview_store_postgres::redact_url(&self.url)
    }
}

impl Settings {
    /// Loads the configuration for `cli` from the process environment and the config file.
    pub fn from_process(cli: &Cli) -> Result<Self, SettingsError> {
        Self::load(cli, &|name| std::env::var(name).ok())
    }

    /// Loads the configuration for `cli`, reading the environment through `env`: the config
    /// file found, then each group of keys in the order `config show` lists them.
    pub fn load(cli: &Cli, env: EnvLookup<'_>) -> Result<Self, SettingsError> {
        let mut layers = Layers::open(cli, env)?;
        let db = match layers.raw("db") {
            Some(raw) => PathBuf::from(raw.value),
            None => default_db(env).map_err(|reason| SettingsError::Invalid {
                key: "db",
                value: String::new(),
                origin: Source::Default,
                allowed: reason,
            })?,
        };
        let namespace = layers.parse(
            "namespace",
            "default",
            "a non-empty name without control characters, e.g. alice or 项目-42",
            |v| v.parse::<Namespace>().ok(),
        )?;
        let embedding = EmbeddingKeys::load(&mut layers)?;
        let llm = LlmKeys::load(&mut layers)?;
        let lifecycle = LifecycleKeys::load(&mut layers)?;
        let server = ServerKeys::load(&mut layers)?;
        let index_memory = layers.parse(
            "index_memory",
            "auto",
            "auto, all, or a size such as 2GiB, 512MiB, 1500MB or a number of bytes (at least 1MiB)",
            parse_index_memory,
        )?;
        let pg_tuning = PgTuning::load(&mut layers)?;
        llm.check(&layers)?;
        let mut shown = std::mem::take(&mut layers.shown);
        // Any other value is a SQLite path (`postgres:/x` included: a relative file path).
        let postgres = db
            .to_str()
            .filter(|d| rearview_store_postgres::is_postgres_url(d))
            .map(|url| Postgres { url: url.to_owned(), password: non_empty(env("PGPASSWORD")) });
        let db_shown = postgres.as_ref().map_or_else(|| db.display().to_string(), Postgres::shown);
        shown.insert(0, ("db", Some(db_shown), layers.source_of("db")));
        Ok(Self {
            db,
            postgres,
            namespace,
            model: embedding.model,
            models_dir: embedding.models_dir,
            embed_threads: embedding.embed_threads,
            vector_dim: embedding.vector_dim,
            embed_url: embedding.embed_url,
            embed_model: embedding.embed_model,
            embed_dimensions: embedding.embed_dimensions,
            embed_api_key: embedding.embed_api_key,
            llm_url: llm.llm_url,
            llm_model: llm.llm_model,
            llm_extract_model: llm.llm_extract_model,
            llm_distill_model: llm.llm_distill_model,
            llm_summary_model: llm.llm_summary_model,
            llm_api_key: llm.llm_api_key,
            llm_timeout: llm.llm_timeout,
            sweep_interval: lifecycle.sweep_interval,
            index_memory,
            pg_tuning,
            max_content_chars: lifecycle.max_content_chars,
            dedup_threshold: lifecycle.dedup_threshold,
            supersede_threshold: lifecycle.supersede_threshold,
            supersede_by_rule: lifecycle.supersede_by_rule,
            archive_after_days: lifecycle.archive_after_days,
            auto_distill: lifecycle.auto_distill,
            listen: server.listen,
            max_request_bytes: server.max_request_bytes,
            allowed_hosts: server.allowed_hosts,
            console_dir: server.console_dir,
            insecure_no_auth: server.insecure_no_auth,
            metrics_public: server.metrics_public,
            rate_limit: server.rate_limit,
            max_in_flight: server.max_in_flight,
            max_mcp_sessions: server.max_mcp_sessions,
            max_mcp_sessions_per_key: server.max_mcp_sessions_per_key,
            api_key: server.api_key,
            shown,
            file: layers.file_path,
        })
    }

    /// Every key with its effective value (secrets and URL passwords redacted) and source.
    pub fn show(&self) -> Vec<(&'static str, Option<String>, &Source)> {
        let mut rows: Vec<_> = self.shown.iter().map(|(k, v, s)| (*k, v.clone(), s)).collect();
        rows.sort_by_key(|(k, _, _)| KEYS.iter().position(|d| d.name == *k));
        // Unset, `model` means the built-in default unless an endpoint replaces it: say which.
        for (key, value, _) in &mut rows {
            if *key == "model" && value.is_none() && self.embed_url.is_none() {
                *value = Some(rearview_embed_local::DEFAULT_MODEL.to_owned());
            }
        }
        rows
    }

    /// Checks the primary embedding model's dimension against `vector_dim`.
    pub fn check_vector_dim(&self, model_id: &str, dimensions: usize) -> Result<(), SettingsError> {
        match self.vector_dim {
            Some(expected) if expected != dimensions => Err(SettingsError::Invalid {
                key: "vector_dim",
                value: expected.to_string(),
                origin: self
                    .shown
                    .iter()
                    .find(|(k, ..)| *k == "vector_dim")
                    .map_or(Source::Default, |r| r.2.clone()),
                allowed: format!(
                    "{dimensions}, the dimension of the embedding model in use ({model_id}); vectors are never truncated or padded, so set VECTOR_DIM={dimensions} or pick a model of dimension {expected}"
                ),
            }),
            _ => Ok(()),
        }
    }
}

/// The embedding keys ([`Settings`] documents each).
struct EmbeddingKeys {
    model: Option<String>,
    models_dir: Option<PathBuf>,
    embed_threads: Option<usize>,
    vector_dim: Option<usize>,
    embed_url: Option<String>,
    embed_model: Option<String>,
    embed_dimensions: Option<usize>,
    embed_api_key: Option<String>,
}

impl EmbeddingKeys {
    fn load(layers: &mut Layers<'_>) -> Result<Self, SettingsError> {
        let whole = |v: &str| v.parse::<usize>().ok().filter(|n| *n >= 1);
        Ok(Self {
            model: layers.string("model"),
            models_dir: layers.string("models_dir").map(PathBuf::from),
            embed_threads: layers.optional(
                "embed_threads",
                "a whole number of threads ≥ 1",
                whole,
            )?,
            vector_dim: layers.optional(
                "vector_dim",
                "the embedding model's dimension, a whole number ≥ 1 (e.g. 384 for \
                 multilingual-e5-small)",
                whole,
            )?,
            embed_url: layers.optional(
                "embed_url",
                "an http:// or https:// URL, e.g. http://localhost:11434/v1",
                url,
            )?,
            embed_model: layers.string("embed_model"),
            embed_dimensions: layers.optional("embed_dimensions", "a whole number ≥ 1", whole)?,
            embed_api_key: layers.api_key("embed_api_key", "embed_api_key_env")?,
        })
    }
}

/// The chat-model keys ([`Settings`] documents each).
struct LlmKeys {
    llm_url: Option<String>,
    llm_model: Option<String>,
    llm_extract_model: Option<String>,
    llm_distill_model: Option<String>,
    llm_summary_model: Option<String>,
    llm_api_key: Option<String>,
    llm_timeout: u64,
}

impl LlmKeys {
    fn load(layers: &mut Layers<'_>) -> Result<Self, SettingsError> {
        Ok(Self {
            llm_url: layers.optional(
                "llm_url",
                "an http:// or https:// URL, e.g. http://localhost:11434/v1",
                url,
            )?,
            llm_model: layers.string("llm_model"),
            llm_extract_model: layers.string("llm_extract_model"),
            llm_distill_model: layers.string("llm_distill_model"),
            llm_summary_model: layers.string("llm_summary_model"),
            llm_api_key: layers.api_key("llm_api_key", "llm_api_key_env")?,
            llm_timeout: layers.parse(
                "llm_timeout",
                "120",
                "whole seconds from 1 to 3600",
                |v| v.parse::<u64>().ok().filter(|n| (1..=3600).contains(n)),
            )?,
        })
    }

    /// A chat model names a model at an endpoint: `llm_model` alone is an error.
    fn check(&self, layers: &Layers<'_>) -> Result<(), SettingsError> {
        match (&self.llm_url, &self.llm_model) {
            (None, Some(model)) => Err(SettingsError::Invalid {
                key: "llm_model",
                value: model.clone(),
                origin: layers.source_of("llm_model"),
                allowed: "only together with llm_url (the chat endpoint's URL)".into(),
            }),
            _ => Ok(()),
        }
    }
}

/// `index_memory`: `auto` (`rearview_service::default_index_memory`: a quarter of the machine's
/// memory), `all` (`None`), or a size of at least 1 MiB.
fn parse_index_memory(value: &str) -> Option<Option<usize>> {
    const MIB: u64 = 1 << 20;
    let value = value.trim();
    match value.to_ascii_lowercase().as_str() {
        "all" => return Some(None),
        "auto" => return Some(Some(rearview_service::default_index_memory())),
        _ => {}
    }
    let digits = value.find(|c: char| !c.is_ascii_digit()).unwrap_or(value.len());
    let (number, unit) = value.split_at(digits);
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "kib" => 1 << 10,
        "m" | "mb" => 1_000_000,
        "mib" => MIB,
        "g" | "gb" => 1_000_000_000,
        "gib" => 1 << 30,
        _ => return None,
    };
    let bytes = number.parse::<u64>().ok()?.checked_mul(scale)?;
    (bytes >= MIB).then(|| Some(usize::try_from(bytes).unwrap_or(usize::MAX)))
}

/// The lifecycle keys ([`Settings`] documents each).
struct LifecycleKeys {
    sweep_interval: u64,
    max_content_chars: usize,
    dedup_threshold: Option<f32>,
    supersede_threshold: Option<f32>,
    supersede_by_rule: bool,
    archive_after_days: u64,
    auto_distill: bool,
}

impl LifecycleKeys {
    fn load(layers: &mut Layers<'_>) -> Result<Self, SettingsError> {
        // A cosine up to 1 (above 0 when `lowest_excluded`, else from 0), or off.
        let cosine_or_off = |v: &str, lowest_excluded: bool| match v.trim() {
            "off" | "none" => Some(None),
            text => text
                .parse::<f32>()
                .ok()
                .filter(|c| *c <= 1.0 && if lowest_excluded { *c > 0.0 } else { *c >= 0.0 })
                .map(Some),
        };
        Ok(Self {
            sweep_interval: layers.parse(
                "sweep_interval",
                "3600",
                "whole seconds ≥ 0; 0 turns the sweep off",
                |v| v.parse::<u64>().ok(),
            )?,
            max_content_chars: layers.parse(
                "max_content_chars",
                "32768",
                "a whole number of characters from 1 to 10000000",
                |v| v.parse::<usize>().ok().filter(|n| (1..=10_000_000).contains(n)),
            )?,
            dedup_threshold: layers.parse(
                "dedup_threshold",
                "0.95",
                "a cosine in (0, 1], e.g. 0.95, or off",
                |v| cosine_or_off(v, true),
            )?,
            supersede_threshold: layers.parse(
                "supersede_threshold",
                "0.82",
                "a cosine in [0, 1], e.g. 0.82, or off",
                |v| cosine_or_off(v, false),
            )?,
            supersede_by_rule: layers.parse(
                "supersede_by_rule",
                "true",
                "true or false",
                boolean,
            )?,
            archive_after_days: layers.parse(
                "archive_after_days",
                "90",
                "whole days ≥ 0; 0 = never",
                |v| v.parse::<u64>().ok(),
            )?,
            auto_distill: layers.parse("auto_distill", "false", "true or false", boolean)?,
        })
    }
}

/// The HTTP server's keys ([`Settings`] documents each).
struct ServerKeys {
    listen: String,
    max_request_bytes: u64,
    allowed_hosts: Vec<String>,
    console_dir: Option<std::path::PathBuf>,
    insecure_no_auth: bool,
    metrics_public: bool,
    rate_limit: u32,
    max_in_flight: usize,
    max_mcp_sessions: usize,
    max_mcp_sessions_per_key: usize,
    api_key: Option<String>,
}

impl ServerKeys {
    fn load(layers: &mut Layers<'_>) -> Result<Self, SettingsError> {
        let up_to_100k = |v: &str| v.parse::<usize>().ok().filter(|n| (1..=100_000).contains(n));
        Ok(Self {
            listen: layers.parse(
                "listen",
                "127.0.0.1:8765",
                "host:port, e.g. 127.0.0.1:8765 or 0.0.0.0:8765",
                |v| {
                    let (host, port) = v.rsplit_once(':')?;
                    (!host.is_empty() && port.parse::<u16>().is_ok()).then(|| v.to_owned())
                },
            )?,
            max_request_bytes: layers.parse(
                "max_request_bytes",
                "1048576",
                "a whole number of bytes ≥ 1024",
                |v| v.parse::<u64>().ok().filter(|n| *n >= 1024),
            )?,
            allowed_hosts: layers.parse(
                "allowed_hosts",
                "",
                "comma-separated host names, optionally with :port, e.g. rearview,localhost",
                host_list,
            )?,
            console_dir: layers.string("console_dir").map(std::path::PathBuf::from),
            insecure_no_auth: layers.parse(
                "insecure_no_auth",
                "false",
                "true or false",
                boolean,
            )?,
            metrics_public: layers.parse("metrics_public", "false", "true or false", boolean)?,
            rate_limit: layers.parse(
                "rate_limit",
                "50",
                "requests per second per key, a whole number; 0 = unlimited",
                |v| v.parse::<u32>().ok(),
            )?,
            max_in_flight: layers.parse(
                "max_in_flight",
                "256",
                "a whole number from 1 to 100000",
                up_to_100k,
            )?,
            max_mcp_sessions: layers.parse(
                "max_mcp_sessions",
                "256",
                "a whole number from 1 to 100000",
                up_to_100k,
            )?,
            max_mcp_sessions_per_key: layers.parse(
                "max_mcp_sessions_per_key",
                "32",
                "a whole number from 1 to 100000",
                up_to_100k,
            )?,
            api_key: layers.string("api_key"),
        })
    }
}

/// Comma-separated host names (optionally with `:port`), or `None` if any is not one.
fn host_list(v: &str) -> Option<Vec<String>> {
    let hosts: Vec<String> =
        v.split(',').map(str::trim).filter(|h| !h.is_empty()).map(str::to_owned).collect();
    hosts
        .iter()
        .all(|h| h.chars().all(|c| c.is_ascii_alphanumeric() || "-.:[]_".contains(c)))
        .then_some(hosts)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::Path;

    use clap::Parser;

    use super::*;

    #[test]
    fn every_setting_is_in_the_manuals_table() {
        let manual = include_str!("../../../docs/manual/configuration.md");
        let missing: Vec<&str> =
            KEYS.iter().map(|k| k.name).filter(|n| !manual.contains(&format!("`{n}`"))).collect();
        assert!(missing.is_empty(), "docs/manual/configuration.md lacks {missing:?}");
    }

    fn load(args: &[&str], env: &[(&str, &str)]) -> Result<Settings, SettingsError> {
        let cli = Cli::try_parse_from(std::iter::once("rearview").chain(args.iter().copied()))
            .expect("valid flags");
        let env: HashMap<String, String> =
            env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        let mut env = env;
        env.entry("HOME".into()).or_insert_with(|| "/nonexistent-home".into());
        Settings::load(&cli, &|name| env.get(name).cloned())
    }

    fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    fn source<'a>(s: &'a Settings, key: &str) -> &'a Source {
        s.show().into_iter().find(|(k, ..)| *k == key).unwrap().2
    }

    #[test]
    fn defaults_then_file_then_env_then_flags() {
        let dir = tempfile::tempdir().unwrap();
        let cfg =
            file(&dir, "c.toml", "sweep_interval = 10\narchive_after_days = 5\nllm_timeout = 30\n");

        let s = load(&["stats"], &[]).unwrap();
        assert_eq!(s.sweep_interval, 3600);
        assert_eq!(source(&s, "sweep_interval"), &Source::Default);

        let s = load(&["--config", &cfg, "stats"], &[]).unwrap();
        assert_eq!((s.sweep_interval, s.archive_after_days, s.llm_timeout), (10, 5, 30));
        assert!(matches!(source(&s, "sweep_interval"), Source::File(_)));

        let env = [("REARVIEW_SWEEP_INTERVAL", "20"), ("REARVIEW_ARCHIVE_AFTER_DAYS", "6")];
        let s = load(&["--config", &cfg, "stats"], &env).unwrap();
        assert_eq!((s.sweep_interval, s.archive_after_days, s.llm_timeout), (20, 6, 30));
        assert_eq!(source(&s, "sweep_interval"), &Source::Env("REARVIEW_SWEEP_INTERVAL"));

        let s = load(&["--config", &cfg, "--sweep-interval", "40", "stats"], &env).unwrap();
        assert_eq!((s.sweep_interval, s.archive_after_days, s.llm_timeout), (40, 6, 30));
        assert_eq!(source(&s, "sweep_interval"), &Source::Flag("--sweep-interval"));
    }

    #[test]
    fn postgres_search_and_index_settings_reach_the_connection() {
        let s = load(&["stats"], &[]).unwrap();
        let config = s.pg_tuning.config("postgres://h/db", None);
        assert_eq!(
            (config.ef_search, config.hnsw_graph.m, config.hnsw_graph.ef_construction),
            (400, 16, 128)
        );
        let dir = tempfile::tempdir().unwrap();
        let cfg = file(&dir, "c.toml", "[pg]\nhnsw_m = 32\nhnsw_ef_construction = 256\n");
        let env = [("REARVIEW_PG_EF_SEARCH", "1000")];
        let s = load(&["--config", &cfg, "stats"], &env).unwrap();
        let config = s.pg_tuning.config("postgres://h/db", Some("pw".into()));
        assert_eq!(
            (config.ef_search, config.hnsw_graph.m, config.hnsw_graph.ef_construction),
            (1000, 32, 256)
        );
        assert_eq!(config.password.as_deref(), Some("pw"));
        assert!(matches!(source(&s, "pg_hnsw_m"), Source::File(_)));
    }

    #[test]
    fn the_config_file_comes_from_the_environment_too() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = file(
            &dir,
            "settings.yaml",
            "listen: 0.0.0.0:9000\nembed:\n  url: http://e:1/v1\n  model: m\n",
        );
        let s = load(&["stats"], &[("REARVIEW_CONFIG", &cfg)]).unwrap();
        assert_eq!(s.listen, "0.0.0.0:9000");
        assert_eq!(s.embed_url.as_deref(), Some("http://e:1/v1"));
        assert_eq!(s.embed_model.as_deref(), Some("m"));
        assert_eq!(s.file.as_deref(), Some(Path::new(&cfg)));
    }

    #[test]
    fn the_designs_variable_names_are_aliases_and_lose_to_rearview_names() {
        let env = [("DB_PATH", "/d/memory.db"), ("EMBEDDING_MODEL", "none"), ("VECTOR_DIM", "768")];
        let s = load(&["stats"], &env).unwrap();
        assert_eq!(s.db, PathBuf::from("/d/memory.db"));
        assert_eq!(s.model.as_deref(), Some("none"));
        assert_eq!(s.vector_dim, Some(768));
        assert_eq!(source(&s, "vector_dim"), &Source::Env("VECTOR_DIM"));

        let both = [("DB_PATH", "/d/memory.db"), ("REARVIEW_DB", "/r/r.db")];
        assert_eq!(load(&["stats"], &both).unwrap().db, PathBuf::from("/r/r.db"));
    }

    #[test]
    fn a_vector_dim_mismatch_is_an_error_naming_both_dimensions() {
        let s = load(&["stats"], &[("VECTOR_DIM", "768")]).unwrap();
        let err = s.check_vector_dim("multilingual-e5-small", 384).unwrap_err().to_string();
        assert!(err.contains("`vector_dim` = \"768\""), "{err}");
        assert!(err.contains("environment variable VECTOR_DIM"), "{err}");
        assert!(err.contains("384") && err.contains("never truncated"), "{err}");
        s.check_vector_dim("m", 768).unwrap();
        load(&["stats"], &[]).unwrap().check_vector_dim("m", 3).unwrap();
    }

    #[test]
    fn every_invalid_value_names_key_source_and_what_is_allowed() {
        let dir = tempfile::tempdir().unwrap();
        type Case<'a> = (Vec<String>, Vec<(&'a str, &'a str)>, &'a str, &'a str);
        let cases: Vec<Case<'_>> = vec![
            (
                vec!["--sweep-interval".into(), "soon".into()],
                vec![],
                "sweep_interval",
                "flag --sweep-interval",
            ),
            (
                vec![],
                vec![("REARVIEW_LLM_TIMEOUT", "0")],
                "llm_timeout",
                "environment variable REARVIEW_LLM_TIMEOUT",
            ),
            (
                vec![],
                vec![("REARVIEW_MAX_CONTENT_CHARS", "-5")],
                "max_content_chars",
                "REARVIEW_MAX_CONTENT_CHARS",
            ),
            (vec![], vec![("REARVIEW_DEDUP_THRESHOLD", "1.5")], "dedup_threshold", "(0, 1]"),
            (vec![], vec![("REARVIEW_SUPERSEDE_THRESHOLD", "x")], "supersede_threshold", "[0, 1]"),
            (
                vec![],
                vec![("REARVIEW_SUPERSEDE_BY_RULE", "sometimes")],
                "supersede_by_rule",
                "true or false",
            ),
            (vec![], vec![("REARVIEW_AUTO_DISTILL", "maybe")], "auto_distill", "true or false"),
            (vec![], vec![("REARVIEW_PG_EF_SEARCH", "2000")], "pg_ef_search", "1 to 1000"),
            (vec!["--pg-hnsw-m".into(), "1".into()], vec![], "pg_hnsw_m", "flag --pg-hnsw-m"),
            (
                vec!["--pg-hnsw-m".into(), "32".into()],
                vec![("REARVIEW_PG_HNSW_EF_CONSTRUCTION", "48")],
                "pg_hnsw_ef_construction",
                "at least twice pg_hnsw_m",
            ),
            (vec!["--pg-hnsw-m".into(), "80".into()], vec![], "pg_hnsw_m", "at most 64"),
            (vec![], vec![("REARVIEW_LISTEN", "8765")], "listen", "host:port"),
            (vec![], vec![("REARVIEW_MAX_REQUEST_BYTES", "10")], "max_request_bytes", "1024"),
            (vec![], vec![("REARVIEW_EMBED_URL", "localhost:11434")], "embed_url", "http://"),
            (vec![], vec![("REARVIEW_LLM_URL", "ftp://x")], "llm_url", "https://"),
            (vec![], vec![("REARVIEW_NAMESPACE", "a\u{7}b")], "namespace", "control characters"),
            (vec![], vec![("VECTOR_DIM", "0")], "vector_dim", "environment variable VECTOR_DIM"),
            (vec![], vec![("REARVIEW_EMBED_THREADS", "x")], "embed_threads", "≥ 1"),
            (vec![], vec![("REARVIEW_EMBED_DIMENSIONS", "-1")], "embed_dimensions", "≥ 1"),
            (
                vec![],
                vec![("REARVIEW_ARCHIVE_AFTER_DAYS", "1d")],
                "archive_after_days",
                "whole days",
            ),
            (
                vec![],
                vec![("REARVIEW_LLM_API_KEY_ENV", "NO_SUCH_VAR_X")],
                "llm_api_key_env",
                "NO_SUCH_VAR_X is not set",
            ),
            (
                vec![],
                vec![("REARVIEW_EMBED_API_KEY_ENV", "NO_SUCH_VAR_Y")],
                "embed_api_key_env",
                "NO_SUCH_VAR_Y is not set",
            ),
            (vec![], vec![("REARVIEW_LLM_MODEL", "qwen")], "llm_model", "llm_url"),
        ];
        for (flags, env, key, needle) in cases {
            let mut args: Vec<&str> = flags.iter().map(String::as_str).collect();
            args.push("stats");
            let Err(err) = load(&args, &env) else { panic!("{key}: {env:?} was accepted") };
            let err = err.to_string();
            assert!(err.contains(&format!("`{key}`")), "{key}: {err}");
            assert!(err.contains(needle), "{key}: {err}");
        }
        let cfg = file(&dir, "c.toml", "sweep_intervall = 5\n");
        let err = load(&["--config", &cfg, "stats"], &[]).unwrap_err().to_string();
        assert!(
            err.contains("unknown setting `sweep_intervall`") && err.contains("sweep_interval"),
            "{err}"
        );
        let cfg = file(&dir, "c2.toml", "sweep_interval = \n");
        let err = load(&["--config", &cfg, "stats"], &[]).unwrap_err().to_string();
        assert!(err.contains("not valid TOML"), "{err}");
        let cfg = file(&dir, "c3.toml", "max_request_bytes = 12\n");
        let err = load(&["--config", &cfg, "stats"], &[]).unwrap_err().to_string();
        assert!(
            err.contains("`max_request_bytes`")
                && err.contains("config file")
                && err.contains("c3.toml"),
            "{err}"
        );
        let err = load(&["--config", "/no/such/file.toml", "stats"], &[]).unwrap_err().to_string();
        assert!(err.contains("cannot be read"), "{err}");
        let cfg = file(&dir, "c.ini", "a=1");
        let err = load(&["--config", &cfg, "stats"], &[]).unwrap_err().to_string();
        assert!(err.contains(".toml, .yaml or .yml"), "{err}");
    }

    #[test]
    fn secrets_and_url_passwords_are_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = file(
            &dir,
            "c.toml",
            "embed_api_key = \"sk-file-secret\"\nllm_url = \"https://bob:pw123@llm.example/v1\"\nllm_model = \"m\"\n",
        );
        let env = [("MY_LLM_KEY", "sk-env-secret"), ("REARVIEW_LLM_API_KEY_ENV", "MY_LLM_KEY")];
        let s = load(&["--config", &cfg, "stats"], &env).unwrap();
        assert_eq!(s.embed_api_key.as_deref(), Some("sk-file-secret"));
        assert_eq!(s.llm_api_key.as_deref(), Some("sk-env-secret"));
        let shown = format!("{:?} {s:?}", s.show());
        assert!(!shown.contains("sk-file-secret") && !shown.contains("pw123"), "{shown}");
        assert!(
            shown.contains("<redacted>") && shown.contains("bob:<redacted>@llm.example"),
            "{shown}"
        );
        assert!(!shown.contains("sk-env-secret"), "{shown}");
    }
}
