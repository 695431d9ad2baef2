//! What the process tests share: the binary in a private home, and a started server.

#![allow(dead_code)] // each test binary uses its own part

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `rearview` with a private HOME/XDG (no user config file or database is picked up), none of
/// the caller's rearview settings, and no embedding model.
pub fn rearview(home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rearview"));
    for var in [
        "REARVIEW_DB",
        "REARVIEW_NAMESPACE",
        "REARVIEW_LOG",
        "REARVIEW_CONFIG",
        "DB_PATH",
        "REARVIEW_API_KEY",
        "REARVIEW_ALLOWED_HOSTS",
        "REARVIEW_LISTEN",
        "REARVIEW_INSECURE_NO_AUTH",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("REARVIEW_MODEL", "none");
    cmd
}

/// Starts a `serve` command; returns the child and the address it announced (`host:port`).
pub fn start(mut cmd: Command) -> (Child, String) {
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut address = None;
    while address.is_none() && Instant::now() < deadline {
        line.clear();
        if stderr.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        address = line
            .trim()
            .strip_prefix("rearview listening on http://")
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_owned);
    }
    let Some(address) = address else {
        child.kill().ok();
        child.wait().ok();
        panic!("the server did not start listening: {line}");
    };
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    (child, address)
}
