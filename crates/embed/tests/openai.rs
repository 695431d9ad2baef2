//! The OpenAI-compatible provider against a scripted local HTTP server: batching, prefixes,
//! authentication, retries on 429/5xx, immediate failure on other 4xx, and every kind of bad
//! answer turned into an error rather than a bad vector.

use std::net::TcpListener;
use std::time::Duration;

use rearview_embed::testing::{Reply, serve};
use rearview_embed::{EmbedError, Embedder, OpenAiConfig, OpenAiEmbedder, TextKind};

fn ok() -> Reply {
    Reply::ok()
}

fn status(code: u16, body: &str) -> Reply {
    Reply::status(code, body)
}

fn config(url: &str) -> OpenAiConfig {
    let mut c = OpenAiConfig::new(url, "test-model");
    c.initial_backoff = Duration::from_millis(5);
    c.timeout = Duration::from_secs(5);
    c
}

fn texts(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test]
async fn batches_prefixes_orders_and_authenticates() {
    let (url, seen) = serve(vec![ok()]);
    let mut c = config(&url);
    c.batch_size = 2;
    c.api_key = Some("sk-secret".into());
    c.query_prefix = "query: ".into();
    c.passage_prefix = "passage: ".into();
    let e = OpenAiEmbedder::connect(c).await.unwrap();
    assert_eq!((e.model_id(), e.dimensions()), ("test-model", 3));
    let v =
        e.embed(&texts(&["a", "bb", "爬山啊", "dddd", "eeeee"]), TextKind::Passage).await.unwrap();
    assert_eq!(v.len(), 5);
    // Vectors come back in input order although the server lists them reversed.
    let second = v[1].as_slice()[1] / v[1].as_slice()[0];
    assert!((second - "passage: bb".chars().count() as f32).abs() < 1e-4);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1 + 3, "probe, then batches of 2, 2, 1");
    assert_eq!(seen[0].body["input"][0], "query: probe");
    assert_eq!(seen[1].body["input"], serde_json::json!(["passage: a", "passage: bb"]));
    assert_eq!(seen[1].body["model"], "test-model");
    assert!(seen.iter().all(|s| s.auth.as_deref() == Some("Bearer sk-secret")));
    assert!(!format!("{e:?}").contains("sk-secret"), "the key never reaches Debug output");
}

#[tokio::test]
async fn retries_rate_limits_and_server_errors_then_succeeds() {
    let busy = Reply { status: 429, headers: vec![("Retry-After", "0")], body: Some("{}".into()) };
    let (url, seen) = serve(vec![ok(), busy, status(503, "overloaded"), ok()]);
    let e = OpenAiEmbedder::connect(config(&url)).await.unwrap();
    assert_eq!(e.dimensions(), 3);
    assert_eq!(e.embed(&texts(&["x"]), TextKind::Passage).await.unwrap().len(), 1);
    assert_eq!(seen.lock().unwrap().len(), 4, "probe, 429, 503, success");
}

#[tokio::test]
async fn gives_up_after_max_retries_with_the_reason() {
    let (url, seen) = serve(vec![ok(), status(500, "boom")]);
    let mut c = config(&url);
    c.max_retries = 2;
    let e = OpenAiEmbedder::connect(c).await.unwrap();
    let err = e.embed(&texts(&["x"]), TextKind::Passage).await.unwrap_err();
    assert!(matches!(err, EmbedError::Unavailable { .. }));
    let message = err.to_string();
    assert!(message.contains("HTTP 500: boom") && message.contains("3 attempts"), "{err}");
    assert_eq!(seen.lock().unwrap().len(), 4, "probe, then three attempts");
}

#[tokio::test]
async fn the_connection_probe_retries_once_only() {
    let (url, seen) = serve(vec![status(500, "down")]);
    let err = OpenAiEmbedder::connect(config(&url)).await.unwrap_err();
    assert!(err.to_string().contains("2 attempts"), "{err}");
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn client_errors_fail_at_once_naming_the_fix() {
    let (url, seen) = serve(vec![status(401, r#"{"error":"bad key"}"#)]);
    let err = OpenAiEmbedder::connect(config(&url)).await.unwrap_err();
    assert!(err.to_string().contains("API key"), "{err}");
    assert_eq!(seen.lock().unwrap().len(), 1, "no retry on 401");
    let (url, _) = serve(vec![status(404, "model not found")]);
    let err = OpenAiEmbedder::connect(config(&url)).await.unwrap_err();
    assert!(err.to_string().contains("HTTP 404: model not found"), "{err}");
}

#[tokio::test]
async fn bad_answers_are_errors_not_vectors() {
    let cases = [
        ("not json", "not an OpenAI embeddings response"),
        (r#"{"data":[]}"#, "expected 1 embeddings"),
        (r#"{"data":[{"index":0,"embedding":[0.0,0.0,0.0]}]}"#, "bad output"),
    ];
    for (body, expected) in cases {
        let (url, _) = serve(vec![status(200, body)]);
        let err = OpenAiEmbedder::connect(config(&url)).await.unwrap_err();
        assert!(err.to_string().contains(expected), "{body}: {err}");
    }
    // A later answer with another length is a dimension mismatch.
    let (url, _) =
        serve(vec![ok(), status(200, r#"{"data":[{"index":0,"embedding":[1.0,2.0]}]}"#)]);
    let e = OpenAiEmbedder::connect(config(&url)).await.unwrap();
    let err = e.embed(&texts(&["x"]), TextKind::Query).await.unwrap_err();
    assert!(matches!(err, EmbedError::DimensionMismatch { expected: 3, got: 2 }), "{err}");
}

#[tokio::test]
async fn unreachable_endpoint_says_where() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut c = config(&format!("http://127.0.0.1:{port}/v1"));
    c.max_retries = 1;
    let err = OpenAiEmbedder::connect(c).await.unwrap_err();
    assert!(err.to_string().contains(&format!("127.0.0.1:{port}")), "{err}");
}
