//! The OpenAPI 3.1 document served at `/openapi.json`.
//!
//! Paths are listed here by hand, next to the router they describe; request and response schemas
//! are derived from the very types the handlers deserialize and render (schemars), so the schemas
//! cannot drift from the code. A test checks that every documented path answers.

use schemars::generate::{Contract, SchemaSettings};
use serde_json::{Value, json};

use crate::routes::memories::{ListQuery, PatchBody, StoreBody};
use crate::routes::recall::TimelineQuery;
use rearview_api::{
    EndSessionParams, IdsParams, RecallParams, SuggestParams, SummarizeEpisodesParams,
};

/// The document.
pub fn document() -> Value {
    let mut requests = SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
        })
        .into_generator();
    let store = requests.subschema_for::<StoreBody>().to_value();
    let patch = requests.subschema_for::<PatchBody>().to_value();
    let recall = requests.subschema_for::<RecallParams>().to_value();
    let list = requests.subschema_for::<ListQuery>().to_value();
    let timeline = requests.subschema_for::<TimelineQuery>().to_value();
    let ids = requests.subschema_for::<IdsParams>().to_value();
    let end_session = requests.subschema_for::<EndSessionParams>().to_value();
    let summarize = requests.subschema_for::<SummarizeEpisodesParams>().to_value();
    let suggest = requests.subschema_for::<SuggestParams>().to_value();
    let mut responses = SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
            s.contract = Contract::Serialize;
        })
        .into_generator();
    let memory = responses.subschema_for::<rearview_api::MemoryView<'static>>().to_value();
    let recall_result = responses.subschema_for::<rearview_api::RecallView<'static>>().to_value();
    let mut schemas = requests.take_definitions(true);
    schemas.extend(responses.take_definitions(true));
    schemas.insert(
        "Error".into(),
        json!({
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": { "type": "string", "enum": ["invalid_input", "not_found", "unavailable", "internal", "payload_too_large"] },
                "message": { "type": "string", "description": "What went wrong; for invalid_input, the field and what is allowed." }
            }
        }),
    );
    let error = |description: &str| json!({ "description": description, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } });
    let ok = |description: &str, schema: Value| json!({ "description": description, "content": { "application/json": { "schema": schema } } });
    let one_memory = json!({ "type": "object", "properties": { "memory": memory } });
    let stored = json!({
        "type": "object",
        "properties": {
            "id": { "type": "string", "format": "uuid" },
            "status": { "type": "string", "enum": ["stored", "merged"] },
            "memory": memory,
            "merged": { "type": ["object", "null"], "description": "How the text was merged into `memory`: into, exact, similarity, content_replaced" },
            "superseded": {
                "type": "array",
                "description": "Memories this one replaced; they are history now (`superseded_by` names this one)",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": { "type": "string", "format": "uuid" },
                        "by": { "type": "string", "enum": ["request", "llm", "rules"], "description": "Who decided: the request's `supersedes`, the LLM, or the rule" }
                    }
                }
            }
        }
    });
    let body = |schema: Value| json!({ "required": true, "content": { "application/json": { "schema": schema } } });
    let namespace = json!({
        "name": "X-Rearview-Namespace", "in": "header", "required": false,
        "description": "Tenant (user, agent or memory bank); default `default`.",
        "schema": { "type": "string" }
    });
    let id = json!({ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } });
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "rearview",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Long-term memory for LLM agents: store memories, recall the relevant ones (hybrid vector + BM25 + recency + heat)."
        },
        "paths": {
            "/v1/memories": {
                "post": {
                    "summary": "Store a memory (superseding the memories it updates)", "parameters": [namespace], "requestBody": body(store),
                    "responses": {
                        "201": ok("The stored memory and what it superseded", stored.clone()),
                        "200": ok("Merged into an existing memory", stored),
                        "400": error("Invalid input, e.g. a `supersedes` id that is not a memory of the namespace")
                    }
                },
                "get": {
                    "summary": "List memories, newest event first (history with include_superseded)", "parameters": [namespace],
                    "x-query-schema": list,
                    "responses": {
                        "200": ok("One page", json!({ "type": "object", "properties": { "memories": { "type": "array", "items": memory } } })),
                        "400": error("Invalid input")
                    }
                }
            },
            "/v1/memories/{id}": {
                "get": {
                    "summary": "One memory", "parameters": [namespace, id],
                    "responses": { "200": ok("The memory", one_memory.clone()), "400": error("Bad id"), "404": error("No such memory") }
                },
                "patch": {
                    "summary": "Correct a memory (a changed text is kept as history)", "parameters": [namespace, id], "requestBody": body(patch),
                    "responses": { "200": ok("The corrected memory", one_memory), "400": error("Invalid input"), "404": error("No such memory") }
                },
                "delete": {
                    "summary": "Delete a memory", "parameters": [namespace, id],
                    "responses": { "204": { "description": "Deleted" }, "404": error("No such memory") }
                }
            },
            "/v1/memories/{id}/history": {
                "get": {
                    "summary": "The earlier texts and statements a memory replaced, latest replaced first", "parameters": [namespace, id],
                    "responses": { "200": ok("History", json!({ "type": "object", "properties": { "history": { "type": "array", "items": memory } } })), "400": error("Bad id"), "404": error("No such memory") }
                }
            },
            "/v1/timeline": {
                "get": {
                    "summary": "Memories per day and tier, and recall latency per minute over the last hour", "parameters": [namespace],
                    "x-query-schema": timeline,
                    "responses": { "200": ok("Counts and latency", json!({ "type": "object", "properties": {
                        "tiers": { "type": "array", "items": { "type": "object", "properties": { "day": { "type": "string", "format": "date" }, "working": { "type": "integer" }, "episodic": { "type": "integer" }, "semantic": { "type": "integer" } } } },
                        "recall_latency": { "type": "array", "items": { "type": "object", "properties": { "minute": { "type": "string", "format": "date-time" }, "count": { "type": "integer" }, "p50_ms": { "type": "number" }, "p99_ms": { "type": "number" } } } }
                    } })), "400": error("Invalid input") }
                }
            },
            "/v1/recall": {
                "post": {
                    "summary": "Recall the most relevant memories", "parameters": [namespace], "requestBody": body(recall),
                    "responses": { "200": ok("Ranked hits", recall_result), "400": error("Invalid input") }
                }
            },
            "/v1/stats": { "get": { "summary": "Counts, size and embedding state", "responses": { "200": ok("Statistics", json!({ "type": "object" })) } } },
            "/v1/summarize": { "post": {
                "summary": "Distil memories into one semantic memory (LLM, or extractive without one); originals archived by default",
                "parameters": [namespace], "requestBody": body(summarize),
                "responses": { "200": ok("The new memory, the method, originals changed", json!({ "type": "object", "properties": { "memory": memory, "method": { "type": "string", "enum": ["llm", "extractive-embeddings", "extractive-keywords"] }, "model": { "type": ["string", "null"] }, "originals_changed": { "type": "integer" }, "already_existed": { "type": "boolean", "description": "The same memories had been distilled before: this is that memory, nothing was written" } } })), "400": error("Invalid input"), "404": error("No such memory"), "503": error("The LLM failed; nothing changed") }
            } },
            "/v1/suggest-distillations": { "post": {
                "summary": "Groups of similar episodes worth distilling; writes nothing", "parameters": [namespace], "requestBody": body(suggest),
                "responses": { "200": ok("Groups", json!({ "type": "object" })), "400": error("Invalid input"), "503": error("No embedding model") }
            } },
            "/v1/sessions/end": { "post": {
                "summary": "End a session: its working memories become episodes", "parameters": [namespace], "requestBody": body(end_session),
                "responses": { "200": ok("The episodes", json!({ "type": "object", "properties": { "small_talk": { "type": "integer", "description": "Turns skipped as greetings or acknowledgements" } } })), "400": error("Invalid input"), "503": error("The LLM failed; nothing changed") }
            } },
            "/v1/archive": { "post": {
                "summary": "Move memories to the cold archive", "parameters": [namespace], "requestBody": body(ids.clone()),
                "responses": { "200": ok("The archived memories", json!({ "type": "object", "properties": { "memories": { "type": "array", "items": memory } } })), "400": error("Invalid input"), "404": error("No such memory") }
            } },
            "/v1/restore": { "post": {
                "summary": "Bring archived memories back into recall", "parameters": [namespace], "requestBody": body(ids),
                "responses": { "200": ok("The restored memories", json!({ "type": "object", "properties": { "memories": { "type": "array", "items": memory } } })), "400": error("Invalid input"), "404": error("No such memory") }
            } },
            "/v1/cleanup": { "post": { "summary": "Delete the namespace's expired memories", "parameters": [namespace], "responses": { "200": ok("How many were deleted", json!({ "type": "object", "required": ["cleaned"], "properties": { "cleaned": { "type": "integer", "minimum": 0 }, "namespace": { "type": "string" } } })) } } },
            "/healthz": { "get": { "summary": "Liveness", "responses": { "200": { "description": "Up" } } } },
            "/readyz": { "get": { "summary": "Readiness: the store answers", "responses": { "200": { "description": "Ready" }, "503": error("Not ready") } } }
        },
        "components": { "schemas": schemas }
    })
}
