//! The local server a hook starts on demand and reuses: `rearview serve --listen 127.0.0.1:0
//! --port-file <state>/server.json --idle-exit <secs>`, detached from the agent's process group,
//! so later hooks reach a process that has the embedding model loaded (a cold model takes
//! seconds; a request to a warm server, milliseconds). It stops itself after the idle period.

use std::path::Path;
use std::time::{Duration, SystemTime};

use anyhow::Context;

use super::memory::Server;

/// How long a hook waits for the local server's `/healthz` before it uses the database itself.
const PROBE: Duration = Duration::from_millis(300);

/// Requests to a server may take this long (a first recall while the model warms up).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// A start younger than this is still under way: another hook does not start a second server.
const STARTING: Duration = Duration::from_secs(20);

/// The local server named by `<state>/server.json`, when it answers.
pub fn running(state: &Path, api_key: Option<String>) -> Option<Server> {
    let text = std::fs::read_to_string(state.join("server.json")).ok()?;
    let url =
        serde_json::from_str::<serde_json::Value>(&text).ok()?.get("url")?.as_str()?.to_owned();
    let probe = Server::new(&url, None, PROBE);
    probe.is_up().then(|| Server::new(&url, api_key, REQUEST_TIMEOUT))
}

/// Starts the local server in the background (does not wait for it), unless another hook
/// started one in the last 20 seconds.
pub fn start(state: &Path, db: &Path, idle_exit: Duration) -> anyhow::Result<()> {
    let marker = state.join("server.starting");
    // A file's modification time is wall-clock time, so it is compared with the wall clock.
    #[allow(clippy::disallowed_methods)]
    let fresh = std::fs::metadata(&marker)
        .and_then(|m| m.modified())
        .is_ok_and(|at| SystemTime::now().duration_since(at).unwrap_or_default() < STARTING);
    if fresh {
        return Ok(());
    }
    std::fs::write(&marker, std::process::id().to_string())
        .with_context(|| format!("writing {}", marker.display()))?;
    let exe = std::env::current_exe().context("finding the rearview binary")?;
    let mut command = std::process::Command::new(exe);
    command
        .arg("--db")
        .arg(db)
        .arg("--log-file")
        .arg(state.join("server.log"))
        .args(["serve", "--listen", "127.0.0.1:0", "--port-file"])
        .arg(state.join("server.json"))
        .arg("--idle-exit")
        .arg(idle_exit.as_secs().to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // Its own process group: the agent ending the hook's group must not end the server.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let child = command.spawn().context("starting `rearview serve`")?;
    tracing::info!(pid = child.id(), "started the local server");
    Ok(())
}
