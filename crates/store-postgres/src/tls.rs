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
//! plain text.
//!
//! A client certificate (`sslcert` + `sslkey`, PEM) is presented when the server asks for one,
//! for `cert` authentication or `clientcert=verify-full` in `pg_hba.conf`. As in libpq the key
//! file must not be readable by group or others (0600; 0640 if owned by root). Unlike libpq, a
//! certificate file that is named but missing is an error, not silently skipped.
//!
//! tokio-postgres itself knows only `disable`, `prefer` and `require` and rejects the other
//! parameters, so they are taken out of the connection string (`tls/params.rs`) and applied to
//! rustls. As in libpq, `PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT` and `PGSSLKEY` give what the
//! connection string leaves out, and `~/.postgresql/root.crt`, `postgresql.crt` and
//! `postgresql.key` are used when nothing names a file and they exist.

mod params;

use std::path::{Path, PathBuf};

use std::sync::Arc;

use rearview_store::StoreError;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{WebPkiServerVerifier, verify_server_cert_signed_by_trust_anchor};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
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

pub(crate) use params::{TlsDefaults, split_with};

/// The TLS part of a connection string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tls {
    pub(crate) mode: Mode,
    pub(crate) roots: Roots,
    /// The client certificate to present, if any.
    pub(crate) identity: Option<Identity>,
}

/// A client certificate and its private key, both PEM files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    /// `sslcert`: the certificate, then any intermediates.
    pub(crate) cert: PathBuf,
    /// `sslkey`; `None` when neither it nor a default directory was given.
    pub(crate) key: Option<PathBuf>,
}

impl Identity {
    /// The certificate chain and key, read and checked.
    fn load(&self) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), StoreError> {
        let cert = self.cert.display();
        let chain = CertificateDer::pem_file_iter(&self.cert)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| {
                unavailable(format!("sslcert={cert}: cannot read PEM certificates: {e}"))
            })?;
        if chain.is_empty() {
            return Err(unavailable(format!(
                "sslcert={cert}: no certificate in the file (PEM \"BEGIN CERTIFICATE\" blocks expected)"
            )));
        }
        let Some(key_path) = &self.key else {
            return Err(unavailable(format!(
                "sslcert={cert} needs sslkey=FILE (or PGSSLKEY): the certificate's private key"
            )));
        };
        private_to_owner(key_path)?;
        let key = PrivateKeyDer::from_pem_file(key_path).map_err(|e| {
            unavailable(format!(
                "sslkey={}: cannot read a private key: {e} (PEM PKCS#8, PKCS#1 or SEC1; an encrypted key must be decrypted first, e.g. `openssl pkey -in KEY -out PLAIN-KEY`)",
                key_path.display()
            ))
        })?;
        Ok((chain, key))
    }
}

/// libpq's rule for a private key file: no access for others, nor for the group unless root owns
/// it (0600 or less; 0640 or less when owned by root).
#[cfg(unix)]
fn private_to_owner(path: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::MetadataExt;
    let shown = path.display();
    let meta = std::fs::metadata(path)
        .map_err(|e| unavailable(format!("sslkey={shown}: cannot read the private key: {e}")))?;
    let mode = meta.mode() & 0o777;
    let (allowed, wanted) = if meta.uid() == 0 { (0o640, "0640") } else { (0o600, "0600") };
    if mode & !allowed != 0 {
        return Err(unavailable(format!(
            "sslkey={shown}: the private key file has mode {mode:04o}, readable by others; it must be {wanted} or less, as libpq requires (chmod 600 {shown})"
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
fn private_to_owner(_path: &Path) -> Result<(), StoreError> {
    Ok(())
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
        let builder = builder.dangerous().with_custom_certificate_verifier(verifier);
        let config = match &self.identity {
            None => builder.with_no_client_auth(),
            Some(identity) => {
                let (chain, key) = identity.load()?;
                builder.with_client_auth_cert(chain, key).map_err(|e| {
                    unavailable(format!(
                        "sslcert={} with sslkey: the certificate and key do not go together: {e}",
                        identity.cert.display()
                    ))
                })?
            }
        };
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
