//! The REST API in process (`router().oneshot(request)`, no socket): every route, success and
//! each error class, in the one `{code, message}` format.

mod common;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use rearview_service::ServiceConfig;
use serde_json::json;
use tower::ServiceExt;

async fn app() -> axum::Router {
    rearview_http::router(
        common::service(ServiceConfig::default()).await,
        "default".parse().unwrap(),
    )
}

/// A request without a key, in `namespace` (the header) when given.
async fn send(
    app: &axum::Router,
    method: &str,
    uri: &str,
    body: Option<serde_json::Value>,
    namespace: Option<&str>,
) -> (StatusCode, serde_json::Value) {
    let headers: Vec<_> = namespace.map(|ns| ("X-Rearview-Namespace", ns)).into_iter().collect();
    let (status, json, _) = common::send(app, None, method, uri, &headers, body).await;
    (status, json)
}

#[tokio::test]
async fn memories_lifecycle_over_rest() {
    let app = app().await;
    let (status, stored) =
        send(&app, "POST", "/v1/memories", Some(serde_json::json!({"content": "我喜欢在周末去香山爬山", "metadata": {"tags": ["hobby"]}})), None).await;
    assert_eq!(status, StatusCode::CREATED, "{stored}");
    let id = stored["memory"]["id"].as_str().unwrap().to_owned();
    send(
        &app,
        "POST",
        "/v1/memories",
        Some(serde_json::json!({"content": "port 8765", "memory_type": "semantic"})),
        Some("ops"),
    )
    .await;

    let (status, got) = send(&app, "GET", &format!("/v1/memories/{id}"), None, None).await;
    assert_eq!(
        (status, got["memory"]["content"].as_str()),
        (StatusCode::OK, Some("我喜欢在周末去香山爬山"))
    );
    let (_, listed) = send(&app, "GET", "/v1/memories?tag=hobby&limit=10", None, None).await;
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1);
    let (_, other) = send(&app, "GET", "/v1/memories", None, Some("ops")).await;
    assert_eq!(other["memories"][0]["namespace"], "ops", "the header picks the namespace");

    let (status, recalled) = send(
        &app,
        "POST",
        "/v1/recall",
        Some(serde_json::json!({"query": "爬山", "explain": true})),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(recalled["hits"][0]["memory"]["id"], id.as_str());
    assert!(
        recalled["hits"][0]["explanation"]["description"].as_str().unwrap().contains("relevance")
    );

    let (status, patched) = send(
        &app,
        "PATCH",
        &format!("/v1/memories/{id}"),
        Some(serde_json::json!({"content": "我喜欢在周末去西山爬山"})),
        None,
    )
    .await;
    assert_eq!(
        (status, patched["memory"]["content"].as_str()),
        (StatusCode::OK, Some("我喜欢在周末去西山爬山"))
    );
    let (status, stats) = send(&app, "GET", "/v1/stats", None, None).await;
    assert_eq!((status, stats["embedding"]["degraded"].as_bool()), (StatusCode::OK, Some(true)));

    let (status, _) = send(&app, "DELETE", &format!("/v1/memories/{id}"), None, None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, gone) = send(&app, "GET", &format!("/v1/memories/{id}"), None, None).await;
    assert_eq!((status, gone["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")));
}

#[tokio::test]
async fn every_error_is_code_and_message_naming_the_field() {
    let app = app().await;
    // (method, uri, body, expected status, expected code, text the message must contain)
    type Case = (
        &'static str,
        &'static str,
        Option<serde_json::Value>,
        StatusCode,
        &'static str,
        &'static str,
    );
    let cases: Vec<Case> = vec![
        (
            "POST",
            "/v1/memories",
            Some(serde_json::json!({"content": "x", "memory_type": "longterm"})),
            StatusCode::BAD_REQUEST,
            "invalid_input",
            "memory_type",
        ),
        (
            "POST",
            "/v1/memories",
            Some(serde_json::json!({"content": "   "})),
            StatusCode::BAD_REQUEST,
            "invalid_input",
            "content",
        ),
        (
            "POST",
            "/v1/memories",
            Some(serde_json::json!({"text": "wrong field"})),
            StatusCode::BAD_REQUEST,
            "invalid_input",
            "content",
        ),
        (
            "POST",
            "/v1/recall",
            Some(serde_json::json!({"query": "x", "top_k": 0})),
            StatusCode::BAD_REQUEST,
            "invalid_input",
            "top_k",
        ),
        (
            "POST",
            "/v1/recall",
            Some(serde_json::json!({"query": "x", "as_of": "yesterday"})),
            StatusCode::BAD_REQUEST,
            "invalid_input",
            "as_of",
        ),
        ("GET", "/v1/memories/not-a-uuid", None, StatusCode::BAD_REQUEST, "invalid_input", "id"),
        (
            "GET",
            "/v1/memories/01a22910-7243-7e36-b21d-4ba2b60629d1",
            None,
            StatusCode::NOT_FOUND,
            "not_found",
            "not found",
        ),
        ("GET", "/v1/memories?limit=abc", None, StatusCode::BAD_REQUEST, "invalid_input", "limit"),
        (
            "POST",
            "/v1/summarize",
            Some(serde_json::json!({"episode_ids": ["nope"]})),
            StatusCode::BAD_REQUEST,
            "invalid_input",
            "episode_ids[0]",
        ),
        (
            "POST",
            "/v1/summarize",
            Some(serde_json::json!({"episode_ids": [], "originals": "burn"})),
            StatusCode::BAD_REQUEST,
            "invalid_input",
            "originals",
        ),
        (
            "POST",
            "/v1/archive",
            Some(serde_json::json!({"ids": ["0190a5d2-7c3e-7b1a-9f00-1c2d3e4f5a6b"]})),
            StatusCode::NOT_FOUND,
            "not_found",
            "not found",
        ),
        (
            "POST",
            "/v1/recall",
            Some(serde_json::json!({"query": "记".repeat(8_001)})),
            StatusCode::BAD_REQUEST,
            "invalid_input",
            "longer than 8000 characters",
        ),
        (
            "POST",
            "/v1/sessions/end",
            Some(serde_json::json!({"session": "x"})),
            StatusCode::BAD_REQUEST,
            "invalid_input",
            "session",
        ),
    ];
    for (method, uri, body, status, code, mentions) in cases {
        let (got_status, got) = send(&app, method, uri, body.clone(), None).await;
        assert_eq!(got_status, status, "{method} {uri} {body:?}: {got}");
        assert_eq!(got["code"], code, "{method} {uri}: {got}");
        assert!(got["message"].as_str().unwrap().contains(mentions), "{method} {uri}: {got}");
    }
    let (status, bad_ns) = send(&app, "GET", "/v1/memories", None, Some(" spaced ")).await;
    assert_eq!((status, bad_ns["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_input")));
    let (_, listed) = send(&app, "GET", "/v1/memories", None, None).await;
    assert!(listed["memories"].as_array().unwrap().is_empty(), "no bad request wrote anything");
}

#[tokio::test]
async fn every_response_carries_a_request_id() {
    let app = app().await;
    let response =
        app.clone().oneshot(Request::get("/healthz").body(Body::empty()).unwrap()).await.unwrap();
    let first: u64 = response.headers()["x-request-id"].to_str().unwrap().parse().unwrap();
    let response = app.oneshot(Request::get("/nope").body(Body::empty()).unwrap()).await.unwrap();
    let second: u64 = response.headers()["x-request-id"].to_str().unwrap().parse().unwrap();
    assert!(second > first, "ids increase: {first} then {second}");
}

#[tokio::test]
async fn openapi_document_describes_routes_that_exist_with_resolvable_schemas() {
    let app = app().await;
    let (status, doc) = send(&app, "GET", "/openapi.json", None, None).await;
    assert_eq!((status, doc["openapi"].as_str()), (StatusCode::OK, Some("3.1.0")));
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for name in ["StoreParams", "RecallParams", "Tier", "Memory", "RecallResult", "Error"] {
        assert!(schemas.contains_key(name), "{name} missing from components");
    }
    let text = doc.to_string();
    for piece in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
        let name = &piece[..piece.find('"').unwrap()];
        assert!(schemas.contains_key(name), "dangling $ref to {name}");
    }
    for (path, methods) in doc["paths"].as_object().unwrap() {
        let uri = path.replace("{id}", "01a22910-7243-7e36-b21d-4ba2b60629d1");
        for method in methods.as_object().unwrap().keys() {
            let body = matches!(method.as_str(), "post" | "patch").then(|| serde_json::json!({}));
            let (status, answer) = send(&app, &method.to_uppercase(), &uri, body, None).await;
            assert_ne!(
                status,
                StatusCode::METHOD_NOT_ALLOWED,
                "{method} {path} is documented but not routed"
            );
            assert!(
                status != StatusCode::NOT_FOUND || answer["code"] == "not_found",
                "{method} {path} is documented but not routed"
            );
        }
    }
}

/// Tool `name`'s input schema from `/mcp/tools/list`, its definitions (the tier) moved from
/// `$defs` to where the OpenAPI document keeps them, its components.
fn input_schema(tools: &serde_json::Value, name: &str) -> serde_json::Value {
    let tools = tools["tools"].as_array().unwrap();
    let schema = &tools.iter().find(|t| t["name"] == name).unwrap()["inputSchema"];
    serde_json::from_str(&schema.to_string().replace("#/$defs/", "#/components/schemas/")).unwrap()
}

#[tokio::test]
async fn rest_and_mcp_document_the_same_store_and_recall_parameters() {
    let app = app().await;
    let (_, doc) = send(&app, "GET", "/openapi.json", None, None).await;
    let (_, tools) = send(&app, "GET", "/mcp/tools/list", None, None).await;
    let tool = |name: &str| input_schema(&tools, name);
    for (component, name) in [("StoreParams", "store_memory"), ("RecallParams", "retrieve_memory")]
    {
        let (rest, mcp) = (&doc["components"]["schemas"][component], tool(name));
        assert!(rest["properties"].as_object().is_some_and(|p| p.len() > 5), "{component}");
        assert_eq!(rest["properties"], mcp["properties"], "{component} / {name}");
        assert_eq!(rest["required"], mcp["required"], "{component} / {name}");
        assert_eq!(mcp["$defs"]["Tier"], doc["components"]["schemas"]["Tier"], "{name}");
        assert_eq!(
            (&rest["additionalProperties"], &mcp["additionalProperties"]),
            (&json!(false), &json!(false))
        );
    }
}

#[tokio::test]
async fn rest_and_mcp_document_the_same_list_and_update_parameters() {
    let app = app().await;
    let (_, doc) = send(&app, "GET", "/openapi.json", None, None).await;
    let (_, tools) = send(&app, "GET", "/mcp/tools/list", None, None).await;
    let tool = |name: &str| input_schema(&tools, name);
    // Listing: the query parameters of GET /v1/memories are list_memories' properties.
    let list = tool("list_memories");
    let parameters = doc["paths"]["/v1/memories"]["get"]["parameters"].as_array().unwrap();
    let query: Vec<&serde_json::Value> = parameters.iter().filter(|p| p["in"] == "query").collect();
    let properties = list["properties"].as_object().unwrap();
    assert_eq!(query.len(), properties.len(), "{parameters:?}");
    for parameter in query {
        let name = parameter["name"].as_str().unwrap();
        let mut property = properties[name].clone();
        let description = property.as_object_mut().unwrap().remove("description").unwrap();
        assert_eq!((&parameter["schema"], &parameter["description"]), (&property, &description));
    }
    for name in ["tags", "occurred_after", "occurred_before", "namespace"] {
        assert!(properties.contains_key(name), "list_memories lacks {name}");
    }
    // Updating: PATCH's body is update_memory's arguments but the id (the path's).
    let (rest, mcp) = (&doc["components"]["schemas"]["UpdateParams"], tool("update_memory"));
    let mut mcp_properties = mcp["properties"].as_object().unwrap().clone();
    assert!(mcp_properties.remove("id").is_some());
    assert_eq!(rest["properties"].as_object().unwrap(), &mcp_properties);
    assert_eq!(rest["properties"]["metadata"]["type"], "object", "optional, never null");
}

#[tokio::test]
async fn listing_filters_by_several_tags_and_a_time_range_over_rest_and_mcp() {
    let app = app().await;
    for (content, tags, at) in [
        ("hiking in the western hills", json!(["hobby", "weekend"]), "2024-05-04T09:00:00Z"),
        ("painting on a weekday", json!(["hobby"]), "2024-05-08T19:00:00Z"),
        ("weekend shopping list", json!(["weekend"]), "2024-06-01T10:00:00Z"),
    ] {
        let body = json!({"content": content, "metadata": {"tags": tags}, "occurred_at": at});
        let (status, stored) = send(&app, "POST", "/v1/memories", Some(body), None).await;
        assert_eq!(status, StatusCode::CREATED, "{stored}");
    }
    let contents = |answer: &serde_json::Value| -> Vec<String> {
        let memories = answer["memories"].as_array().unwrap_or_else(|| panic!("{answer}"));
        memories.iter().map(|m| m["content"].as_str().unwrap().to_owned()).collect()
    };
    let (_, both) = send(&app, "GET", "/v1/memories?tags=hobby&tags=weekend", None, None).await;
    assert_eq!(contents(&both), ["hiking in the western hills"]);
    let (_, one) = send(&app, "GET", "/v1/memories?tag=hobby", None, None).await;
    assert_eq!(contents(&one), ["painting on a weekday", "hiking in the western hills"]);
    let may = "occurred_after=2024-05-01T00:00:00Z&occurred_before=2024-05-31T00:00:00Z";
    let (_, in_may) =
        send(&app, "GET", &format!("/v1/memories?tags=weekend&{may}"), None, None).await;
    assert_eq!(contents(&in_may), ["hiking in the western hills"]);
    let (status, bad) = send(&app, "GET", "/v1/memories?occurred_after=May", None, None).await;
    assert_eq!((status, bad["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_input")));
    assert!(bad["message"].as_str().unwrap().contains("occurred_after"), "{bad}");
    // The tool takes the same filters and answers the same list.
    let arguments = json!({"tags": ["weekend"], "occurred_after": "2024-05-01T00:00:00Z",
        "occurred_before": "2024-05-31T00:00:00Z"});
    let call = json!({"name": "list_memories", "arguments": arguments});
    let (status, tool) = send(&app, "POST", "/mcp/tools/call", Some(call), None).await;
    assert_eq!(status, StatusCode::OK, "{tool}");
    assert_eq!(tool["result"], in_may);
    // A metadata that is not an object is refused alike by PATCH and update_memory.
    let id = both["memories"][0]["id"].as_str().unwrap();
    let uri = format!("/v1/memories/{id}");
    let (status, rest) = send(&app, "PATCH", &uri, Some(json!({"metadata": [1]})), None).await;
    let call = json!({"name": "update_memory", "arguments": {"id": id, "metadata": [1]}});
    let (tool_status, tool) = send(&app, "POST", "/mcp/tools/call", Some(call), None).await;
    assert_eq!((status, tool_status), (StatusCode::BAD_REQUEST, StatusCode::BAD_REQUEST));
    assert_eq!(rest["message"], tool["message"], "{rest} / {tool}");
    assert!(rest["message"].as_str().unwrap().contains("metadata"), "{rest}");
}

#[tokio::test]
async fn rest_store_and_the_store_memory_tool_answer_the_same_arguments_alike() {
    let app = app().await;
    let cases = [
        (json!({"content": "x", "metadata": "not an object"}), "metadata"),
        (json!({"content": "x", "memory_type": "forever"}), "memory_type"),
        (json!({"content": "  "}), "content"),
        (json!({"content": "x", "ttl": -1}), "ttl"),
        (json!({"content": "x", "occurred_at": "yesterday"}), "occurred_at"),
        (json!({"content": "x", "supersedes": ["nope"]}), "supersedes"),
        (json!({"content": "x", "colour": "red"}), "colour"),
        (json!({"content": "x", "namespace": " padded "}), "namespace"),
    ];
    for (arguments, field) in cases {
        let (status, rest) =
            send(&app, "POST", "/v1/memories", Some(arguments.clone()), None).await;
        let call = json!({"name": "store_memory", "arguments": arguments});
        let (tool_status, tool) = send(&app, "POST", "/mcp/tools/call", Some(call), None).await;
        assert_eq!(
            (status, tool_status),
            (StatusCode::BAD_REQUEST, StatusCode::BAD_REQUEST),
            "{field}: {rest} / {tool}"
        );
        assert_eq!(
            (&rest["code"], &tool["code"]),
            (&json!("invalid_input"), &json!("invalid_input"))
        );
        for answer in [&rest, &tool] {
            let message = answer["message"].as_str().unwrap();
            assert!(message.contains(field), "{field}: {message}");
        }
    }
    // And a good one is stored by both, alike.
    let good =
        json!({"content": "两扇门同一个参数", "metadata": {"via": "both"}, "session_id": "s1"});
    let (status, rest) = send(&app, "POST", "/v1/memories", Some(good.clone()), None).await;
    assert_eq!(status, StatusCode::CREATED, "{rest}");
    let mut again = good.clone();
    again["dedup"] = false.into();
    let call = json!({"name": "store_memory", "arguments": again});
    let (status, tool) = send(&app, "POST", "/mcp/tools/call", Some(call), None).await;
    assert_eq!(status, StatusCode::OK, "{tool}");
    let (rest, tool) = (&rest["memory"], &tool["result"]["memory"]);
    for key in ["content", "metadata", "session_id", "memory_type", "namespace"] {
        assert_eq!(rest[key], tool[key], "{key}");
    }
}

#[tokio::test]
async fn openapi_document_says_which_routes_need_a_key_and_what_the_gate_answers() {
    let service = common::service(ServiceConfig::default()).await;
    let config =
        rearview_http::HttpConfig { auth: rearview_http::AuthMode::Required, ..Default::default() };
    let app = rearview_http::router_with(service, "default".parse().unwrap(), &config).router;
    let (status, doc, _) = common::send(&app, None, "GET", "/openapi.json", &[], None).await;
    assert_eq!(status, StatusCode::OK, "the document itself needs no key");
    assert_eq!(doc["security"], serde_json::json!([{ "apiKey": [] }]), "a key, always");
    let scheme = &doc["components"]["securitySchemes"]["apiKey"];
    assert_eq!(
        (scheme["type"].as_str(), scheme["scheme"].as_str()),
        (Some("http"), Some("bearer"))
    );
    let codes = &doc["components"]["schemas"]["Error"]["properties"]["code"]["enum"];
    for (path, methods) in doc["paths"].as_object().unwrap() {
        let uri = path.replace("{id}", "01a22910-7243-7e36-b21d-4ba2b60629d1");
        for (method, operation) in methods.as_object().unwrap() {
            let body = matches!(method.as_str(), "post" | "patch").then(|| serde_json::json!({}));
            let (status, answer, _) =
                common::send(&app, None, &method.to_uppercase(), &uri, &[], body).await;
            if operation["security"] == serde_json::json!([]) {
                assert_ne!(
                    status,
                    StatusCode::UNAUTHORIZED,
                    "{method} {path} is documented public"
                );
                continue;
            }
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{method} {path} without a key");
            let unauthorized = &operation["responses"]["401"];
            assert!(unauthorized["headers"]["WWW-Authenticate"].is_object(), "{method} {path}");
            assert_eq!(answer["code"], "unauthorized");
            assert!(codes.as_array().unwrap().contains(&answer["code"]), "{codes}");
            for documented in ["400", "401", "403", "408", "413", "429", "503"] {
                let response = &operation["responses"][documented];
                assert!(response.is_object(), "{method} {path} does not document {documented}");
            }
        }
    }
    for public in ["/healthz", "/readyz", "/openapi.json"] {
        assert_eq!(doc["paths"][public]["get"]["security"], serde_json::json!([]), "{public}");
        // The host check, load shedding and the body's limits come before every route.
        let responses = &doc["paths"][public]["get"]["responses"];
        assert!(["403", "408", "413", "503"].iter().all(|s| responses[s].is_object()), "{public}");
    }
}

#[tokio::test]
async fn openapi_document_matches_what_bad_parameters_and_metrics_answer() {
    let app = app().await;
    let (_, doc) = send(&app, "GET", "/openapi.json", None, None).await;
    // On loopback the server lets callers without a key in until the first key exists.
    assert_eq!(doc["security"], serde_json::json!([{ "apiKey": [] }, {}]));
    // A malformed id or namespace header is a 400 wherever a parameter is taken.
    let (status, answer) = send(&app, "DELETE", "/v1/memories/not-a-uuid", None, None).await;
    assert_eq!((status, answer["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_input")));
    assert!(doc["paths"]["/v1/memories/{id}"]["delete"]["responses"]["400"].is_object());
    let (status, _) = send(&app, "POST", "/v1/cleanup", None, Some(&"n".repeat(129))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(doc["paths"]["/v1/cleanup"]["post"]["responses"]["400"].is_object());
    let header = &doc["paths"]["/v1/cleanup"]["post"]["parameters"][0];
    assert_eq!(
        (header["name"].as_str(), header["schema"]["maxLength"].as_u64()),
        (Some("X-Rearview-Namespace"), Some(128))
    );
    // The documented media type of /metrics is the one it answers with.
    let request = Request::builder().uri("/metrics").body(Body::empty()).unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let answered = response.headers()["content-type"].to_str().unwrap().to_owned();
    let documented = doc["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    assert!(answered.starts_with(&format!("{documented};")), "{answered} / {documented}");
    // A tier is one of three, in the schema as in the server.
    let store = &doc["components"]["schemas"]["StoreParams"]["properties"]["memory_type"];
    assert!(store.to_string().contains("\"#/components/schemas/Tier\""), "{store}");
    // A PATCH must change something, in the schema as in the server.
    assert_eq!(doc["components"]["schemas"]["UpdateParams"]["minProperties"], 1);
    let (_, stored) =
        send(&app, "POST", "/v1/memories", Some(serde_json::json!({"content": "x"})), None).await;
    let uri = format!("/v1/memories/{}", stored["memory"]["id"].as_str().unwrap());
    let (status, _) = send(&app, "PATCH", &uri, Some(serde_json::json!({})), None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // The design's tool endpoint names the tools of the one registry.
    let call =
        &doc["paths"]["/mcp/tools/call"]["post"]["requestBody"]["content"]["application/json"];
    let names = call["schema"]["properties"]["name"]["enum"].as_array().unwrap();
    assert!(names.contains(&serde_json::json!("store_memory")), "{names:?}");
}

#[tokio::test]
async fn public_routes_answer_a_wrong_method_in_the_error_format() {
    let app = app().await;
    for path in ["/healthz", "/readyz", "/openapi.json"] {
        let (status, answer) = send(&app, "POST", path, None, None).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{path}");
        assert_eq!(answer["code"], "method_not_allowed", "{path}");
    }
}

#[tokio::test]
async fn oversized_requests_get_413_and_change_nothing() {
    let service =
        common::service(ServiceConfig { max_content_chars: 50, ..ServiceConfig::default() }).await;
    let limits = rearview_http::HttpConfig { max_request_bytes: 2_000, ..Default::default() };
    let app = rearview_http::router_with(Arc::clone(&service), "default".parse().unwrap(), &limits)
        .router;

    // Declared too large: refused before the body is read.
    let big = serde_json::json!({ "content": "x".repeat(5_000) });
    let (status, body) = send(&app, "POST", "/v1/memories", Some(big.clone()), None).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(body["code"], "payload_too_large");
    assert!(body["message"].as_str().unwrap().contains("REARVIEW_MAX_REQUEST_BYTES"), "{body}");

    // Streamed without a length (chunked): to a REST route, and to the MCP endpoint, which reads
    // its body itself.
    for uri in ["/v1/memories", "/mcp"] {
        let chunks: Vec<Result<String, std::io::Error>> =
            (0..10).map(|_| Ok("y".repeat(500))).collect();
        let request = Request::builder()
            .method("POST")
            .uri(uri)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(Body::from_stream(futures_stream(chunks)))
            .unwrap();
        let response = app.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{uri}: {body}");
        assert_eq!(body["code"], "payload_too_large", "{uri}: {body}");
    }

    // Within the request limit but over the content limit: 400 naming the field and the limit.
    let long = serde_json::json!({ "content": "记".repeat(60) });
    let (status, body) = send(&app, "POST", "/v1/memories", Some(long), None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("content") && message.contains("50"), "{message}");

    assert_eq!(service.stats().await.unwrap().store.tiers.len(), 0, "nothing was stored");
}

/// A body stream of the given chunks (no content length).
fn futures_stream(
    chunks: Vec<Result<String, std::io::Error>>,
) -> impl futures_core::Stream<Item = Result<String, std::io::Error>> + Send + 'static {
    struct Chunks(std::vec::IntoIter<Result<String, std::io::Error>>);
    impl futures_core::Stream for Chunks {
        type Item = Result<String, std::io::Error>;
        fn poll_next(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Self::Item>> {
            std::task::Poll::Ready(self.0.next())
        }
    }
    Chunks(chunks.into_iter())
}

#[tokio::test]
async fn recall_takes_the_same_parameters_as_the_mcp_tool() {
    let app = app().await;
    let body = serde_json::json!({"content": "用户偏好深色主题", "memory_type": "semantic"});
    let (status, _) = send(&app, "POST", "/v1/memories", Some(body), Some("alice")).await;
    assert_eq!(status, StatusCode::CREATED);
    let query = |extra: serde_json::Value| {
        let mut q =
            serde_json::json!({"query": "主题", "memory_type": "semantic", "tier_priority": true});
        q.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        q
    };
    let (_, r) =
        send(&app, "POST", "/v1/recall", Some(query(serde_json::json!({}))), Some("alice")).await;
    assert_eq!(r["hits"].as_array().unwrap().len(), 1, "{r}");
    // The body's namespace overrides the header, as MCP's argument overrides the connection's.
    let (_, r) = send(
        &app,
        "POST",
        "/v1/recall",
        Some(query(serde_json::json!({"namespace": "bob"}))),
        Some("alice"),
    )
    .await;
    assert_eq!(r["hits"].as_array().unwrap().len(), 0, "{r}");
    let (status, r) = send(
        &app,
        "POST",
        "/v1/recall",
        Some(query(serde_json::json!({"models": ["x"]}))),
        Some("alice"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{r}");
    assert!(r["message"].as_str().unwrap().contains("models"), "{r}");
}

/// The value of the sample `name{labels}` in Prometheus text, if present.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
}

#[tokio::test]
async fn metrics_count_requests_per_route_and_tool_and_report_tiers() {
    let app = app().await;
    let before = {
        let response = app
            .clone()
            .oneshot(Request::get("/metrics").body(Body::empty()).unwrap())
            .await
            .unwrap();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    };
    let rest =
        r#"rearview_requests_total{transport="rest",operation="POST /v1/memories",outcome="ok"}"#;
    let rest_before = sample(&before, rest).unwrap_or(0.0);
    for content in ["第一条记忆", "second memory"] {
        send(&app, "POST", "/v1/memories", Some(serde_json::json!({"content": content})), None)
            .await;
    }
    send(&app, "POST", "/v1/memories", Some(serde_json::json!({"memory_type": "x"})), None).await;
    let (status, _) = send(
        &app,
        "POST",
        "/mcp/tools/call",
        Some(serde_json::json!({"name": "retrieve_memory", "arguments": {"query": "记忆"}})),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    send(&app, "GET", &format!("/v1/memories/{}", uuid_like()), None, None).await;

    let response =
        app.clone().oneshot(Request::get("/metrics").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("application/openmetrics-text"), "{content_type}");
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    // The registry is process-wide and other tests run concurrently: at least our two.
    assert!(sample(&text, rest).unwrap_or(0.0) >= rest_before + 2.0, "{text}");
    let bad =
        r#"rearview_requests_total{transport="rest",operation="POST /v1/memories",outcome="400"}"#;
    assert!(sample(&text, bad).unwrap_or(0.0) >= 1.0, "{text}");
    let tool = r#"rearview_requests_total{transport="http-tools",operation="retrieve_memory",outcome="ok"}"#;
    assert!(sample(&text, tool).unwrap_or(0.0) >= 1.0, "{text}");
    // Route patterns, never raw ids, so the label set stays bounded.
    assert!(text.contains(r#"operation="GET /v1/memories/{id}""#), "{text}");
    assert!(!text.contains(&uuid_like()));
    assert!(text.contains("rearview_request_duration_seconds_bucket{"), "{text}");
    // This test's app is the only writer of its in-memory store: exact tier gauges.
    assert_eq!(
        sample(&text, r#"rearview_memories{tier="episodic",state="live"}"#),
        Some(2.0),
        "{text}"
    );
    assert_eq!(sample(&text, r#"rearview_memories{tier="semantic",state="live"}"#), Some(0.0));
    assert_eq!(sample(&text, "rearview_embedding_queue_depth"), Some(0.0), "{text}");
    assert!(text.trim_end().ends_with("# EOF"));
}

fn uuid_like() -> String {
    "01a22abe-0000-7000-8000-000000000000".to_owned()
}

#[tokio::test]
async fn facts_that_change_over_rest() {
    let app = app().await;
    let post = |body: serde_json::Value| {
        let app = app.clone();
        async move { send(&app, "POST", "/v1/memories", Some(body), None).await }
    };
    let (_, old) = post(serde_json::json!({"content": "我住在北京"})).await;
    let old_id = old["id"].as_str().unwrap().to_owned();
    let (status, new) =
        post(serde_json::json!({"content": "我搬到上海了", "supersedes": [old_id]})).await;
    assert_eq!(status, StatusCode::CREATED, "{new}");
    let caller = serde_json::json!([{"id": old_id, "made_by": "caller", "reason": "the caller said the new memory replaces it"}]);
    assert_eq!(new["superseded"], caller);
    let new_id = new["id"].as_str().unwrap().to_owned();

    for (supersedes, names) in [
        (serde_json::json!(["nope"]), "supersedes[0]"),
        (serde_json::json!(["0190a5d2-7c3e-7b1a-9f00-1c2d3e4f5a6b"]), "supersedes"),
        (serde_json::json!([new_id, new_id]), "twice"),
    ] {
        let (status, err) =
            post(serde_json::json!({"content": "x", "supersedes": supersedes})).await;
        assert_eq!(
            (status, err["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("invalid_input"))
        );
        assert!(err["message"].as_str().unwrap().contains(names), "{err}");
    }

    let (_, listed) = send(&app, "GET", "/v1/memories", None, None).await;
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1, "{listed}");
    let (_, all) = send(&app, "GET", "/v1/memories?include_superseded=true", None, None).await;
    let history = all["memories"].as_array().unwrap().iter().find(|m| m["id"] == old_id.as_str());
    let history = history.unwrap_or_else(|| panic!("{all}"));
    assert_eq!(history["superseded_by"], new_id.as_str());
    assert!(history["invalid_at"].is_string(), "{history}");
    let recall = |body: serde_json::Value| {
        let app = app.clone();
        async move { send(&app, "POST", "/v1/recall", Some(body), None).await.1 }
    };
    // History is answered by what replaced it: asked about 北京, recall gives the move.
    let hits = recall(serde_json::json!({"query": "北京"})).await;
    assert_eq!(hits["hits"].as_array().unwrap().len(), 1, "{hits}");
    assert_eq!(hits["hits"][0]["memory"]["id"], new_id.as_str(), "{hits}");
    let hits = recall(serde_json::json!({"query": "北京", "include_superseded": true})).await;
    assert_eq!(hits["hits"][0]["memory"]["id"], old_id.as_str(), "{hits}");

    // A corrected text is kept as history of the same memory.
    let uri = format!("/v1/memories/{new_id}");
    let body = serde_json::json!({"content": "我搬到杭州了"});
    let (status, patched) = send(&app, "PATCH", &uri, Some(body), None).await;
    assert_eq!((status, patched["memory"]["id"].as_str()), (StatusCode::OK, Some(new_id.as_str())));
    let (_, all) = send(&app, "GET", "/v1/memories?include_superseded=true", None, None).await;
    let earlier =
        all["memories"].as_array().unwrap().iter().find(|m| m["content"] == "我搬到上海了");
    let earlier = earlier.unwrap_or_else(|| panic!("{all}"));
    assert_eq!(earlier["metadata"]["history_of"], new_id.as_str());
    assert_eq!(earlier["superseded_by"], new_id.as_str());
}

#[tokio::test]
async fn links_are_confirmed_reviewed_and_undone_over_rest() {
    let app = app().await;
    let post = |uri: &'static str, body: serde_json::Value| {
        let app = app.clone();
        async move { send(&app, "POST", uri, Some(body), None).await }
    };
    let (_, berlin) =
        post("/v1/memories", serde_json::json!({"content": "I live in Berlin."})).await;
    let berlin = berlin["id"].as_str().unwrap().to_owned();
    let (_, lisbon) =
        post("/v1/memories", serde_json::json!({"content": "I moved to Lisbon."})).await;
    let lisbon = lisbon["id"].as_str().unwrap().to_owned();

    let (status, linked) = post(
        "/v1/link",
        serde_json::json!({"id": lisbon, "supersedes": [berlin], "reason": "moved in March"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{linked}");
    let expected =
        serde_json::json!([{"id": berlin, "made_by": "caller", "reason": "moved in March"}]);
    assert_eq!(linked["superseded"], expected);
    let (_, got) = send(&app, "GET", &format!("/v1/memories/{berlin}"), None, None).await;
    assert_eq!(got["memory"]["link"]["made_by"], "caller", "{got}");

    for (body, field) in [
        (serde_json::json!({"id": lisbon}), "supersedes"),
        (serde_json::json!({"id": lisbon, "supersedes": ["nope"]}), "supersedes[0]"),
        (serde_json::json!({"id": berlin, "supersedes": [lisbon]}), "already history"),
        (serde_json::json!({"id": lisbon, "dismiss": [berlin]}), "dismiss"),
        (serde_json::json!({"id": lisbon, "supersedes": [berlin], "extra": 1}), "extra"),
    ] {
        let (status, err) = post("/v1/link", body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {err}");
        assert!(err["message"].as_str().unwrap().contains(field), "{body}: {err}");
    }
    let (status, err) =
        post("/v1/link", serde_json::json!({"id": uuid_like(), "supersedes": [berlin]})).await;
    assert_eq!((status, err["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")));

    let (status, back) = post("/v1/unlink", serde_json::json!({"id": berlin})).await;
    assert_eq!(status, StatusCode::OK, "{back}");
    assert!(back["memory"]["superseded_by"].is_null(), "{back}");
    let (status, _) = post("/v1/unlink", serde_json::json!({"id": berlin})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a current memory has no link");

    let (status, review) = send(&app, "GET", "/v1/possible-updates", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(review["pending"][0]["memory"]["id"], lisbon.as_str(), "{review}");
    let offered = &review["pending"][0]["possible_updates"][0];
    assert_eq!(
        (offered["id"].as_str(), offered["content"].as_str()),
        (Some(berlin.as_str()), Some("I live in Berlin."))
    );
    let (status, _) = send(&app, "GET", "/v1/possible-updates?limit=0", None, None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) =
        post("/v1/link", serde_json::json!({"id": lisbon, "dismiss": [berlin]})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, review) = send(&app, "GET", "/v1/possible-updates", None, None).await;
    assert_eq!(review["pending"], serde_json::json!([]));
}

#[tokio::test]
async fn an_admin_key_manages_keys_over_rest_and_other_keys_may_not() {
    let service = common::service(ServiceConfig::default()).await;
    let admin = service
        .create_key(rearview_service::NewKey { admin: true, ..Default::default() })
        .await
        .unwrap()
        .secret;
    let app = rearview_http::router(Arc::clone(&service), "default".parse().unwrap());
    let body = serde_json::json!({"namespaces": ["alice"], "label": "alice's agent"});
    let (status, created, text) =
        common::send(&app, Some(&admin), "POST", "/v1/keys", &[], Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{text}");
    let (id, secret) = (created["id"].as_str().unwrap(), created["key"].as_str().unwrap());
    assert_eq!(created["namespaces"], serde_json::json!(["alice"]));
    let (_, listed, _) = common::send(&app, Some(&admin), "GET", "/v1/keys", &[], None).await;
    let keys = listed["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 2);
    assert!(keys.iter().all(|k| k.get("key").is_none()), "never a secret in a listing");
    // The new key works in its namespace, and may not manage keys.
    let (status, _, _) = common::send(&app, Some(secret), "GET", "/v1/memories", &[], None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, _) = common::send(&app, Some(secret), "GET", "/v1/keys", &[], None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let bad = serde_json::json!({"namespaces": [" spaced "]});
    let (status, _, text) =
        common::send(&app, Some(&admin), "POST", "/v1/keys", &[], Some(bad)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(text.contains("namespaces[0]"), "{text}");
    let uri = format!("/v1/keys/{id}/revoke");
    let (status, _, _) = common::send(&app, Some(&admin), "POST", &uri, &[], None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, _) = common::send(&app, Some(secret), "GET", "/v1/memories", &[], None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "revoked at once");
}

#[tokio::test]
async fn a_recall_that_does_not_count_leaves_access_counts_unchanged() {
    let service = common::service(ServiceConfig::default()).await;
    let app = rearview_http::router(Arc::clone(&service), "default".parse().unwrap());
    let post = |uri: &'static str, body: serde_json::Value| {
        let app = app.clone();
        async move { common::send(&app, None, "POST", uri, &[], Some(body)).await.1 }
    };
    let stored = post("/v1/memories", json!({"content": "heat test 热度"})).await;
    let id = stored["id"].as_str().unwrap().to_owned();
    let browse = json!({"query": "heat test", "count_access": false});
    let hits = post("/v1/recall", browse.clone()).await;
    assert_eq!(hits["hits"][0]["memory"]["access_count"], 0, "{hits}");
    let hits = post("/v1/recall", json!({"query": "heat test"})).await;
    assert_eq!(hits["hits"][0]["memory"]["access_count"], 1, "a counting recall counts");
    post("/v1/recall", browse).await;
    service.flush_access_counts().await;
    let got = service.get(&"default".parse().unwrap(), id.parse().unwrap()).await.unwrap();
    assert_eq!(got.access_count, 1, "only the counting recall was recorded");
}
