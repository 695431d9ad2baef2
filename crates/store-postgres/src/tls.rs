//! TLS to PostgreSQL, with libpq's `sslmode` meanings, over rustls (the TLS stack rearview's
//! HTTP clients already use: no system OpenSSL).
//!
//! | `sslmode` | encrypted | certificate checked |
//! |---|---|---|
//! | `disable` | never | – |
//! | `prefer` (the default, as in libpq) | when the server offers TLS | no |
//! | `require` | always | no, unless `sslrootcert` is given (then as `verify-ca`) |
//! | `verify-ca` | always | chain to a trusted root; any host name |
//! | `verify-full` | always | chain to a trusted root, for the host connected to |
//!
//! Trusted roots: the PEM file `sslrootcert` names, or Mozilla's roots (compiled in, from
//! `webpki-roots`) when it is absent or `system`. tokio-postgres itself knows only `disable`,
//! `prefer` and `require` and rejects `sslrootcert`, so both are taken out of the connection
//! string here and applied to rustls.

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

/// The TLS part of a connection string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tls {
    pub(crate) mode: Mode,
    /// `sslrootcert`: a PEM file of trusted roots (`None`: Mozilla's).
    pub(crate) root_cert: Option<PathBuf>,
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
        let verify = match self.mode {
            Mode::Disable | Mode::Prefer => false,
            Mode::Require => self.root_cert.is_some(),
            Mode::VerifyCa | Mode::VerifyFull => true,
        };
        let config = if verify {
            let roots = Arc::new(self.roots()?);
            let webpki =
                WebPkiServerVerifier::builder_with_provider(roots.clone(), provider.clone())
                    .build()
                    .map_err(|e| unavailable(format!("setting up certificate checks: {e}")))?;
            let verifier: Arc<dyn ServerCertVerifier> = if self.mode == Mode::VerifyFull {
                webpki
            } else {
                Arc::new(ChainOnly {
                    roots,
                    algorithms: provider.signature_verification_algorithms,
                })
            };
            builder.dangerous().with_custom_certificate_verifier(verifier).with_no_client_auth()
        } else {
            let verifier = Arc::new(Unchecked(provider.signature_verification_algorithms));
            builder.dangerous().with_custom_certificate_verifier(verifier).with_no_client_auth()
        };
        Ok(MakeRustlsConnect::new(config))
    }

    fn roots(&self) -> Result<RootCertStore, StoreError> {
        let Some(path) = &self.root_cert else {
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
}

/// Splits the TLS parameters (`sslmode`, `sslrootcert`) off a `postgres://` URL or a libpq
/// `key=value` string: the rest for tokio-postgres, and what they ask for.
pub(crate) fn split(connection: &str) -> Result<(String, Tls), StoreError> {
    let mut tls = Tls { mode: Mode::Prefer, root_cert: None };
    let mut take = |key: &str, value: &str| -> Result<bool, StoreError> {
        if key.eq_ignore_ascii_case("sslmode") {
            tls.mode = match value.to_ascii_lowercase().as_str() {
                "disable" => Mode::Disable,
                // libpq's `allow` tries plain first; rearview tries TLS first, like `prefer`.
                "allow" | "prefer" => Mode::Prefer,
                "require" => Mode::Require,
                "verify-ca" => Mode::VerifyCa,
                "verify-full" => Mode::VerifyFull,
                other => {
                    return Err(unavailable(format!(
                        "sslmode={other} is not a TLS mode; use disable, prefer, require, verify-ca or verify-full"
                    )));
                }
            };
            Ok(true)
        } else if key.eq_ignore_ascii_case("sslrootcert") {
            tls.root_cert = (value != "system").then(|| PathBuf::from(percent_decoded(value)));
            Ok(true)
        } else {
            Ok(false)
        }
    };
    let rest = if let Some((base, query)) = connection.split_once('?') {
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if !take(key, value)? {
                kept.push(pair);
            }
        }
        if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) }
    } else if connection.contains("://") {
        connection.to_owned()
    } else {
        let mut kept = Vec::new();
        for word in connection.split_whitespace() {
            let (key, value) = word.split_once('=').unwrap_or((word, ""));
            if !take(key.trim(), value.trim_matches('\''))? {
                kept.push(word);
            }
        }
        kept.join(" ")
    };
    Ok((rest, tls))
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

/// `verify-ca`: the chain must lead to a trusted root; the name in the certificate is not
/// compared with the host (libpq's meaning).
#[derive(Debug)]
struct ChainOnly {
    roots: Arc<RootCertStore>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let cert = rustls::server::ParsedCertificate::try_from(end_entity)?;
        verify_server_cert_signed_by_trust_anchor(
            &cert,
            &self.roots,
            intermediates,
            now,
            self.algorithms.all,
        )?;
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

/// `prefer` and `require` without `sslrootcert`: encrypted, but any certificate is accepted
/// (libpq's meaning; it protects against eavesdropping, not against an impostor). The
/// handshake's own signatures are still checked.
#[derive(Debug)]
struct Unchecked(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
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
        assert_eq!(tls.root_cert, Some(PathBuf::from("/tmp/ca.pem")));
        let (rest, tls) = split("postgresql://u@h/db?sslmode=require").unwrap();
        assert_eq!(
            (rest.as_str(), tls.mode, tls.root_cert),
            ("postgresql://u@h/db", Mode::Require, None)
        );
    }

    #[test]
    fn tls_parameters_are_taken_out_of_a_key_value_string() {
        let (rest, tls) = split("host=h user=u sslmode=verify-ca sslrootcert=/ca.pem").unwrap();
        assert_eq!(rest, "host=h user=u");
        assert_eq!(tls.mode, Mode::VerifyCa);
        assert_eq!(tls.root_cert, Some(PathBuf::from("/ca.pem")));
    }

    #[test]
    fn the_default_is_prefer_and_system_roots_are_mozillas() {
        let (rest, tls) = split("postgres://u@h/db").unwrap();
        assert_eq!((rest.as_str(), tls.mode), ("postgres://u@h/db", Mode::Prefer));
        let (_, tls) = split("postgres://u@h/db?sslrootcert=system&sslmode=verify-full").unwrap();
        assert_eq!(tls.root_cert, None);
        assert!(tls.roots().unwrap().len() > 50);
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
