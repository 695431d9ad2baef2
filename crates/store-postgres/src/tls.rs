//! TLS to PostgreSQL, with libpq's `sslmode` meanings, over rustls (the TLS stack rearview's
//! HTTP clients already use: no system OpenSSL).
//!
//! | `sslmode` | encrypted | certificate checked |
//! |---|---|---|
//! | `disable` | never | – |
//! | `prefer` (the default, as in libpq) | when the server offers TLS | no |
//! | `require` | always | no, unless `sslrootcert=FILE` is given (then as `verify-ca`) |
//! | `verify-ca` | always | chain to a trusted root; any host name |
//! | `verify-full` | always | chain to a trusted root, for the host connected to |
//!
//! Trusted roots: the PEM file `sslrootcert` names (then the chain is checked in every mode that
//! encrypts, as libpq does when a root file is present), or Mozilla's roots (compiled in, from
//! `webpki-roots`, not the operating system's store) for `verify-full` without one or with
//! `sslrootcert=system`, which makes `verify-full` the default and refuses weaker modes.
//! `verify-ca` needs a root file. Unlike libpq's `prefer`, a failed handshake is not retried in
//! plain text. tokio-postgres itself knows only `disable`,
//! `prefer` and `require` and rejects `sslrootcert`, so both are taken out of the connection
//! string here and applied to rustls. As in libpq, `PGSSLMODE` and `PGSSLROOTCERT` give what the
//! connection string leaves out.

use std::path::PathBuf;
use std::sync::Arc;

use rearview_store::StoreError;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{WebPkiServerVerifier, verify_server_cert_signed_by_trust_anchor};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;

/// libpq's `sslmode` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// Where trusted roots come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Roots {
    /// No `sslrootcert`: Mozilla's roots, for `verify-full` only.
    Unset,
    /// `sslrootcert=system`: Mozilla's roots (compiled in), and `verify-full` required.
    System,
    /// `sslrootcert=FILE`: the CA certificates in that PEM file; the chain is then checked in
    /// every mode that encrypts, as libpq does when a root file is present.
    File(PathBuf),
}

/// The TLS part of a connection string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tls {
    pub(crate) mode: Mode,
    pub(crate) roots: Roots,
}

impl Tls {
    /// What tokio-postgres is told: whether TLS is attempted and whether it is required.
    pub(crate) fn ssl_mode(&self) -> SslMode {
        match self.mode {
            Mode::Disable => SslMode::Disable,
            Mode::Prefer => SslMode::Prefer,
            Mode::Require | Mode::VerifyCa | Mode::VerifyFull => SslMode::Require,
        }
    }

    /// The rustls connector for this mode (used unless the mode is `disable`).
    pub(crate) fn connector(&self) -> Result<MakeRustlsConnect, StoreError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| unavailable(format!("setting up TLS: {e}")))?;
        let chain_checked = matches!(self.roots, Roots::File(_))
            || matches!(self.mode, Mode::VerifyCa | Mode::VerifyFull);
        let verifier: Arc<dyn ServerCertVerifier> = if chain_checked {
            let roots = Arc::new(self.trusted()?);
            if self.mode == Mode::VerifyFull {
                WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
                    .build()
                    .map_err(|e| unavailable(format!("setting up certificate checks: {e}")))?
            } else {
                Arc::new(NameUnchecked {
                    roots: Some(roots),
                    algorithms: provider.signature_verification_algorithms,
                })
            }
        } else {
            Arc::new(NameUnchecked {
                roots: None,
                algorithms: provider.signature_verification_algorithms,
            })
        };
        let config =
            builder.dangerous().with_custom_certificate_verifier(verifier).with_no_client_auth();
        Ok(MakeRustlsConnect::new(config))
    }

    fn trusted(&self) -> Result<RootCertStore, StoreError> {
        let Roots::File(path) = &self.roots else {
            return Ok(RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() });
        };
        let shown = path.display();
        let certs = CertificateDer::pem_file_iter(path)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| {
                unavailable(format!("sslrootcert={shown}: cannot read PEM certificates: {e}"))
            })?;
        let mut roots = RootCertStore::empty();
        let (added, _) = roots.add_parsable_certificates(certs);
        if added == 0 {
            return Err(unavailable(format!(
                "sslrootcert={shown}: no usable CA certificate in the file (PEM \"BEGIN CERTIFICATE\" blocks expected)"
            )));
        }
        Ok(roots)
    }

    /// libpq's refusals: `verify-ca` needs the operator's own CA (public roots without the host
    /// name would let anyone holding any public certificate pose as the server), and
    /// `sslrootcert=system` only goes with `verify-full`.
    fn checked(mut self, mode_given: bool) -> Result<Self, StoreError> {
        if self.roots == Roots::System && !mode_given {
            self.mode = Mode::VerifyFull;
        }
        if self.roots == Roots::System && self.mode != Mode::VerifyFull {
            return Err(unavailable(
                "sslrootcert=system needs sslmode=verify-full (or no sslmode): public roots are only meaningful with the host name checked".into(),
            ));
        }
        if self.mode == Mode::VerifyCa && !matches!(self.roots, Roots::File(_)) {
            return Err(unavailable(
                "sslmode=verify-ca needs sslrootcert=FILE with your server's CA; for a server with a publicly trusted certificate use sslmode=verify-full".into(),
            ));
        }
        Ok(self)
    }
}

/// What libpq takes from the environment when the connection string leaves it out:
/// `PGSSLMODE` and `PGSSLROOTCERT` (empty counts as unset).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TlsDefaults {
    pub(crate) sslmode: Option<String>,
    pub(crate) sslrootcert: Option<String>,
}

impl TlsDefaults {
    /// This process's `PGSSLMODE` and `PGSSLROOTCERT`.
    pub(crate) fn from_env() -> Self {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
        Self { sslmode: var("PGSSLMODE"), sslrootcert: var("PGSSLROOTCERT") }
    }
}

/// [`split_with`] without environment defaults.
#[cfg(test)]
pub(crate) fn split(connection: &str) -> Result<(String, Tls), StoreError> {
    split_with(connection, &TlsDefaults::default())
}

/// Splits the TLS parameters (`sslmode`, `sslrootcert`) off a `postgres://` URL or a libpq
/// `key=value` string: the rest for tokio-postgres, and what they ask for, with `defaults` for
/// a parameter the string does not give (as libpq reads `PGSSLMODE` and `PGSSLROOTCERT`).
pub(crate) fn split_with(
    connection: &str,
    defaults: &TlsDefaults,
) -> Result<(String, Tls), StoreError> {
    let mut tls = Tls { mode: Mode::Prefer, roots: Roots::Unset };
    let (mut mode_given, mut roots_given) = (false, false);
    let mut take = |key: &str, value: &str| -> Result<bool, StoreError> {
        if key.eq_ignore_ascii_case("sslmode") {
            tls.mode = mode(value).map_err(unavailable)?;
            mode_given = true;
            Ok(true)
        } else if key.eq_ignore_ascii_case("sslrootcert") {
            tls.roots = roots(value);
            roots_given = true;
            Ok(true)
        } else {
            Ok(false)
        }
    };
    let rest = if connection.contains("://") {
        // As tokio-postgres reads a URL: the user and password run to the first `@`, and the
        // parameters start at the first `?` after it.
        let after_scheme = connection.find("://").map_or(0, |i| i + 3);
        let after_userinfo =
            connection[after_scheme..].find('@').map_or(after_scheme, |i| after_scheme + i + 1);
        match connection[after_userinfo..].find('?') {
            Some(i) => {
                let (base, query) = connection.split_at(after_userinfo + i);
                let mut kept = Vec::new();
                for pair in query[1..].split('&').filter(|p| !p.is_empty()) {
                    let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                    if !take(&percent_decoded(key), &percent_decoded(value))? {
                        kept.push(pair);
                    }
                }
                if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) }
            }
            None => connection.to_owned(),
        }
    } else {
        let mut rest = String::new();
        for (key, value, text) in key_values(connection)? {
            if !take(&key, &value)? {
                if !rest.is_empty() {
                    rest.push(' ');
                }
                rest.push_str(text);
            }
        }
        rest
    };
    // What came from the environment, to name it when the combination is refused.
    let mut from_env = Vec::new();
    if !mode_given && let Some(value) = &defaults.sslmode {
        tls.mode = mode(value).map_err(|m| unavailable(format!("PGSSLMODE: {m}")))?;
        mode_given = true;
        from_env.push(format!("PGSSLMODE={value}"));
    }
    if !roots_given && let Some(value) = &defaults.sslrootcert {
        tls.roots = roots(value);
        from_env.push(format!("PGSSLROOTCERT={value}"));
    }
    let tls = tls.checked(mode_given).map_err(|e| match e {
        StoreError::Unavailable { message } if !from_env.is_empty() => {
            unavailable(format!("{message} (taken from the environment: {})", from_env.join(", ")))
        }
        other => other,
    })?;
    Ok((rest, tls))
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

fn unavailable(message: String) -> StoreError {
    StoreError::Unavailable { message }
}

/// A server certificate check that never compares the name in the certificate with the host
/// (libpq's meaning of every mode but `verify-full`). With `roots` (`verify-ca`, or any mode
/// with `sslrootcert`) the chain must lead to one of them; without (`prefer` and `require`
/// without `sslrootcert`) any certificate is accepted: encryption protects against
/// eavesdropping, not against an impostor. The handshake's own signatures are always checked.
#[derive(Debug)]
struct NameUnchecked {
    roots: Option<Arc<RootCertStore>>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for NameUnchecked {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if let Some(roots) = &self.roots {
            let cert = rustls::server::ParsedCertificate::try_from(end_entity)?;
            let algorithms = self.algorithms.all;
            verify_server_cert_signed_by_trust_anchor(
                &cert,
                roots,
                intermediates,
                now,
                algorithms,
            )?;
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
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
        let system = TlsDefaults { sslmode: None, sslrootcert: Some("system".into()) };
        assert_eq!(split_with("postgres://u@h/db", &system).unwrap().1.mode, Mode::VerifyFull);
        let bad = TlsDefaults { sslmode: Some("always".into()), sslrootcert: None };
        let err = split_with("postgres://u@h/db", &bad).unwrap_err().to_string();
        assert!(err.contains("PGSSLMODE") && err.contains("sslmode=always"), "{err}");
        assert_eq!(
            split_with("postgres://u@h/db?sslmode=disable", &bad).unwrap().1.mode,
            Mode::Disable
        );
        // A refused combination names what came from the environment.
        let ca_only = TlsDefaults { sslmode: Some("verify-ca".into()), sslrootcert: None };
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
}
