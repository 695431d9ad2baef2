//! The tenant boundary, end to end through the router: every REST route, every tool over the
//! design's `/mcp/tools/call` and over Streamable HTTP MCP (`/mcp`), each called with a key
//! that grants its own namespace (must work), aimed at a foreign namespace (must be refused with
//! nothing read or written), and with an admin key (must work). The foreign tenant's export is
//! compared before and after: zero foreign reads, zero foreign writes.

mod common;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use rearview_core::Namespace;
use rearview_service::{MemoryService, NewKey, RememberRequest, ServiceConfig};
use serde_json::{Value, json};
use tower::ServiceExt;

/// A marker only bob's memories contain: it must never reach alice's key.
const BOB_SECRET: &str = "bob-secret-鲍勃的秘密";

struct World {
    app: axum::Router,
    service: Arc<MemoryService>,
    alice: String,
    admin: String,
    /// Memories of bob: plain, archived, working (session "s-bob").
    bob_ids: Vec<String>,
}

async fn world() -> World {
    let service = common::service(ServiceConfig::default()).await;
    let key = |namespaces: &[&str], admin: bool| NewKey {
        namespaces: namespaces.iter().map(|n| n.parse().unwrap()).collect(),
        admin,
        ..NewKey::default()
    };
    let alice = service.create_key(key(&["alice"], false)).await.unwrap().secret;
    let admin = service.create_key(key(&[], true)).await.unwrap().secret;
    let mut bob_ids = Vec::new();
    for (i, tier) in ["episodic", "episodic", "working"].into_iter().enumerate() {
        let mut request = RememberRequest::new(format!("{BOB_SECRET} number {i}"));
        request.memory_type = Some(tier.parse().unwrap());
        request.session_id = Some("s-bob".into());
        let stored = service.remember(&ns("bob"), request).await.unwrap();
        bob_ids.push(stored.memory.id.to_string());
    }
    service.archive(&ns("bob"), &[bob_ids[1].parse().unwrap()]).await.unwrap();
    let app = rearview_http::router(Arc::clone(&service), "default".parse().unwrap());
    World { app, service, alice, admin, bob_ids }
}

fn ns(name: &str) -> Namespace {
    name.parse().unwrap()
}

use common::send;

/// Bob's whole namespace as exported (every memory, archived and working too, with counts).
async fn export_bob(service: &MemoryService) -> Vec<String> {
    let page = service.export_page(&ns("bob"), None, 1000, true).await.unwrap();
    page.iter().map(|(m, v)| format!("{m:?} {v:?}")).collect()
}

/// Each REST route aimed at bob's namespace, by header or body.
fn rest_cases(bob: &[String]) -> Vec<(&'static str, String, Option<Value>)> {
    let id = &bob[0];
    vec![
        ("POST", "/v1/memories".into(), Some(json!({"content": "alice writes into bob"}))),
        (
            "POST",
            "/v1/memories".into(),
            Some(json!({"content": "alice writes into bob", "namespace": "bob"})),
        ),
        ("GET", "/v1/memories".into(), None),
        ("GET", format!("/v1/memories/{id}"), None),
        ("GET", format!("/v1/memories/{id}/history"), None),
        ("GET", "/v1/timeline".into(), None),
        ("PATCH", format!("/v1/memories/{id}"), Some(json!({"content": "overwritten"}))),
        ("DELETE", format!("/v1/memories/{id}"), None),
        ("POST", "/v1/recall".into(), Some(json!({"query": BOB_SECRET}))),
        ("POST", "/v1/recall".into(), Some(json!({"query": BOB_SECRET, "namespace": "bob"}))),
        ("POST", "/v1/cleanup".into(), None),
        ("POST", "/v1/summarize".into(), Some(json!({"episode_ids": [id], "namespace": "bob"}))),
        ("POST", "/v1/suggest-distillations".into(), Some(json!({"namespace": "bob"}))),
        (
            "POST",
            "/v1/sessions/end".into(),
            Some(json!({"session_id": "s-bob", "namespace": "bob"})),
        ),
        ("POST", "/v1/archive".into(), Some(json!({"ids": [id], "namespace": "bob"}))),
        ("POST", "/v1/restore".into(), Some(json!({"ids": [&bob[1]], "namespace": "bob"}))),
        (
            "POST",
            "/v1/link".into(),
            Some(json!({"id": id, "supersedes": [&bob[1]], "namespace": "bob"})),
        ),
        ("POST", "/v1/unlink".into(), Some(json!({"id": id, "namespace": "bob"}))),
        ("GET", "/v1/possible-updates".into(), None),
    ]
}

/// Each tool's arguments aimed at `namespace` (`None`: named by the header only).
fn tool_cases(bob: &[String], namespace: Option<&str>) -> Vec<(&'static str, Value)> {
    let id = &bob[0];
    let mut cases = vec![
        ("store_memory", json!({"content": "alice writes into bob"})),
        ("retrieve_memory", json!({"query": BOB_SECRET})),
        ("get_memory", json!({"id": id})),
        ("update_memory", json!({"id": id, "content": "overwritten"})),
        ("delete_memory", json!({"id": id})),
        ("list_memories", json!({"include_archived": true})),
        ("summarize_episodes", json!({"episode_ids": [id]})),
        ("suggest_distillations", json!({})),
        ("end_session", json!({"session_id": "s-bob"})),
        ("archive_memory", json!({"ids": [id]})),
        ("restore_memory", json!({"ids": [&bob[1]]})),
        ("link_memories", json!({"id": id, "supersedes": [&bob[1]]})),
        ("unlink_memory", json!({"id": &bob[1]})),
        ("cleanup_expired", json!({})),
    ];
    if let Some(namespace) = namespace {
        for (_, args) in &mut cases {
            args["namespace"] = namespace.into();
        }
    }
    cases
}

#[tokio::test]
async fn no_key_reads_or_changes_a_namespace_it_was_not_granted() {
    let w = world().await;
    let before = export_bob(&w.service).await;
    let mut checked = 0;
    let bob_header = [("X-Rearview-Namespace", "bob")];

    for (method, uri, body) in rest_cases(&w.bob_ids) {
        // A namespace named in the body is tried on its own (the header is then alice's own):
        // the body must be checked against the grant as the header is.
        let named = body.as_ref().is_some_and(|b| b.get("namespace").is_some());
        let headers: &[(&str, &str)] =
            if named { &[("X-Rearview-Namespace", "alice")] } else { &bob_header };
        let (status, answer, text) =
            send(&w.app, Some(&w.alice), method, &uri, headers, body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{method} {uri}: {text}");
        assert_eq!(answer["code"], "forbidden", "{method} {uri}");
        assert!(!text.contains("secret"), "{method} {uri} leaked: {text}");
        checked += 1;
    }
    // By header only, and by argument against alice's own header.
    for (namespace, headers) in [(None, &bob_header[..]), (Some("bob"), &[][..])] {
        for (tool, args) in tool_cases(&w.bob_ids, namespace) {
            let call = json!({"name": tool, "arguments": args});
            let (status, answer, text) =
                send(&w.app, Some(&w.alice), "POST", "/mcp/tools/call", headers, Some(call)).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{tool} {namespace:?}: {text}");
            assert_eq!(answer["code"], "forbidden", "{tool}");
            assert!(!text.contains("secret"), "{tool} leaked: {text}");
            checked += 1;
        }
    }
    // The same tools over Streamable HTTP MCP.
    let session = mcp_session(&w.app, &w.alice).await;
    for (tool, args) in tool_cases(&w.bob_ids, Some("bob")) {
        let result = mcp_call(&w.app, &w.alice, &session, tool, args).await;
        assert_eq!(result["isError"], true, "{tool}: {result}");
        let text = result.to_string();
        assert!(text.contains("does not grant namespace"), "{tool}: {text}");
        assert!(!text.contains("secret"), "{tool} leaked over MCP: {text}");
        checked += 1;
    }
    // An id of bob's, asked for in alice's own namespace: not found, nothing shown.
    let uri = format!("/v1/memories/{}", w.bob_ids[0]);
    let (status, _, text) = send(&w.app, Some(&w.alice), "GET", &uri, &[], None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{text}");
    // Server-wide views: alice sees neither bob's name nor the database location.
    let (status, stats, text) = send(&w.app, Some(&w.alice), "GET", "/v1/stats", &[], None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!text.contains("bob") && stats["store"] != "sqlite :memory:", "{text}");
    let stats = json!({"name": "memory_stats", "arguments": {}});
    let (_, _, text) =
        send(&w.app, Some(&w.alice), "POST", "/mcp/tools/call", &[], Some(stats)).await;
    assert!(!text.contains("bob"), "{text}");
    let (status, _, _) = send(&w.app, Some(&w.alice), "GET", "/metrics", &[], None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    assert_eq!(export_bob(&w.service).await, before, "bob's namespace changed");
    assert_eq!(checked, 19 + 14 * 3, "every route and every namespaced tool was tried");
}

#[tokio::test]
async fn a_key_works_in_its_own_namespace_and_an_admin_key_in_any() {
    let w = world().await;
    for (key, namespace) in [(&w.alice, "alice"), (&w.admin, "bob")] {
        // Seed what the id-taking calls operate on.
        let header = [("X-Rearview-Namespace", namespace)];
        let (status, stored, text) = send(
            &w.app,
            Some(key),
            "POST",
            "/v1/memories",
            &header,
            Some(json!({"content": format!("{namespace} 的第一条记忆"), "session_id": "s-x"})),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{text}");
        let id = stored["id"].as_str().unwrap().to_owned();
        // A second memory, for the link (and the unlink after it).
        let body = json!({"content": format!("{namespace} 的第二条记忆")});
        let (_, second, _) =
            send(&w.app, Some(key), "POST", "/v1/memories", &header, Some(body)).await;
        let second = second["id"].as_str().unwrap().to_owned();
        let ids = vec![id.clone(), second.clone(), second];
        for (tool, args) in tool_cases(&ids, Some(namespace)) {
            if tool == "delete_memory" {
                continue; // would remove what the later calls use; deleted below
            }
            let call = json!({"name": tool, "arguments": args});
            let (status, answer, text) =
                send(&w.app, Some(key), "POST", "/mcp/tools/call", &[], Some(call)).await;
            assert_ne!(status, StatusCode::FORBIDDEN, "{namespace} {tool}: {text}");
            assert_ne!(status, StatusCode::UNAUTHORIZED, "{namespace} {tool}: {text}");
            assert!(answer.get("result").is_some() || status == 422, "{tool}: {text}");
        }
        let uri = format!("/v1/memories/{id}");
        let (status, _, text) = send(&w.app, Some(key), "DELETE", &uri, &header, None).await;
        assert_eq!(status, StatusCode::NO_CONTENT, "{text}");
    }
    // A key with one namespace defaults to it: no header, no argument.
    let (status, _, text) = send(
        &w.app,
        Some(&w.alice),
        "POST",
        "/v1/memories",
        &[],
        Some(json!({"content": "defaults to alice"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{text}");
    let listed = w.service.list(&ns("alice"), &Default::default(), Default::default()).await;
    assert!(listed.unwrap().iter().any(|m| m.content == "defaults to alice"));
    // The body's namespace overrides the header, as on recall (one parameter type for REST's
    // store and MCP's store_memory).
    let (status, stored, text) = send(
        &w.app,
        Some(&w.admin),
        "POST",
        "/v1/memories",
        &[("X-Rearview-Namespace", "alice")],
        Some(json!({"content": "named in the body", "namespace": "bob"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{text}");
    assert_eq!(stored["memory"]["namespace"], "bob", "{text}");
    let listed = w.service.list(&ns("bob"), &Default::default(), Default::default()).await;
    assert!(listed.unwrap().iter().any(|m| m.content == "named in the body"));
    let listed = w.service.list(&ns("alice"), &Default::default(), Default::default()).await;
    assert!(!listed.unwrap().iter().any(|m| m.content == "named in the body"));
}

#[tokio::test]
async fn requests_without_a_valid_key_are_refused_once_keys_exist() {
    let w = world().await;
    for key in [None, Some("rv_0000"), Some("not even close")] {
        let (status, answer, _) = send(&w.app, key, "GET", "/v1/memories", &[], None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{key:?}");
        assert_eq!(answer["code"], "unauthorized");
        let call = json!({"name": "retrieve_memory", "arguments": {"query": BOB_SECRET}});
        let (status, _, _) = send(&w.app, key, "POST", "/mcp/tools/call", &[], Some(call)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{key:?}");
    }
    // Revoked: refused at once.
    let id = w.service.list_keys().await.unwrap()[0].id.clone();
    w.service.revoke_key(&id).await.unwrap();
    let (status, answer, _) = send(&w.app, Some(&w.alice), "GET", "/v1/memories", &[], None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(answer["message"].as_str().unwrap().contains("revoked"));
    // Health stays open for orchestrators.
    let (status, _, _) = send(&w.app, None, "GET", "/healthz", &[], None).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn the_tool_registry_is_the_same_everywhere() {
    let w = world().await;
    let (_, listed, _) = send(&w.app, Some(&w.admin), "GET", "/mcp/tools/list", &[], None).await;
    let mut listed: Vec<String> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    listed.sort();
    let mut registry: Vec<String> =
        rearview_mcp::TOOL_NAMES.iter().map(|n| (*n).to_owned()).collect();
    registry.sort();
    assert_eq!(listed, registry);
    let session = mcp_session(&w.app, &w.admin).await;
    let over_mcp = mcp_request(&w.app, &w.admin, &session, "tools/list", json!({})).await;
    let mut over_mcp: Vec<String> = over_mcp["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    over_mcp.sort();
    assert_eq!(over_mcp, registry);
    // Every listed tool is dispatched by /mcp/tools/call (none is an unknown tool).
    for name in &registry {
        let call = json!({"name": name, "arguments": {}});
        let (_, _, text) =
            send(&w.app, Some(&w.admin), "POST", "/mcp/tools/call", &[], Some(call)).await;
        assert!(!text.contains("unknown tool"), "{name}: {text}");
    }
}

#[tokio::test]
async fn hosts_and_origins_outside_the_allow_list_are_refused_on_every_route() {
    let service = common::service(ServiceConfig::default()).await;
    let admin = service.create_key(NewKey { admin: true, ..NewKey::default() }).await.unwrap();
    // As the compose file starts it: all interfaces, `--allowed-hosts rearview,localhost`.
    let config = rearview_http::HttpConfig {
        auth: rearview_http::AuthMode::Required,
        allowed_hosts: ["localhost", "127.0.0.1", "[::1]", "rearview"].map(str::to_owned).to_vec(),
        ..Default::default()
    };
    let app = rearview_http::router_with(service, "default".parse().unwrap(), &config).router;
    let key = Some(admin.secret.as_str());
    for uri in ["/v1/stats", "/metrics", "/mcp/tools/list", "/healthz", "/mcp", "/ui"] {
        let evil = [("Host", "attacker.example:8765")];
        let (status, answer, _) = send(&app, key, "GET", uri, &evil, None).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{uri}");
        assert_eq!(answer["code"], "host_not_allowed", "{uri}");
        let origin = [("Host", "localhost:8765"), ("Origin", "http://attacker.example")];
        let (status, _, _) = send(&app, key, "GET", uri, &origin, None).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{uri} with a foreign Origin");
    }
    // The README's Docker path: an agent on the network reaches `rearview:8765` with its key.
    let host = [("Host", "rearview:8765")];
    let (status, _, text) = send(&app, key, "GET", "/v1/stats", &host, None).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let session = mcp_session_with(&app, admin.secret.as_str(), "rearview:8765").await;
    assert!(!session.is_empty());
    // Without its key, refused even from an allowed host.
    let (status, _, _) = send(&app, None, "GET", "/v1/stats", &host, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

async fn mcp_session(app: &axum::Router, key: &str) -> String {
    mcp_session_with(app, key, "localhost:8765").await
}

/// Initialises an MCP session over Streamable HTTP; returns its id.
async fn mcp_session_with(app: &axum::Router, key: &str, host: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "tenancy-test", "version": "1"}}});
    let request = Request::post("/mcp")
        .header("Host", host)
        .header("Authorization", format!("Bearer {key}"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(Body::from(init.to_string()))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "initialize");
    let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let _ = response.into_body().collect().await;
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let request = Request::post("/mcp")
        .header("Host", host)
        .header("Authorization", format!("Bearer {key}"))
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", "2025-06-18")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(Body::from(note.to_string()))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert!(response.status().is_success(), "initialized: {}", response.status());
    session
}

/// One JSON-RPC request in a session; the response read from the SSE stream.
async fn mcp_request(
    app: &axum::Router,
    key: &str,
    session: &str,
    method: &str,
    params: Value,
) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let request = Request::post("/mcp")
        .header("Host", "localhost:8765")
        .header("MCP-Protocol-Version", "2025-06-18")
        .header("Authorization", format!("Bearer {key}"))
        .header("Mcp-Session-Id", session)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(Body::from(message.to_string()))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{method}");
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&bytes);
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v.get("id").is_some())
        .unwrap_or_else(|| panic!("no JSON-RPC response in {text}"))
}

async fn mcp_call(app: &axum::Router, key: &str, session: &str, tool: &str, args: Value) -> Value {
    let answer =
        mcp_request(app, key, session, "tools/call", json!({"name": tool, "arguments": args}))
            .await;
    answer["result"].clone()
}

#[tokio::test]
async fn a_key_over_its_rate_gets_429_with_retry_after_and_others_are_unaffected() {
    let service = common::service(ServiceConfig::default()).await;
    let key = |name: &str| NewKey { namespaces: vec![name.parse().unwrap()], ..NewKey::default() };
    let greedy = service.create_key(key("greedy")).await.unwrap().secret;
    let polite = service.create_key(key("polite")).await.unwrap().secret;
    let one = std::num::NonZeroU32::new(1).unwrap();
    let config = rearview_http::HttpConfig {
        rate_limit: Some(rearview_http::RateLimit {
            per_second: one,
            burst: one.saturating_add(1),
        }),
        ..Default::default()
    };
    let app = rearview_http::router_with(service, "default".parse().unwrap(), &config).router;
    let request = |key: &str| {
        Request::get("/v1/memories")
            .header("Authorization", format!("Bearer {key}"))
            .body(Body::empty())
            .unwrap()
    };
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for _ in 0..4 {
        let response = app.clone().oneshot(request(&greedy)).await.unwrap();
        statuses.push(response.status().as_u16());
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            retry_after = response.headers().get("retry-after").cloned();
        }
    }
    assert_eq!(statuses, [200, 200, 429, 429], "a burst of 2, then refused");
    assert_eq!(retry_after.unwrap().to_str().unwrap(), "1");
    let other = app.clone().oneshot(request(&polite)).await.unwrap();
    assert_eq!(other.status(), StatusCode::OK, "another key has its own budget");
}
