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
mod hook;
mod import_from;
mod keys;
mod models;
mod output;
mod settings;
mod transfer;

use std::process::ExitCode;

use clap::Parser;

use crate::args::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A hook logs to its own file and never fails the agent that runs it.
    if let args::Command::Hook { agent } = cli.command {
        return hook::main(&cli, agent);
    }
    if let Err(e) = init_logging(&cli) {
        return report(&e);
    }
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

/// Logs to stderr (or `--log-file`), never stdout, as text or JSON lines. `REARVIEW_LOG` takes
/// an `env_logger`-style filter. Servers log the audit events (one per tool call, target
/// `rearview::audit`) by default; one-shot commands only warnings.
fn init_logging(cli: &Cli) -> anyhow::Result<()> {
    use tracing_subscriber::fmt::writer::BoxMakeWriter;
    let server = matches!(cli.command, args::Command::Serve { .. } | args::Command::Mcp { .. });
    let default = match (cli.verbose, server) {
        (0, false) => "warn",
        (0, true) => "warn,rearview::audit=info",
        (1, _) => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("REARVIEW_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let (writer, ansi) = match &cli.log_file {
        Some(path) => {
            let mut options = std::fs::OpenOptions::new();
            options.create(true).append(true);
            // The log holds excerpts of memories and queries: owner only, like the database.
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            let file = options
                .open(path)
                .map_err(|e| anyhow::anyhow!("opening --log-file {}: {e}", path.display()))?;
            (BoxMakeWriter::new(std::sync::Mutex::new(file)), false)
        }
        None => (
            BoxMakeWriter::new(std::io::stderr),
            std::io::IsTerminal::is_terminal(&std::io::stderr()),
        ),
    };
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(writer);
    match cli.log_format {
        args::LogFormat::Text => builder.with_ansi(ansi).init(),
        args::LogFormat::Json => builder.json().flatten_event(true).init(),
    }
    Ok(())
}
