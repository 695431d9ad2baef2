//! The OpenAPI 3.1 document served at `/openapi.json`.
//!
//! Paths are listed here by hand, next to the router they describe; request and response schemas
//! are derived from the very types the handlers deserialize and render (schemars), and the error
//! codes from [`ErrorCode`], so neither can drift from the code. What the gate in front of the
//! routes may answer is added to the operations (see `add_gate`), and what the document says
//! about keys follows the server's settings ([`Access`]). Tests check that every documented path
//! answers and that the gate's answers are documented; `tests/e2e/openapi_contract.py` runs
//! schemathesis against a running server.

use schemars::generate::{Contract, SchemaSettings};
use serde_json::{Map, Value, json};

use rearview_core::Namespace;

use crate::routes::keys::KeyParams;
use crate::routes::links::ReviewQuery;

use crate::routes::recall::TimelineQuery;
use crate::{AuthMode, ErrorCode};
use rearview_api::{
    EndSessionParams, IdsParams, LinkParams, ListParams, NamespaceParams, RecallParams,
    StoreParams, SuggestParams, SummarizeEpisodesParams, UnlinkParams, UpdateParams,
};

/// Who may call what, as the server was started: what the document says about keys.
#[derive(Debug, Clone, Copy)]
pub struct Access {
    /// When API keys are required.
    pub auth: AuthMode,
    /// `/metrics` without a key.
    pub metrics_public: bool,
}

/// The document, for a server started with `access`.
pub fn document(access: Access) -> Value {
    let (schemas, s) = schemas();
    let mut paths = memory_paths(&s);
    paths.extend(lifecycle_paths(&s));
    paths.extend(server_paths());
    let mut document = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "rearview",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Long-term memory for LLM agents: store memories, recall the relevant ones (hybrid vector + BM25 + recency + heat). MCP (streamable HTTP) is served at /mcp beside this API."
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "apiKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key (`rearview keys create --namespace NAME`), sent as `Authorization: Bearer KEY`. The key's grant decides which namespaces it may read and write."
                }
            }
        },
        "security": security(access.auth)
    });
    if access.metrics_public {
        document["paths"]["/metrics"]["get"]["security"] = json!([]);
    }
    add_gate(&mut document);
    document
}

/// The document's `security`: a key, or also none where the server lets callers without one
/// in.
fn security(auth: AuthMode) -> Value {
    match auth {
        // A non-loopback address: no key, no access.
        AuthMode::Required => json!([{ "apiKey": [] }]),
        // On loopback until the first key exists, or --insecure-no-auth.
        AuthMode::WhenKeysExist | AuthMode::Off => json!([{ "apiKey": [] }, {}]),
    }
}

/// The schemas the operations name, each derived from the type a handler reads or renders
/// (requests: the parameter types MCP's tools take too; answers: `rearview_api`'s answer types,
/// which MCP and the CLI render as well).
struct Schemas {
    store: Value,
    patch: Value,
    recall: Value,
    ids: Value,
    end_session: Value,
    summarize: Value,
    suggest: Value,
    link: Value,
    unlink: Value,
    namespace: Value,
    key: Value,
    /// Query strings, as OpenAPI parameters.
    list_query: Vec<Value>,
    timeline_query: Vec<Value>,
    review_query: Vec<Value>,
    stored: Value,
    one_memory: Value,
    memories: Value,
    history: Value,
    recall_result: Value,
    timeline: Value,
    linked: Value,
    pending: Value,
    session_end: Value,
    summarized: Value,
    suggestions: Value,
    cleaned: Value,
    stats: Value,
    api_key: Value,
    api_keys: Value,
    revoked: Value,
}

/// `components.schemas` and the references into it.
fn schemas() -> (Map<String, Value>, Schemas) {
    use rearview_api as api;
    let settings = |contract: Contract| {
        SchemaSettings::draft2020_12()
            .with(|s| {
                s.definitions_path = "/components/schemas".into();
                s.meta_schema = None;
                s.contract = contract;
            })
            .into_generator()
    };
    let mut requests = settings(Contract::Deserialize);
    let mut answers = settings(Contract::Serialize);
    let queries = [
        requests.subschema_for::<ListParams>().to_value(),
        requests.subschema_for::<TimelineQuery>().to_value(),
        requests.subschema_for::<ReviewQuery>().to_value(),
    ];
    let mut s = Schemas {
        store: requests.subschema_for::<StoreParams>().to_value(),
        patch: requests.subschema_for::<UpdateParams>().to_value(),
        recall: requests.subschema_for::<RecallParams>().to_value(),
        ids: requests.subschema_for::<IdsParams>().to_value(),
        end_session: requests.subschema_for::<EndSessionParams>().to_value(),
        summarize: requests.subschema_for::<SummarizeEpisodesParams>().to_value(),
        suggest: requests.subschema_for::<SuggestParams>().to_value(),
        link: requests.subschema_for::<LinkParams>().to_value(),
        unlink: requests.subschema_for::<UnlinkParams>().to_value(),
        namespace: requests.subschema_for::<NamespaceParams>().to_value(),
        key: requests.subschema_for::<KeyParams>().to_value(),
        list_query: Vec::new(),
        timeline_query: Vec::new(),
        review_query: Vec::new(),
        stored: answers.subschema_for::<api::StoredAnswer<'static>>().to_value(),
        one_memory: answers.subschema_for::<api::MemoryAnswer<'static>>().to_value(),
        memories: answers.subschema_for::<api::MemoriesAnswer<'static>>().to_value(),
        history: answers.subschema_for::<api::HistoryAnswer<'static>>().to_value(),
        recall_result: answers.subschema_for::<api::RecallView<'static>>().to_value(),
        timeline: answers.subschema_for::<api::TimelineAnswer<'static>>().to_value(),
        linked: answers.subschema_for::<api::LinkedAnswer<'static>>().to_value(),
        pending: answers.subschema_for::<api::PendingAnswer<'static>>().to_value(),
        session_end: answers.subschema_for::<api::SessionEndAnswer<'static>>().to_value(),
        summarized: answers.subschema_for::<api::SummarizeAnswer<'static>>().to_value(),
        suggestions: answers.subschema_for::<api::SuggestionsAnswer<'static>>().to_value(),
        cleaned: answers.subschema_for::<api::CleanedAnswer>().to_value(),
        stats: answers.subschema_for::<api::StatsAnswer<'static>>().to_value(),
        api_key: answers.subschema_for::<api::KeyView<'static>>().to_value(),
        api_keys: answers.subschema_for::<api::KeysAnswer<'static>>().to_value(),
        revoked: answers.subschema_for::<api::RevokedAnswer<'static>>().to_value(),
    };
    let mut schemas = requests.take_definitions(true);
    schemas.extend(answers.take_definitions(true));
    // A query type is not a body: its fields become the operation's query parameters.
    let [list, timeline, review] = queries.map(|q| query_parameters(&mut schemas, &q));
    (s.list_query, s.timeline_query, s.review_query) = (list, timeline, review);
    schemas.insert("Error".into(), error_schema());
    (schemas, s)
}

/// The fields of the query type `reference` points to, as query parameters (taken out of
/// `schemas`: no body has that type).
fn query_parameters(schemas: &mut Map<String, Value>, reference: &Value) -> Vec<Value> {
    let name = reference["$ref"].as_str().and_then(|r| r.rsplit('/').next()).unwrap_or_default();
    let Some(schema) = schemas.remove(name) else { return Vec::new() };
    let required: Vec<&str> =
        schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let properties = schema["properties"].as_object().cloned().unwrap_or_default();
    properties
        .into_iter()
        .map(|(name, mut property)| {
            let description = property.as_object_mut().and_then(|p| p.remove("description"));
            json!({
                "name": name, "in": "query", "required": required.contains(&name.as_str()),
                "description": description.unwrap_or_default(), "schema": property,
            })
        })
        .collect()
}

/// `{code, message}`, with every [`ErrorCode`].
fn error_schema() -> Value {
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    let statuses: Vec<String> = ErrorCode::ALL
        .iter()
        .map(|c| format!("`{}` {}", c.as_str(), c.status().as_u16()))
        .collect();
    json!({
        "type": "object",
        "required": ["code", "message"],
        "properties": {
            "code": {
                "type": "string",
                "enum": codes,
                "description": format!("What went wrong, with its HTTP status: {}.", statuses.join(", "))
            },
            "message": { "type": "string", "description": "What went wrong and how to fix it; for invalid_input, the field and what is allowed." }
        }
    })
}

fn ok(description: &str, schema: Value) -> Value {
    json!({ "description": description, "content": { "application/json": { "schema": schema } } })
}

fn error(description: &str) -> Value {
    json!({ "description": description, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } })
}

fn body(schema: Value) -> Value {
    json!({ "required": true, "content": { "application/json": { "schema": schema } } })
}

fn namespace() -> Value {
    json!({
        "name": "X-Rearview-Namespace", "in": "header", "required": false,
        "description": "Tenant (user, agent or memory bank); default `default`, or the key's namespace when it grants one. No control characters, no spaces at either end (else 400).",
        "schema": { "type": "string", "minLength": 1, "maxLength": Namespace::MAX_CHARS, "pattern": Namespace::PATTERN }
    })
}

fn id() -> Value {
    json!({ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } })
}

/// `/v1/memories…`, `/v1/recall`, `/v1/timeline`.
fn memory_paths(s: &Schemas) -> Map<String, Value> {
    let (namespace, id) = (namespace(), id());
    let with_query = |query: &[Value]| {
        let mut parameters = vec![namespace.clone()];
        parameters.extend(query.iter().cloned());
        parameters
    };
    let paths = json!({
        "/v1/memories": {
            "post": {
                "summary": "Store a memory (superseding the memories it updates)", "parameters": [namespace], "requestBody": body(s.store.clone()),
                "responses": {
                    "201": ok("The stored memory and what it superseded", s.stored.clone()),
                    "200": ok("Merged into an existing memory", s.stored.clone()),
                    "400": error("Invalid input, e.g. a `supersedes` id that is not a memory of the namespace")
                }
            },
            "get": {
                "summary": "List memories, newest event first (history with include_superseded)", "parameters": with_query(&s.list_query),
                "responses": { "200": ok("One page", s.memories.clone()), "400": error("Invalid input") }
            }
        },
        "/v1/memories/{id}": {
            "get": {
                "summary": "One memory", "parameters": [namespace, id],
                "responses": { "200": ok("The memory", s.one_memory.clone()), "400": error("Bad id"), "404": error("No such memory") }
            },
            "patch": {
                "summary": "Correct a memory (a changed text is kept as history)", "parameters": [namespace, id], "requestBody": body(s.patch.clone()),
                "responses": { "200": ok("The corrected memory", s.one_memory.clone()), "400": error("Invalid input"), "404": error("No such memory") }
            },
            "delete": {
                "summary": "Delete a memory", "parameters": [namespace, id],
                "responses": { "204": { "description": "Deleted" }, "404": error("No such memory") }
            }
        },
        "/v1/memories/{id}/history": {
            "get": {
                "summary": "The earlier texts and statements a memory replaced, latest replaced first", "parameters": [namespace, id],
                "responses": { "200": ok("History", s.history.clone()), "400": error("Bad id"), "404": error("No such memory") }
            }
        },
        "/v1/timeline": {
            "get": {
                "summary": "Memories per day and tier, and recall latency per minute over the last hour", "parameters": with_query(&s.timeline_query),
                "responses": { "200": ok("Counts and latency", s.timeline.clone()), "400": error("Invalid input") }
            }
        },
        "/v1/recall": {
            "post": {
                "summary": "Recall the most relevant memories", "parameters": [namespace], "requestBody": body(s.recall.clone()),
                "responses": { "200": ok("Ranked hits", s.recall_result.clone()), "400": error("Invalid input") }
            }
        }
    });
    into_map(paths)
}

/// The lifecycle: distillation, sessions, the archive, expiry; links; keys.
fn lifecycle_paths(s: &Schemas) -> Map<String, Value> {
    let namespace = namespace();
    let mut review_parameters = vec![namespace.clone()];
    review_parameters.extend(s.review_query.iter().cloned());
    let paths = json!({
        "/v1/summarize": { "post": {
            "summary": "Distil memories into one semantic memory (LLM, or extractive without one); originals archived by default",
            "parameters": [namespace], "requestBody": body(s.summarize.clone()),
            "responses": { "200": ok("The new memory, the method, originals changed; with dry_run, only the preview", s.summarized.clone()), "400": error("Invalid input"), "404": error("No such memory"), "503": error("The LLM failed; nothing changed") }
        } },
        "/v1/suggest-distillations": { "post": {
            "summary": "Groups of similar episodes worth distilling; writes nothing", "parameters": [namespace], "requestBody": body(s.suggest.clone()),
            "responses": { "200": ok("Groups", s.suggestions.clone()), "400": error("Invalid input"), "503": error("No embedding model") }
        } },
        "/v1/sessions/end": { "post": {
            "summary": "End a session: its working memories become episodes", "parameters": [namespace], "requestBody": body(s.end_session.clone()),
            "responses": { "200": ok("The episodes", s.session_end.clone()), "400": error("Invalid input"), "503": error("The LLM failed; nothing changed") }
        } },
        "/v1/archive": { "post": {
            "summary": "Move memories to the cold archive", "parameters": [namespace], "requestBody": body(s.ids.clone()),
            "responses": { "200": ok("The archived memories", s.memories.clone()), "400": error("Invalid input"), "404": error("No such memory") }
        } },
        "/v1/restore": { "post": {
            "summary": "Bring archived memories back into recall", "parameters": [namespace], "requestBody": body(s.ids.clone()),
            "responses": { "200": ok("The restored memories", s.memories.clone()), "400": error("Invalid input"), "404": error("No such memory") }
        } },
        "/v1/link": { "post": {
            "summary": "Confirm that a memory replaces older ones (they become its history) and dismiss possible updates", "parameters": [namespace], "requestBody": body(s.link.clone()),
            "responses": { "200": ok("The newer memory and what it now replaces", s.linked.clone()), "400": error("Invalid input, e.g. a link that would make a cycle"), "404": error("No such memory") }
        } },
        "/v1/unlink": { "post": {
            "summary": "Undo a link: a superseded memory becomes current again", "parameters": [namespace], "requestBody": body(s.unlink.clone()),
            "responses": { "200": ok("The memory, current again", s.one_memory.clone()), "400": error("Invalid input, e.g. a memory that is current"), "404": error("No such memory") }
        } },
        "/v1/possible-updates": { "get": {
            "summary": "Memories that list possible updates to confirm or dismiss, latest stored first", "parameters": review_parameters,
            "responses": { "200": ok("One page", s.pending.clone()), "400": error("Invalid input") }
        } },
        "/v1/keys": {
            "get": { "summary": "API keys, oldest first, never a secret (admin key only)", "responses": { "200": ok("The keys", s.api_keys.clone()) } },
            "post": { "summary": "Create an API key; its secret is in the answer, once (admin key only)", "requestBody": body(s.key.clone()), "responses": { "201": ok("The key, with its secret under `key`", s.api_key.clone()), "400": error("Invalid input") } }
        },
        "/v1/keys/{id}/revoke": { "post": {
            "summary": "Revoke an API key at once (admin key only)", "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string" } }],
            "responses": { "200": ok("Revoked", s.revoked.clone()), "400": error("No such key") }
        } },
        "/v1/cleanup": { "post": { "summary": "Delete the namespace's expired memories", "parameters": [namespace], "requestBody": { "required": false, "content": { "application/json": { "schema": s.namespace.clone() } } }, "responses": { "200": ok("How many were deleted", s.cleaned.clone()) } } },
        "/v1/stats": { "get": { "summary": "Counts, size and embedding state of what the key may see", "responses": { "200": ok("Statistics", s.stats.clone()) } } }
    });
    into_map(paths)
}

/// The server's own routes: statistics, metrics, health, the design's tool endpoints.
fn server_paths() -> Map<String, Value> {
    // The media type without its parameters (`; version=…`).
    let media = rearview_telemetry::metrics::CONTENT_TYPE.split(';').next().unwrap_or_default();
    let text = |description: &str| json!({ "description": description, "content": { media: { "schema": { "type": "string" } } } });
    let paths = json!({
        "/metrics": { "get": { "summary": "Prometheus metrics over every tenant: needs an admin key unless the server runs with --metrics-public", "responses": { "200": text("OpenMetrics text") } } },
        "/mcp/tools/list": { "get": { "summary": "The MCP tools' definitions (as MCP's tools/list), for the design's HTTP clients", "responses": { "200": ok("The tools", json!({ "type": "object", "properties": { "tools": { "type": "array", "items": { "type": "object" } } } })) } } },
        "/mcp/tools/call": { "post": {
            "summary": "Call an MCP tool by name, answered in the design's shapes", "parameters": [namespace()],
            "requestBody": body(json!({ "type": "object", "required": ["name"], "properties": { "name": { "type": "string", "enum": tool_names() }, "arguments": { "type": "object" } } })),
            "responses": { "200": ok("The tool's result", json!({ "type": "object", "properties": { "result": {} } })), "400": error("Invalid arguments (the body also carries them as `error`)"), "422": error("The tool ran and failed") }
        } },
        "/healthz": { "get": { "summary": "Liveness", "responses": { "200": { "description": "Up" } } } },
        "/readyz": { "get": { "summary": "Readiness: the store answers", "responses": { "200": { "description": "Ready" }, "503": error("Not ready") } } },
        "/openapi.json": { "get": { "summary": "This document", "responses": { "200": ok("OpenAPI 3.1", json!({ "type": "object" })) } } }
    });
    into_map(paths)
}

/// The MCP tools' names, from the one registry.
fn tool_names() -> Vec<Value> {
    let tools = rearview_mcp::tool_definitions();
    tools.as_array().into_iter().flatten().map(|tool| tool["name"].clone()).collect()
}

fn into_map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("paths are written as an object"),
    }
}

/// What the gate answers before any handler. On every route: a Host or Origin not allowed
/// (403), load shed (503), a body too large (413) or stalled (408). On every route but the
/// public ones (which need no key: `security: []`): no valid key (401), a namespace outside the
/// key's grant (403), the key over its rate (429), and a malformed namespace header or id
/// (400). An operation's own entry for a status stays.
fn add_gate(document: &mut Value) {
    let retry_after = json!({ "Retry-After": { "description": "Seconds to wait before retrying", "schema": { "type": "integer" } } });
    let with_headers = |mut response: Value, headers: &Value| {
        response["headers"] = headers.clone();
        response
    };
    let everywhere = [
        (
            "403",
            error(
                "A Host or Origin the server does not serve (--allowed-hosts): `host_not_allowed`",
            ),
        ),
        ("408", error("The request body stalled (`request_timeout`)")),
        ("413", error("The request body is over --max-request-bytes (`payload_too_large`)")),
        (
            "503",
            with_headers(
                error(
                    "The server sheds load (--max-in-flight): `overloaded`; retry after `Retry-After` seconds",
                ),
                &retry_after,
            ),
        ),
    ];
    let www_authenticate = json!({ "WWW-Authenticate": { "description": "`Bearer`", "schema": { "type": "string" } } });
    let with_key = [
        ("400", error("Invalid input, e.g. a malformed namespace header or id")),
        (
            "401",
            with_headers(
                error("No valid API key where the server requires one (`unauthorized`)"),
                &www_authenticate,
            ),
        ),
        (
            "403",
            error(
                "A namespace outside the key's grant, an admin route without an admin key (`forbidden`), or a Host or Origin not allowed (`host_not_allowed`)",
            ),
        ),
        (
            "429",
            with_headers(
                error(
                    "The key is over its request rate (--rate-limit): `rate_limited`; retry after `Retry-After` seconds",
                ),
                &retry_after,
            ),
        ),
    ];
    let Some(paths) = document["paths"].as_object_mut() else { return };
    for (path, operations) in paths.iter_mut() {
        let public = crate::guard::is_public(path);
        for operation in operations.as_object_mut().into_iter().flat_map(|o| o.values_mut()) {
            if public {
                operation["security"] = json!([]);
            }
            let gate = if public { &[][..] } else { &with_key[..] };
            let responses = &mut operation["responses"];
            for (status, answer) in gate.iter().chain(&everywhere) {
                if responses.get(status).is_none() {
                    responses[status] = answer.clone();
                }
            }
        }
    }
}
