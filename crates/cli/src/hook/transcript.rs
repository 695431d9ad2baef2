//! The substance of a Claude Code transcript (JSON lines, one per message or content block):
//! the user's own requests and the assistant's conclusion of each turn; not tool calls, tool
//! results, thinking, slash-command plumbing, system reminders or sub-agents' work.

use serde_json::Value;

/// Longest text kept of one turn, in characters (a pasted log or a long answer is cut, marked
/// with `…`).
pub const MAX_TURN_CHARS: usize = 2_000;

/// Who said a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One turn worth remembering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub role: Role,
    pub text: String,
    /// The transcript's timestamp (RFC 3339), when it has one.
    pub at: Option<String>,
}

/// The complete lines at the start of `bytes` (a partial last line, still being written, is
/// left for the next capture), and how many bytes they take.
pub fn complete_lines(bytes: &[u8]) -> (&[u8], usize) {
    match bytes.iter().rposition(|&b| b == b'\n') {
        Some(end) => (&bytes[..=end], end + 1),
        None => (&[], 0),
    }
}

/// The turns in `lines`: each user request, and of each run of assistant messages the last text
/// (its conclusion; "Let me look at…" along the way is dropped). Lines that are not JSON are
/// skipped.
pub fn turns(lines: &str) -> Vec<Turn> {
    let mut turns = Vec::new();
    let mut conclusion: Option<Turn> = None;
    for line in lines.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else { continue };
        if flag(&entry, "isSidechain") || flag(&entry, "isMeta") {
            continue;
        }
        let at = entry.get("timestamp").and_then(Value::as_str).map(str::to_owned);
        let content = entry.pointer("/message/content");
        match entry.get("type").and_then(Value::as_str) {
            Some("user") => {
                if let Some(text) = content.and_then(user_text) {
                    turns.extend(conclusion.take());
                    turns.push(Turn { role: Role::User, text: clip(&text), at });
                }
            }
            Some("assistant") => {
                let text = content.map(assistant_text).unwrap_or_default();
                if !text.is_empty() {
                    conclusion = Some(Turn { role: Role::Assistant, text: clip(&text), at });
                }
            }
            _ => {}
        }
    }
    turns.extend(conclusion);
    turns
}

fn flag(entry: &Value, name: &str) -> bool {
    entry.get(name).and_then(Value::as_bool).unwrap_or(false)
}

/// What the user typed: a string, or text blocks; `None` for tool results (the user role also
/// carries them) and Claude Code's own messages.
fn user_text(content: &Value) -> Option<String> {
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            if blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result")) {
                return None;
            }
            texts(blocks)
        }
        _ => return None,
    };
    let text = without_reminders(&text);
    let text = text.trim();
    const PLUMBING: [&str; 7] = [
        "<command-name>",
        "<command-message>",
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<bash-stdout>",
        "Caveat: ",
        "[Request interrupted",
    ];
    let compacted =
        text.starts_with("This session is being continued from a previous conversation");
    if text.is_empty() || compacted || PLUMBING.iter().any(|p| text.starts_with(p)) {
        return None;
    }
    Some(text.to_owned())
}

fn assistant_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.trim().to_owned(),
        Value::Array(blocks) => texts(blocks).trim().to_owned(),
        _ => String::new(),
    }
}

/// The text blocks, joined by blank lines (thinking, tool use and images are not text).
fn texts(blocks: &[Value]) -> String {
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `text` without `<system-reminder>…</system-reminder>` blocks (Claude Code adds them to user
/// messages; they are instructions to the model, not the user's words).
fn without_reminders(text: &str) -> String {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        match rest[start..].find(CLOSE) {
            Some(end) => rest = &rest[start + end + CLOSE.len()..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_TURN_CHARS) {
        Some((cut, _)) => format!("{}…", text[..cut].trim_end()),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(value: serde_json::Value) -> String {
        format!("{value}\n")
    }

    #[test]
    fn keeps_requests_and_each_turns_conclusion_and_drops_tool_noise() {
        let chunk = [
            line(serde_json::json!({"type": "user", "timestamp": "2026-12-01T10:00:00Z",
                "message": {"role": "user", "content": "Use PostgreSQL for the job queue, not Redis."}})),
            line(serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "Let me look at the queue module."}]}})),
            line(serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "q.rs"}}]}})),
            line(serde_json::json!({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "fn main() {}"}]}})),
            line(serde_json::json!({"type": "assistant", "timestamp": "2026-12-01T10:01:00Z",
                "message": {"role": "assistant", "content": [
                {"type": "text", "text": "Done: the queue now uses SKIP LOCKED on PostgreSQL."}]}})),
            line(serde_json::json!({"type": "user", "isMeta": true, "message": {"role": "user",
                "content": "Caveat: the messages below were generated by the user"}})),
            line(serde_json::json!({"type": "user", "message": {"role": "user",
                "content": "<command-name>/clear</command-name>"}})),
            line(serde_json::json!({"type": "assistant", "isSidechain": true, "message": {
                "role": "assistant", "content": [{"type": "text", "text": "sub-agent notes"}]}})),
            "not json\n".to_owned(),
        ]
        .concat();
        let turns = turns(&chunk);
        let said: Vec<(Role, &str)> = turns.iter().map(|t| (t.role, t.text.as_str())).collect();
        assert_eq!(
            said,
            [
                (Role::User, "Use PostgreSQL for the job queue, not Redis."),
                (Role::Assistant, "Done: the queue now uses SKIP LOCKED on PostgreSQL."),
            ]
        );
        assert_eq!(turns[0].at.as_deref(), Some("2026-12-01T10:00:00Z"));
        assert_eq!(turns[1].at.as_deref(), Some("2026-12-01T10:01:00Z"));
    }

    #[test]
    fn reminders_are_cut_and_long_turns_clipped() {
        let text = format!(
            "<system-reminder>be brief</system-reminder>Keep the API stable. {}",
            "x".repeat(3_000)
        );
        let chunk = line(serde_json::json!({"type": "user", "message": {"content": text}}));
        let turns = turns(&chunk);
        assert!(turns[0].text.starts_with("Keep the API stable."));
        assert_eq!(turns[0].text.chars().count(), MAX_TURN_CHARS + 1);
        assert!(turns[0].text.ends_with('…'));
    }

    #[test]
    fn only_complete_lines_are_consumed() {
        let (lines, used) = complete_lines(b"{\"a\":1}\n{\"b\":");
        assert_eq!(lines, b"{\"a\":1}\n");
        assert_eq!(used, 8);
        assert_eq!(complete_lines(b"{\"b\":").1, 0);
    }
}
