//! `rearview keys`: API keys for `rearview serve`, and the server's access policy (who needs a
//! key, which hosts it answers) derived from the settings.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::Arc;

use anyhow::Context;
use rearview_http::{AuthMode, HttpConfig, RateLimit};
use rearview_service::{MemoryService, NewKey};

use crate::args::KeysCommand;
use crate::output::Printer;
use crate::settings::Settings;

/// Runs `rearview keys …`.
pub async fn run(
    service: &MemoryService,
    command: &KeysCommand,
    namespaces: &[String],
    printer: &Printer,
) -> anyhow::Result<()> {
    match command {
        KeysCommand::Create { admin, label, expires_in } => {
            let namespaces = namespaces
                .iter()
                .map(|n| n.parse())
                .collect::<Result<Vec<_>, _>>()
                .context("--namespace")?;
            let created = service
                .create_key(NewKey {
                    namespaces,
                    admin: *admin,
                    label: label.clone(),
                    expires_in_days: *expires_in,
                })
                .await?;
            printer.key_created(&created)?;
        }
        KeysCommand::List => printer.keys(&service.list_keys().await?)?,
        KeysCommand::Revoke { id } => {
            service.revoke_key(id).await?;
            printer.key_revoked(id)?;
        }
    }
    Ok(())
}

/// The HTTP server's limits and access rules. Refuses to serve a non-loopback address without
/// any API key unless `--insecure-no-auth` says so; seeds `REARVIEW_API_KEY` as an admin key.
pub async fn http_config(
    settings: &Settings,
    service: &Arc<MemoryService>,
) -> anyhow::Result<HttpConfig> {
    if let Some(secret) = &settings.api_key {
        let key = service.seed_admin_key(secret).await?;
        tracing::info!(key_id = key.id, "admin key from REARVIEW_API_KEY is active");
    }
    let address: Option<SocketAddr> = settings.listen.parse().ok();
    let loopback =
        address.map_or_else(|| settings.listen.starts_with("localhost:"), |a| a.ip().is_loopback());
    let auth = match (loopback, settings.insecure_no_auth) {
        (_, true) => AuthMode::Off,
        (true, false) => AuthMode::WhenKeysExist,
        (false, false) => {
            if !service.keys_exist().await? {
                anyhow::bail!(
                    "refusing to serve {} without authentication: anyone who can reach it could read and change every namespace. \
                     Create a key first (`rearview keys create --namespace NAME`, or --admin; or set REARVIEW_API_KEY), \
                     or pass --insecure-no-auth (REARVIEW_INSECURE_NO_AUTH=true) to serve without keys",
                    settings.listen
                );
            }
            AuthMode::Required
        }
    };
    if auth == AuthMode::Off && !loopback {
        tracing::warn!(
            listen = settings.listen,
            "serving without authentication (--insecure-no-auth)"
        );
    }
    let defaults = HttpConfig::default();
    let mut allowed_hosts = defaults.allowed_hosts.clone();
    if let Some(address) = address.filter(|a| !a.ip().is_unspecified()) {
        allowed_hosts.push(match address {
            SocketAddr::V4(a) => a.ip().to_string(),
            SocketAddr::V6(a) => format!("[{}]", a.ip()),
        });
    }
    allowed_hosts.extend(settings.allowed_hosts.iter().cloned());
    let rate_limit = NonZeroU32::new(settings.rate_limit).map(|per_second| RateLimit {
        per_second,
        burst: per_second.saturating_mul(NonZeroU32::new(2).unwrap_or(NonZeroU32::MIN)),
    });
    Ok(HttpConfig {
        max_request_bytes: usize::try_from(settings.max_request_bytes).unwrap_or(usize::MAX),
        auth,
        metrics_public: settings.metrics_public,
        allowed_hosts,
        rate_limit,
        max_in_flight: settings.max_in_flight,
        max_mcp_sessions: settings.max_mcp_sessions,
        max_mcp_sessions_per_key: settings.max_mcp_sessions_per_key,
        console_dir: settings.console_dir.clone(),
        ..defaults
    })
}
