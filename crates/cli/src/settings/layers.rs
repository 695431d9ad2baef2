//! How a setting's value is found: the layers (flags, environment, config file) in precedence
//! order, the config file read and flattened into keys, and the parsers the key groups share.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{EnvLookup, KEYS, SettingsError, Source};
use crate::args::Cli;

/// A value and where it came from.
pub(super) struct Raw {
    pub(super) value: String,
    pub(super) source: Source,
}

pub(super) struct Layers<'a> {
    file: BTreeMap<String, String>,
    pub(super) file_path: Option<PathBuf>,
    env: EnvLookup<'a>,
    flags: BTreeMap<&'static str, String>,
    pub(super) shown: Vec<(&'static str, Option<String>, Source)>,
}

impl<'a> Layers<'a> {
    /// The layers for `cli`: its flags, the environment through `env`, and the config file
    /// (`--config`, else `REARVIEW_CONFIG`, both required to exist, else the default path if a
    /// file is there).
    pub(super) fn open(cli: &Cli, env: EnvLookup<'a>) -> Result<Self, SettingsError> {
        let (file_path, explicit) = match (&cli.config, non_empty(env("REARVIEW_CONFIG"))) {
            (Some(path), _) => (Some(path.clone()), true),
            (None, Some(path)) => (Some(PathBuf::from(path)), true),
            (None, None) => (default_config_file(env), false),
        };
        let file_path = file_path.filter(|p| explicit || p.exists());
        let file = match &file_path {
            Some(path) => read_file(path)?,
            None => BTreeMap::new(),
        };
        Ok(Layers { file, file_path, env, flags: cli.flag_values(), shown: Vec::new() })
    }
}

impl Layers<'_> {
    /// The highest-precedence value of `name`: flag, environment, file.
    pub(super) fn raw(&self, name: &'static str) -> Option<Raw> {
        let def = KEYS.iter().find(|k| k.name == name).expect("a defined key");
        if let (Some(flag), Some(value)) = (def.flag, self.flags.get(name)) {
            return Some(Raw { value: value.clone(), source: Source::Flag(flag) });
        }
        for var in def.env {
            if let Some(value) = non_empty((self.env)(var)) {
                return Some(Raw { value, source: Source::Env(var) });
            }
        }
        let path = self.file_path.clone()?;
        self.file.get(name).map(|value| Raw { value: value.clone(), source: Source::File(path) })
    }

    pub(super) fn source_of(&self, name: &'static str) -> Source {
        self.raw(name).map_or(Source::Default, |r| r.source)
    }

    fn record(&mut self, name: &'static str, value: Option<String>, source: Source) {
        let secret = KEYS.iter().any(|k| k.name == name && k.secret);
        let shown = value.map(|v| if secret { "<redacted>".to_owned() } else { redact_url(&v) });
        self.shown.push((name, shown, source));
    }

    /// A free-form string, unset when absent.
    pub(super) fn string(&mut self, name: &'static str) -> Option<String> {
        let raw = self.raw(name);
        let (value, source) = match raw {
            Some(r) => (Some(r.value), r.source),
            None => (None, Source::Default),
        };
        self.record(name, value.clone(), source);
        value
    }

    /// A value parsed by `parse`, unset when absent.
    pub(super) fn optional<T>(
        &mut self,
        name: &'static str,
        allowed: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<T>, SettingsError> {
        let Some(raw) = self.raw(name) else {
            self.record(name, None, Source::Default);
            return Ok(None);
        };
        match parse(raw.value.trim()) {
            Some(v) => {
                self.record(name, Some(raw.value), raw.source);
                Ok(Some(v))
            }
            None => Err(SettingsError::Invalid {
                key: name,
                value: raw.value,
                origin: raw.source,
                allowed: allowed.to_owned(),
            }),
        }
    }

    /// A value parsed by `parse`, `default` when absent.
    pub(super) fn parse<T>(
        &mut self,
        name: &'static str,
        default: &str,
        allowed: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<T, SettingsError> {
        match self.optional(name, allowed, &parse)? {
            Some(v) => Ok(v),
            None => {
                self.shown.pop();
                self.record(name, Some(default.to_owned()), Source::Default);
                Ok(parse(default).expect("defaults are valid"))
            }
        }
    }

    /// An API key: given directly (`name`, file or environment only), or read from the variable
    /// named by `env_key`.
    pub(super) fn api_key(
        &mut self,
        name: &'static str,
        env_key: &'static str,
    ) -> Result<Option<String>, SettingsError> {
        let direct = self.string(name);
        let var = self.raw(env_key);
        let source = self.source_of(env_key);
        self.record(env_key, var.as_ref().map(|r| r.value.clone()), source);
        match (direct, var) {
            (Some(key), _) => Ok(Some(key)),
            (None, Some(raw)) => match non_empty((self.env)(&raw.value)) {
                Some(key) => Ok(Some(key)),
                None => Err(SettingsError::Invalid {
                    key: env_key,
                    value: raw.value.clone(),
                    origin: raw.source,
                    allowed: format!(
                        "the name of a set environment variable holding the API key; {} is not set (export it, or set {name} in the config file)",
                        raw.value
                    ),
                }),
            },
            (None, None) => Ok(None),
        }
    }
}

pub(super) fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

pub(super) fn url(v: &str) -> Option<String> {
    let rest = v.strip_prefix("http://").or_else(|| v.strip_prefix("https://"))?;
    (!rest.is_empty() && !rest.starts_with('/')).then(|| v.trim_end_matches('/').to_owned())
}

pub(super) fn boolean(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// `https://user:secret@host/…` → `https://user:<redacted>@host/…`.
pub(super) fn redact_url(value: &str) -> String {
    let Some((scheme, rest)) = value.split_once("://") else { return value.to_owned() };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            format!("{scheme}://{user}:<redacted>@{host}{}", &rest[authority_end..])
        }
        None => value.to_owned(),
    }
}

/// `$XDG_CONFIG_HOME/rearview/config.toml`, else `~/.config/rearview/config.toml`.
pub(super) fn default_config_file(env: EnvLookup<'_>) -> Option<PathBuf> {
    let base = non_empty(env("XDG_CONFIG_HOME"))
        .map(PathBuf::from)
        .or_else(|| non_empty(env("HOME")).map(|h| Path::new(&h).join(".config")))?;
    Some(base.join("rearview").join("config.toml"))
}

/// `$XDG_DATA_HOME/rearview/rearview.db`, else `~/.local/share/rearview/rearview.db`.
pub(super) fn default_db(env: EnvLookup<'_>) -> Result<PathBuf, String> {
    let base = non_empty(env("XDG_DATA_HOME"))
        .map(PathBuf::from)
        .or_else(|| non_empty(env("HOME")).map(|h| Path::new(&h).join(".local").join("share")))
        .ok_or("a database path: set db in the config file, REARVIEW_DB, DB_PATH or --db (neither XDG_DATA_HOME nor HOME is set)")?;
    Ok(base.join("rearview").join("rearview.db"))
}

/// Reads a TOML or YAML config file into `key → value as text`, refusing unknown keys.
pub(super) fn read_file(path: &Path) -> Result<BTreeMap<String, String>, SettingsError> {
    let fail = |reason: String| SettingsError::File { path: path.to_owned(), reason };
    let text = std::fs::read_to_string(path).map_err(|e| {
        fail(format!("cannot be read ({e}); fix the path in --config / REARVIEW_CONFIG"))
    })?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let value: serde_json::Value = match ext.as_str() {
        "toml" => toml::from_str(&text).map_err(|e| fail(format!("is not valid TOML: {e}")))?,
        "yaml" | "yml" => {
            serde_yaml_ng::from_str(&text).map_err(|e| fail(format!("is not valid YAML: {e}")))?
        }
        _ => return Err(fail("must end in .toml, .yaml or .yml".into())),
    };
    let mut out = BTreeMap::new();
    match value {
        serde_json::Value::Null => {}
        serde_json::Value::Object(map) => flatten("", &map, &mut out, path)?,
        _ => return Err(fail("must be a table of settings (key = value)".into())),
    }
    Ok(out)
}

fn flatten(
    prefix: &str,
    map: &serde_json::Map<String, serde_json::Value>,
    out: &mut BTreeMap<String, String>,
    path: &Path,
) -> Result<(), SettingsError> {
    for (k, v) in map {
        let name = format!("{prefix}{}", k.replace('-', "_").to_ascii_lowercase());
        let text = match v {
            serde_json::Value::Object(inner) if prefix.is_empty() => {
                flatten(&format!("{name}_"), inner, out, path)?;
                continue;
            }
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::Bool(b) => b.to_string(),
            serde_json::Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join(","),
            serde_json::Value::Null => continue,
            serde_json::Value::Object(_) => {
                return Err(SettingsError::File {
                    path: path.to_owned(),
                    reason: format!("`{name}`: tables nest at most one level ([embed] url = …)"),
                });
            }
        };
        if !KEYS.iter().any(|d| d.name == name) {
            return Err(SettingsError::UnknownKey {
                key: name,
                path: path.to_owned(),
                known: KEYS.iter().map(|k| k.name).collect::<Vec<_>>().join(", "),
            });
        }
        out.insert(name, text);
    }
    Ok(())
}
