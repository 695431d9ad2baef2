//! Which tokenizer recalls better by keywords alone? Runs BM25-only recall with each `Tokenizer`
//! on MADial-Bench (zh and en), MemDaily and LoCoMo dev (turn level), through the real service
//! path, and prints R@5 (= LoCoMo's frac@5), hit@5 and all@5 for each.
//!
//! `cargo run --release -p rearview-service --example tokenizer_choice [DATA_DIR]`
//! (default `../shared/data`). The full evaluation harness (`rearview eval`) will supersede this.
#![allow(clippy::print_stdout, missing_docs, reason = "a measurement script prints its table")]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rearview_core::{MemoryId, Namespace, SystemClock};
use rearview_language::Tokenizer;
use rearview_ranking::{Fusion, RankingConfig};
use rearview_service::{MemoryService, RecallRequest, RememberRequest, ServiceConfig};
use rearview_store_sqlite::SqliteStore;

/// One namespace's memories (dataset id, text) and questions (text, gold dataset ids).
struct Haystack {
    memories: Vec<(String, String)>,
    questions: Vec<(String, Vec<String>)>,
}

#[tokio::main]
async fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let sets = [
        ("MADial zh", madial(&dir, "zh")),
        ("MADial en", madial(&dir, "en")),
        ("MemDaily", memdaily(&dir)),
        ("LoCoMo dev (turns)", locomo(&dir)),
    ];
    println!("| data set | tokenizer | R@5 | hit@5 | all@5 |");
    println!("|---|---|---|---|---|");
    for (name, haystacks) in &sets {
        for tokenizer in [Tokenizer::Jieba, Tokenizer::CjkBigram] {
            let (r, hit, all) = score(haystacks, tokenizer).await;
            println!("| {name} | {} | {r:.3} | {hit:.3} | {all:.3} |", tokenizer.id());
        }
    }
}

async fn score(haystacks: &[Haystack], tokenizer: Tokenizer) -> (f64, f64, f64) {
    let store = Arc::new(SqliteStore::in_memory().expect("in-memory sqlite"));
    let config = ServiceConfig { tokenizer, ..ServiceConfig::default() };
    let service =
        MemoryService::open(store, None, Arc::new(SystemClock), config).await.expect("service");
    let ranking = RankingConfig {
        fusion: Fusion::Weighted { vector: 0.0, keyword: 1.0, bm25_saturation: 1e9 },
        recency: rearview_ranking::Recency::Off,
        heat_weight: 0.0,
        heat_saturation: None,
        focus: rearview_language::QueryFocus::OFF,
        vector_candidates: 0,
        keyword_candidates: 50,
        answer_history: false,
        compound: false,
        feedback: None,
        replies: None,
    };
    let (mut recall, mut hit, mut all, mut n) = (0.0, 0.0, 0.0, 0.0);
    for (i, h) in haystacks.iter().enumerate() {
        let ns: Namespace = format!("h{i}").parse().expect("namespace");
        let mut ids: HashMap<MemoryId, &str> = HashMap::new();
        for (key, text) in &h.memories {
            let m = service
                .remember(&ns, RememberRequest::new(text.as_str()))
                .await
                .expect("store")
                .memory;
            ids.insert(m.id, key);
        }
        for (question, gold) in &h.questions {
            let request = RecallRequest {
                ranking: Some(ranking),
                record_access: false,
                ..RecallRequest::new(question.as_str())
            };
            let top: Vec<&str> = match service.recall(&ns, request).await {
                Ok(r) => r.hits.iter().map(|x| ids[&x.memory.id]).collect(),
                Err(_) => Vec::new(),
            };
            let found = gold.iter().filter(|g| top.contains(&g.as_str())).count();
            recall += found as f64 / gold.len() as f64;
            hit += f64::from(u8::from(found > 0));
            all += f64::from(u8::from(found == gold.len()));
            n += 1.0;
        }
    }
    (recall / n, hit / n, all / n)
}

fn json_lines(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

/// MADial-Bench as its README prescribes: one haystack per user, query = dialogue before the
/// first test turn, gold = `relevant-id`.
fn madial(dir: &Path, lang: &str) -> Vec<Haystack> {
    let base = dir.join("madial-bench").join(lang);
    let zh_users: HashMap<String, u64> =
        json_lines(&dir.join("madial-bench/zh/MADial-Bench-zh-memory.json"))
            .iter()
            .flat_map(|line| line.as_object().into_iter().flatten())
            .map(|(id, m)| (id.clone(), m["user-id"].as_u64().unwrap_or(0)))
            .collect();
    let mut by_user: HashMap<u64, Haystack> = HashMap::new();
    for line in json_lines(&base.join(format!("MADial-Bench-{lang}-memory.json"))) {
        for (id, m) in line.as_object().into_iter().flatten() {
            let user = m["user-id"].as_u64().or_else(|| zh_users.get(id).copied()).unwrap_or(0);
            let text = m["event"].as_str().unwrap_or_default().to_owned();
            by_user
                .entry(user)
                .or_insert_with(|| Haystack { memories: vec![], questions: vec![] })
                .memories
                .push((id.clone(), text));
        }
    }
    for d in json_lines(&base.join(format!("MADial-Bench-{lang}-dialogue.json"))) {
        let turn = d["test-turn"][0].as_u64().unwrap_or(0) as usize;
        let query: String = d["dialogue"]
            .as_array()
            .into_iter()
            .flatten()
            .take(turn)
            .filter_map(|t| t.as_str())
            .collect();
        let gold: Vec<String> =
            d["relevant-id"].as_array().into_iter().flatten().map(|g| g.to_string()).collect();
        let user = d["user-id"].as_u64().unwrap_or(0);
        if let Some(h) = by_user.get_mut(&user) {
            h.questions.push((query, gold));
        }
    }
    by_user.into_values().collect()
}

/// MemDaily: one haystack per trajectory, gold = `target_step_id`; error rows dropped.
fn memdaily(dir: &Path) -> Vec<Haystack> {
    let mut files: Vec<_> = std::fs::read_dir(dir.join("memdaily/messages_and_QAs"))
        .expect("memdaily")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
        for traj in json.as_array().into_iter().flatten() {
            let memories: Vec<(String, String)> = traj["message_list"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| {
                    (m["mid"].to_string(), m["message"].as_str().unwrap_or_default().to_owned())
                })
                .collect();
            let questions: Vec<(String, Vec<String>)> = traj["question_list"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|q| {
                    q["question"].as_str().is_some_and(|t| t != "[ERRORQ]")
                        && q["answer"].as_str() != Some("[ERRORA]")
                })
                .map(|q| {
                    (
                        q["question"].as_str().unwrap_or_default().to_owned(),
                        q["target_step_id"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .map(|g| g.to_string())
                            .collect(),
                    )
                })
                .filter(|(_, gold): &(String, Vec<String>)| !gold.is_empty())
                .collect();
            if !memories.is_empty() && !questions.is_empty() {
                out.push(Haystack { memories, questions });
            }
        }
    }
    out
}

/// LoCoMo dev, turn level: one haystack per conversation, each turn `"(<date>) <speaker> said,
/// \"<text>\""` (the LoCoMo paper's format), gold = evidence turn ids with the README's quirks
/// handled (ids split on `[;,\s]+`, dangling ids dropped, questions left without gold skipped).
fn locomo(dir: &Path) -> Vec<Haystack> {
    let json: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join("locomo-dev/locomo-dev.json")).expect("locomo"),
    )
    .expect("json");
    let mut out = Vec::new();
    for sample in json.as_array().into_iter().flatten() {
        let conv = &sample["conversation"];
        let mut memories = Vec::new();
        for (key, session) in conv.as_object().into_iter().flatten() {
            if !key.starts_with("session_") || key.ends_with("date_time") {
                continue;
            }
            let date = conv[format!("{key}_date_time")].as_str().unwrap_or_default();
            for turn in session.as_array().into_iter().flatten() {
                let id = turn["dia_id"].as_str().unwrap_or_default().to_owned();
                let text = format!(
                    "({date}) {} said, \"{}\"",
                    turn["speaker"].as_str().unwrap_or_default(),
                    turn["text"].as_str().unwrap_or_default()
                );
                memories.push((id, text));
            }
        }
        let known: std::collections::HashSet<&str> =
            memories.iter().map(|(id, _)| id.as_str()).collect();
        let questions: Vec<(String, Vec<String>)> = sample["qa"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|q| {
                let gold: Vec<String> = q["evidence"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.as_str())
                    .flat_map(|e| e.split(|c: char| c == ';' || c == ',' || c.is_whitespace()))
                    .filter(|e| known.contains(e))
                    .map(str::to_owned)
                    .collect();
                (q["question"].as_str().unwrap_or_default().to_owned(), gold)
            })
            .filter(|(_, gold)| !gold.is_empty())
            .collect();
        out.push(Haystack { memories, questions });
    }
    out
}
