//! Adapters from the shared benchmark files (formats in each dataset's README under
//! `../shared/data/`) to [`Dataset`]. They only reshape: no gold label or id that would leak it
//! reaches the text that is stored or asked.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{NaiveDate, NaiveDateTime, TimeDelta};
use rearview_core::Timestamp;
use serde_json::Value;

use crate::{Dataset, EvalError, EvalMemory, EvalQuestion};

mod memorybank;

pub use memorybank::memorybank;

fn read_json(path: &Path) -> Result<Value, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|e| EvalError::io(path, e))?;
    serde_json::from_str(&text).map_err(|e| EvalError::format(path, e.to_string()))
}

fn read_json_lines(path: &Path) -> Result<Vec<Value>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|e| EvalError::io(path, e))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| EvalError::format(path, format!("line {}: {e}", i + 1)))
        })
        .collect()
}

fn utc(naive: NaiveDateTime) -> Timestamp {
    naive.and_utc()
}

/// LoCoMo (`locomo-dev.json` or upstream `locomo10.json`): one namespace per conversation, one
/// memory per turn (`"(<session date>) <speaker>: <text>"`, as the LoCoMo paper formats turns for
/// its retrievers, plus the shared photo's caption), dated by its
/// session's date plus the turn index in seconds; questions asked a day after the last session,
/// gold = evidence turns. Evidence strings are split on `[;,\s]+`; ids that name no turn are
/// dropped and a question left without evidence is skipped (both as the dataset README says).
/// Categories by numeric id: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial.
pub fn locomo(path: &Path) -> Result<Dataset, EvalError> {
    let root = read_json(path)?;
    let samples = root
        .as_array()
        .ok_or_else(|| EvalError::format(path, "expected a JSON array of conversations"))?;
    let mut data = Dataset { name: "locomo".into(), ..Default::default() };
    for sample in samples {
        let ns = sample["sample_id"].as_str().unwrap_or("conversation").to_owned();
        let sessions = locomo_sessions(path, &ns, &sample["conversation"])?;
        let (last, turn_ids) = locomo_turns(&mut data, &ns, &sessions);
        let as_of = last.unwrap_or_default() + TimeDelta::days(1);
        locomo_questions(&mut data, &ns, sample, as_of, &turn_ids);
    }
    Ok(data)
}

/// A LoCoMo session: its number, its date and its turns.
type Session<'a> = (u32, Timestamp, &'a Vec<Value>);

/// A LoCoMo conversation's sessions that have turns, in order.
fn locomo_sessions<'a>(
    path: &Path,
    ns: &str,
    conversation: &'a Value,
) -> Result<Vec<Session<'a>>, EvalError> {
    let mut sessions: Vec<Session<'a>> = Vec::new();
    for (key, value) in conversation.as_object().into_iter().flatten() {
        let Some(n) = key.strip_prefix("session_").and_then(|r| r.parse::<u32>().ok()) else {
            continue;
        };
        let Some(turns) = value.as_array().filter(|t| !t.is_empty()) else { continue };
        let date = conversation[format!("session_{n}_date_time")].as_str().unwrap_or_default();
        let when = parse_locomo_date(date).ok_or_else(|| {
            EvalError::format(path, format!("{ns} session {n}: unreadable date {date:?}"))
        })?;
        sessions.push((n, when, turns));
    }
    sessions.sort_by_key(|(n, _, _)| *n);
    Ok(sessions)
}

/// Each turn of `sessions` as a memory of `data`; the last turn's time and every turn id.
fn locomo_turns(
    data: &mut Dataset,
    ns: &str,
    sessions: &[Session<'_>],
) -> (Option<Timestamp>, HashSet<String>) {
    let mut last = None;
    let mut turn_ids = HashSet::new();
    for (_, when, turns) in sessions {
        for (i, turn) in turns.iter().enumerate() {
            let id = turn["dia_id"].as_str().unwrap_or_default().to_owned();
            let mut text = format!(
                "({}) {}: {}",
                when.format("%-d %B %Y"),
                turn["speaker"].as_str().unwrap_or("?"),
                turn["text"].as_str().unwrap_or_default()
            );
            if let Some(caption) = turn["blip_caption"].as_str() {
                text += &format!(" [shares a photo: {caption}]");
            }
            let timestamp = *when + TimeDelta::seconds(i as i64);
            last = Some(timestamp);
            turn_ids.insert(id.clone());
            data.memories.push(EvalMemory { namespace: ns.to_owned(), id, text, timestamp });
        }
    }
    (last, turn_ids)
}

/// A conversation's questions, asked `as_of`, gold = the evidence ids that name a turn; one
/// without any is skipped.
fn locomo_questions(
    data: &mut Dataset,
    ns: &str,
    sample: &Value,
    as_of: Timestamp,
    turn_ids: &HashSet<String>,
) {
    for (i, qa) in sample["qa"].as_array().into_iter().flatten().enumerate() {
        let qid = format!("{ns}#{i}");
        let evidence: Vec<String> = qa["evidence"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .flat_map(|e| e.split(|c: char| c == ';' || c == ',' || c.is_whitespace()))
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(str::to_owned)
            .collect();
        let gold: Vec<String> =
            evidence.iter().filter(|e| turn_ids.contains(*e)).cloned().collect();
        if gold.is_empty() {
            data.skipped.push(format!("{qid}: no usable evidence ({evidence:?})"));
            continue;
        }
        let category = match qa["category"].as_u64() {
            Some(1) => "1 multi-hop",
            Some(2) => "2 temporal",
            Some(3) => "3 open-domain",
            Some(4) => "4 single-hop",
            Some(5) => "5 adversarial",
            _ => "other",
        };
        data.questions.push(EvalQuestion {
            namespace: ns.to_owned(),
            id: qid,
            text: qa["question"].as_str().unwrap_or_default().to_owned(),
            as_of,
            gold,
            category: category.to_owned(),
        });
    }
}

/// `"1:56 pm on 8 May, 2023"`.
fn parse_locomo_date(text: &str) -> Option<Timestamp> {
    NaiveDateTime::parse_from_str(text.trim(), "%I:%M %p on %d %B, %Y").ok().map(utc)
}

/// MADial-Bench (`madial-bench/zh` or `/en`): one namespace per user, one memory per event; the
/// query is the dialogue before the first test turn; gold = `relevant-id`; asked a day after the
/// user's latest memory. English files carry no user id, so it is taken from the Chinese twin.
pub fn madial(dir: &Path, language: &str) -> Result<Dataset, EvalError> {
    let zh_dir = dir.join("zh");
    let lang_dir = dir.join(language);
    let prefix = format!("MADial-Bench-{language}");
    let memories = read_json_lines(&lang_dir.join(format!("{prefix}-memory.json")))?;
    let zh_memories = read_json_lines(&zh_dir.join("MADial-Bench-zh-memory.json"))?;
    let dialogues = read_json_lines(&lang_dir.join(format!("{prefix}-dialogue.json")))?;
    let zh_dialogues = read_json_lines(&zh_dir.join("MADial-Bench-zh-dialogue.json"))?;
    let mut user_of: HashMap<String, u64> = HashMap::new();
    for line in &zh_memories {
        for (id, m) in line.as_object().into_iter().flatten() {
            if let Some(user) = m["user-id"].as_u64() {
                user_of.insert(id.clone(), user);
            }
        }
    }
    let mut data = Dataset { name: format!("madial-{language}"), ..Default::default() };
    let mut latest: HashMap<u64, Timestamp> = HashMap::new();
    for line in &memories {
        for (id, m) in line.as_object().into_iter().flatten() {
            let Some(user) = m["user-id"].as_u64().or_else(|| user_of.get(id).copied()) else {
                data.skipped.push(format!("memory {id}: no user"));
                continue;
            };
            let date = m["time"].as_str().unwrap_or_default();
            let Ok(day) = NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d") else {
                return Err(EvalError::format(
                    &lang_dir,
                    format!("memory {id}: unreadable time {date:?}"),
                ));
            };
            let timestamp = utc(day.and_hms_opt(12, 0, 0).unwrap_or_default());
            let entry = latest.entry(user).or_insert(timestamp);
            *entry = (*entry).max(timestamp);
            data.memories.push(EvalMemory {
                namespace: format!("user-{user}"),
                id: id.clone(),
                text: m["event"].as_str().unwrap_or_default().to_owned(),
                timestamp,
            });
        }
    }
    for (i, d) in dialogues.iter().enumerate() {
        let user = d["user-id"]
            .as_u64()
            .or_else(|| zh_dialogues.get(i).and_then(|z| z["user-id"].as_u64()));
        let Some(user) = user else {
            data.skipped.push(format!("dialogue {i}: no user"));
            continue;
        };
        let turns: Vec<&str> =
            d["dialogue"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let test_turn =
            d["test-turn"].as_array().and_then(|t| t.first()).and_then(Value::as_u64).unwrap_or(0)
                as usize;
        let query: String = turns[..test_turn.min(turns.len())].concat();
        let gold: Vec<String> = d["relevant-id"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| {
                v.as_u64().map(|n| n.to_string()).or_else(|| v.as_str().map(str::to_owned))
            })
            .collect();
        if gold.is_empty() || query.trim().is_empty() {
            data.skipped.push(format!("dialogue {i}: no gold or no context"));
            continue;
        }
        data.questions.push(EvalQuestion {
            namespace: format!("user-{user}"),
            id: d["id"].as_u64().map_or_else(|| i.to_string(), |n| n.to_string()),
            text: query,
            as_of: latest.get(&user).copied().unwrap_or_default() + TimeDelta::days(1),
            gold,
            category: format!("user {user}"),
        });
    }
    Ok(data)
}

/// MemDaily (`memdaily/messages_and_QAs/*.json`): one namespace per trajectory (never pooled),
/// one memory per message dated by its `time`, the question asked at its own `time`, gold =
/// `target_step_id`; trajectories with `[ERRORQ]` / `[ERRORA]` dropped (the authors' rule).
/// Category = the file's question type (`01_simple`, …).
pub fn memdaily(dir: &Path) -> Result<Dataset, EvalError> {
    let files = dir.join("messages_and_QAs");
    let mut paths: Vec<_> = std::fs::read_dir(&files)
        .map_err(|e| EvalError::io(&files, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut data = Dataset { name: "memdaily".into(), ..Default::default() };
    for path in paths {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
        let category: String = stem
            .split('_')
            .take_while(|p| !["roles", "events", "items", "places", "hybrid"].contains(p))
            .collect::<Vec<_>>()
            .join("_");
        let root = read_json(&path)?;
        for t in root.as_array().into_iter().flatten() {
            let ns = format!("{stem}#{}", t["tid"]);
            let Some(q) = t["question_list"].as_array().and_then(|l| l.first()) else { continue };
            let question = q["question"].as_str().unwrap_or_default();
            if question == "[ERRORQ]" || q["answer"].as_str() == Some("[ERRORA]") {
                data.skipped.push(format!("{ns}: marked erroneous by the authors"));
                continue;
            }
            for m in t["message_list"].as_array().into_iter().flatten() {
                let time = m["time"].as_str().unwrap_or_default();
                let timestamp = parse_memdaily_time(time).ok_or_else(|| {
                    EvalError::format(&path, format!("{ns}: unreadable time {time:?}"))
                })?;
                data.memories.push(EvalMemory {
                    namespace: ns.clone(),
                    id: m["mid"].to_string(),
                    text: m["message"].as_str().unwrap_or_default().to_owned(),
                    timestamp,
                });
            }
            let time = q["time"].as_str().unwrap_or_default();
            let as_of = parse_memdaily_time(time).ok_or_else(|| {
                EvalError::format(&path, format!("{ns}: unreadable question time {time:?}"))
            })?;
            let gold: Vec<String> = q["target_step_id"]
                .as_array()
                .into_iter()
                .flatten()
                .map(Value::to_string)
                .collect();
            if gold.is_empty() {
                data.skipped.push(format!("{ns}: no target messages"));
                continue;
            }
            data.questions.push(EvalQuestion {
                namespace: ns.clone(),
                id: ns.clone(),
                text: question.to_owned(),
                as_of,
                gold,
                category: category.clone(),
            });
        }
    }
    Ok(data)
}

/// `"2024年04月01日 周一 08:30"`.
fn parse_memdaily_time(text: &str) -> Option<Timestamp> {
    let mut parts = text.split_whitespace();
    let day = NaiveDate::parse_from_str(parts.next()?, "%Y年%m月%d日").ok()?;
    let clock = parts
        .last()
        .and_then(|t| chrono::NaiveTime::parse_from_str(t, "%H:%M").ok())
        .unwrap_or_default();
    Some(utc(day.and_time(clock)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse() {
        assert_eq!(
            parse_locomo_date("1:56 pm on 8 May, 2023").unwrap().to_rfc3339(),
            "2023-05-08T13:56:00+00:00"
        );
        assert_eq!(
            parse_memdaily_time("2024年04月01日 周一 08:30").unwrap().to_rfc3339(),
            "2024-04-01T08:30:00+00:00"
        );
    }
}
