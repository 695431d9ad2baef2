//! `rearview eval`: load a benchmark, run it through `rearview-eval` with progress bars, print
//! the report.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use rearview_embed::Embedder;
use rearview_eval::{Dataset, Progress};

use crate::args::EvalArgs;
use crate::output::Printer;

/// Runs the evaluation and prints its report (text, or JSON with `--json`).
pub async fn run(
    args: &EvalArgs,
    embedder: Option<Arc<dyn Embedder>>,
    tuning: crate::settings::PgTuning,
    printer: &Printer,
) -> anyhow::Result<ExitCode> {
    let configs = args
        .configs
        .iter()
        .map(|name| rearview_eval::config(name.trim()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut data = load(args)?;
    if let Some(n) = args.namespaces {
        data.take_namespaces(n);
    }
    if let Some(step) = args.sample {
        data.sample_questions(step);
    }
    if data.questions.is_empty() {
        anyhow::bail!("the dataset has no questions to ask (check --path, --namespaces, --sample)");
    }
    let bars = Bars::default();
    let store = match &args.postgres {
        None => None,
        Some(url) => {
            if !rearview_store_postgres::is_postgres_url(url) {
                anyhow::bail!("--postgres takes a postgres:// or postgresql:// URL, not {url:?}");
            }
            let now = rearview_core::Clock::now(&rearview_core::SystemClock);
            let schema = format!("eval_{}", now.timestamp_micros());
            let password = std::env::var("PGPASSWORD").ok().filter(|p| !p.is_empty());
            let config = rearview_store_postgres::PgConfig {
                schema: Some(schema.clone()),
                ..tuning.config(url.clone(), password)
            };
            let store = rearview_store_postgres::PgStore::connect(&config)
                .await
                .with_context(|| format!("opening {}", rearview_store_postgres::redact_url(url)))?;
            tracing::info!(schema, "evaluating on PostgreSQL");
            Some(Arc::new(store) as Arc<dyn rearview_store::MemoryStore>)
        }
    };
    let report =
        rearview_eval::run_on(&data, embedder, &configs, &bars, args.embed_cache.as_deref(), store)
            .await?;
    printer.eval(&report)?;
    if let Some(path) = &args.per_question {
        write_per_question(path, &data, &report)
            .with_context(|| format!("writing --per-question {}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--per-question`: one JSON line per question and configuration.
fn write_per_question(
    path: &std::path::Path,
    data: &Dataset,
    report: &rearview_eval::Report,
) -> anyhow::Result<()> {
    use std::collections::HashMap;
    use std::io::Write;
    let text: HashMap<(&str, &str), &str> = data
        .memories
        .iter()
        .map(|m| ((m.namespace.as_str(), m.id.as_str()), m.text.as_str()))
        .collect();
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    for config in &report.configs {
        // Answers come in the dataset's order (question ids need not be unique across
        // namespaces).
        for (q, answered) in data.questions.iter().zip(&config.answers) {
            let text_of = |id: &String| text.get(&(q.namespace.as_str(), id.as_str())).copied();
            let memory = |id: &String| serde_json::json!({"id": id, "text": text_of(id)});
            let top: Vec<_> = answered
                .top
                .iter()
                .map(|ids| serde_json::json!({"ids": ids, "text": ids.first().and_then(text_of)}))
                .collect();
            let line = serde_json::json!({
                "config": config.name,
                "id": q.id,
                "namespace": q.namespace,
                "category": q.category,
                "question": q.text,
                "gold": q.gold.iter().map(memory).collect::<Vec<_>>(),
                "frac@5": answered.frac_at_5,
                "top": top,
            });
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    Ok(())
}

fn load(args: &EvalArgs) -> anyhow::Result<Dataset> {
    let root = std::env::var_os("REARVIEW_DATA")
        .map_or_else(|| PathBuf::from("..").join("shared").join("data"), PathBuf::from);
    let path = |default: PathBuf| args.path.clone().unwrap_or(default);
    let data = match args.dataset.as_str() {
        "locomo" => {
            rearview_eval::adapters::locomo(&path(root.join("locomo-dev").join("locomo-dev.json")))?
        }
        "madial-zh" => rearview_eval::adapters::madial(&path(root.join("madial-bench")), "zh")?,
        "madial-en" => rearview_eval::adapters::madial(&path(root.join("madial-bench")), "en")?,
        "memdaily" => rearview_eval::adapters::memdaily(&path(root.join("memdaily")))?,
        "memorybank-cn" | "memorybank-en" => {
            let language = &args.dataset["memorybank-".len()..];
            let dir = path(root.join("memorybank-siliconfriend"));
            rearview_eval::adapters::memorybank(&dir, language)?
        }
        "jsonl" => {
            let file = args.path.clone().context("jsonl needs --path FILE")?;
            rearview_eval::load_jsonl(&file)?
        }
        other => anyhow::bail!("unknown dataset {other:?}"),
    };
    Ok(data)
}

/// One progress bar per phase, on stderr (hidden when stderr is not a terminal).
#[derive(Default)]
struct Bars {
    bar: Mutex<Option<indicatif::ProgressBar>>,
}

impl Progress for Bars {
    fn start(&self, phase: &str, total: u64) {
        let bar = indicatif::ProgressBar::new(total);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg:>22} {bar:40} {pos}/{len} ({per_sec}, eta {eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar.set_message(phase.to_owned());
        *self.bar.lock().unwrap_or_else(|p| p.into_inner()) = Some(bar);
    }

    fn advance(&self, n: u64) {
        if let Some(bar) = &*self.bar.lock().unwrap_or_else(|p| p.into_inner()) {
            bar.inc(n);
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.lock().unwrap_or_else(|p| p.into_inner()).take() {
            bar.finish_and_clear();
        }
    }
}
