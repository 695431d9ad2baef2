//! The last holes in the boundary (issue 43), through the router: MCP sessions capped per key
//! and bound to the key that opened them; the admin key seeded from `REARVIEW_API_KEY` retired
//! when the variable changes; failed authentications limited per client address; `/v1/cleanup`
//! honouring a body `namespace`; a non-ASCII namespace in the header; a request refused before
//! its body is read. (A slow-body attack and a connection flood need real sockets:
//! `tests/reliability/boundary.py`.)

mod common;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use rearview_service::{MemoryService, NewKey, RememberRequest, ServiceConfig};
use serde_json::{Value, json};
use tower::ServiceExt;

use common::send;

async fn key(service: &MemoryService, namespace: Option<&str>) -> String {
    let new = NewKey {
        namespaces: namespace.into_iter().map(|n| n.parse().unwrap()).collect(),
        admin: namespace.is_none(),
        ..NewKey::default()
    };
    service.create_key(new).await.unwrap().secret
}

/// An MCP `initialize` with `key`: the status and the session id, if one was opened.
async fn initialize(app: &axum::Router, key: &str) -> (StatusCode, Option<String>) {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "boundary-test", "version": "1"}}});
    let request = Request::post("/mcp")
        .header("Host", "localhost:8765")
        .header("Authorization", format!("Bearer {key}"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(Body::from(init.to_string()))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let session = response.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
    let _ = response.into_body().collect().await;
    (status, session)
}

/// A request to an open session with `key`.
async fn to_session(app: &axum::Router, key: &str, method: &str, session: &str) -> StatusCode {
    let request = Request::builder()
        .method(method)
        .uri("/mcp")
        .header("Host", "localhost:8765")
        .header("Authorization", format!("Bearer {key}"))
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", "2025-06-18")
        .header("Accept", "application/json, text/event-stream")
        .body(Body::empty())
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    // A GET opens a stream that never ends: do not wait for its body.
    if method != "GET" {
        let _ = response.into_body().collect().await;
    }
    status
}

#[tokio::test]
async fn one_key_cannot_take_every_mcp_session_nor_touch_another_keys() {
    let service = common::service(ServiceConfig::default()).await;
    let (alice, bob) = (key(&service, Some("alice")).await, key(&service, Some("bob")).await);
    let config = rearview_http::HttpConfig {
        max_mcp_sessions: 8,
        max_mcp_sessions_per_key: 3,
        ..rearview_http::HttpConfig::default()
    };
    let app = rearview_http::router_with(Arc::clone(&service), "default".parse().unwrap(), &config)
        .router;
    let mut sessions = Vec::new();
    for _ in 0..3 {
        let (status, session) = initialize(&app, &alice).await;
        assert_eq!(status, StatusCode::OK);
        sessions.push(session.expect("a session id"));
    }
    let (status, session) = initialize(&app, &alice).await;
    assert_eq!((status, session), (StatusCode::SERVICE_UNAVAILABLE, None), "alice's fourth");
    let (status, bobs) = initialize(&app, &bob).await;
    assert_eq!(status, StatusCode::OK, "bob still gets a session");

    // Bob's key can neither listen on nor close alice's session; alice's can.
    let alice_session = &sessions[0];
    assert_eq!(to_session(&app, &bob, "GET", alice_session).await, StatusCode::NOT_FOUND);
    assert_eq!(to_session(&app, &bob, "DELETE", alice_session).await, StatusCode::NOT_FOUND);
    assert_eq!(
        to_session(&app, &alice, "GET", bobs.as_ref().unwrap()).await,
        StatusCode::NOT_FOUND
    );
    // 200, as MCP clients expect (rmcp's own answer, 202, made the Python SDK log a failure).
    let closed = to_session(&app, &alice, "DELETE", alice_session).await;
    assert_eq!(closed, StatusCode::OK, "alice closes her own session");
    // A closed session frees its place under the key's cap.
    let (status, _) = initialize(&app, &alice).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_new_seeded_admin_key_retires_the_one_seeded_before() {
    let service = common::service(ServiceConfig::default()).await;
    let old = "old-seed-0123456789abcdef0123456789";
    let new = "new-seed-0123456789abcdef0123456789";
    let kept = key(&service, Some("alice")).await;
    service.seed_admin_key(old).await.unwrap();
    assert!(service.authenticate(old).await.is_ok());
    // The next start with another value: the old value stops working, other keys do not.
    service.seed_admin_key(new).await.unwrap();
    assert!(service.authenticate(new).await.is_ok());
    assert_eq!(service.authenticate(old).await.unwrap_err().to_string(), "the API key was revoked");
    assert!(service.authenticate(&kept).await.is_ok(), "keys made with keys create stay");
    // The same value again changes nothing.
    service.seed_admin_key(new).await.unwrap();
    assert!(service.authenticate(new).await.is_ok());
}

#[tokio::test]
async fn failed_authentications_are_limited_per_client_address() {
    let service = common::service(ServiceConfig::default()).await;
    let good = key(&service, Some("alice")).await;
    let app = rearview_http::router(Arc::clone(&service), "default".parse().unwrap());
    let from = |peer: [u8; 4], key: &str| {
        let mut request = Request::get("/v1/stats")
            .header("Authorization", format!("Bearer {key}"))
            .body(Body::empty())
            .unwrap();
        let address = std::net::SocketAddr::from((peer, 40_000));
        request.extensions_mut().insert(axum::extract::ConnectInfo(address));
        let app = app.clone();
        async move { app.oneshot(request).await.unwrap().status() }
    };
    let mut statuses = Vec::new();
    for _ in 0..40 {
        statuses.push(from([192, 0, 2, 1], "rv_wrong").await);
    }
    assert_eq!(statuses[0], StatusCode::UNAUTHORIZED);
    let limited = statuses.iter().filter(|s| **s == StatusCode::TOO_MANY_REQUESTS).count();
    assert!(limited >= 15, "after a burst of failures the address gets 429: {statuses:?}");
    // A valid key is still served (the budget counts failures only), and other addresses are
    // told 401 as before.
    assert_eq!(from([192, 0, 2, 1], &good).await, StatusCode::OK);
    assert_eq!(from([192, 0, 2, 2], "rv_wrong").await, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn cleanup_cleans_the_namespace_its_body_names() {
    let service = common::service(ServiceConfig::default()).await;
    let admin = key(&service, None).await;
    let alice = key(&service, Some("alice")).await;
    let app = rearview_http::router(Arc::clone(&service), "default".parse().unwrap());
    let body = Some(json!({"namespace": "bob"}));
    let (status, answer, text) = send(&app, Some(&admin), "POST", "/v1/cleanup", &[], body).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert_eq!(answer["namespace"], "bob");
    let (status, answer, _) = send(&app, Some(&admin), "POST", "/v1/cleanup", &[], None).await;
    assert_eq!((status, answer["namespace"].as_str()), (StatusCode::OK, Some("default")));
    // Outside the key's grant, and an unknown field, are refused.
    let body = Some(json!({"namespace": "bob"}));
    let (status, _, _) = send(&app, Some(&alice), "POST", "/v1/cleanup", &[], body).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let body = Some(json!({"everything": true}));
    let (status, _, text) = send(&app, Some(&admin), "POST", "/v1/cleanup", &[], body).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(text.contains("everything"), "{text}");
}

#[tokio::test]
async fn a_non_ascii_namespace_travels_percent_encoded_or_as_raw_utf8() {
    let service = common::service(ServiceConfig::default()).await;
    let app = rearview_http::router(Arc::clone(&service), "default".parse().unwrap());
    let stored = service
        .remember(&"项目".parse().unwrap(), RememberRequest::new("项目的周会在周三"))
        .await
        .unwrap();
    let listed = |headers: Vec<(&'static str, &'static str)>| {
        let app = app.clone();
        async move {
            let (status, answer, text) =
                send(&app, None, "GET", "/v1/memories", &headers, None).await;
            (status, answer, text)
        }
    };
    let (status, answer, text) = listed(vec![("X-Rearview-Namespace", "%E9%A1%B9%E7%9B%AE")]).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert_eq!(answer["memories"][0]["id"], stored.memory.id.to_string());
    // Raw UTF-8 bytes name the same namespace.
    let request = Request::get("/v1/memories")
        .header(
            "X-Rearview-Namespace",
            axum::http::HeaderValue::from_bytes("项目".as_bytes()).unwrap(),
        )
        .body(Body::empty())
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let answer: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(answer["memories"][0]["content"], "项目的周会在周三");
    // Bytes that decode to no UTF-8 are refused, naming the header.
    let (status, _, text) = listed(vec![("X-Rearview-Namespace", "%FF%FE")]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(text.contains("X-Rearview-Namespace"), "{text}");
}

#[tokio::test]
async fn a_request_without_a_valid_key_is_refused_before_its_body_is_read() {
    let service = common::service(ServiceConfig::default()).await;
    key(&service, Some("alice")).await;
    let app = rearview_http::router(Arc::clone(&service), "default".parse().unwrap());
    // A body that never arrives: the 401 must come from the headers alone.
    let body = Body::from_stream(Never);
    let request = Request::post("/v1/memories")
        .header("Content-Type", "application/json")
        .header("Content-Length", "100")
        .body(body)
        .unwrap();
    let answer =
        tokio::time::timeout(std::time::Duration::from_secs(2), app.oneshot(request)).await;
    let response = answer.expect("answered without waiting for the body").unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
}

/// A stream that never yields: a request body still arriving.
struct Never;

impl futures_core::Stream for Never {
    type Item = Result<axum::body::Bytes, std::io::Error>;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        std::task::Poll::Pending
    }
}
