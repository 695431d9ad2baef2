//! Benchmark text: real chat messages and questions when `../shared/data` is present (MemDaily in
//! Chinese, LoCoMo in English, interleaved), otherwise synthetic mixed sentences. Never copied into
//! the repository: read in place at run time.
#![allow(dead_code, missing_docs, reason = "benchmark helper shared by bench targets")]

use std::path::PathBuf;

/// Memories and queries for a benchmark, and where they came from.
pub struct Corpus {
    pub memories: Vec<String>,
    pub queries: Vec<String>,
    pub source: &'static str,
}

impl Corpus {
    /// The `i`-th memory text; past the end, texts repeat with a suffix so every memory differs.
    pub fn memory(&self, i: usize) -> String {
        let base = &self.memories[i % self.memories.len()];
        if i < self.memories.len() {
            base.clone()
        } else {
            format!("{base} ({})", i / self.memories.len())
        }
    }
}

pub fn load() -> Corpus {
    let dir = std::env::var_os("REARVIEW_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    match real(&dir) {
        Some((mut memories, queries)) if !memories.is_empty() && !queries.is_empty() => Corpus {
            memories: {
                memories.truncate(distinct_texts().unwrap_or(usize::MAX).max(1));
                memories
            },
            queries,
            source: "MemDaily (zh) + LoCoMo dev (en) messages and questions",
        },
        _ => {
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
            let memories = (0..20_000).map(|i| sentence(&mut rng, i)).collect();
            let queries =
                ["周末去爬山", "database port 8765", "咖啡 meeting", "项目 deadline 会议"]
                    .map(str::to_owned)
                    .to_vec();
            Corpus { memories, queries, source: "synthetic (../shared/data not found)" }
        }
    }
}

/// `REARVIEW_BENCH_TEXTS=N`: only the first `N` real texts, so a size repeats each one more often
/// (near-copies that differ by their suffix): to tell what the data's repeats cost a measurement
/// from what its size does.
fn distinct_texts() -> Option<usize> {
    let n = std::env::var("REARVIEW_BENCH_TEXTS").ok()?;
    let n = n.parse().unwrap_or_else(|_| panic!("REARVIEW_BENCH_TEXTS={n:?}: a whole number"));
    Some(n)
}

fn real(dir: &std::path::Path) -> Option<(Vec<String>, Vec<String>)> {
    let mut zh = Vec::new();
    let mut zh_q = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir.join("memdaily/messages_and_QAs"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for path in files {
        let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
        for traj in json.as_array()? {
            for m in traj["message_list"].as_array().into_iter().flatten() {
                zh.extend(m["message"].as_str().map(str::to_owned));
            }
            for q in traj["question_list"].as_array().into_iter().flatten() {
                zh_q.extend(q["question"].as_str().filter(|q| *q != "[ERRORQ]").map(str::to_owned));
            }
        }
    }
    let mut en = Vec::new();
    let mut en_q = Vec::new();
    let locomo: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("locomo-dev/locomo-dev.json")).ok()?)
            .ok()?;
    for sample in locomo.as_array()? {
        for (key, session) in sample["conversation"].as_object()? {
            if !key.starts_with("session_") || key.ends_with("date_time") {
                continue;
            }
            for turn in session.as_array().into_iter().flatten() {
                if let (Some(s), Some(t)) = (turn["speaker"].as_str(), turn["text"].as_str()) {
                    en.push(format!("{s}: {t}"));
                }
            }
        }
        for q in sample["qa"].as_array().into_iter().flatten() {
            en_q.extend(q["question"].as_str().map(str::to_owned));
        }
    }
    Some((interleave(zh, en), interleave(zh_q, en_q)))
}

/// Alternates the two lists in proportion to their lengths, so any prefix mixes both languages.
fn interleave(a: Vec<String>, b: Vec<String>) -> Vec<String> {
    let (na, nb) = (a.len().max(1), b.len().max(1));
    let mut out: Vec<(f64, String)> =
        a.into_iter().enumerate().map(|(i, s)| (i as f64 / na as f64, s)).collect();
    out.extend(b.into_iter().enumerate().map(|(i, s)| ((i as f64 + 0.5) / nb as f64, s)));
    out.sort_by(|x, y| x.0.total_cmp(&y.0));
    out.into_iter().map(|(_, s)| s).collect()
}

struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const EN: &[&str] = &[
    "meeting", "project", "deadline", "coffee", "server", "port", "database", "weekend", "hiking",
    "travel",
];
const ZH: &[&str] =
    &["周末", "爬山", "咖啡", "项目", "会议", "旅行", "端口", "数据库", "朋友", "电影"];

fn sentence(rng: &mut Rng, i: usize) -> String {
    let mut s = String::new();
    for _ in 0..(6 + rng.next_u64() % 10) {
        s.push_str(EN[(rng.next_u64() % EN.len() as u64) as usize]);
        s.push(' ');
        s.push_str(ZH[(rng.next_u64() % ZH.len() as u64) as usize]);
    }
    format!("{s} #{i}")
}
