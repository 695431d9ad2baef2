//! Claude Code's hooks: the input on stdin (`hook_event_name`, `session_id`, `transcript_path`,
//! `cwd`, `prompt`…) and the answer on stdout (`hookSpecificOutput.additionalContext`).
//!
//! - `SessionStart`: the project's recent knowledge as context.
//! - `UserPromptSubmit`: the memories relevant to the prompt as context.
//! - `Stop`, `PreCompact`: the transcript's new lines since the last capture are stored as
//!   working memories of the session (the user's requests, each turn's conclusion).
//! - `SessionEnd`: a last capture, then the session ends into episodes.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use rearview_core::Namespace;
use serde::Deserialize;
use serde_json::json;

use super::context;
use super::memory::{Memory, Op};
use super::transcript::{self, Role, Turn};

/// Captured turns live this long unless the session ends first (the working tier's default of
/// an hour is shorter than many coding sessions).
const TURN_TTL_SECS: i64 = 3 * 24 * 3600;

/// Most transcript bytes read by one capture; the rest waits for the next.
const MAX_CAPTURE_BYTES: u64 = 8 << 20;

/// The fields of Claude Code's hook input this command reads (others are ignored).
#[derive(Debug, Deserialize)]
struct HookInput {
    hook_event_name: String,
    session_id: Option<String>,
    transcript_path: Option<PathBuf>,
    cwd: Option<PathBuf>,
    prompt: Option<String>,
}

/// Handles one event; `Some` is the JSON to print.
pub fn handle(
    input: &str,
    state: &Path,
    connect: &dyn Fn() -> anyhow::Result<Memory>,
) -> anyhow::Result<Option<String>> {
    let started = Instant::now();
    let input: HookInput =
        serde_json::from_str(input).context("the hook input is not Claude Code's hook JSON")?;
    let cwd = match &input.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir().context("no cwd in the hook input")?,
    };
    let namespace = super::project_namespace(&cwd)?;
    let event = input.hook_event_name.as_str();
    let (context, done) = match event {
        "SessionStart" => {
            let mut memory = connect()?;
            let budget = budget("REARVIEW_HOOK_START_TOKENS", context::START_TOKENS);
            let context = context::session_start(&mut memory, &namespace, budget)?;
            (context, memory.via().to_owned())
        }
        "UserPromptSubmit" => {
            let prompt = input.prompt.as_deref().unwrap_or_default();
            let floor = super::env("REARVIEW_HOOK_MIN_RELEVANCE")
                .and_then(|f| f.parse().ok())
                .unwrap_or_else(|| context::prompt_floor(prompt));
            let budget = budget("REARVIEW_HOOK_PROMPT_TOKENS", context::PROMPT_TOKENS);
            let mut memory = connect()?;
            let context = context::for_prompt(
                &mut memory,
                &namespace,
                prompt,
                input.session_id.as_deref(),
                budget,
                floor,
            )?;
            (context, memory.via().to_owned())
        }
        "Stop" | "PreCompact" | "SessionEnd" => {
            let session = input.session_id.as_deref().context("no session_id in the hook input")?;
            let mut memory = connect()?;
            let stored = match &input.transcript_path {
                Some(path) => capture(&mut memory, &namespace, session, path, state)?,
                None => 0,
            };
            let mut done = format!("{stored} turns stored via {}", memory.via());
            if event == "SessionEnd" {
                let ended =
                    memory.call(Op::EndSession, &namespace, json!({ "session_id": session }))?;
                let episodes = ended.get("episodes").and_then(|e| e.as_array()).map_or(0, Vec::len);
                done.push_str(&format!("; session ended into {episodes} episodes"));
            }
            (None, done)
        }
        other => {
            tracing::debug!(event = other, "not an event rearview handles");
            return Ok(None);
        }
    };
    tracing::info!(
        event,
        namespace = %namespace,
        took_ms = started.elapsed().as_millis() as u64,
        context_chars = context.as_ref().map_or(0, |c| c.chars().count()),
        "{done}"
    );
    Ok(context.map(|context| {
        json!({
            "hookSpecificOutput": { "hookEventName": event, "additionalContext": context }
        })
        .to_string()
    }))
}

fn budget(variable: &str, default: u32) -> u32 {
    super::env(variable).and_then(|b| b.parse().ok()).unwrap_or(default)
}

/// Stores the turns of `transcript` written since the last capture of `session`; the offset
/// advances only once all of them are stored (a failed capture is retried whole: the exact
/// duplicates of a retry merge into the memories already stored).
fn capture(
    memory: &mut Memory,
    namespace: &Namespace,
    session: &str,
    transcript: &Path,
    state: &Path,
) -> anyhow::Result<usize> {
    let offset_file = state.join("sessions").join(format!("{}.offset", file_stem(session)));
    let mut offset: u64 =
        std::fs::read_to_string(&offset_file).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0);
    let mut file = std::fs::File::open(transcript)
        .with_context(|| format!("opening the transcript {}", transcript.display()))?;
    let length = file.metadata()?.len();
    if length < offset {
        offset = 0; // a transcript rewritten shorter: read it again
    }
    file.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::new();
    file.take(MAX_CAPTURE_BYTES).read_to_end(&mut bytes)?;
    let (lines, used) = transcript::complete_lines(&bytes);
    let turns = transcript::turns(&String::from_utf8_lossy(lines));
    for turn in &turns {
        memory.call(Op::Store, namespace, store_body(session, turn))?;
    }
    if let Some(dir) = offset_file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&offset_file, (offset + used as u64).to_string())
        .with_context(|| format!("writing {}", offset_file.display()))?;
    Ok(turns.len())
}

/// A captured turn as a working memory of its session. The assistant's conclusions carry
/// `episode: true`: ending the session keeps them as episodes although the assistant said them.
fn store_body(session: &str, turn: &Turn) -> serde_json::Value {
    let mut metadata = json!({ "role": turn.role.as_str(), "source": "claude-code" });
    if turn.role == Role::Assistant {
        metadata["episode"] = true.into();
    }
    let mut body = json!({
        "content": turn.text,
        "memory_type": "working",
        "session_id": session,
        "ttl": TURN_TTL_SECS,
        "metadata": metadata,
    });
    if let Some(at) = &turn.at {
        body["occurred_at"] = at.as_str().into();
    }
    body
}

/// `session` as a file name: itself when it is a plain id (Claude Code's are UUIDs), else a
/// hash of it.
fn file_stem(session: &str) -> String {
    let plain = !session.is_empty()
        && session.len() <= 100
        && session.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if plain { session.to_owned() } else { format!("{:016x}", super::fnv1a(session.as_bytes())) }
}
