//! `rearview eval`: retrieval quality on real benchmarks, through the service path MCP's
//! `store_memory` and `retrieve_memory` use.
//!
//! The protocol (`../shared/docs/BENCHMARKS.md`): every record of a dataset is stored with
//! [`MemoryService::remember`] (one namespace per haystack, its real time as `occurred_at`,
//! never expiring, dedup-merge on as in production: a merged record's ids all map to the memory
//! it merged into); every question is asked with its text only, `as_of` its date, access counting
//! off, once per ranking [`EvalConfig`]; the top 50 are mapped back to dataset ids and scored
//! ([`metrics`]). Adapters ([`adapters`], [`load_jsonl`]) only reshape the files.
//!
//! Embeddings are computed once per distinct text ([`CachingEmbedder`], batched) so that several
//! configurations cost one embedding pass; ingest throughput is reported with and without it.

pub mod adapters;
mod dataset;
pub mod metrics;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use async_trait::async_trait;
use rearview_core::{Clock, Embedding, ManualClock, MemoryId, Namespace};
use rearview_embed::{EmbedError, Embedder, TextKind};
use rearview_search::{
    Feedback, Fusion, KeywordScale, QueryFocus, RankingConfig, Recency, Succession, VectorScale,
};
use rearview_service::{
    KeywordSearch, MemoryService, RecallRequest, RememberRequest, ServiceConfig,
};
use rearview_store::MemoryStore;
use rearview_store_sqlite::SqliteStore;

pub use dataset::{Dataset, EvalMemory, EvalQuestion, load_jsonl};
pub use metrics::{KS, METRICS, Scores};

/// Why an evaluation could not run.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A file is not in the expected format.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong, with the line or record.
        message: String,
    },
    /// The request was wrong (an unknown configuration name, …).
    #[error("{0}")]
    Input(String),
    /// The service failed.
    #[error(transparent)]
    Service(#[from] rearview_service::ServiceError),
    /// The embedding model failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
}

impl EvalError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        EvalError::Io { path: path.display().to_string(), source }
    }

    pub(crate) fn format(path: &Path, message: impl Into<String>) -> Self {
        EvalError::Format { path: path.display().to_string(), message: message.into() }
    }
}

/// A ranking configuration to evaluate.
#[derive(Debug, Clone)]
pub struct EvalConfig {
    /// Name in reports (`default`, `bm25`, `vector`, `hybrid`, …).
    pub name: String,
    /// The ranking used for every question; `None` is the service's own default, exactly what
    /// `recall` and `retrieve_memory` do when a client sets no option.
    pub ranking: Option<RankingConfig>,
    /// The relevance floor; `None`: the service's default.
    pub min_relevance: Option<f32>,
}

/// Candidates per side in the named experiments: enough to fill the top 50.
const CANDIDATES: usize = 50;

/// Every named configuration, in report order.
pub const NAMES: [&str; 7] =
    ["default", "bm25", "vector", "hybrid", "hybrid-nodecay", "rrf", "rrf-decay"];

/// The named configurations:
/// - `default`: what recall does with no options (the service's configured ranking, floor and
///   focusing; nothing set here);
/// - `bm25`: keywords only, raw BM25 order;
/// - `vector`: cosine only;
/// - `hybrid`: the design's formula (0.7·cos + 0.3·min(bm25/10, 1)) × decay × heat;
/// - `hybrid-nodecay`: the same without decay and heat, BM25 saturating at 20;
/// - `rrf`: reciprocal-rank fusion (k = 60), no decay;
/// - `rrf-decay`: the same with the design's decay;
/// - custom: a fusion `weighted:V:K:S`, `rrf:K:V:W` or `rel:V:K:raw|minmax[:max|coverS]`, followed by any of
///   `+decay` (the design's), `+prior:W:H` (recency prior: weight, half-life in days),
///   `+focus:T:W:D` (dialogue focus: tail turns, tail weight, keyword decay per turn),
///   `+succession:S:M` (newer statements first, pairs at cosine ≥ S, nearest by M),
///   `+nosuccession`, `+feedback:T:W` (every query vector moved toward the first ranking's top
///   T memories with weight W), `+dialoguefeedback:T:W` (only dialogue queries) or
///   `+nofeedback`; or
///   `default` followed by any of these (`default+nosuccession`: the default without the
///   newer-statements-first stage);
/// - any of these with `+floor:X` last: the relevance floor X instead of the service's.
pub fn config(name: &str) -> Result<EvalConfig, EvalError> {
    let base = RankingConfig {
        fusion: Fusion::DESIGN,
        recency: Recency::Off,
        heat_weight: 0.0,
        heat_saturation: None,
        focus: QueryFocus::OFF,
        vector_candidates: CANDIDATES,
        keyword_candidates: CANDIDATES,
        succession: None,
        feedback: None,
    };
    let design_decay = Recency::Decay { per_day: 0.01 };
    if let Some((rest, floor)) = name.rsplit_once("+floor:") {
        let floor: f32 = floor
            .parse()
            .map_err(|_| EvalError::Input(format!("{name:?}: +floor needs a number")))?;
        let mut config = config(rest)?;
        config.name = name.to_owned();
        config.min_relevance = Some(floor);
        return Ok(config);
    }
    let ranking = match name {
        "default" => None,
        "bm25" => Some(RankingConfig {
            fusion: Fusion::Weighted { vector: 0.0, keyword: 1.0, bm25_saturation: f32::MAX },
            vector_candidates: 0,
            ..base
        }),
        "vector" => Some(RankingConfig {
            fusion: Fusion::Weighted { vector: 1.0, keyword: 0.0, bm25_saturation: 10.0 },
            keyword_candidates: 0,
            ..base
        }),
        "hybrid" => Some(RankingConfig {
            vector_candidates: CANDIDATES,
            keyword_candidates: CANDIDATES,
            ..RankingConfig::DESIGN
        }),
        "hybrid-nodecay" => Some(RankingConfig {
            fusion: Fusion::Weighted { vector: 0.7, keyword: 0.3, bm25_saturation: 20.0 },
            ..base
        }),
        "rrf" => Some(RankingConfig { fusion: Fusion::RRF, ..base }),
        "rrf-decay" => Some(RankingConfig { fusion: Fusion::RRF, recency: design_decay, ..base }),
        other => Some(custom(other, base).ok_or_else(|| {
            EvalError::Input(format!(
                "unknown configuration {other:?}; allowed: {}, or a custom fusion \
                 (weighted:V:K:S, rrf:K:V:W, rel:V:K:raw|minmax[:max|coverS], or default) with any \
                 of +decay, +prior:W:H, +focus:T:W:D, +succession:S:M, +nosuccession, \
                 +feedback:T:W, +dialoguefeedback:T:W, +nofeedback",
                NAMES.join(", ")
            ))
        })?),
    };
    Ok(EvalConfig { name: name.to_owned(), ranking, min_relevance: None })
}

/// A custom configuration: fusion experiments without a rebuild.
fn custom(name: &str, base: RankingConfig) -> Option<RankingConfig> {
    let mut parts = name.split('+');
    let mut ranking = match parts.next()? {
        // The service's default with modifiers: `default+nosuccession`.
        "default" => RankingConfig::default(),
        first => RankingConfig { fusion: fusion(first)?, ..base },
    };
    for modifier in parts {
        let mut fields = modifier.split(':');
        let kind = fields.next()?;
        let numbers: Vec<f32> = fields.map(|p| p.parse().ok()).collect::<Option<_>>()?;
        match (kind, numbers.as_slice()) {
            ("decay", []) => ranking.recency = Recency::Decay { per_day: 0.01 },
            ("prior", [weight, half_life_days]) => {
                ranking.recency =
                    Recency::Prior { weight: *weight, half_life_days: *half_life_days }
            }
            ("focus", [tail_turns, tail_weight, turn_decay]) => {
                ranking.focus = QueryFocus {
                    min_turns: 3,
                    tail_turns: *tail_turns as usize,
                    tail_weight: *tail_weight,
                    turn_decay: *turn_decay,
                }
            }
            ("succession", [min_similarity, nearest_margin]) => {
                ranking.succession = Some(Succession {
                    min_similarity: *min_similarity,
                    nearest_margin: *nearest_margin,
                })
            }
            ("nosuccession", []) => ranking.succession = None,
            ("feedback" | "dialoguefeedback", [top, weight])
                if top.fract() == 0.0 && *top >= 1.0 =>
            {
                ranking.feedback = Some(Feedback {
                    top: *top as usize,
                    weight: *weight,
                    dialogues_only: kind == "dialoguefeedback",
                })
            }
            ("nofeedback", []) => ranking.feedback = None,
            _ => return None,
        }
    }
    Some(ranking)
}

fn fusion(spec: &str) -> Option<Fusion> {
    let mut parts = spec.split(':');
    let kind = parts.next()?;
    let rest: Vec<&str> = parts.collect();
    let numbers = |n: usize| -> Option<Vec<f32>> {
        rest.iter().take(n).map(|p| p.parse().ok()).collect::<Option<Vec<f32>>>()
    };
    Some(match (kind, rest.len()) {
        ("weighted", 3) => {
            let n = numbers(3)?;
            Fusion::Weighted { vector: n[0], keyword: n[1], bm25_saturation: n[2] }
        }
        ("rrf", 3) => {
            let n = numbers(3)?;
            Fusion::Rrf { k: n[0], vector: n[1], keyword: n[2] }
        }
        ("rel", 3 | 4) => {
            let n = numbers(2)?;
            let scale = match rest[2] {
                "raw" => VectorScale::Raw,
                "minmax" => VectorScale::MinMax,
                _ => return None,
            };
            let keyword_scale = match rest.get(3).copied() {
                None | Some("max") => KeywordScale::Max,
                Some(cover) => {
                    KeywordScale::Coverage { share: cover.strip_prefix("cover")?.parse().ok()? }
                }
            };
            Fusion::Relative { vector: n[0], keyword: n[1], scale, keyword_scale }
        }
        _ => return None,
    })
}

/// Where a long run reports progress (the CLI draws bars; tests pass [`NoProgress`]).
pub trait Progress: Send + Sync {
    /// A phase starts with `total` steps.
    fn start(&self, phase: &str, total: u64);
    /// `n` more steps done.
    fn advance(&self, n: u64);
    /// The phase is over.
    fn finish(&self);
}

/// Reports nothing.
#[derive(Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
    fn finish(&self) {}
}

/// Results of one configuration.
#[derive(Debug, Clone)]
pub struct ConfigReport {
    /// Configuration name.
    pub name: String,
    /// Mean over all questions.
    pub overall: Scores,
    /// Mean per category, with the number of questions.
    pub categories: BTreeMap<String, (usize, Scores)>,
    /// Recall latency, milliseconds: p50, p95. Query vectors are computed before the timed
    /// part (once per question for all configurations), so this is retrieval and ranking only.
    pub latency_ms: (f64, f64),
}

/// What a run measured.
#[derive(Debug, Clone)]
pub struct Report {
    /// Dataset name.
    pub dataset: String,
    /// The embedding model, or `None` (keyword-only).
    pub model: Option<String>,
    /// Records stored, namespaces, questions asked, questions skipped by the adapter.
    pub memories: usize,
    /// Haystacks.
    pub namespaces: usize,
    /// Questions scored.
    pub questions: usize,
    /// Questions the adapter skipped.
    pub skipped: usize,
    /// Records merged into another on store (dedup).
    pub merged: usize,
    /// Distinct texts embedded per second (batched), if a model is used.
    pub embed_per_sec: Option<f64>,
    /// Records stored per second through `remember` with vectors already computed.
    pub store_per_sec: f64,
    /// One entry per configuration, in the order asked.
    pub configs: Vec<ConfigReport>,
}

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
        clock as Arc<dyn Clock>,
        config,
    )
    .await?;

    let mut embed_per_sec = None;
    let mut reused = 0;
    if let (Some(cache), Some(dir)) = (&cached, embed_cache) {
        reused = cache.load(dir)?;
    }
    if let Some(cache) = &cached {
        let mut texts: Vec<String> = data.memories.iter().map(|m| m.text.clone()).collect();
        texts.sort();
        texts.dedup();
        progress.start("embedding", texts.len() as u64);
        let started = Instant::now();
        for chunk in texts.chunks(64) {
            cache.warm(chunk, TextKind::Passage).await?;
            progress.advance(chunk.len() as u64);
        }
        // With vectors reused from the cache, the time says nothing about the encoder.
        embed_per_sec =
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
    }

    progress.start("storing", data.memories.len() as u64);
    let started = Instant::now();
    let mut ids: HashMap<MemoryId, Vec<String>> = HashMap::new();
    let mut merged = 0;
    let mut namespaces: HashMap<&str, Namespace> = HashMap::new();
    for m in &data.memories {
        let ns = namespace(&mut namespaces, &m.namespace)?;
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
    let store_per_sec = data.memories.len() as f64 / started.elapsed().as_secs_f64().max(1e-9);
    progress.finish();

    let mut reports = Vec::new();
    for config in configs {
        progress.start(&format!("asking ({})", config.name), data.questions.len() as u64);
        let mut per_question: Vec<(&str, Scores)> = Vec::with_capacity(data.questions.len());
        let mut latencies = Vec::with_capacity(data.questions.len());
        for q in &data.questions {
            let ns = namespace(&mut namespaces, &q.namespace)?;
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
            per_question.push((q.category.as_str(), metrics::score(&ranked, &q.gold)));
            progress.advance(1);
        }
        progress.finish();
        let overall = metrics::mean(&per_question.iter().map(|(_, s)| s).collect::<Vec<_>>());
        let mut categories = BTreeMap::new();
        let mut names: Vec<&str> = per_question.iter().map(|(c, _)| *c).collect();
        names.sort_unstable();
        names.dedup();
        for name in names {
            let of: Vec<&Scores> =
                per_question.iter().filter(|(c, _)| *c == name).map(|(_, s)| s).collect();
            categories.insert(name.to_owned(), (of.len(), metrics::mean(&of)));
        }
        latencies.sort_by(f64::total_cmp);
        let pick = |p: f64| {
            latencies
                .get(((latencies.len() as f64 - 1.0) * p).round() as usize)
                .copied()
                .unwrap_or(0.0)
        };
        reports.push(ConfigReport {
            name: config.name.clone(),
            overall,
            categories,
            latency_ms: (pick(0.5), pick(0.95)),
        });
    }
    Ok(Report {
        dataset: data.name.clone(),
        model: cached.as_ref().map(|c| c.model_id().to_owned()),
        memories: data.memories.len(),
        namespaces: namespaces.len(),
        questions: data.questions.len(),
        skipped: data.skipped.len(),
        merged,
        embed_per_sec,
        store_per_sec,
        configs: reports,
    })
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

impl Report {
    /// `metric@k` of configuration `config` over all questions (for floors in tests).
    pub fn get(&self, config: &str, metric: &str, k: usize) -> Option<f64> {
        let c = self.configs.iter().find(|c| c.name == config)?;
        c.overall.get(metric)?.get(&k).copied()
    }

    /// Everything as JSON (`rearview eval --json`).
    pub fn to_json(&self) -> serde_json::Value {
        let scores = |s: &Scores| {
            serde_json::Value::Object(
                s.iter()
                    .map(|(m, by_k)| {
                        let inner: serde_json::Map<String, serde_json::Value> = by_k
                            .iter()
                            .map(|(k, v)| (format!("@{k}"), serde_json::json!(round4(*v))))
                            .collect();
                        ((*m).to_owned(), serde_json::Value::Object(inner))
                    })
                    .collect(),
            )
        };
        serde_json::json!({
            "dataset": self.dataset,
            "model": self.model,
            "memories": self.memories,
            "namespaces": self.namespaces,
            "questions": self.questions,
            "skipped_questions": self.skipped,
            "merged_on_store": self.merged,
            "embed_texts_per_sec": self.embed_per_sec.map(round4),
            "store_per_sec": round4(self.store_per_sec),
            "configs": self.configs.iter().map(|c| serde_json::json!({
                "name": c.name,
                "recall_ms": {"p50": round4(c.latency_ms.0), "p95": round4(c.latency_ms.1)},
                "overall": scores(&c.overall),
                "categories": c.categories.iter().map(|(name, (n, s))| (name.clone(), serde_json::json!({"questions": n, "scores": scores(s)}))).collect::<serde_json::Map<_, _>>(),
            })).collect::<Vec<_>>(),
        })
    }

    /// A readable summary: the headline metrics per configuration, then per category.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{}: {} memories in {} namespaces ({} merged on store), {} questions ({} skipped), model {}\n",
            self.dataset,
            self.memories,
            self.namespaces,
            self.merged,
            self.questions,
            self.skipped,
            self.model.as_deref().unwrap_or("none (keyword-only)")
        );
        if let Some(e) = self.embed_per_sec {
            out += &format!("embedding {e:.1} texts/s (batched, distinct texts); ");
        }
        out += &format!("storing {:.0} memories/s\n\n", self.store_per_sec);
        let columns = [
            ("frac", 1),
            ("frac", 5),
            ("frac", 10),
            ("frac", 25),
            ("recall_any", 5),
            ("recall_all", 5),
            ("ndcg", 10),
            ("mrr", 50),
        ];
        out += &format!("{:<16}", "config");
        for (m, k) in columns {
            out += &format!(
                "{:>10}",
                if m == "mrr" { "mrr".to_owned() } else { format!("{}@{k}", short(m)) }
            );
        }
        out += "   recall p50/p95 ms\n";
        for c in &self.configs {
            out += &format!("{:<16}", c.name);
            for (m, k) in columns {
                out += &format!(
                    "{:>10.3}",
                    c.overall.get(m).and_then(|b| b.get(&k)).copied().unwrap_or(0.0)
                );
            }
            out += &format!("   {:.1}/{:.1}\n", c.latency_ms.0, c.latency_ms.1);
        }
        out += "\nfrac@5 per category\n";
        let categories: Vec<&String> =
            self.configs.first().map(|c| c.categories.keys().collect()).unwrap_or_default();
        out += &format!("{:<16}", "config");
        for name in &categories {
            out += &format!("{:>16}", truncate(name, 15));
        }
        out += "\n";
        for c in &self.configs {
            out += &format!("{:<16}", c.name);
            for name in &categories {
                let v = c
                    .categories
                    .get(*name)
                    .and_then(|(_, s)| s.get("frac"))
                    .and_then(|b| b.get(&5))
                    .copied()
                    .unwrap_or(0.0);
                out += &format!("{v:>16.3}");
            }
            out += "\n";
        }
        out
    }
}

fn short(metric: &str) -> &str {
    match metric {
        "recall_any" => "any",
        "recall_all" => "all",
        other => other,
    }
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn round4(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

const CACHE_MAGIC: &[u8; 8] = b"RVVEC001";

/// `magic, then per entry: kind (1 = query), text length (u32 LE), text, dimensions (u32 LE),
/// components (f32 LE)`.
fn encode_cache(cache: &HashMap<(bool, String), Embedding>) -> Vec<u8> {
    let mut out = CACHE_MAGIC.to_vec();
    for ((query, text), vector) in cache {
        out.push(u8::from(*query));
        out.extend((text.len() as u32).to_le_bytes());
        out.extend(text.as_bytes());
        out.extend((vector.dimensions() as u32).to_le_bytes());
        for v in vector.as_slice() {
            out.extend(v.to_le_bytes());
        }
    }
    out
}

fn decode_cache(bytes: &[u8]) -> Option<Vec<((bool, String), Embedding)>> {
    let mut rest = bytes.strip_prefix(CACHE_MAGIC.as_slice())?;
    let mut take = |n: usize| -> Option<&[u8]> {
        let (head, tail) = rest.split_at_checked(n)?;
        rest = tail;
        Some(head)
    };
    let mut entries = Vec::new();
    while let Some(kind) = take(1) {
        let query = kind[0] == 1;
        let len = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
        let text = String::from_utf8(take(len)?.to_vec()).ok()?;
        let dims = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
        let values: Vec<f32> = take(dims * 4)?
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        entries.push(((query, text), Embedding::from_normalized(values).ok()?));
    }
    Some(entries)
}

/// An [`Embedder`] that remembers every vector it computed, so the same text is embedded once per
/// run (queries reappear in every configuration; benchmark records repeat).
pub struct CachingEmbedder {
    inner: Arc<dyn Embedder>,
    cache: Mutex<HashMap<(bool, String), Embedding>>,
}

impl std::fmt::Debug for CachingEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachingEmbedder")
            .field("model", &self.inner.model_id())
            .finish_non_exhaustive()
    }
}

impl CachingEmbedder {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn Embedder>) -> Self {
        Self { inner, cache: Mutex::new(HashMap::new()) }
    }

    /// Loads the vectors saved by [`CachingEmbedder::save`] into the cache; a missing file is an
    /// empty cache. Vectors of another model are never mixed in: the file name carries the model.
    pub fn load(&self, dir: &Path) -> Result<usize, EvalError> {
        let path = self.cache_file(dir);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(EvalError::io(&path, e)),
        };
        let entries = decode_cache(&bytes)
            .ok_or_else(|| EvalError::format(&path, "not a rearview embedding cache; delete it"))?;
        let n = entries.len();
        self.lock().extend(entries);
        Ok(n)
    }

    /// Writes every cached vector to a file under `dir` (atomically: a temporary file renamed).
    pub fn save(&self, dir: &Path) -> Result<(), EvalError> {
        std::fs::create_dir_all(dir).map_err(|e| EvalError::io(dir, e))?;
        let path = self.cache_file(dir);
        let bytes = encode_cache(&self.lock());
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, bytes).map_err(|e| EvalError::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| EvalError::io(&path, e))
    }

    fn cache_file(&self, dir: &Path) -> std::path::PathBuf {
        let model: String = self
            .inner
            .model_id()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' })
            .collect();
        dir.join(format!("{model}.vectors"))
    }

    /// Embeds the texts of `texts` not cached yet, in one batch.
    pub async fn warm(&self, texts: &[String], kind: TextKind) -> Result<(), EmbedError> {
        self.embed(texts, kind).await.map(drop)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(bool, String), Embedding>> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[async_trait]
impl Embedder for CachingEmbedder {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }

    async fn embed(&self, texts: &[String], kind: TextKind) -> Result<Vec<Embedding>, EmbedError> {
        let query = kind == TextKind::Query;
        let missing: Vec<String> = {
            let cache = self.lock();
            let mut seen = std::collections::HashSet::new();
            texts
                .iter()
                .filter(|t| {
                    !cache.contains_key(&(query, (*t).clone())) && seen.insert((*t).clone())
                })
                .cloned()
                .collect()
        };
        if !missing.is_empty() {
            let vectors = self.inner.embed(&missing, kind).await?;
            let mut cache = self.lock();
            for (text, v) in missing.into_iter().zip(vectors) {
                cache.insert((query, text), v);
            }
        }
        let cache = self.lock();
        texts
            .iter()
            .map(|t| {
                cache.get(&(query, t.clone())).cloned().ok_or_else(|| EmbedError::BadOutput {
                    message: "a vector went missing from the cache".into(),
                })
            })
            .collect()
    }
}
