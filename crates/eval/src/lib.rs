//! `rearview eval`: retrieval quality on real benchmarks, through the service path MCP's
//! `store_memory` and `retrieve_memory` use.
//!
//! The protocol (`../shared/docs/BENCHMARKS.md`): every record of a dataset is stored with
//! [`rearview_service::MemoryService::remember`] (one namespace per haystack, its real time as `occurred_at`,
//! never expiring, dedup-merge on as in production: a merged record's ids all map to the memory
//! it merged into); every question is asked with its text only, `as_of` its date, access counting
//! off, once per ranking [`EvalConfig`]; the top 50 are mapped back to dataset ids and scored
//! ([`metrics`]). Adapters ([`adapters`], [`load_jsonl`]) only reshape the files.
//!
//! Embeddings are computed once per distinct text ([`CachingEmbedder`], batched) so that several
//! configurations cost one embedding pass; ingest throughput is reported with and without it.

pub mod adapters;
mod cache;
mod configs;
mod dataset;
pub mod metrics;
mod run;

use std::collections::BTreeMap;
use std::path::Path;

use rearview_embed::EmbedError;

pub use cache::CachingEmbedder;
pub use configs::{EvalConfig, NAMES, config};
pub use dataset::{Dataset, EvalMemory, EvalQuestion, load_jsonl};
pub use metrics::{KS, METRICS, Scores};
pub use run::{run, run_cached, run_on};

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
    /// What each question got, in the dataset's order (question ids need not be unique across
    /// namespaces, so the order is what pairs an answer with its question).
    pub answers: Vec<Answered>,
}

/// One question's result under one configuration.
#[derive(Debug, Clone)]
pub struct Answered {
    /// The dataset ids of the first 10 memories returned, best first (several for a memory
    /// that records were merged into).
    pub top: Vec<Vec<String>>,
    /// Its `frac@5`.
    pub frac_at_5: f64,
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
        // Questions about something never stored: the share answered with nothing.
        let absent = self.configs.iter().any(|c| c.overall.contains_key(metrics::EMPTY));
        if absent {
            out += &format!("{:>10}", "empty");
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
            if absent {
                let empty = c.overall.get(metrics::EMPTY).and_then(|b| b.get(&50));
                out += &format!("{:>10.3}", empty.copied().unwrap_or(0.0));
            }
            out += &format!("   {:.1}/{:.1}\n", c.latency_ms.0, c.latency_ms.1);
        }
        out += if absent {
            "\nfrac@5 per category (empty answers for questions about nothing stored)\n"
        } else {
            "\nfrac@5 per category\n"
        };
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
                let scores = c.categories.get(*name).map(|(_, s)| s);
                let frac = scores.and_then(|s| s.get("frac")).and_then(|b| b.get(&5));
                let empty = scores.and_then(|s| s.get(metrics::EMPTY)).and_then(|b| b.get(&50));
                let v = frac.or(empty).copied().unwrap_or(0.0);
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
