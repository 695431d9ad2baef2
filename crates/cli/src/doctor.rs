//! `rearview doctor` (is this installation able to run?) and `rearview health` (is a running
//! server healthy?).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use rearview_embed::TextKind;
use rearview_store_sqlite::SqliteStore;
use serde::Serialize;

use crate::models::Acquire;
use crate::output::Printer;
use crate::settings::Settings;

/// A check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Fine.
    Ok,
    /// Works, but worth a look.
    Warn,
    /// Will not work until fixed.
    Fail,
    /// Not configured, nothing to check.
    Skip,
}

/// One line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// What was checked.
    pub name: &'static str,
    /// The outcome.
    pub status: Status,
    /// What was found.
    pub detail: String,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    fn new(name: &'static str, status: Status, detail: impl Into<String>) -> Self {
        Self { name, status, detail: detail.into(), fix: None }
    }

    fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }
}

/// Runs every check, prints them, and exits 1 if any failed.
pub async fn run(settings: &Settings, printer: &Printer) -> anyhow::Result<ExitCode> {
    let mut checks = vec![config(settings)];
    match &settings.postgres {
        Some(pg) => checks.extend(postgres(pg, settings.pg_tuning.graph).await),
        None => checks.push(database(settings)),
    }
    checks.push(embedding(settings).await);
    checks.push(llm(settings).await);
    checks.push(listen(settings).await);
    printer.checks(&checks)?;
    let failed = checks.iter().any(|c| c.status == Status::Fail);
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn config(settings: &Settings) -> Check {
    let from = match &settings.file {
        Some(path) => format!("config file {}", path.display()),
        None => "no config file (defaults, environment and flags)".to_owned(),
    };
    Check::new("config", Status::Ok, format!("valid; {from}"))
}

/// The database check, then one per HNSW vector index (its state and graph against `graph`,
/// what this configuration builds).
async fn postgres(
    pg: &crate::settings::Postgres,
    graph: rearview_store_postgres::hnsw::Graph,
) -> Vec<Check> {
    use rearview_store_postgres::{PgConfig, PgStore};
    let config = PgConfig { password: pg.password.clone(), ..PgConfig::new(pg.url.clone()) };
    let found = PgStore::inspect(&config).await;
    let mut checks = vec![postgres_database(pg, &found)];
    for index in found.iter().flat_map(|f| &f.vector_indexes) {
        checks.push(vector_index(index, graph));
    }
    checks
}

fn vector_index(
    index: &rearview_store_postgres::VectorIndex,
    graph: rearview_store_postgres::hnsw::Graph,
) -> Check {
    let built = format!(
        "{} {}: m {}, ef_construction {}",
        index.name, index.predicate, index.graph.m, index.graph.ef_construction
    );
    if !index.valid {
        return Check::new("vector index", Status::Warn, format!("{built}; not valid yet"))
            .fix("being built (searches scan exactly meanwhile), or a build that failed: see the server's log");
    }
    if index.graph != graph {
        return Check::new(
            "vector index",
            Status::Warn,
            format!(
                "{built}; this configuration builds m {}, ef_construction {}",
                graph.m, graph.ef_construction
            ),
        )
        .fix(format!(
            "to rebuild it so: DROP INDEX CONCURRENTLY {}; (running servers notice within a minute and rebuild it in the background)",
            index.name
        ));
    }
    Check::new("vector index", Status::Ok, built)
}

fn postgres_database(
    pg: &crate::settings::Postgres,
    found: &Result<rearview_store_postgres::Inspection, rearview_store::StoreError>,
) -> Check {
    use rearview_store_postgres::SCHEMA_VERSION;
    let shown = pg.shown();
    match found {
        Err(e) => Check::new("database", Status::Fail, format!("{shown}: {e}"))
            .fix("check the URL, that the server runs and accepts this user (password in the URL or PGPASSWORD)"),
        Ok(found) if found.pgvector.is_none() && found.schema_version == 0 => Check::new(
            "database",
            Status::Warn,
            format!(
                "{shown}: PostgreSQL {}, pgvector not installed in this database",
                found.server_version
            ),
        )
        .fix("as a superuser: CREATE EXTENSION vector; (rearview tries on first start, which needs that right)"),
        Ok(found) if found.schema_version > SCHEMA_VERSION => Check::new(
            "database",
            Status::Fail,
            format!(
                "{shown}: schema version {} is newer than this rearview's {SCHEMA_VERSION}",
                found.schema_version
            ),
        )
        .fix("upgrade rearview to the version that wrote this database"),
        Ok(found) => Check::new(
            "database",
            Status::Ok,
            format!(
                "{shown}: PostgreSQL {}, pgvector {}, {} memories, schema v{}{}",
                found.server_version,
                found.pgvector.as_deref().unwrap_or("-"),
                found.memories,
                found.schema_version,
                if found.schema_version < SCHEMA_VERSION { " (created or migrated on start)" } else { "" }
            ),
        ),
    }
}

fn database(settings: &Settings) -> Check {
    let path = &settings.db;
    if !path.exists() {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        let creatable = parent.is_none_or(|p| {
            let probe = p.ancestors().find(|a| a.exists());
            probe.is_some_and(|a| {
                std::fs::metadata(a).map(|m| !m.permissions().readonly()).unwrap_or(false)
            })
        });
        return if creatable {
            Check::new(
                "database",
                Status::Ok,
                format!("{} does not exist yet; it is created on first use", path.display()),
            )
        } else {
            Check::new("database", Status::Fail, format!("{} cannot be created", path.display()))
                .fix("point db (--db / REARVIEW_DB) at a writable directory")
        };
    }
    match SqliteStore::inspect(path) {
        Err(e) => Check::new("database", Status::Fail, format!("{}: {e}", path.display()))
            .fix("check the path and its permissions; restore from `rearview export` if the file is damaged"),
        Ok(found) if !found.integrity.is_empty() => Check::new(
            "database",
            Status::Fail,
            format!("{}: integrity check failed: {}", path.display(), found.integrity.join("; ")),
        )
        .fix("stop the server, copy the file aside, then `sqlite3 FILE .recover` or restore a backup"),
        Ok(found) if found.schema_version > found.latest_version => Check::new(
            "database",
            Status::Fail,
            format!(
                "{}: schema version {} is newer than this rearview's {}",
                path.display(),
                found.schema_version,
                found.latest_version
            ),
        )
        .fix("upgrade rearview to the version that wrote this database"),
        Ok(found) => {
            let detail = format!(
                "{}: {} memories, {:.1} MiB, integrity ok, schema v{}",
                path.display(),
                found.memories,
                found.size_bytes as f64 / 1_048_576.0,
                found.schema_version
            );
            if found.schema_version < found.latest_version {
                Check::new(
                    "database",
                    Status::Warn,
                    format!("{detail} (this build migrates it to v{} on start)", found.latest_version),
                )
            } else {
                Check::new("database", Status::Ok, detail)
            }
        }
    }
}

async fn embedding(settings: &Settings) -> Check {
    let resolved = match crate::models::resolve(settings, Acquire::IfInstalled).await {
        Ok(r) => r,
        Err(e) => {
            return Check::new("embedding model", Status::Fail, format!("{e:#}"))
                .fix("fix model / embed_url / vector_dim (see `rearview config show`)");
        }
    };
    let Some(primary) = resolved.embedders.first() else {
        return match resolved.status {
            Some(status) => Check::new("embedding model", Status::Fail, status).fix(
                "`rearview models fetch` installs the default model (or set model / embed_url)",
            ),
            None => {
                Check::new("embedding model", Status::Skip, "none configured: keyword-only recall")
            }
        };
    };
    let started = Instant::now();
    let texts = ["rearview doctor: 记忆检查".to_owned()];
    match primary.embed(&texts, TextKind::Query).await {
        Ok(vectors) if vectors.len() == 1 => {
            let dims = vectors[0].dimensions();
            let mut detail = format!(
                "{} loads and embeds ({dims} dimensions, {} ms for one text)",
                primary.model_id(),
                started.elapsed().as_millis()
            );
            if let Some(status) = resolved.status {
                detail.push_str(&format!("; but {status}"));
                return Check::new("embedding model", Status::Warn, detail);
            }
            match settings.check_vector_dim(primary.model_id(), dims) {
                Ok(()) => Check::new("embedding model", Status::Ok, detail),
                Err(e) => Check::new("embedding model", Status::Fail, e.to_string()),
            }
        }
        Ok(_) => Check::new("embedding model", Status::Fail, "the model answered with no vector"),
        Err(e) => Check::new("embedding model", Status::Fail, format!("{} failed: {e}", primary.model_id()))
            .fix("`rearview models fetch --force` re-installs a local model; check embed_url for an endpoint"),
    }
}

async fn llm(settings: &Settings) -> Check {
    let Some(url) = settings.llm_url.clone() else {
        return Check::new(
            "llm endpoint",
            Status::Skip,
            "none configured: rule-based extraction and extractive summaries",
        );
    };
    let key = settings.llm_api_key.clone();
    let model = settings.llm_model.clone().unwrap_or_default();
    let probe = tokio::task::spawn_blocking(move || get(&format!("{url}/models"), key.as_deref()));
    let url = settings.llm_url.as_deref().unwrap_or_default();
    match probe.await {
        Ok(Ok((200, body))) => {
            let listed = body.contains(&format!("\"{model}\""));
            let detail = format!("{url} answers GET /models");
            if listed || model.is_empty() {
                Check::new("llm endpoint", Status::Ok, format!("{detail}; model {model} is listed"))
            } else {
                Check::new(
                    "llm endpoint",
                    Status::Warn,
                    format!("{detail}, but model {model} is not listed"),
                )
                .fix("check llm_model against the endpoint's model names")
            }
        }
        Ok(Ok((status @ (401 | 403), _))) => Check::new(
            "llm endpoint",
            Status::Fail,
            format!("{url} refused the API key ({status})"),
        )
        .fix("set llm_api_key (file) / REARVIEW_LLM_API_KEY, or llm_api_key_env"),
        Ok(Ok((status, _))) => Check::new(
            "llm endpoint",
            Status::Warn,
            format!("{url} is reachable but GET /models answered {status}"),
        ),
        Ok(Err(e)) => Check::new(
            "llm endpoint",
            Status::Fail,
            format!("{url} is unreachable: {e}"),
        )
        .fix(
            "start the LLM server or correct llm_url (an OpenAI-compatible base URL ending in /v1)",
        ),
        Err(e) => Check::new("llm endpoint", Status::Fail, format!("probe failed: {e}")),
    }
}

async fn listen(settings: &Settings) -> Check {
    match tokio::net::TcpListener::bind(&settings.listen).await {
        Ok(_) => Check::new("listen address", Status::Ok, format!("{} is free", settings.listen)),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            let healthy = get(&format!("http://{}/healthz", settings.listen), None)
                .is_ok_and(|(status, _)| status == 200);
            let detail = if healthy {
                format!("{} is in use by a running rearview (it answers /healthz)", settings.listen)
            } else {
                format!("{} is in use by another program", settings.listen)
            };
            Check::new("listen address", Status::Warn, detail)
                .fix("stop the other server or choose another --listen / REARVIEW_LISTEN")
        }
        Err(e) => Check::new("listen address", Status::Fail, format!("{}: {e}", settings.listen))
            .fix("use an address of this machine, e.g. 127.0.0.1:8765 or 0.0.0.0:8765"),
    }
}

/// `rearview health`: exit 0 when the server answers `/healthz` with 200.
pub async fn health(settings: &Settings, url: Option<&str>) -> anyhow::Result<ExitCode> {
    let base = match url {
        Some(url) => url.trim_end_matches('/').to_owned(),
        None => format!("http://{}", settings.listen.replace("0.0.0.0", "127.0.0.1")),
    };
    let target = format!("{base}/healthz");
    let probe = tokio::task::spawn_blocking(move || get(&target, None)).await?;
    match probe {
        Ok((200, _)) => Ok(ExitCode::SUCCESS),
        Ok((status, body)) => {
            crate::output::error(&format!("{base}/healthz answered {status}: {body}"));
            Ok(ExitCode::from(1))
        }
        Err(e) => {
            crate::output::error(&format!("{base}/healthz: {e}"));
            Ok(ExitCode::from(1))
        }
    }
}

/// A GET with a short timeout: status and body (any status is an answer, not an error).
fn get(url: &str, key: Option<&str>) -> Result<(u16, String), String> {
    let agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(5)))
        .http_status_as_error(false)
        .build()
        .new_agent();
    let mut request = agent.get(url);
    if let Some(key) = key {
        request = request.header("Authorization", &format!("Bearer {key}"));
    }
    let mut response = request.call().map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let body = response.body_mut().read_to_string().unwrap_or_default();
    Ok((status, body))
}
