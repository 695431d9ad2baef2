//! Reading the TLS settings out of a connection string, the environment and `~/.postgresql`,
//! as libpq does: the string wins, then `PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT` and
//! `PGSSLKEY`, then the files libpq looks for in `~/.postgresql` (`root.crt`,
//! `postgresql.crt`, `postgresql.key`) when they exist.

use std::path::PathBuf;

use rearview_store::StoreError;

use super::{Identity, Mode, Roots, Tls, unavailable};

/// What libpq takes from outside the connection string when the string leaves it out: the
/// environment's `PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT` and `PGSSLKEY` (empty counts as
/// unset), and the directory of the default files (`$HOME/.postgresql`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TlsDefaults {
    pub(crate) sslmode: Option<String>,
    pub(crate) sslrootcert: Option<String>,
    pub(crate) sslcert: Option<String>,
    pub(crate) sslkey: Option<String>,
    /// Where `root.crt`, `postgresql.crt` and `postgresql.key` are looked for.
    pub(crate) dir: Option<PathBuf>,
}

impl TlsDefaults {
    /// This process's environment and `$HOME/.postgresql`.
    pub(crate) fn from_env() -> Self {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
        Self {
            sslmode: var("PGSSLMODE"),
            sslrootcert: var("PGSSLROOTCERT"),
            sslcert: var("PGSSLCERT"),
            sslkey: var("PGSSLKEY"),
            dir: var("HOME").map(|home| PathBuf::from(home).join(".postgresql")),
        }
    }

    /// `name` in the default directory, if that file exists.
    fn file(&self, name: &str) -> Option<PathBuf> {
        self.dir.as_ref().map(|dir| dir.join(name)).filter(|path| path.is_file())
    }
}

/// The TLS parameters a connection string gives (empty values count as not given, as in libpq).
#[derive(Default)]
struct Given {
    sslmode: Option<String>,
    sslrootcert: Option<String>,
    sslcert: Option<String>,
    sslkey: Option<String>,
}

impl Given {
    /// Takes `key = value` if it is a TLS parameter; whether it was.
    fn take(&mut self, key: &str, value: &str) -> bool {
        let slot = match key.to_ascii_lowercase().as_str() {
            "sslmode" => &mut self.sslmode,
            "sslrootcert" => &mut self.sslrootcert,
            "sslcert" => &mut self.sslcert,
            "sslkey" => &mut self.sslkey,
            _ => return false,
        };
        *slot =
            Some(value.to_owned()).filter(|v| !v.is_empty() || key.eq_ignore_ascii_case("sslmode"));
        true
    }
}

/// [`split_with`] with nothing from outside the string.
#[cfg(test)]
pub(crate) fn split(connection: &str) -> Result<(String, Tls), StoreError> {
    split_with(connection, &TlsDefaults::default())
}

/// Splits the TLS parameters (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`) off a
/// `postgres://` URL or a libpq `key=value` string: the rest for tokio-postgres, and what they
/// ask for, with `defaults` for what the string does not give.
pub(crate) fn split_with(
    connection: &str,
    defaults: &TlsDefaults,
) -> Result<(String, Tls), StoreError> {
    let mut given = Given::default();
    let rest = without_tls_parameters(connection, &mut given)?;
    // What came from the environment, to name it when the combination is refused.
    let mut from_env = Vec::new();
    let mut pick = |given: Option<String>, env: &Option<String>, var: &str| {
        given.or_else(|| {
            let value = env.clone()?;
            from_env.push(format!("{var}={value}"));
            Some(value)
        })
    };
    let mode_value = pick(given.sslmode.clone(), &defaults.sslmode, "PGSSLMODE");
    let roots_value = pick(given.sslrootcert, &defaults.sslrootcert, "PGSSLROOTCERT");
    let cert = pick(given.sslcert, &defaults.sslcert, "PGSSLCERT").map(PathBuf::from);
    let key = pick(given.sslkey, &defaults.sslkey, "PGSSLKEY").map(PathBuf::from);
    let mode = match &mode_value {
        None => Mode::Prefer,
        Some(value) if given.sslmode.is_some() => mode(value).map_err(unavailable)?,
        Some(value) => mode(value).map_err(|m| unavailable(format!("PGSSLMODE: {m}")))?,
    };
    let roots = match roots_value {
        Some(value) => roots(&value),
        None => defaults.file("root.crt").map_or(Roots::Unset, Roots::File),
    };
    // A client certificate named nowhere is `~/.postgresql/postgresql.crt` if there is one.
    let identity = cert.or_else(|| defaults.file("postgresql.crt")).map(|cert| Identity {
        cert,
        key: key.or_else(|| defaults.dir.as_ref().map(|dir| dir.join("postgresql.key"))),
    });
    let tls = Tls { mode, roots, identity }.checked(mode_value.is_some()).map_err(|e| match e {
        StoreError::Unavailable { message } if !from_env.is_empty() => {
            unavailable(format!("{message} (taken from the environment: {})", from_env.join(", ")))
        }
        other => other,
    })?;
    Ok((rest, tls))
}

/// `connection` without its TLS parameters, which go into `given`.
fn without_tls_parameters(connection: &str, given: &mut Given) -> Result<String, StoreError> {
    if !connection.contains("://") {
        let mut rest = String::new();
        for (key, value, text) in key_values(connection)? {
            if !given.take(&key, &value) {
                if !rest.is_empty() {
                    rest.push(' ');
                }
                rest.push_str(text);
            }
        }
        return Ok(rest);
    }
    // As tokio-postgres reads a URL: the user and password run to the first `@`, and the
    // parameters start at the first `?` after it.
    let after_scheme = connection.find("://").map_or(0, |i| i + 3);
    let after_userinfo =
        connection[after_scheme..].find('@').map_or(after_scheme, |i| after_scheme + i + 1);
    let Some(i) = connection[after_userinfo..].find('?') else {
        return Ok(connection.to_owned());
    };
    let (base, query) = connection.split_at(after_userinfo + i);
    let mut kept = Vec::new();
    for pair in query[1..].split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if !given.take(&percent_decoded(key), &percent_decoded(value)) {
            kept.push(pair);
        }
    }
    Ok(if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) })
}

fn roots(value: &str) -> Roots {
    if value == "system" { Roots::System } else { Roots::File(PathBuf::from(value)) }
}

fn mode(value: &str) -> Result<Mode, String> {
    Ok(match value.to_ascii_lowercase().as_str() {
        "disable" => Mode::Disable,
        // libpq's `allow` tries plain text first; rearview tries TLS first, like `prefer`.
        "allow" | "prefer" => Mode::Prefer,
        "require" => Mode::Require,
        "verify-ca" => Mode::VerifyCa,
        "verify-full" => Mode::VerifyFull,
        other => {
            return Err(format!(
                "sslmode={other} is not a TLS mode; use disable, prefer, require, verify-ca or verify-full"
            ));
        }
    })
}

/// A libpq `key = value` string as (key, value, the pair's own text): values may be quoted
/// with `'` and hold `\` escapes, and spaces may surround `=`.
fn key_values(s: &str) -> Result<Vec<(String, String, &str)>, StoreError> {
    let bytes = s.as_bytes();
    let mut pairs = Vec::new();
    let mut i = 0;
    let skip_space = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    loop {
        i = skip_space(i);
        if i >= bytes.len() {
            return Ok(pairs);
        }
        let start = i;
        while i < bytes.len() && bytes[i] != b'=' && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let key = s[start..i].to_owned();
        i = skip_space(i);
        if bytes.get(i) != Some(&b'=') {
            return Err(unavailable(format!(
                "the connection string has `{key}` without `= value`"
            )));
        }
        i = skip_space(i + 1);
        let mut value = Vec::new();
        let quoted = bytes.get(i) == Some(&b'\'');
        if quoted {
            i += 1;
        }
        loop {
            match bytes.get(i) {
                None if quoted => {
                    return Err(unavailable(format!(
                        "the connection string's value of `{key}` has no closing quote"
                    )));
                }
                None => break,
                Some(b'\\') if i + 1 < bytes.len() => {
                    value.push(bytes[i + 1]);
                    i += 2;
                }
                Some(b'\'') if quoted => {
                    i += 1;
                    break;
                }
                Some(b) if !quoted && b.is_ascii_whitespace() => break,
                Some(b) => {
                    value.push(*b);
                    i += 1;
                }
            }
        }
        pairs.push((key, String::from_utf8_lossy(&value).into_owned(), &s[start..i]));
    }
}

/// `%XX` escapes decoded (a URL's query carries a file path that way).
fn percent_decoded(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_parameters_are_taken_out_of_a_url() {
        let (rest, tls) = split(
            "postgres://u@h/db?sslmode=verify-full&application_name=x&sslrootcert=%2Ftmp%2Fca.pem",
        )
        .unwrap();
        assert_eq!(rest, "postgres://u@h/db?application_name=x");
        assert_eq!(tls.mode, Mode::VerifyFull);
        assert_eq!(tls.roots, Roots::File(PathBuf::from("/tmp/ca.pem")));
        let (rest, tls) = split("postgresql://u@h/db?sslmode=require").unwrap();
        assert_eq!((rest.as_str(), tls.mode), ("postgresql://u@h/db", Mode::Require));
    }

    #[test]
    fn a_question_mark_in_the_password_does_not_hide_the_parameters() {
        let (rest, tls) = split("postgres://u:pa?ss@h/db?sslmode=require").unwrap();
        assert_eq!((rest.as_str(), tls.mode), ("postgres://u:pa?ss@h/db", Mode::Require));
        let (rest, tls) = split("host=h password='a?b c\\'d' sslmode = require").unwrap();
        assert_eq!((rest.as_str(), tls.mode), ("host=h password='a?b c\\'d'", Mode::Require));
        // A value that merely contains the text is not a parameter.
        let (rest, tls) = split("host=h password='x sslmode=disable'").unwrap();
        assert_eq!(
            (rest.as_str(), tls.mode),
            ("host=h password='x sslmode=disable'", Mode::Prefer)
        );
    }

    #[test]
    fn tls_parameters_are_taken_out_of_a_key_value_string() {
        let (rest, tls) = split("host=h user=u sslmode=verify-ca sslrootcert=/c%41.pem").unwrap();
        assert_eq!(rest, "host=h user=u");
        assert_eq!(tls.mode, Mode::VerifyCa);
        assert_eq!(tls.roots, Roots::File(PathBuf::from("/c%41.pem")));
        assert!(split("host=h sslmode").is_err());
        assert!(split("host=h password='open").is_err());
    }

    #[test]
    fn the_default_is_prefer_and_system_roots_mean_verify_full() {
        let (rest, tls) = split("postgres://u@h/db").unwrap();
        assert_eq!((rest.as_str(), tls.mode), ("postgres://u@h/db", Mode::Prefer));
        let (_, tls) = split("postgres://u@h/db?sslrootcert=system").unwrap();
        assert_eq!((tls.mode, &tls.roots), (Mode::VerifyFull, &Roots::System));
        assert!(tls.trusted().unwrap().len() > 50);
        let err = split("postgres://u@h/db?sslrootcert=system&sslmode=require").unwrap_err();
        assert!(err.to_string().contains("needs sslmode=verify-full"), "{err}");
    }

    #[test]
    fn the_environment_fills_in_what_the_string_leaves_out() {
        let env = TlsDefaults {
            sslmode: Some("verify-ca".into()),
            sslrootcert: Some("/etc/ca.pem".into()),
            ..TlsDefaults::default()
        };
        let (_, tls) = split_with("postgres://u@h/db", &env).unwrap();
        assert_eq!(tls.mode, Mode::VerifyCa);
        assert_eq!(tls.roots, Roots::File("/etc/ca.pem".into()));
        // The string wins over the environment, each parameter on its own.
        let (_, tls) = split_with("postgres://u@h/db?sslmode=require", &env).unwrap();
        assert_eq!(tls.mode, Mode::Require);
        assert_eq!(tls.roots, Roots::File("/etc/ca.pem".into()));
        let (_, tls) = split_with("host=h sslrootcert=/mine.pem", &env).unwrap();
        assert_eq!((tls.mode, tls.roots), (Mode::VerifyCa, Roots::File("/mine.pem".into())));
        // `PGSSLROOTCERT=system` alone means verify-full, as `sslrootcert=system` does.
        let system = TlsDefaults {
            sslmode: None,
            sslrootcert: Some("system".into()),
            ..TlsDefaults::default()
        };
        assert_eq!(split_with("postgres://u@h/db", &system).unwrap().1.mode, Mode::VerifyFull);
        let bad = TlsDefaults {
            sslmode: Some("always".into()),
            sslrootcert: None,
            ..TlsDefaults::default()
        };
        let err = split_with("postgres://u@h/db", &bad).unwrap_err().to_string();
        assert!(err.contains("PGSSLMODE") && err.contains("sslmode=always"), "{err}");
        assert_eq!(
            split_with("postgres://u@h/db?sslmode=disable", &bad).unwrap().1.mode,
            Mode::Disable
        );
        // A refused combination names what came from the environment.
        let ca_only = TlsDefaults {
            sslmode: Some("verify-ca".into()),
            sslrootcert: None,
            ..TlsDefaults::default()
        };
        let err = split_with("postgres://u@h/db", &ca_only).unwrap_err().to_string();
        assert!(err.contains("needs sslrootcert") && err.contains("PGSSLMODE=verify-ca"), "{err}");
        let err = split_with("postgres://u@h/db?sslmode=require", &system).unwrap_err().to_string();
        assert!(err.contains("PGSSLROOTCERT=system") && !err.contains("PGSSLMODE"), "{err}");
    }

    #[test]
    fn verify_ca_needs_the_operators_own_ca() {
        let err = split("postgres://u@h/db?sslmode=verify-ca").unwrap_err().to_string();
        assert!(err.contains("verify-ca needs sslrootcert=FILE"), "{err}");
    }

    #[test]
    fn an_unknown_mode_and_an_unreadable_root_file_are_named() {
        let err = split("postgres://u@h/db?sslmode=always").unwrap_err().to_string();
        assert!(err.contains("sslmode=always") && err.contains("verify-full"), "{err}");
        let (_, tls) =
            split("postgres://u@h/db?sslmode=verify-full&sslrootcert=/no/such/ca.pem").unwrap();
        let err = tls.connector().err().unwrap().to_string();
        assert!(err.contains("sslrootcert=/no/such/ca.pem"), "{err}");
    }

    #[test]
    fn client_certificates_come_from_the_string_then_the_environment() {
        let (rest, tls) =
            split("postgres://u@h/db?sslcert=%2Fc.pem&application_name=x&sslkey=/k.pem").unwrap();
        assert_eq!(rest, "postgres://u@h/db?application_name=x");
        let expected = Identity { cert: "/c.pem".into(), key: Some("/k.pem".into()) };
        assert_eq!(tls.identity, Some(expected.clone()));
        let (rest, tls) = split("host=h sslkey='/k.pem' sslcert=/c.pem").unwrap();
        assert_eq!((rest.as_str(), tls.identity), ("host=h", Some(expected)));
        let env = TlsDefaults {
            sslcert: Some("/env.crt".into()),
            sslkey: Some("/env.key".into()),
            ..TlsDefaults::default()
        };
        let (_, tls) = split_with("postgres://u@h/db?sslkey=/mine.key", &env).unwrap();
        let mixed = Identity { cert: "/env.crt".into(), key: Some("/mine.key".into()) };
        assert_eq!(tls.identity, Some(mixed));
        // No certificate anywhere: none presented; an empty value counts as not given.
        assert_eq!(split("postgres://u@h/db?sslkey=/k.pem").unwrap().1.identity, None);
        assert_eq!(split("postgres://u@h/db?sslcert=").unwrap().1.identity, None);
        // A certificate without a key says which parameter is missing when it is loaded.
        let (_, tls) = split("postgres://u@h/db?sslcert=/c.pem").unwrap();
        assert_eq!(tls.identity.as_ref().unwrap().key, None);
    }

    #[test]
    fn the_files_in_dot_postgresql_are_used_when_nothing_names_one() {
        let dir = std::env::temp_dir().join(format!("rearview-pgdir-{}", uuid::Uuid::now_v7()));
        std::fs::create_dir_all(&dir).unwrap();
        let home = TlsDefaults { dir: Some(dir.clone()), ..TlsDefaults::default() };
        // Absent files: nothing changes.
        let (_, tls) = split_with("postgres://u@h/db?sslmode=verify-full", &home).unwrap();
        assert_eq!((tls.roots, tls.identity), (Roots::Unset, None));
        std::fs::write(dir.join("root.crt"), "").unwrap();
        std::fs::write(dir.join("postgresql.crt"), "").unwrap();
        let (_, tls) = split_with("postgres://u@h/db", &home).unwrap();
        assert_eq!(tls.roots, Roots::File(dir.join("root.crt")));
        let default_identity =
            Identity { cert: dir.join("postgresql.crt"), key: Some(dir.join("postgresql.key")) };
        assert_eq!(tls.identity, Some(default_identity));
        // With root.crt present, verify-ca needs nothing more (libpq's default root file).
        assert_eq!(
            split_with("postgres://u@h/db?sslmode=verify-ca", &home).unwrap().1.mode,
            Mode::VerifyCa
        );
        // What the string names wins over the files.
        let (_, tls) =
            split_with("postgres://u@h/db?sslrootcert=/ca.pem&sslcert=/c.pem", &home).unwrap();
        assert_eq!(tls.roots, Roots::File("/ca.pem".into()));
        let named = Identity { cert: "/c.pem".into(), key: Some(dir.join("postgresql.key")) };
        assert_eq!(tls.identity, Some(named));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
