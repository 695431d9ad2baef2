//! What a hook puts in front of the model: the project's recent knowledge when a session starts,
//! the memories relevant to a prompt when one arrives. Precision first: an unrelated memory in
//! the context costs the model attention on every turn, a missing one only a tool call.

use rearview_core::{MemoryType, Namespace};
use serde_json::{Value, json};

use super::memory::{Memory, Op};

/// Tokens of context at a session's start (`REARVIEW_HOOK_START_TOKENS`) and per prompt
/// (`REARVIEW_HOOK_PROMPT_TOKENS`), one per Chinese character, one per four other characters.
pub const START_TOKENS: u32 = 1_000;
pub const PROMPT_TOKENS: u32 = 600;

/// The relevance floor for a prompt's memories (`REARVIEW_HOOK_MIN_RELEVANCE` overrides):
/// stricter than recall's default (0.82 Chinese, 0.76 otherwise), which is set to lose no
/// answer. On the held-out precision set (`crates/eval/data/precision_holdout.jsonl`, never tuned
/// on): at 0.80 an English prompt about something never stored gets nothing 89 % of the time
/// (19 % at the default floor), while English keyword questions keep their memory every time and
/// paraphrases 89 %; at 0.86 a Chinese prompt about something absent gets nothing 82 % of the time
/// (9 %), keyword questions keep theirs, paraphrases 94 %, but a Chinese prompt about a memory
/// written in English is lost (0 of 26): the price of quiet context, paid where a tool call can
/// still find it. Memories holding the prompt's rare keywords pass whatever the floor.
pub fn prompt_floor(prompt: &str) -> f32 {
    if rearview_core::mostly_han(prompt) { 0.86 } else { 0.80 }
}

/// A prompt's memories scoring under this share of the best one's score are left out: recall's
/// scores are scaled against the query, so the answer to a plain question scores far above the
/// memories that merely share its language or a word (on the fixture session in
/// `tests/e2e/fixtures`, every relevant memory is above half the best, every unrelated one
/// below, but one of a Chinese question about an English memory).
pub const RELATIVE_CUT: f64 = 0.5;

/// A memory shown to the model.
struct Shown {
    text: String,
    /// When it happened (RFC 3339).
    at: String,
    tier: String,
    session_id: Option<String>,
}

impl Shown {
    fn of(memory: &Value) -> Option<Self> {
        Some(Self {
            text: memory.get("content")?.as_str()?.trim().to_owned(),
            at: memory.get("occurred_at")?.as_str()?.to_owned(),
            tier: memory.get("memory_type")?.as_str()?.to_owned(),
            session_id: memory.get("session_id").and_then(Value::as_str).map(str::to_owned),
        })
    }

    fn line(&self) -> String {
        let day: String = self.at.chars().take(10).collect();
        format!("- ({day}, {}) {}", self.tier, self.text.replace('\n', " "))
    }
}

/// Lasting knowledge and recent episodes of the project, newest first, within `budget` tokens;
/// `None` when it has none.
pub fn session_start(
    memory: &mut Memory,
    namespace: &Namespace,
    budget: u32,
) -> anyhow::Result<Option<String>> {
    let mut shown = Vec::new();
    for tier in [MemoryType::Semantic, MemoryType::Episodic] {
        let answer = memory.call(Op::List { tier, limit: 30 }, namespace, Value::Null)?;
        let memories =
            answer.get("memories").and_then(Value::as_array).cloned().unwrap_or_default();
        shown.extend(memories.iter().filter_map(Shown::of));
    }
    // Newest first across both tiers (the server's RFC 3339 times, all UTC, sort as text).
    shown.sort_by(|a, b| b.at.cmp(&a.at));
    let lines = within_budget(shown.iter().map(Shown::line), budget);
    Ok((!lines.is_empty()).then(|| {
        format!(
            "Memory of this project from earlier sessions (rearview, namespace {namespace}), \
             newest first; it may be out of date, the code is the truth:\n{}",
            lines.join("\n")
        )
    }))
}

/// The memories relevant to `prompt`, best first, within `budget` tokens; `None` when none
/// passes the floor. Only those scoring at least [`RELATIVE_CUT`] of the best are shown. Memories of the current session are left out: they are in the
/// conversation already.
pub fn for_prompt(
    memory: &mut Memory,
    namespace: &Namespace,
    prompt: &str,
    session_id: Option<&str>,
    budget: u32,
    floor: f32,
) -> anyhow::Result<Option<String>> {
    let prompt = prompt.trim();
    if prompt.chars().count() < 4 || prompt.starts_with('/') {
        return Ok(None);
    }
    let body = json!({
        "query": prompt,
        "top_k": 8,
        "max_tokens": budget,
        "min_relevance": floor,
        // Shown to the model on every prompt: not a use of the memory, so not counted as one
        // (heat would otherwise grow for whatever is shown most).
        "count_access": false,
    });
    let answer = memory.call(Op::Recall, namespace, body)?;
    let hits = answer.get("hits").and_then(Value::as_array).cloned().unwrap_or_default();
    let score = |hit: &Value| hit.get("score").and_then(Value::as_f64).unwrap_or(0.0);
    let best = hits.iter().map(score).fold(0.0, f64::max);
    let shown: Vec<Shown> = hits
        .iter()
        .filter(|hit| score(hit) >= best * RELATIVE_CUT)
        .filter_map(|hit| Shown::of(hit.get("memory")?))
        .filter(|m| session_id.is_none() || m.session_id.as_deref() != session_id)
        .collect();
    if shown.is_empty() {
        return Ok(None);
    }
    let lines: Vec<String> = shown.iter().map(Shown::line).collect();
    Ok(Some(format!(
        "Memories relevant to this prompt (rearview, namespace {namespace}), best first; they \
         may be out of date:\n{}",
        lines.join("\n")
    )))
}

/// The first lines that fit `budget` tokens.
fn within_budget(lines: impl Iterator<Item = String>, budget: u32) -> Vec<String> {
    let mut left = u64::from(budget);
    let mut kept = Vec::new();
    for line in lines {
        let cost = tokens(&line);
        if cost > left {
            break;
        }
        left -= cost;
        kept.push(line);
    }
    kept
}

/// Tokens as recall's `max_tokens` counts them: one per Han character, one per four others.
fn tokens(text: &str) -> u64 {
    let (han, other) = text.chars().fold((0u64, 0u64), |(h, o), c| {
        if rearview_core::is_han(c) { (h + 1, o) } else { (h, o + 1) }
    });
    han + other.div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_keeps_whole_lines_in_order() {
        let lines = ["a".repeat(40), "b".repeat(40), "c".repeat(40)];
        let kept = within_budget(lines.iter().cloned(), 25);
        assert_eq!(kept, [lines[0].clone(), lines[1].clone()]);
        assert_eq!(tokens("端口8765"), 2 + 1);
    }

    #[test]
    fn chinese_prompts_get_the_stricter_floor() {
        assert_eq!(prompt_floor("数据库用的是哪个？"), 0.86);
        assert_eq!(prompt_floor("Which database do we use?"), 0.80);
    }
}
