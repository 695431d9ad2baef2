//! What the HTTP tests share: a service over a private in-memory store, and one request through
//! the router.

#![allow(dead_code)] // each test binary uses its own part

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use rearview_core::SystemClock;
use rearview_service::{MemoryService, ServiceConfig};
use rearview_store_sqlite::SqliteStore;
use serde_json::Value;
use tower::ServiceExt;

/// A keyword-only service over a fresh in-memory SQLite store.
pub async fn service(config: ServiceConfig) -> Arc<MemoryService> {
    let store = Arc::new(SqliteStore::in_memory().unwrap());
    Arc::new(MemoryService::open(store, None, Arc::new(SystemClock), config).await.unwrap())
}

/// One request through `app`, with a bearer `key` and extra `headers`: the status, the body as
/// JSON (`Null` when it is not JSON) and as text.
pub async fn send(
    app: &axum::Router,
    key: Option<&str>,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (StatusCode, Value, String) {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(key) = key {
        request = request.header("Authorization", format!("Bearer {key}"));
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = match body {
        Some(b) => {
            request.header("Content-Type", "application/json").body(Body::from(b.to_string()))
        }
        None => request.body(Body::empty()),
    }
    .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null), text)
}
