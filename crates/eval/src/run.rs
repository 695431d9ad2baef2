//! A run: the records embedded and stored through the service, then every question asked
//! once per configuration and scored.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use rearview_core::{Clock, ManualClock, MemoryId, Namespace};
use rearview_embed::{Embedder, TextKind};
use rearview_service::{
    KeywordSearch, MemoryService, RecallRequest, RememberRequest, ServiceConfig,
};
use rearview_store::MemoryStore;
use rearview_store_sqlite::SqliteStore;

use crate::{
    Answered, CachingEmbedder, ConfigReport, Dataset, EvalConfig, EvalError, Progress, Report,
    Scores, metrics,
};

/// Runs `configs` over `data` with `embedder` (none: keyword-only).
pub async fn run(
    data: &Dataset,
    embedder: Option<Arc<dyn Embedder>>,
    configs: &[EvalConfig],
    progress: &dyn Progress,
) -> Result<Report, EvalError> {
    run_cached(data, embedder, configs, progress, None).await
}

/// [`run`], with the vectors kept in `embed_cache` (a directory) between runs: a rerun of the
/// same data with the same model embeds nothing.
pub async fn run_cached(
    data: &Dataset,
    embedder: Option<Arc<dyn Embedder>>,
    configs: &[EvalConfig],
    progress: &dyn Progress,
    embed_cache: Option<&Path>,
) -> Result<Report, EvalError> {
    run_on(data, embedder, configs, progress, embed_cache, None).await
}

/// [`run_cached`] on `store` (an empty one; `None`: an in-memory SQLite database), e.g. a
/// PostgreSQL schema, to compare the ranking of another backend on the same data.
pub async fn run_on(
    data: &Dataset,
    embedder: Option<Arc<dyn Embedder>>,
    configs: &[EvalConfig],
    progress: &dyn Progress,
    embed_cache: Option<&Path>,
    store: Option<Arc<dyn MemoryStore>>,
) -> Result<Report, EvalError> {
    let latest = data
        .questions
        .iter()
        .map(|q| q.as_of)
        .chain(data.memories.iter().map(|m| m.timestamp))
        .max()
        .unwrap_or_default();
    let clock = Arc::new(ManualClock::new(latest));
    let cached = embedder.map(|e| Arc::new(CachingEmbedder::new(e)));
    let store: Arc<dyn MemoryStore> = match store {
        Some(store) => store,
        None => Arc::new(SqliteStore::in_memory().map_err(rearview_service::ServiceError::from)?),
    };
    let config = ServiceConfig {
        keyword_search: KeywordSearch::InMemory,
        max_top_k: 100,
        ..ServiceConfig::default()
    };
    let service = MemoryService::open(
        store,
        cached.clone().map(|c| c as Arc<dyn Embedder>),
        Arc::clone(&clock) as Arc<dyn Clock>,
        config,
    )
    .await?;
    let embed_per_sec = match &cached {
        Some(cache) => embed_all(cache, data, progress, embed_cache).await?,
        None => None,
    };
    let mut namespaces: HashMap<&str, Namespace> = HashMap::new();
    let stored = store_all(&service, data, progress, &mut namespaces, &clock).await?;
    let mut reports = Vec::new();
    for config in configs {
        reports
            .push(ask_all(&service, data, config, &stored.ids, progress, &mut namespaces).await?);
    }
    Ok(Report {
        dataset: data.name.clone(),
        model: cached.as_ref().map(|c| c.model_id().to_owned()),
        memories: data.memories.len(),
        namespaces: namespaces.len(),
        questions: data.questions.len(),
        skipped: data.skipped.len(),
        merged: stored.merged,
        embed_per_sec,
        store_per_sec: stored.per_sec,
        configs: reports,
    })
}

/// Every distinct memory text and question embedded once, into `cache` (and, with
/// `embed_cache`, kept on disk); distinct texts embedded per second when the model computed
/// them all (vectors reused from disk say nothing about the encoder).
async fn embed_all(
    cache: &CachingEmbedder,
    data: &Dataset,
    progress: &dyn Progress,
    embed_cache: Option<&Path>,
) -> Result<Option<f64>, EvalError> {
    let reused = match embed_cache {
        Some(dir) => cache.load(dir)?,
        None => 0,
    };
    let mut texts: Vec<String> = data.memories.iter().map(|m| m.text.clone()).collect();
    texts.sort();
    texts.dedup();
    progress.start("embedding", texts.len() as u64);
    let started = Instant::now();
    for chunk in texts.chunks(64) {
        cache.warm(chunk, TextKind::Passage).await?;
        progress.advance(chunk.len() as u64);
    }
    let per_sec =
        (reused == 0).then(|| texts.len() as f64 / started.elapsed().as_secs_f64().max(1e-9));
    progress.finish();
    let mut queries: Vec<String> = data.questions.iter().map(|q| q.text.clone()).collect();
    queries.sort();
    queries.dedup();
    progress.start("embedding questions", queries.len() as u64);
    for chunk in queries.chunks(64) {
        cache.warm(chunk, TextKind::Query).await?;
        progress.advance(chunk.len() as u64);
    }
    progress.finish();
    if let Some(dir) = embed_cache {
        cache.save(dir)?;
    }
    Ok(per_sec)
}

/// What storing the records gave: each stored memory's dataset ids (several when records
/// merged), how many merged, and records stored per second.
struct Stored {
    ids: HashMap<MemoryId, Vec<String>>,
    merged: usize,
    per_sec: f64,
}

/// Every record stored through `remember` at its own time, never expiring.
///
/// Each is stored a millisecond after the one before (the clock stepped from `clock`'s time),
/// so memory ids, which order by creation time (UUID v7), follow the dataset's order. Stored at
/// one instant, ids of one millisecond order by their random bits: exact score ties, which
/// break by id (frequent in RRF, and at the keyword and vector candidate cut-offs), broke
/// differently on every run, and the figures moved (LoCoMo `rrf` frac@5 0.513 / 0.517 / 0.515
/// over three runs). Recall is unaffected: questions are asked `as_of` their own time.
async fn store_all<'a>(
    service: &MemoryService,
    data: &'a Dataset,
    progress: &dyn Progress,
    namespaces: &mut HashMap<&'a str, Namespace>,
    clock: &ManualClock,
) -> Result<Stored, EvalError> {
    progress.start("storing", data.memories.len() as u64);
    let started = Instant::now();
    let mut ids: HashMap<MemoryId, Vec<String>> = HashMap::new();
    let mut merged = 0;
    let first = clock.now();
    for (i, m) in data.memories.iter().enumerate() {
        clock.set(first + chrono::TimeDelta::milliseconds(i as i64));
        let ns = namespace(namespaces, &m.namespace)?;
        let request = RememberRequest {
            occurred_at: Some(m.timestamp),
            ttl_secs: Some(0),
            ..RememberRequest::new(m.text.clone())
        };
        let stored = service.remember(&ns, request).await?;
        merged += usize::from(stored.merged.is_some());
        ids.entry(stored.memory.id).or_default().push(m.id.clone());
        progress.advance(1);
    }
    let per_sec = data.memories.len() as f64 / started.elapsed().as_secs_f64().max(1e-9);
    progress.finish();
    Ok(Stored { ids, merged, per_sec })
}

/// Every question asked under `config`, its top 50 scored against its gold ids.
async fn ask_all<'a>(
    service: &MemoryService,
    data: &'a Dataset,
    config: &EvalConfig,
    ids: &HashMap<MemoryId, Vec<String>>,
    progress: &dyn Progress,
    namespaces: &mut HashMap<&'a str, Namespace>,
) -> Result<ConfigReport, EvalError> {
    progress.start(&format!("asking ({})", config.name), data.questions.len() as u64);
    let mut per_question: Vec<(&str, Scores)> = Vec::with_capacity(data.questions.len());
    let mut latencies = Vec::with_capacity(data.questions.len());
    let mut answers = Vec::with_capacity(data.questions.len());
    for q in &data.questions {
        let ns = namespace(namespaces, &q.namespace)?;
        let request = RecallRequest {
            top_k: 50,
            as_of: Some(q.as_of),
            record_access: false,
            ranking: config.ranking,
            min_relevance: config.min_relevance,
            ..RecallRequest::new(q.text.clone())
        };
        let started = Instant::now();
        let response = service.recall(&ns, request).await?;
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        let ranked: Vec<Vec<String>> = response
            .hits
            .iter()
            .take(50)
            .map(|hit| ids.get(&hit.memory.id).cloned().unwrap_or_default())
            .collect();
        let scores = metrics::score(&ranked, &q.gold);
        let frac_at_5 = scores.get("frac").and_then(|f| f.get(&5)).copied().unwrap_or(0.0);
        let top = ranked.iter().take(10).cloned().collect();
        answers.push(Answered { top, frac_at_5 });
        per_question.push((q.category.as_str(), scores));
        progress.advance(1);
    }
    progress.finish();
    Ok(summarise(&config.name, &per_question, latencies, answers))
}

/// The mean scores overall and per category, and the latency percentiles.
fn summarise(
    name: &str,
    per_question: &[(&str, Scores)],
    mut latencies: Vec<f64>,
    answers: Vec<Answered>,
) -> ConfigReport {
    let overall = metrics::mean(&per_question.iter().map(|(_, s)| s).collect::<Vec<_>>());
    let mut categories = BTreeMap::new();
    let mut names: Vec<&str> = per_question.iter().map(|(c, _)| *c).collect();
    names.sort_unstable();
    names.dedup();
    for category in names {
        let of: Vec<&Scores> =
            per_question.iter().filter(|(c, _)| *c == category).map(|(_, s)| s).collect();
        categories.insert(category.to_owned(), (of.len(), metrics::mean(&of)));
    }
    latencies.sort_by(f64::total_cmp);
    let pick = |p: f64| {
        latencies.get(((latencies.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(0.0)
    };
    let latency_ms = (pick(0.5), pick(0.95));
    ConfigReport { name: name.to_owned(), overall, categories, latency_ms, answers }
}

fn namespace<'a>(
    cache: &mut HashMap<&'a str, Namespace>,
    name: &'a str,
) -> Result<Namespace, EvalError> {
    if let Some(ns) = cache.get(name) {
        return Ok(ns.clone());
    }
    let ns: Namespace = name.parse().map_err(|e: rearview_core::InputError| {
        EvalError::Input(format!("dataset namespace {name:?}: {e}"))
    })?;
    cache.insert(name, ns.clone());
    Ok(ns)
}
