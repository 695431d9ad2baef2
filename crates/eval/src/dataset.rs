//! The one shape every benchmark is converted into, and the generic JSONL format.

use std::io::BufRead;
use std::path::Path;

use rearview_core::{Timestamp, parse_timestamp};
use serde::Deserialize;

use crate::EvalError;

/// One record to store.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalMemory {
    /// The haystack it belongs to (a conversation, a user, a question's history).
    pub namespace: String,
    /// The dataset's id for it (what gold lists name).
    pub id: String,
    /// The text stored.
    pub text: String,
    /// When it happened (`occurred_at`).
    pub timestamp: Timestamp,
}

/// One question and its evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalQuestion {
    /// The haystack it is asked against.
    pub namespace: String,
    /// The dataset's id for it.
    pub id: String,
    /// The question text, as the query.
    pub text: String,
    /// The instant it is asked at (`as_of`).
    pub as_of: Timestamp,
    /// Ids of the memories that hold the evidence; empty for a question about something never
    /// stored, whose right answer is nothing (scored by `metrics::EMPTY`).
    pub gold: Vec<String>,
    /// For per-category tables.
    pub category: String,
}

/// A benchmark, ready to ingest and ask.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    /// Name for reports.
    pub name: String,
    /// Records, in ingestion order.
    pub memories: Vec<EvalMemory>,
    /// Questions.
    pub questions: Vec<EvalQuestion>,
    /// Questions the adapter skipped (no usable evidence), with why, for the report.
    pub skipped: Vec<String>,
}

impl Dataset {
    /// Keeps the first `n` namespaces (in order of first appearance) and their questions.
    pub fn take_namespaces(&mut self, n: usize) {
        let mut keep: Vec<String> = Vec::new();
        for m in &self.memories {
            if !keep.contains(&m.namespace) {
                if keep.len() == n {
                    break;
                }
                keep.push(m.namespace.clone());
            }
        }
        self.memories.retain(|m| keep.contains(&m.namespace));
        self.questions.retain(|q| keep.contains(&q.namespace));
    }

    /// Keeps every `step`-th question (a deterministic sample).
    pub fn sample_questions(&mut self, step: usize) {
        let step = step.max(1);
        let mut i = 0;
        self.questions.retain(|_| {
            i += 1;
            (i - 1) % step == 0
        });
    }
}

/// A line of the generic JSONL format.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum Line {
    Memory {
        namespace: String,
        id: String,
        text: String,
        timestamp: String,
    },
    Question {
        namespace: String,
        id: String,
        text: String,
        as_of: String,
        gold: Vec<String>,
        category: Option<String>,
    },
}

/// Reads the generic format: one JSON object per line,
/// `{"type":"memory","namespace","id","text","timestamp"}` or
/// `{"type":"question","namespace","id","text","as_of","gold":[ids],"category"?}`; timestamps
/// RFC 3339 or `YYYY-MM-DD`. A question with an empty `gold` asks about something never
/// stored: its right answer is nothing. Errors name the line.
pub fn load_jsonl(path: &Path) -> Result<Dataset, EvalError> {
    let file = std::fs::File::open(path).map_err(|e| EvalError::io(path, e))?;
    let mut data = Dataset { name: path.display().to_string(), ..Default::default() };
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| EvalError::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| EvalError::Format {
            path: path.display().to_string(),
            message: format!("line {}: {message}", n + 1),
        };
        match serde_json::from_str::<Line>(&line).map_err(|e| bad(e.to_string()))? {
            Line::Memory { namespace, id, text, timestamp } => {
                let timestamp =
                    parse_timestamp("timestamp", &timestamp).map_err(|e| bad(e.to_string()))?;
                data.memories.push(EvalMemory { namespace, id, text, timestamp });
            }
            Line::Question { namespace, id, text, as_of, gold, category } => {
                let as_of = parse_timestamp("as_of", &as_of).map_err(|e| bad(e.to_string()))?;
                let category = category.unwrap_or_else(|| "all".to_owned());
                data.questions.push(EvalQuestion { namespace, id, text, as_of, gold, category });
            }
        }
    }
    Ok(data)
}
