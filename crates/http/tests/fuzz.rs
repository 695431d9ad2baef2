//! Structure-aware fuzzing of everything a client can send: JSON-RPC messages to `/mcp`, tool
//! calls to `/mcp/tools/call`, and REST bodies, built from the real tool names, field names and
//! a mix of valid, boundary and hostile values (wrong types, huge numbers, control characters,
//! CJK, deep nesting, foreign namespaces). Each input goes through the whole router with a key
//! that grants one namespace. The server must never answer 500, must keep serving, and the other
//! tenant's export must be the same before and after.
//!
//! `REARVIEW_FUZZ_CASES` sets the number of inputs (CI: the default, 50,000; the long run in
//! `scripts/reliability.sh`: 1,000,000).

mod common;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rearview_core::Namespace;
use rearview_service::{MemoryService, NewKey, RememberRequest, ServiceConfig};
use serde_json::{Value, json};
use tower::ServiceExt;

const FIELDS: &[&str] = &[
    "content",
    "query",
    "namespace",
    "id",
    "ids",
    "episode_ids",
    "memory_type",
    "metadata",
    "ttl",
    "top_k",
    "session_id",
    "occurred_at",
    "dedup",
    "instruction",
    "originals",
    "threshold",
    "min_size",
    "limit",
    "offset",
    "tags",
    "include_archived",
    "as_of",
    "explain",
    "after",
    "before",
    "tier_priority",
    "record_access",
    "bogus",
];

const TOOLS: &[&str] = &[
    "store_memory",
    "retrieve_memory",
    "get_memory",
    "update_memory",
    "delete_memory",
    "list_memories",
    "memory_stats",
    "summarize_episodes",
    "suggest_distillations",
    "end_session",
    "archive_memory",
    "restore_memory",
    "link_memories",
    "unlink_memory",
    "cleanup_expired",
    "no_such_tool",
    "",
];

const ROUTES: &[(&str, &str)] = &[
    ("POST", "/v1/memories"),
    ("GET", "/v1/memories?limit=5"),
    ("GET", "/v1/memories/{id}"),
    ("PATCH", "/v1/memories/{id}"),
    ("DELETE", "/v1/memories/{id}"),
    ("POST", "/v1/recall"),
    ("GET", "/v1/stats"),
    ("POST", "/v1/cleanup"),
    ("POST", "/v1/summarize"),
    ("POST", "/v1/suggest-distillations"),
    ("POST", "/v1/sessions/end"),
    ("POST", "/v1/archive"),
    ("POST", "/v1/restore"),
    ("POST", "/v1/link"),
    ("POST", "/v1/unlink"),
    ("GET", "/v1/possible-updates?limit=5"),
    ("GET", "/v1/keys"),
    ("POST", "/v1/keys"),
    ("POST", "/mcp/tools/call"),
    ("POST", "/mcp"),
    ("PUT", "/v1/recall"),
    ("GET", "/v1/nowhere"),
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop_oneof![Just(0i64), Just(-1), Just(1), Just(5), Just(101), Just(i64::MAX)]
            .prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::from)),
        "[a-z]{0,12}".prop_map(Value::from),
        "\\PC{0,40}".prop_map(Value::from),
        prop_oneof![
            Just("episodic"),
            Just("semantic"),
            Just("working"),
            Just("bob"),
            Just("fuzz"),
            Just("我喜欢在周末去香山爬山"),
            Just("2024-01-01T00:00:00Z"),
            Just("archive"),
            Just("delete"),
            Just("0190a5d2-7c3e-7b1a-9f00-1c2d3e4f5a6b"),
            Just(" "),
            Just("\u{0}"),
        ]
        .prop_map(Value::from),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(FIELDS), inner, 0..6).prop_map(|m| {
                Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

/// Tool arguments: mostly real field names with fuzzed values.
fn arguments() -> impl Strategy<Value = Value> {
    prop::collection::btree_map(prop::sample::select(FIELDS), value(), 0..7)
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

#[derive(Debug, Clone)]
enum Input {
    Rest { method: &'static str, path: &'static str, body: Option<String>, header: Option<String> },
    Tool { name: String, arguments: Value },
    JsonRpc(Value),
    Raw { path: &'static str, bytes: Vec<u8> },
}

fn input() -> impl Strategy<Value = Input> {
    let rest = (
        prop::sample::select(ROUTES),
        prop::option::of(arguments()),
        prop::option::of(prop_oneof![
            Just("fuzz".to_owned()),
            Just("bob".to_owned()),
            "\\PC{0,10}"
        ]),
    )
        .prop_map(|((method, path), body, header)| Input::Rest {
            method,
            path,
            body: body.map(|b| b.to_string()),
            header,
        });
    let tool = (prop::sample::select(TOOLS), arguments())
        .prop_map(|(name, arguments)| Input::Tool { name: name.to_owned(), arguments });
    let jsonrpc = (
        prop_oneof![
            Just("tools/call".to_owned()),
            Just("tools/list".to_owned()),
            Just("initialize".to_owned()),
            "[a-z/]{0,12}"
        ],
        prop::sample::select(TOOLS),
        arguments(),
        value(),
    )
        .prop_map(|(method, name, arguments, id)| {
            Input::JsonRpc(json!({"jsonrpc": "2.0", "id": id, "method": method,
                "params": {"name": name, "arguments": arguments}}))
        });
    let raw = (
        prop::sample::select(&["/mcp", "/mcp/tools/call", "/v1/recall", "/v1/memories"][..]),
        prop::collection::vec(any::<u8>(), 0..200),
    )
        .prop_map(|(path, bytes)| Input::Raw { path, bytes });
    prop_oneof![3 => rest, 4 => tool, 2 => jsonrpc, 1 => raw]
}

struct Target {
    app: axum::Router,
    service: Arc<MemoryService>,
    key: String,
    ids: Vec<String>,
}

impl Target {
    fn request(&self, input: &Input) -> Request<Body> {
        let id = &self.ids[0];
        let (method, path, body, header) = match input {
            Input::Rest { method, path, body, header } => (
                *method,
                path.replace("{id}", id),
                body.clone().map(String::into_bytes),
                header.clone(),
            ),
            Input::Tool { name, arguments } => (
                "POST",
                "/mcp/tools/call".to_owned(),
                Some(json!({"name": name, "arguments": arguments}).to_string().into_bytes()),
                None,
            ),
            Input::JsonRpc(message) => {
                ("POST", "/mcp".to_owned(), Some(message.to_string().into_bytes()), None)
            }
            Input::Raw { path, bytes } => ("POST", (*path).to_owned(), Some(bytes.clone()), None),
        };
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header("Authorization", format!("Bearer {}", self.key))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        if let Some(header) = header.filter(|h| axum::http::HeaderValue::from_str(h).is_ok()) {
            request = request.header("X-Rearview-Namespace", header);
        }
        request.body(body.map_or_else(Body::empty, Body::from)).unwrap()
    }
}

async fn export(service: &MemoryService, namespace: &str) -> Vec<String> {
    let ns: Namespace = namespace.parse().unwrap();
    let page = service.export_page(&ns, None, 10_000, true).await.unwrap();
    page.iter().map(|(m, v)| format!("{m:?} {v:?}")).collect()
}

#[test]
fn fuzzed_requests_never_fail_the_server_or_touch_another_tenant() {
    let cases: u32 =
        std::env::var("REARVIEW_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(50_000);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let target = runtime.block_on(async {
        let service = common::service(ServiceConfig::default()).await;
        let key = service
            .create_key(NewKey { namespaces: vec!["fuzz".parse().unwrap()], ..NewKey::default() })
            .await
            .unwrap()
            .secret;
        let mut ids = Vec::new();
        for (ns, text) in [("fuzz", "fuzz target 爬山"), ("bob", "bob's private note 秘密")] {
            let stored =
                service.remember(&ns.parse().unwrap(), RememberRequest::new(text)).await.unwrap();
            ids.push(stored.memory.id.to_string());
        }
        // No rate limit here: the fuzzer is one key sending as fast as it can.
        let config = rearview_http::HttpConfig { rate_limit: None, ..Default::default() };
        let app =
            rearview_http::router_with(Arc::clone(&service), "default".parse().unwrap(), &config)
                .router;
        Target { app, service, key, ids }
    });
    let bob_before = runtime.block_on(export(&target.service, "bob"));
    let mut runner =
        TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let statuses = std::cell::RefCell::new(std::collections::BTreeMap::<u16, u32>::new());
    runner
        .run(&input(), |input| {
            let request = target.request(&input);
            let response = runtime.block_on(async {
                let response = target.app.clone().oneshot(request).await.unwrap();
                let status = response.status();
                let body = response.into_body().collect().await.map(|b| b.to_bytes());
                (status, body.unwrap_or_default())
            });
            *statuses.borrow_mut().entry(response.0.as_u16()).or_default() += 1;
            prop_assert!(
                response.0 != StatusCode::INTERNAL_SERVER_ERROR,
                "500 for {input:?}: {}",
                String::from_utf8_lossy(&response.1)
            );
            prop_assert!(
                !String::from_utf8_lossy(&response.1).contains("秘密"),
                "bob's memory shown for {input:?}"
            );
            Ok(())
        })
        .unwrap();
    // Still serving, and the other tenant untouched.
    let health = runtime.block_on(
        target.app.clone().oneshot(Request::get("/healthz").body(Body::empty()).unwrap()),
    );
    assert_eq!(health.unwrap().status(), StatusCode::OK);
    assert_eq!(runtime.block_on(export(&target.service, "bob")), bob_before);
    let statuses = statuses.into_inner();
    // The figures for RELIABILITY.md; test output is the place for them.
    #[allow(clippy::print_stderr)]
    {
        eprintln!("fuzz: {cases} inputs, statuses {statuses:?}");
    }
    assert!(statuses.len() > 4, "the inputs reach many outcomes: {statuses:?}");
}
