//! MemoryBank / SiliconFriend (`memorybank-siliconfriend/{cn,en}`): simulated users chatting with
//! an AI companion over ten days, and probing questions about what they said. The data has no
//! evidence labels; ours (`data/memorybank_labels.jsonl`, written by hand by someone who had read
//! neither the ranking code nor its rules, after the default ranking was set) name, for each
//! question, the turns that state its answer. It is a held-out recall set: nothing in the
//! ranking was chosen on it.

use std::collections::HashMap;
use std::path::Path;

use chrono::{NaiveDate, TimeDelta};
use serde::Deserialize;

use super::{read_json, read_json_lines, utc};
use crate::{Dataset, EvalError, EvalMemory, EvalQuestion};

/// Our evidence labels: one line per probing question, in the files' order.
const LABELS: &str = include_str!("../../data/memorybank_labels.jsonl");

#[derive(Deserialize)]
struct Label {
    lang: String,
    user: String,
    /// The question's index in its user's list.
    q: usize,
    /// `<date>#<turn index>`.
    evidence: Vec<String>,
}

/// One namespace per user; one memory per turn (the user's message and the companion's reply,
/// `"(<date>) <user>: <query>\nAI: <response>"`), id `<date>#<index>`, dated by its session's day
/// at 20:00 plus the index in minutes; the probing questions asked the day after the last
/// session, gold = the labelled turns. `language` is `cn` or `en`. A question whose labels name
/// no turn (the fact never appears in its user's history) is skipped.
pub fn memorybank(dir: &Path, language: &str) -> Result<Dataset, EvalError> {
    let lang_dir = dir.join(language);
    let bank = read_json(&lang_dir.join(format!("memory_bank_{language}.json")))?;
    let probes = read_json_lines(&lang_dir.join(format!("probing_questions_{language}.jsonl")))?;
    let mut data = Dataset { name: format!("memorybank-{language}"), ..Default::default() };
    let mut last_day: HashMap<String, NaiveDate> = HashMap::new();
    // Keys in the en file may carry stray spaces (the dataset's README).
    for (user, record) in bank.as_object().into_iter().flatten() {
        let user = user.trim().to_owned();
        for (date, turns) in record["history"].as_object().into_iter().flatten() {
            let day = NaiveDate::parse_from_str(date, "%Y-%m-%d").map_err(|_| {
                EvalError::format(&lang_dir, format!("{user}: unreadable date {date:?}"))
            })?;
            let last = last_day.entry(user.clone()).or_insert(day);
            *last = (*last).max(day);
            let evening = utc(day.and_hms_opt(20, 0, 0).unwrap_or_default());
            for (i, turn) in turns.as_array().into_iter().flatten().enumerate() {
                let query = turn["query"].as_str().unwrap_or_default().trim();
                let response = turn["response"].as_str().unwrap_or_default().trim();
                data.memories.push(EvalMemory {
                    namespace: user.clone(),
                    id: format!("{date}#{i}"),
                    text: format!("({date}) {user}: {query}\nAI: {response}"),
                    timestamp: evening + TimeDelta::minutes(i as i64),
                });
            }
        }
    }
    let questions: HashMap<(String, usize), String> = probes
        .iter()
        .flat_map(|line| line.as_object().into_iter().flatten())
        .flat_map(|(user, list)| {
            let user = user.trim().to_owned();
            list.as_array()
                .into_iter()
                .flatten()
                .enumerate()
                .filter_map(move |(i, q)| Some(((user.clone(), i), q.as_str()?.to_owned())))
        })
        .collect();
    for (n, line) in LABELS.lines().enumerate() {
        let label: Label = serde_json::from_str(line).map_err(|e| {
            EvalError::format(Path::new("memorybank_labels.jsonl"), format!("line {}: {e}", n + 1))
        })?;
        if label.lang != language {
            continue;
        }
        let id = format!("{}#q{}", label.user, label.q);
        let Some(text) = questions.get(&(label.user.clone(), label.q)) else {
            data.skipped.push(format!("{id}: no such question in the data"));
            continue;
        };
        if label.evidence.is_empty() {
            data.skipped.push(format!("{id}: its answer appears nowhere in the history"));
            continue;
        }
        let Some(last) = last_day.get(&label.user) else {
            data.skipped.push(format!("{id}: no history for the user"));
            continue;
        };
        data.questions.push(EvalQuestion {
            namespace: label.user.clone(),
            id,
            text: text.clone(),
            as_of: utc(last.and_hms_opt(12, 0, 0).unwrap_or_default()) + TimeDelta::days(1),
            gold: label.evidence,
            category: language.to_owned(),
        });
    }
    Ok(data)
}
