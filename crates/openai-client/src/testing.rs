//! A scripted OpenAI-compatible server on a loopback port, for tests of every crate that talks
//! to one (feature `testing`).
//!
//! It answers requests in order from a script of [`Reply`]s, repeating the last one, and records
//! what it received.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// Extra response headers.
    pub headers: Vec<(&'static str, &'static str)>,
    /// Body; `None` answers with the server's default body for the request.
    pub body: Option<String>,
}

impl Reply {
    /// 200 with the server's default body for the request.
    pub fn ok() -> Self {
        Self { status: 200, headers: vec![], body: None }
    }

    /// `code` with a fixed body.
    pub fn status(code: u16, body: &str) -> Self {
        Self { status: code, headers: vec![], body: Some(body.to_owned()) }
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The `Authorization` header, if any.
    pub auth: Option<String>,
    /// The JSON body.
    pub body: serde_json::Value,
}

/// Starts a server answering from `script`; a [`Reply`] without a body is answered by
/// `default_body(request)`. Returns its base URL (`http://127.0.0.1:PORT/v1`) and the log of
/// requests. It serves at most 10,000 requests, then stops.
pub fn serve_with(
    script: Vec<Reply>,
    default_body: fn(&serde_json::Value) -> String,
) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}/v1", listener.local_addr().expect("local address"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for (i, stream) in listener.incoming().enumerate().take(10_000) {
            let Ok(stream) = stream else { continue };
            let reply = script[i.min(script.len().saturating_sub(1))].clone();
            answer(stream, reply, default_body, &log);
        }
    });
    (url, seen)
}

/// Reads one request, logs it, then answers it. Logged before the answer is written: a client
/// that has its answer must find its request in the log (a test asserting the count right after
/// a call once raced the other order).
fn answer(
    mut stream: std::net::TcpStream,
    reply: Reply,
    default_body: fn(&serde_json::Value) -> String,
    log: &Mutex<Vec<Seen>>,
) -> Option<()> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let (mut length, mut auth) = (0usize, None);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 || line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("authorization:") {
            auth = Some(line["authorization:".len()..].trim().to_owned());
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let text = reply.body.unwrap_or_else(|| default_body(&body));
    log.lock().unwrap_or_else(|p| p.into_inner()).push(Seen { auth, body });
    let mut head = format!(
        "HTTP/1.1 {} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        text.len()
    );
    for (k, v) in &reply.headers {
        head += &format!("{k}: {v}\r\n");
    }
    stream.write_all(format!("{head}\r\n{text}").as_bytes()).ok()
}
