#![allow(
    missing_docs,
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "a benchmark program: progress on stderr, one JSON result on stdout"
)]
//! Is the server still responsive while recalls run at full size? (issue 16, item 5: `/healthz`
//! p99 ≤ 10 ms while 4 recalls run concurrently at 1M.)
//!
//! Serves the real HTTP application (`router_with`, `serve`, default `HttpConfig`, the tokio
//! runtime `rearview serve` runs on) over a database the scale bench filled, then:
//! 1. **idle**: `/healthz` asked `REARVIEW_LOAD_PROBES` times (default 500), one every 10 ms;
//! 2. **loaded**: `REARVIEW_LOAD_CLIENTS` clients (default 4) each send REST recalls
//!    (`POST /v1/recall`, real questions, the default ranking) back to back on their own
//!    keep-alive connection, while `/healthz` is asked as in step 1 on another connection.
//!
//! Reports `/healthz` p50/p99/max in both phases, and the recalls' rate and p50/p99 under load.
//!
//! Run: `REARVIEW_LOAD_DB=/path/scale.db cargo bench -p rearview-http --bench healthz`, on a
//! database filled by `cargo bench -p rearview-service --bench scale` (namespace `bench`, the
//! 384-dimensional test embedder; kept with `REARVIEW_SCALE_KEEP=1`). Its saved graph and keyword
//! index (`<db>.graphs/`) are loaded as `rearview serve` loads them.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rearview_embed::{Embedder, TestEmbedder};
use rearview_http::{HttpConfig, router_with, serve};
use rearview_service::{MemoryService, ServiceConfig, graph_dir_for};
use rearview_store_sqlite::{SqliteConfig, SqliteStore};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

#[path = "../../service/benches/corpus.rs"]
mod corpus;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// One keep-alive HTTP/1.1 connection to the server.
struct Connection {
    stream: BufReader<TcpStream>,
}

impl Connection {
    async fn open(port: u16) -> Self {
        let stream = TcpStream::connect(("127.0.0.1", port)).await.expect("the server listens");
        stream.set_nodelay(true).expect("TCP_NODELAY");
        Self { stream: BufReader::new(stream) }
    }

    /// Sends a request and reads the whole response; returns its status and body.
    async fn request(&mut self, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        let body = body.unwrap_or("");
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        );
        let stream = self.stream.get_mut();
        stream.write_all(head.as_bytes()).await.expect("request sent");
        stream.write_all(body.as_bytes()).await.expect("request body sent");
        let mut line = String::new();
        self.stream.read_line(&mut line).await.expect("status line");
        let status: u16 = line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let mut length = 0usize;
        loop {
            line.clear();
            self.stream.read_line(&mut line).await.expect("a header");
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().expect("a numeric Content-Length");
            }
        }
        let mut body = vec![0u8; length];
        self.stream.read_exact(&mut body).await.expect("the response body");
        (status, String::from_utf8_lossy(&body).into_owned())
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at].as_secs_f64() * 1000.0
}

/// `/healthz` `probes` times, one every 10 ms; the latencies, sorted.
async fn probe_health(port: u16, probes: usize) -> Vec<Duration> {
    let mut connection = Connection::open(port).await;
    let mut latencies = Vec::with_capacity(probes);
    let mut tick = tokio::time::interval(Duration::from_millis(10));
    for _ in 0..probes {
        tick.tick().await;
        let started = Instant::now();
        let (status, _) = connection.request("GET", "/healthz", None).await;
        latencies.push(started.elapsed());
        assert_eq!(status, 200, "/healthz answered {status}");
    }
    latencies.sort();
    latencies
}

fn main() {
    let Some(db) = std::env::var_os("REARVIEW_LOAD_DB").map(PathBuf::from) else {
        eprintln!("healthz: set REARVIEW_LOAD_DB to a database the scale bench filled; skipped");
        return;
    };
    // The runtime `rearview serve` runs on: one worker per core.
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(run(db));
}

async fn run(db: PathBuf) {
    let probes = env_usize("REARVIEW_LOAD_PROBES", 500);
    let clients = env_usize("REARVIEW_LOAD_CLIENTS", 4);
    let corpus = corpus::load();
    let started = Instant::now();
    let store = Arc::new(SqliteStore::open(&SqliteConfig::new(&db)).expect("the database opens"));
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(384));
    let config = ServiceConfig { graph_dir: Some(graph_dir_for(&db)), ..ServiceConfig::default() };
    let service =
        MemoryService::open(store, Some(embedder), Arc::new(rearview_core::SystemClock), config)
            .await
            .expect("the service opens");
    eprintln!("healthz: {} opened in {:.1} s", db.display(), started.elapsed().as_secs_f64());
    let service = Arc::new(service);
    let http = HttpConfig { rate_limit: None, ..HttpConfig::default() };
    let app = router_with(Arc::clone(&service), "bench".parse().unwrap(), &http);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        serve(listener, app, &http, async {
            let _ = stopped.await;
        })
        .await
    });

    let idle = probe_health(port, probes).await;
    eprintln!(
        "healthz idle: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&idle, 0.5),
        percentile(&idle, 0.99),
        percentile(&idle, 1.0)
    );

    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let queries = Arc::new(corpus.queries);
    let mut workers = Vec::new();
    for client in 0..clients {
        let (done, queries) = (Arc::clone(&done), Arc::clone(&queries));
        workers.push(tokio::spawn(async move {
            let mut connection = Connection::open(port).await;
            let mut latencies = Vec::new();
            let mut q = client * 7919;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let query = &queries[q % queries.len()];
                q += clients;
                let body = serde_json::json!({ "query": query }).to_string();
                let started = Instant::now();
                let (status, answer) = connection.request("POST", "/v1/recall", Some(&body)).await;
                latencies.push(started.elapsed());
                assert_eq!(status, 200, "recall answered {status}: {answer}");
            }
            latencies
        }));
    }
    let loaded_started = Instant::now();
    let loaded = probe_health(port, probes).await;
    let loaded_secs = loaded_started.elapsed().as_secs_f64();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut recalls: Vec<Duration> = Vec::new();
    for worker in workers {
        recalls.extend(worker.await.expect("a recall client"));
    }
    recalls.sort();
    eprintln!(
        "healthz with {clients} clients recalling: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; \
         recalls {:.1}/s, p50 {:.1} ms, p99 {:.1} ms",
        percentile(&loaded, 0.5),
        percentile(&loaded, 0.99),
        percentile(&loaded, 1.0),
        recalls.len() as f64 / loaded_secs,
        percentile(&recalls, 0.5),
        percentile(&recalls, 0.99)
    );
    let _ = stop.send(());
    let _ = server.await;
    service.flush_access_counts().await;
    println!(
        "{}",
        serde_json::json!({
            "database": db.display().to_string(),
            "clients": clients,
            "healthz_idle_p50_ms": percentile(&idle, 0.5),
            "healthz_idle_p99_ms": percentile(&idle, 0.99),
            "healthz_loaded_p50_ms": percentile(&loaded, 0.5),
            "healthz_loaded_p99_ms": percentile(&loaded, 0.99),
            "healthz_loaded_max_ms": percentile(&loaded, 1.0),
            "recalls_per_sec": recalls.len() as f64 / loaded_secs,
            "recall_p50_ms": percentile(&recalls, 0.5),
            "recall_p99_ms": percentile(&recalls, 0.99),
            "text": corpus.source,
        })
    );
}
