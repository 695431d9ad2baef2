//! The `rearview` binary: command-line access to the embedded memory store.
//!
//! `main` → `run` → `ExitCode`, as in ripgrep: errors print once, with their whole cause chain,
//! and exit with status 2. This is the only crate that reads flags, environment variables and
//! config files, and the only one that uses `anyhow`. Logs go to stderr; stdout carries only the
//! command's output (and, once the MCP server lands, protocol bytes).

mod args;
mod commands;
mod doctor;
mod eval;
mod models;
mod output;
mod settings;
mod transfer;

use std::process::ExitCode;

use clap::Parser;

use crate::args::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return report(&anyhow::Error::new(e).context("starting the async runtime")),
    };
    match runtime.block_on(commands::run(cli)) {
        Ok(code) => code,
        Err(e) => report(&e),
    }
}

fn report(err: &anyhow::Error) -> ExitCode {
    // A closed pipe (`rearview list | head`) is not an error worth reporting.
    if err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    }) {
        return ExitCode::SUCCESS;
    }
    output::error(&format!("{err:#}"));
    ExitCode::from(2)
}

/// Logs to stderr, never stdout. `REARVIEW_LOG` takes an `env_logger`-style filter.
fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("REARVIEW_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .init();
}
