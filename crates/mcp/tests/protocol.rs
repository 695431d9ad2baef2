//! Every tool through the real protocol, in process: the SDK's own client talks to
//! `RearviewMcp` over a duplex pipe. Success and each error class: malformed arguments are
//! JSON-RPC invalid-params naming the field; a tool that ran and failed is a result with
//! `isError`; nothing is half-applied.

use std::sync::Arc;

use rearview_core::SystemClock;
use rearview_mcp::RearviewMcp;
use rearview_service::{MemoryService, ServiceConfig};
use rearview_store_sqlite::SqliteStore;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ErrorData, ServiceExt};
use serde_json::{Value, json};

struct Session {
    client: RunningService<RoleClient, ()>,
    service: Arc<MemoryService>,
}

async fn session() -> Session {
    let store = Arc::new(SqliteStore::in_memory().unwrap());
    let config = ServiceConfig { max_content_chars: 200, ..ServiceConfig::default() };
    let service =
        Arc::new(MemoryService::open(store, None, Arc::new(SystemClock), config).await.unwrap());
    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    let server = RearviewMcp::new(Arc::clone(&service), "default".parse().unwrap());
    tokio::spawn(async move {
        if let Ok(running) = server.serve(tokio::io::split(server_end)).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(tokio::io::split(client_end)).await.unwrap();
    Session { client, service }
}

impl Session {
    async fn call(&self, name: &'static str, args: Value) -> Result<CallToolResult, ErrorData> {
        let params =
            CallToolRequestParams::new(name).with_arguments(args.as_object().unwrap().clone());
        match self.client.call_tool(params).await {
            Ok(result) => Ok(result),
            Err(rmcp::service::ServiceError::McpError(e)) => Err(e),
            Err(e) => panic!("transport failure calling {name}: {e}"),
        }
    }

    /// A successful call's structured result.
    async fn ok(&self, name: &'static str, args: Value) -> Value {
        let result =
            self.call(name, args.clone()).await.unwrap_or_else(|e| panic!("{name} {args}: {e:?}"));
        assert_ne!(result.is_error, Some(true), "{name} {args}: {result:?}");
        result.structured_content.clone().unwrap_or_else(|| panic!("{name}: no structured content"))
    }

    /// A malformed call: JSON-RPC invalid params whose message names `field`.
    async fn invalid(&self, name: &'static str, args: Value, field: &str) -> String {
        let err =
            self.call(name, args.clone()).await.expect_err(&format!("{name} {args} should fail"));
        assert_eq!(err.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{name} {args}: {err:?}");
        assert!(
            err.message.contains(field),
            "{name} {args}: {:?} does not name {field}",
            err.message
        );
        err.message.to_string()
    }

    /// A call that ran and failed: a result with isError and a message.
    async fn tool_error(&self, name: &'static str, args: Value) -> String {
        let result =
            self.call(name, args.clone()).await.unwrap_or_else(|e| panic!("{name} {args}: {e:?}"));
        assert_eq!(result.is_error, Some(true), "{name} {args}: {result:?}");
        serde_json::to_string(&result.content).unwrap()
    }
}

#[tokio::test]
async fn every_tool_works_over_the_protocol() {
    let s = session().await;
    let tools = s.client.list_all_tools().await.unwrap();
    let mut names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "archive_memory",
            "cleanup_expired",
            "delete_memory",
            "end_session",
            "get_memory",
            "link_memories",
            "list_memories",
            "memory_stats",
            "restore_memory",
            "retrieve_memory",
            "store_memory",
            "suggest_distillations",
            "summarize_episodes",
            "unlink_memory",
            "update_memory",
        ]
    );

    let zh = s
        .ok("store_memory", json!({"content": "用户要求把数据库从 MySQL 迁移到 PostgreSQL", "memory_type": "episodic", "metadata": {"tags": ["db"]}, "session_id": "chat-1"}))
        .await;
    let en = s
        .ok(
            "store_memory",
            json!({"content": "The MCP server listens on port 8765", "memory_type": "semantic"}),
        )
        .await;
    let id = |v: &Value| v["memory"]["id"].as_str().unwrap_or_else(|| panic!("{v}")).to_owned();
    let (zh_id, en_id) = (id(&zh), id(&en));

    let hits = s.ok("retrieve_memory", json!({"query": "数据库迁移", "explain": true})).await;
    assert_eq!(hits["hits"][0]["memory"]["id"], zh_id.as_str(), "{hits}");
    assert!(hits["hits"][0]["explanation"].is_object(), "{hits}");
    let hits = s
        .ok("retrieve_memory", json!({"query": "port 8765", "memory_type": "semantic", "top_k": 1}))
        .await;
    assert_eq!(hits["hits"].as_array().unwrap().len(), 1);
    assert_eq!(hits["hits"][0]["memory"]["id"], en_id.as_str());

    let got = s.ok("get_memory", json!({"id": zh_id})).await;
    assert_eq!(got["memory"]["session_id"], "chat-1", "{got}");
    let updated = s
        .ok(
            "update_memory",
            json!({"id": zh_id, "content": "数据库已迁移到 PostgreSQL 16", "ttl": 0}),
        )
        .await;
    assert_eq!(updated["memory"]["content"], "数据库已迁移到 PostgreSQL 16", "{updated}");
    let listed = s.ok("list_memories", json!({"tags": ["db"], "limit": 10})).await;
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1, "{listed}");
    let stats = s.ok("memory_stats", json!({})).await;
    assert!(stats["tiers"].as_array().unwrap().len() >= 2, "{stats}");

    s.ok("delete_memory", json!({"id": en_id})).await;
    let gone = s.tool_error("get_memory", json!({"id": en_id})).await;
    assert!(gone.contains("not found") || gone.contains("no memory"), "{gone}");

    // Storing the same text again merges, and says into which memory.
    let again = s.ok("store_memory", json!({"content": "数据库已迁移到 PostgreSQL 16"})).await;
    assert_eq!(again["memory"]["id"], zh_id.as_str(), "{again}");
    assert_eq!(again["merged"]["exact"], true, "{again}");
    let separate = s
        .ok("store_memory", json!({"content": "数据库已迁移到 PostgreSQL 16", "dedup": false}))
        .await;
    assert_ne!(separate["memory"]["id"], zh_id.as_str(), "{separate}");
    assert!(separate["merged"].is_null(), "{separate}");

    // Archive and restore.
    let archived = s.ok("archive_memory", json!({"ids": [zh_id]})).await;
    assert_eq!(archived["memories"][0]["archived"], true, "{archived}");
    let hits = s.ok("retrieve_memory", json!({"query": "PostgreSQL 16"})).await;
    assert!(!hits["hits"].as_array().unwrap().iter().any(|h| h["memory"]["id"] == zh_id.as_str()));
    let hits =
        s.ok("retrieve_memory", json!({"query": "PostgreSQL 16", "include_archived": true})).await;
    assert!(hits["hits"].as_array().unwrap().iter().any(|h| h["memory"]["id"] == zh_id.as_str()));
    let restored = s.ok("restore_memory", json!({"ids": [zh_id]})).await;
    assert_eq!(restored["memories"][0]["archived"], false, "{restored}");

    // A session's working memories become episodes (by rule: no LLM here).
    for (text, role) in [
        ("我下周三要去上海出差，住在静安区", "user"),
        ("好的，祝您出差顺利！", "assistant"),
        ("你觉得我该带伞吗?", "user"),
    ] {
        s.ok("store_memory", json!({"content": text, "memory_type": "working", "session_id": "trip", "metadata": {"role": role}})).await;
    }
    let ended = s.ok("end_session", json!({"session_id": "trip"})).await;
    assert_eq!(
        (ended["working_memories"].as_u64(), ended["method"].as_str()),
        (Some(3), Some("rules")),
        "{ended}"
    );
    let episodes = ended["episodes"].as_array().unwrap();
    assert_eq!(episodes.len(), 1, "only the user's statement: {ended}");
    assert_eq!(episodes[0]["memory"]["memory_type"], "episodic");
    let working =
        s.ok("list_memories", json!({"memory_type": "working", "session_id": "trip"})).await;
    assert!(
        working["memories"].as_array().unwrap().is_empty(),
        "working memories expired: {working}"
    );

    // Distil two episodes; the originals are archived and listed as sources.
    let a = s.ok("store_memory", json!({"content": "周六去香山爬山了，风景很好。"})).await;
    let b = s.ok("store_memory", json!({"content": "周日又和朋友去爬了香山。"})).await;
    let distilled = s
        .ok("summarize_episodes", json!({"episode_ids": [id(&a), id(&b)], "instruction": "爬山"}))
        .await;
    assert_eq!(distilled["memory"]["memory_type"], "semantic", "{distilled}");
    assert!(distilled["method"].as_str().unwrap().starts_with("extractive"), "{distilled}");
    assert_eq!(distilled["originals_changed"], 2, "{distilled}");
    assert_eq!(distilled["memory"]["source_ids"].as_array().unwrap().len(), 2, "{distilled}");
    // Grouping compares vectors: without a model it says so (a tool error, not a crash).
    let no_model = s.tool_error("suggest_distillations", json!({"min_size": 2})).await;
    assert!(no_model.contains("no embedding model"), "{no_model}");

    // Another namespace sees nothing of the default one.
    let other =
        s.ok("retrieve_memory", json!({"query": "数据库", "namespace": "someone-else"})).await;
    assert_eq!(other["hits"].as_array().unwrap().len(), 0, "{other}");
}

#[tokio::test]
async fn malformed_arguments_are_invalid_params_naming_the_field() {
    let s = session().await;
    s.invalid("store_memory", json!({}), "content").await;
    s.invalid("store_memory", json!({"content": 42}), "content").await;
    s.invalid("store_memory", json!({"content": "   "}), "content").await;
    s.invalid("store_memory", json!({"content": "x".repeat(201)}), "content").await;
    let m = s
        .invalid("store_memory", json!({"content": "x", "memory_type": "forever"}), "memory_type")
        .await;
    assert!(m.contains("semantic"), "allowed values are listed: {m}");
    s.invalid("store_memory", json!({"content": "x", "metadata": "not an object"}), "metadata")
        .await;
    s.invalid("store_memory", json!({"content": "x", "ttl": "soon"}), "ttl").await;
    s.invalid("store_memory", json!({"content": "x", "ttl": -5}), "ttl").await;
    s.invalid("store_memory", json!({"content": "x", "occurred_at": "yesterday"}), "occurred_at")
        .await;
    s.invalid("store_memory", json!({"content": "x", "namespace": ""}), "namespace").await;
    s.invalid("retrieve_memory", json!({"top_k": 3}), "query").await;
    s.invalid("retrieve_memory", json!({"query": "x", "top_k": 0}), "top_k").await;
    s.invalid("retrieve_memory", json!({"query": "x", "top_k": "five"}), "top_k").await;
    s.invalid("retrieve_memory", json!({"query": "x", "as_of": "tomorrow"}), "as_of").await;
    s.invalid("retrieve_memory", json!({"query": "x", "explain": "yes"}), "explain").await;
    s.invalid("get_memory", json!({"id": "not-a-uuid"}), "id").await;
    s.invalid(
        "update_memory",
        json!({"id": "01a22910-7243-7e36-b21d-4ba2b60629d1", "memory_type": "x"}),
        "memory_type",
    )
    .await;
    s.invalid("list_memories", json!({"limit": -1}), "limit").await;
    s.invalid("summarize_episodes", json!({"episode_ids": "one"}), "episode_ids").await;
    // Nothing was stored by any of them.
    let stats = s.service.stats().await.unwrap();
    assert!(stats.store.tiers.is_empty(), "{:?}", stats.store.tiers);
}

#[tokio::test]
async fn tools_that_run_and_fail_return_tool_errors() {
    let s = session().await;
    let missing = s
        .tool_error(
            "update_memory",
            json!({"id": "01a22910-7243-7e36-b21d-4ba2b60629d1", "content": "x"}),
        )
        .await;
    assert!(missing.contains("01a22910-7243-7e36-b21d-4ba2b60629d1"), "{missing}");
    s.tool_error("delete_memory", json!({"id": "01a22910-7243-7e36-b21d-4ba2b60629d1"})).await;
    let text = s
        .tool_error(
            "summarize_episodes",
            json!({"episode_ids": ["01a22910-7243-7e36-b21d-4ba2b60629d1"]}),
        )
        .await;
    assert!(text.contains("not found"), "{text}");
    s.invalid("summarize_episodes", json!({"episode_ids": []}), "episode_ids").await;
    s.invalid("archive_memory", json!({"ids": ["x"]}), "ids[0]").await;
    s.invalid("end_session", json!({}), "session_id").await;
    let cleaned = s.ok("cleanup_expired", json!({})).await;
    assert_eq!(cleaned["cleaned"], 0, "{cleaned}");
    s.invalid("cleanup_expired", json!({"everything": true}), "everything").await;
    let unknown = s.call("no_such_tool", json!({})).await;
    assert!(unknown.is_err() || unknown.unwrap().is_error == Some(true));
}

#[tokio::test]
async fn facts_that_change_over_the_protocol() {
    let s = session().await;
    let id = |v: &Value| v["memory"]["id"].as_str().unwrap_or_else(|| panic!("{v}")).to_owned();
    let old =
        id(&s.ok("store_memory", json!({"content": "The API server listens on port 8080"})).await);
    // The agent says what the new memory supersedes.
    let new = s
        .ok(
            "store_memory",
            json!({"content": "We switched the API server to port 9090", "supersedes": [old]}),
        )
        .await;
    let caller = json!([{"id": old, "made_by": "caller", "reason": "the caller said the new memory replaces it"}]);
    assert_eq!(new["superseded"], caller, "{new}");
    let new_id = id(&new);

    let hits = s.ok("retrieve_memory", json!({"query": "API server port"})).await;
    let ids: Vec<&str> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["memory"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [new_id.as_str()], "history leaves recall: {hits}");
    let hits = s
        .ok("retrieve_memory", json!({"query": "API server port", "include_superseded": true}))
        .await;
    let history =
        hits["hits"].as_array().unwrap().iter().find(|h| h["memory"]["id"] == old.as_str());
    let history = history.unwrap_or_else(|| panic!("{hits}"));
    assert_eq!(history["memory"]["superseded_by"], new_id.as_str());
    assert!(history["memory"]["invalid_at"].is_string(), "{history}");

    let listed = s.ok("list_memories", json!({})).await;
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1, "{listed}");
    assert!(listed["memories"][0]["superseded_by"].is_null(), "{listed}");
    let listed = s.ok("list_memories", json!({"include_superseded": true})).await;
    assert_eq!(listed["memories"].as_array().unwrap().len(), 2, "{listed}");
    let got = s.ok("get_memory", json!({"id": old})).await;
    assert_eq!(got["memory"]["superseded_by"], new_id.as_str(), "read by id: {got}");

    // Explicit: checked before anything is written.
    let tea = id(&s.ok("store_memory", json!({"content": "likes green tea"})).await);
    s.invalid(
        "store_memory",
        json!({"content": "x", "supersedes": ["not-a-uuid"]}),
        "supersedes[0]",
    )
    .await;
    let unknown = "0190a5d2-7c3e-7b1a-9f00-1c2d3e4f5a6b";
    let message = s
        .invalid("store_memory", json!({"content": "x", "supersedes": [unknown]}), "supersedes")
        .await;
    assert!(message.contains(unknown), "{message}");
    let coffee =
        s.ok("store_memory", json!({"content": "prefers coffee", "supersedes": [tea]})).await;
    assert_eq!(
        coffee["superseded"],
        json!([{"id": tea, "made_by": "caller", "reason": "the caller said the new memory replaces it"}]),
        "{coffee}"
    );
    let all = s.ok("list_memories", json!({"include_superseded": true, "limit": 100})).await;
    assert_eq!(all["memories"].as_array().unwrap().len(), 4, "nothing stored by refused calls");
}

#[tokio::test]
async fn links_are_confirmed_dismissed_and_undone_over_the_protocol() {
    let s = session().await;
    let id = |v: &Value| v["memory"]["id"].as_str().unwrap_or_else(|| panic!("{v}")).to_owned();
    let berlin = id(&s.ok("store_memory", json!({"content": "I live in Berlin."})).await);
    let tea = id(&s.ok("store_memory", json!({"content": "likes green tea"})).await);
    let lisbon = id(&s.ok("store_memory", json!({"content": "I moved to Lisbon."})).await);
    let linked = s
        .ok(
            "link_memories",
            json!({"id": lisbon, "supersedes": [berlin], "reason": "the user moved", "dismiss": []}),
        )
        .await;
    assert_eq!(
        linked["superseded"],
        json!([{"id": berlin, "made_by": "caller", "reason": "the user moved"}]),
        "{linked}"
    );
    let got = s.ok("get_memory", json!({"id": berlin})).await;
    assert_eq!(got["memory"]["superseded_by"], lisbon.as_str());
    assert_eq!(got["memory"]["link"], json!({"made_by": "caller", "reason": "the user moved"}));
    // Bad calls name the field; a link the other way would be a cycle.
    s.invalid("link_memories", json!({"id": lisbon}), "supersedes").await;
    s.invalid("link_memories", json!({"id": lisbon, "supersedes": ["x"]}), "supersedes").await;
    s.invalid("link_memories", json!({"id": lisbon, "supersedes": [lisbon]}), "supersedes").await;
    let both = json!({"id": lisbon, "supersedes": [tea], "dismiss": [tea]});
    s.invalid("link_memories", both, "dismiss").await;
    let cycle =
        s.invalid("link_memories", json!({"id": berlin, "supersedes": [lisbon]}), "supersedes");
    assert!(cycle.await.contains("already history"));
    s.invalid("link_memories", json!({"id": lisbon, "dismiss": [tea]}), "dismiss").await;

    let back = s.ok("unlink_memory", json!({"id": berlin})).await;
    assert!(back["memory"]["superseded_by"].is_null(), "{back}");
    assert!(back["memory"].get("link").is_none(), "{back}");
    let offered = s.ok("get_memory", json!({"id": lisbon})).await;
    assert_eq!(offered["memory"]["possible_updates"][0]["id"], berlin.as_str(), "{offered}");
    let dismissed = s.ok("link_memories", json!({"id": lisbon, "dismiss": [berlin]})).await;
    assert!(dismissed["memory"].get("possible_updates").is_none(), "{dismissed}");
    s.invalid("unlink_memory", json!({"id": berlin}), "id").await;
    s.invalid("unlink_memory", json!({}), "id").await;
}
