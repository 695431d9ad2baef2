//! `rearview serve` as a process, as deployments start it: a server on all interfaces without a
//! key refuses to start; the compose setup (all interfaces, `REARVIEW_API_KEY`,
//! `REARVIEW_ALLOWED_HOSTS=rearview,localhost`) answers an agent that sends `Host: rearview:8765`
//! and its key; SIGTERM stops a server while an MCP client holds an SSE stream open.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const ADMIN_KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// The binary in a private home, with its own database file.
fn rearview(home: &Path) -> Command {
    let mut cmd = common::rearview(home);
    cmd.env("REARVIEW_DB", home.join("serve.db"));
    cmd
}

/// Starts the server; returns it and the port it listens on.
fn start(cmd: Command) -> (Child, u16) {
    let (child, address) = common::start(cmd);
    let port = address.rsplit_once(':').and_then(|(_, p)| p.parse().ok()).expect("a port");
    (child, port)
}

/// One request on a fresh loopback connection with these headers; status, headers and body.
fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    ));
    stream.write_all(head.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (status, head.to_owned(), body.to_owned())
}

fn wait_for_exit(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            child.kill().ok();
            panic!("the server did not stop within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_server_on_all_interfaces_refuses_to_start_without_a_key() {
    let home = tempfile::tempdir().unwrap();
    let out = rearview(home.path()).args(["serve", "--listen", "0.0.0.0:0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rearview keys create") && err.contains("--insecure-no-auth"), "{err}");
}

#[test]
fn the_compose_setup_answers_an_agent_that_sends_its_host_and_key() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = rearview(home.path());
    let log = home.path().join("audit.jsonl");
    cmd.env("REARVIEW_API_KEY", ADMIN_KEY)
        .env("REARVIEW_ALLOWED_HOSTS", "rearview,localhost")
        .env("REARVIEW_LISTEN", "0.0.0.0:0")
        .args(["--log-format", "json", "--log-file"])
        .arg(&log)
        .arg("serve");
    let (mut child, port) = start(cmd);
    let bearer = format!("Bearer {ADMIN_KEY}");
    let agent = [("Host", "rearview:8765"), ("Authorization", bearer.as_str())];
    let (status, _, body) = request(port, "GET", "/v1/stats", &agent, "");
    assert_eq!(status, 200, "{body}");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"agent","version":"1"}}}"#;
    let (status, head, body) = request(port, "POST", "/mcp", &agent, init);
    assert_eq!(status, 200, "{head}\n{body}");
    assert!(body.contains("rearview"), "{body}");
    let (status, _, _) = request(port, "GET", "/v1/stats", &[("Host", "rearview:8765")], "");
    assert_eq!(status, 401, "no key");
    let evil = [("Host", "attacker.example"), ("Authorization", bearer.as_str())];
    let (status, _, _) = request(port, "GET", "/v1/stats", &evil, "");
    assert_eq!(status, 403, "a host outside the list");
    let call =
        r#"{"name":"store_memory","arguments":{"content":"审计日志 audit me","namespace":"ops"}}"#;
    let (status, _, body) = request(port, "POST", "/mcp/tools/call", &agent, call);
    assert_eq!(status, 200, "{body}");
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(wait_for_exit(&mut child, Duration::from_secs(20)).success());
    // The audit log: one JSON event per call, with the key's id and never its secret.
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains(ADMIN_KEY), "the secret reached the log");
    let events: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|e: &serde_json::Value| e["target"] == "rearview::audit")
        .collect();
    let store = events.iter().find(|e| e["tool"] == "store_memory").expect("the tool call");
    assert_eq!(store["transport"], "http-tools");
    assert_eq!(store["namespace"], "ops");
    assert_eq!(store["outcome"], "ok");
    assert!(store["key_id"].as_str().unwrap().starts_with("rvk_"), "{store}");
    assert!(store["input"].as_str().unwrap().contains("审计日志"), "{store}");
    assert!(events.iter().any(|e| e["tool"] == "GET /v1/stats" && e["transport"] == "rest"));
}

#[test]
fn sigterm_stops_the_server_while_an_mcp_client_holds_an_sse_stream() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = rearview(home.path());
    cmd.args(["serve", "--listen", "127.0.0.1:0"]);
    let (mut child, port) = start(cmd);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"agent","version":"1"}}}"#;
    let (status, head, _) = request(port, "POST", "/mcp", &[("Host", "localhost")], init);
    assert_eq!(status, 200);
    let session = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id").then(|| value.trim().to_owned())
        })
        .expect("a session id");
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let headers = [("Host", "localhost"), ("Mcp-Session-Id", session.as_str())];
    request(port, "POST", "/mcp", &headers, initialized);
    // The standalone SSE stream: held open by the client, never ended by the server on its own.
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-06-18\r\n\r\n"
    )
    .unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut first = [0u8; 12];
    stream.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 200", "the SSE stream is open");
    let started = Instant::now();
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let status = wait_for_exit(&mut child, Duration::from_secs(15));
    assert!(status.success(), "{status}");
    assert!(started.elapsed() < Duration::from_secs(12), "took {:?}", started.elapsed());
    drop(stream);
}
