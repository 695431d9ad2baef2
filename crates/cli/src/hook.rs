//! `rearview hook <agent>`: memory for a coding agent that uses it without being told (issue 41).
//! The agent runs this command at its lifecycle events with a JSON description on stdin; it
//! recalls context for a session or a prompt (printed as the agent's hook protocol asks) and
//! captures what the session said.
//!
//! It never fails the agent's session: any error (unreadable input, no database, a server that
//! does not answer, even a panic) prints nothing, exits 0 and is written to
//! `<state>/hook.log`. State (the transcript offsets captured so far, the local server's
//! address and log) lives in `REARVIEW_HOOK_STATE_DIR`, else `$XDG_STATE_HOME/rearview/hooks`,
//! else `~/.local/state/rearview/hooks`.
//!
//! Where it goes: `REARVIEW_URL` (with `REARVIEW_API_KEY`) names a server; without it, the local
//! database through a server this command starts on demand and reuses (`server.rs`; off with
//! `REARVIEW_HOOK_SERVER=off`), and in this process, keyword-only, while that server is not up.

mod claude_code;
mod context;
mod memory;
mod server;
mod transcript;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use rearview_core::Namespace;

use crate::args::{Cli, HookAgent};
use crate::settings::Settings;
use memory::{Memory, Server};

/// Largest hook input read from stdin.
const MAX_INPUT_BYTES: u64 = 1 << 20;

/// A local server started on demand stops after this long without a request, unless
/// `REARVIEW_HOOK_SERVER_IDLE_SECS` says otherwise.
const SERVER_IDLE: Duration = Duration::from_secs(30 * 60);

/// Runs one hook call. Always exits 0; what went wrong is in the hook log.
pub fn main(cli: &Cli, agent: HookAgent) -> ExitCode {
    let started = Instant::now();
    let state = state_dir();
    let _log = init_log(&state);
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli, agent, &state)));
    match outcome {
        Ok(Ok(output)) => {
            if let Some(output) = output {
                crate::output::hook_output(&output);
            }
        }
        Ok(Err(e)) => {
            tracing::warn!(error = %format!("{e:#}"), "hook failed; the agent goes on without memory")
        }
        Err(_) => tracing::error!("hook panicked; the agent goes on without memory"),
    }
    tracing::debug!(took_ms = started.elapsed().as_millis() as u64, "hook done");
    ExitCode::SUCCESS
}

fn run(cli: &Cli, agent: HookAgent, state: &Path) -> anyhow::Result<Option<String>> {
    let mut input = String::new();
    std::io::stdin()
        .take(MAX_INPUT_BYTES)
        .read_to_string(&mut input)
        .context("reading the hook input on stdin")?;
    let settings = Settings::from_process(cli)?;
    match agent {
        HookAgent::ClaudeCode => claude_code::handle(&input, state, &|| connect(&settings, state)),
    }
}

/// Where this hook's requests go (see the module docs).
fn connect(settings: &Settings, state: &Path) -> anyhow::Result<Memory> {
    let api_key = env("REARVIEW_API_KEY");
    if let Some(url) = env("REARVIEW_URL") {
        return Ok(Memory::remote(Server::new(&url, api_key, server::REQUEST_TIMEOUT)));
    }
    let on_demand = settings.postgres.is_none()
        && !env("REARVIEW_HOOK_SERVER")
            .is_some_and(|v| matches!(v.as_str(), "off" | "0" | "false"));
    let mut running = None;
    if on_demand {
        running = server::running(state, api_key);
        if running.is_none() {
            let idle = env("REARVIEW_HOOK_SERVER_IDLE_SECS")
                .and_then(|s| s.parse().ok())
                .map_or(SERVER_IDLE, Duration::from_secs);
            if let Err(e) = server::start(state, &settings.db, idle) {
                tracing::warn!(error = %format!("{e:#}"), "could not start the local server");
            }
        }
    }
    Ok(Memory::local(running, settings.clone()))
}

/// The namespace of the project at `cwd`: `REARVIEW_HOOK_NAMESPACE` when set, else
/// `project:<name>@<hash>` of the enclosing git work tree (or `cwd` itself), the hash telling
/// apart two projects of one name.
pub fn project_namespace(cwd: &Path) -> anyhow::Result<Namespace> {
    if let Some(name) = env("REARVIEW_HOOK_NAMESPACE") {
        return name.parse().context("REARVIEW_HOOK_NAMESPACE");
    }
    // The same project however it is reached (a symlink, a relative path).
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned());
    let root = cwd.ancestors().find(|dir| dir.join(".git").exists()).unwrap_or(&cwd);
    let name = root.file_name().map_or_else(|| "root".into(), |n| n.to_string_lossy());
    let name: String = name.chars().filter(|c| !c.is_control()).take(80).collect();
    let hash = fnv1a(root.to_string_lossy().as_bytes());
    format!("project:{}@{:06x}", name.trim(), hash & 0xff_ffff).parse().context("project namespace")
}

/// FNV-1a, 64 bits: a stable hash (the standard library's may change between releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

fn state_dir() -> PathBuf {
    if let Some(dir) = env("REARVIEW_HOOK_STATE_DIR") {
        return PathBuf::from(dir);
    }
    let base = env("XDG_STATE_HOME").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env("HOME").unwrap_or_else(|| ".".into())).join(".local/state")
    });
    base.join("rearview/hooks")
}

/// Logs to `<state>/hook.log` (owner only; started afresh past 1 MiB), `REARVIEW_LOG` or
/// `info`. Nothing reaches stdout or stderr, which belong to the agent.
fn init_log(state: &Path) -> Option<tracing::subscriber::DefaultGuard> {
    let mut dirs = std::fs::DirBuilder::new();
    dirs.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut dirs, 0o700);
    dirs.create(state).ok()?;
    let path = state.join("hook.log");
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > 1 << 20) {
        let _ = std::fs::rename(&path, state.join("hook.log.1"));
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(&path).ok()?;
    let filter = tracing_subscriber::EnvFilter::try_from_env("REARVIEW_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .finish();
    Some(tracing::subscriber::set_default(subscriber))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_is_named_by_its_git_root_and_a_hash_of_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("shop");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("src/api")).unwrap();
        let other = dir.path().join("elsewhere/shop");
        std::fs::create_dir_all(&other).unwrap();
        let at_root = project_namespace(&root).unwrap();
        assert!(at_root.as_str().starts_with("project:shop@"), "{at_root}");
        assert_eq!(project_namespace(&root.join("src/api")).unwrap(), at_root);
        assert_ne!(project_namespace(&other).unwrap(), at_root, "same name, other project");
    }
}
