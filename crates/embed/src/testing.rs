//! A scripted OpenAI-compatible embeddings server on a loopback port, for tests of this crate
//! and of everything that embeds through HTTP (feature `testing`).
//!
//! It answers requests in order from a script of [`Reply`]s, repeating the last one, and records
//! what it received. By default ([`Reply::ok`]) it answers each input with the 3-d vector
//! `[1, chars(input), 0.5]`, listed in reverse order with indexes, so tests can check ordering.

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
    /// Body; `None` answers with vectors for the request's inputs.
    pub body: Option<String>,
}

impl Reply {
    /// 200 with a vector per input.
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

/// Starts a server answering from `script`; returns its base URL (`http://127.0.0.1:PORT/v1`)
/// and the log of requests. It serves at most 10,000 requests, then stops.
pub fn serve(script: Vec<Reply>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}/v1", listener.local_addr().expect("local address"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for (i, stream) in listener.incoming().enumerate().take(10_000) {
            let Ok(stream) = stream else { continue };
            let reply = script[i.min(script.len().saturating_sub(1))].clone();
            if let Some(seen) = answer(stream, reply) {
                log.lock().unwrap_or_else(|p| p.into_inner()).push(seen);
            }
        }
    });
    (url, seen)
}

fn answer(mut stream: std::net::TcpStream, reply: Reply) -> Option<Seen> {
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
    let text = reply.body.unwrap_or_else(|| vectors_for(&body));
    let mut head = format!(
        "HTTP/1.1 {} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        text.len()
    );
    for (k, v) in &reply.headers {
        head += &format!("{k}: {v}\r\n");
    }
    stream.write_all(format!("{head}\r\n{text}").as_bytes()).ok()?;
    Some(Seen { auth, body })
}

/// `[1, chars(input), 0.5]` per input, listed in reverse order with indexes.
fn vectors_for(body: &serde_json::Value) -> String {
    let inputs = body["input"].as_array().cloned().unwrap_or_default();
    let mut data: Vec<serde_json::Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let n = t.as_str().unwrap_or("").chars().count() as f32;
            serde_json::json!({ "index": i, "embedding": [1.0, n, 0.5] })
        })
        .collect();
    data.reverse();
    serde_json::json!({ "object": "list", "data": data }).to_string()
}
