//! `rearview import --from mem0|mcp-memory FILE`: memories kept by other tools, read into
//! rearview so that trying it costs nothing.
//!
//! - **mem0**: what `Memory.get_all()` returns, as mem0 writes it: `{"results": [item, …]}` (with
//!   `"relations"` when its graph store is on), a bare list of items, or one item per line. An
//!   item is mem0's `MemoryItem` (`id`, `memory`, `hash`, `created_at`, `updated_at`) with the
//!   promoted keys `user_id`, `agent_id`, `run_id`, `actor_id`, `role` and the rest of its payload
//!   under `metadata`. The namespace is the item's `user_id`, else its `agent_id`, else
//!   `--namespace`; `run_id` becomes the session; the times are kept. Relations
//!   (`"<source> <relationship> <target>"`) go with the file's one owner, else to `--namespace`.
//! - **mcp-memory**: the JSON Lines file of the MCP reference memory server
//!   (`@modelcontextprotocol/server-memory`, `MEMORY_FILE_PATH`): `{"type":"entity","name",
//!   "entityType","observations":[…]}` and `{"type":"relation","from","to","relationType"}`. Each
//!   observation becomes `"<entity>: <observation>"`, tagged `entity:<name>`; an entity without
//!   observations becomes `"<entity> (<type>)"`; a relation becomes `"<from> <relation> <to>"`,
//!   tagged with both entities. All go into `--namespace`.
//!
//! Everything is semantic memory that never expires, with the original record under
//! `metadata.mem0` / `metadata.mcp_memory`. Ids are derived from the namespace and the record,
//! so importing the same file again skips what is there.

use std::path::Path;

use anyhow::{Context, bail};
use rearview_api::ExportedMemory;
use rearview_core::{Metadata, Namespace, Timestamp};
use serde_json::{Map, Value, json};

/// The tools whose files `import --from` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Source {
    /// `rearview export` JSON Lines (the default).
    Rearview,
    /// mem0's `get_all()` answer.
    Mem0,
    /// The MCP reference memory server's JSON Lines.
    McpMemory,
}

/// The memories in `text` (a file of `source`, not `Rearview`), each with its namespace:
/// `namespace` unless the record names its own (mem0's user or agent, when `own_namespaces`).
pub fn read(
    source: Source,
    text: &str,
    namespace: &Namespace,
    own_namespaces: bool,
    now: Timestamp,
) -> anyhow::Result<Vec<ExportedMemory>> {
    match source {
        Source::Rearview => unreachable!("rearview exports are read by transfer::import"),
        Source::Mem0 => mem0(text, namespace, own_namespaces, now),
        Source::McpMemory => mcp_memory(text, namespace, now),
    }
}

/// Reads `file` (`-` = stdin) whole.
pub fn read_text(file: &Path) -> anyhow::Result<String> {
    if file == Path::new("-") {
        return std::io::read_to_string(std::io::stdin()).context("reading stdin");
    }
    std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))
}

fn mem0(
    text: &str,
    namespace: &Namespace,
    own_namespaces: bool,
    now: Timestamp,
) -> anyhow::Result<Vec<ExportedMemory>> {
    let (items, relations) = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(mut answer)) if answer.contains_key("results") => {
            let items = answer.remove("results").unwrap_or_default();
            let relations = answer.remove("relations").unwrap_or_default();
            (as_list(items, "results")?, as_list(relations, "relations").unwrap_or_default())
        }
        Ok(Value::Array(items)) => (items, Vec::new()),
        Ok(Value::Object(_)) => bail!(
            "not a mem0 get_all() answer: expected {{\"results\": [...]}}, a list of memories or \
             one memory per line"
        ),
        // One item per line.
        _ => (json_lines(text)?, Vec::new()),
    };
    let mut memories = Vec::with_capacity(items.len() + relations.len());
    for (index, item) in items.iter().enumerate() {
        let at = format!("memory {} of the file", index + 1);
        memories.push(mem0_item(item, namespace, own_namespaces, now).context(at)?);
    }
    // get_all() answers for one user (or agent): its relations go with its memories.
    let mut owners: Vec<&str> = memories.iter().map(|m| m.namespace.as_str()).collect();
    owners.dedup();
    let relations_in: Namespace = match owners.as_slice() {
        [one] => one.parse()?,
        _ => namespace.clone(),
    };
    for (index, relation) in relations.iter().enumerate() {
        let at = format!("relation {} of the file", index + 1);
        memories.push(mem0_relation(relation, &relations_in, now).context(at)?);
    }
    Ok(memories)
}

fn mem0_item(
    item: &Value,
    namespace: &Namespace,
    own_namespaces: bool,
    now: Timestamp,
) -> anyhow::Result<ExportedMemory> {
    let field = |name: &str| item.get(name).and_then(Value::as_str).map(str::trim);
    let content = field("memory").filter(|m| !m.is_empty()).context(
        "no `memory` text: a mem0 memory is an object with `id` and `memory` (mem0's get_all())",
    )?;
    let owner = own_namespaces.then(|| field("user_id").or(field("agent_id"))).flatten();
    let target: Namespace = match owner.filter(|o| !o.is_empty()) {
        Some(owner) => owner.parse().with_context(|| {
            format!("user_id/agent_id {owner:?} is not a valid namespace; pass --namespace to import into one")
        })?,
        None => namespace.clone(),
    };
    let created = field("created_at").map(|t| time("created_at", t)).transpose()?.unwrap_or(now);
    let updated =
        field("updated_at").map(|t| time("updated_at", t)).transpose()?.unwrap_or(created);
    let mut original = Map::new();
    for key in ["id", "hash", "user_id", "agent_id", "run_id", "actor_id", "role"] {
        if let Some(value) = item.get(key).filter(|v| !v.is_null()) {
            original.insert(key.to_owned(), value.clone());
        }
    }
    let mut metadata = match item.get("metadata") {
        Some(Value::Object(extra)) => extra.clone(),
        _ => Metadata::new(),
    };
    metadata.insert("source".into(), json!("mem0"));
    metadata.insert("mem0".into(), Value::Object(original));
    let key = field("id").unwrap_or(content);
    let mut memory = semantic(&target, content, metadata, created, ("mem0", key));
    memory.updated_at = rearview_api::time(updated.max(created));
    memory.session_id = field("run_id").filter(|r| !r.is_empty()).map(str::to_owned);
    Ok(memory)
}

/// A relation of mem0's graph store: `{"source", "relationship", "target"}` (or `destination`).
fn mem0_relation(
    relation: &Value,
    namespace: &Namespace,
    now: Timestamp,
) -> anyhow::Result<ExportedMemory> {
    let field = |name: &str| relation.get(name).and_then(Value::as_str).map(str::trim);
    let (Some(from), Some(kind), Some(to)) =
        (field("source"), field("relationship"), field("target").or(field("destination")))
    else {
        bail!("a mem0 relation has `source`, `relationship` and `target`");
    };
    let content = format!("{from} {} {to}", kind.replace('_', " "));
    let metadata = tagged(
        [format!("entity:{from}"), format!("entity:{to}")],
        ("mem0", relation.clone()),
        "mem0",
    );
    Ok(semantic(namespace, &content, metadata, now, ("mem0-relation", &content)))
}

fn mcp_memory(
    text: &str,
    namespace: &Namespace,
    now: Timestamp,
) -> anyhow::Result<Vec<ExportedMemory>> {
    let mut memories = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let record: Value = serde_json::from_str(line).with_context(|| {
            format!("line {line_no} is not JSON (expected the MCP memory server's JSON Lines)")
        })?;
        let field = |name: &str| record.get(name).and_then(Value::as_str).map(str::trim);
        match field("type") {
            Some("entity") => {
                let name = field("name").filter(|n| !n.is_empty());
                let name =
                    name.with_context(|| format!("line {line_no}: an entity without a `name`"))?;
                let kind = field("entityType").unwrap_or("entity");
                let observations: Vec<&str> = record
                    .get("observations")
                    .and_then(Value::as_array)
                    .map(|list| list.iter().filter_map(Value::as_str).map(str::trim).collect())
                    .unwrap_or_default();
                let observations: Vec<&str> =
                    observations.into_iter().filter(|o| !o.is_empty()).collect();
                let mut tags = vec![format!("entity:{name}")];
                if !kind.is_empty() {
                    tags.push(format!("entity-type:{kind}"));
                }
                let mut add = |content: String, observation: Option<&str>| {
                    let original =
                        json!({ "entity": name, "entity_type": kind, "observation": observation });
                    let metadata = tagged(tags.clone(), ("mcp_memory", original), "mcp-memory");
                    memories.push(semantic(
                        namespace,
                        &content,
                        metadata,
                        now,
                        ("mcp-memory", &content),
                    ));
                };
                if observations.is_empty() {
                    add(format!("{name} ({kind})"), None);
                }
                for observation in observations {
                    add(format!("{name}: {observation}"), Some(observation));
                }
            }
            Some("relation") => {
                let (Some(from), Some(kind), Some(to)) =
                    (field("from"), field("relationType"), field("to"))
                else {
                    bail!("line {line_no}: a relation has `from`, `relationType` and `to`");
                };
                let content = format!("{from} {} {to}", kind.replace('_', " "));
                let original = json!({ "from": from, "relation_type": kind, "to": to });
                let tags = [format!("entity:{from}"), format!("entity:{to}")];
                let metadata = tagged(tags, ("mcp_memory", original), "mcp-memory");
                memories.push(semantic(
                    namespace,
                    &content,
                    metadata,
                    now,
                    ("mcp-memory", &content),
                ));
            }
            other => bail!(
                "line {line_no}: `type` is {other:?}; the MCP memory server writes \"entity\" and \"relation\" lines"
            ),
        }
    }
    Ok(memories)
}

/// Metadata with `tags`, the original record under `key` and `source`.
fn tagged(
    tags: impl IntoIterator<Item = String>,
    (key, original): (&str, Value),
    source: &str,
) -> Metadata {
    let mut metadata = Metadata::new();
    let tags: Vec<Value> = tags.into_iter().map(Value::String).collect();
    metadata.insert("tags".into(), Value::Array(tags));
    metadata.insert("source".into(), json!(source));
    metadata.insert(key.into(), original);
    metadata
}

/// A semantic memory that never expires, whose id is derived from `namespace` and `identity` (so
/// a second import of the same record finds it there).
fn semantic(
    namespace: &Namespace,
    content: &str,
    metadata: Metadata,
    at: Timestamp,
    (kind, identity): (&str, &str),
) -> ExportedMemory {
    let digest = rearview_core::content_hash(&format!("{kind}\0{namespace}\0{identity}"));
    let bytes: Vec<u8> =
        (0..16).map(|i| u8::from_str_radix(&digest[2 * i..2 * i + 2], 16).unwrap_or(0)).collect();
    let bytes: [u8; 16] = bytes.try_into().unwrap_or([0; 16]);
    let id = uuid::Builder::from_custom_bytes(bytes).into_uuid();
    let at = rearview_api::time(at);
    ExportedMemory {
        id: id.to_string(),
        namespace: namespace.as_str().to_owned(),
        memory_type: "semantic".into(),
        content: content.to_owned(),
        summary: None,
        metadata,
        session_id: None,
        ttl: 0,
        timestamp: at.clone(),
        occurred_at: at.clone(),
        updated_at: at,
        last_accessed_at: None,
        expires_at: None,
        access_count: 0,
        archived: false,
        source_ids: Vec::new(),
        content_hash: None,
        superseded_by: None,
        invalid_at: None,
        link: None,
        possible_updates: Vec::new(),
        vectors: None,
    }
}

/// An RFC 3339 time, or a naive one (Python's `isoformat()` without a zone) taken as UTC.
fn time(field: &'static str, text: &str) -> anyhow::Result<Timestamp> {
    if let Ok(t) = rearview_core::parse_timestamp(field, text) {
        return Ok(t);
    }
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
        .map(|t| t.and_utc())
        .with_context(|| format!("`{field}` {text:?} is not a time (RFC 3339)"))
}

fn as_list(value: Value, key: &str) -> anyhow::Result<Vec<Value>> {
    match value {
        Value::Array(items) => Ok(items),
        Value::Null => Ok(Vec::new()),
        _ => bail!("`{key}` is not a list"),
    }
}

fn json_lines(text: &str) -> anyhow::Result<Vec<Value>> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            serde_json::from_str(line).with_context(|| {
                format!(
                    "line {} is not JSON: expected mem0's get_all() answer ({{\"results\": [...]}}), \
                     a list of memories, or one memory per line",
                    index + 1
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(name: &str) -> Namespace {
        name.parse().unwrap()
    }

    fn now() -> Timestamp {
        rearview_core::parse_timestamp("now", "2026-12-07T00:00:00Z").unwrap()
    }

    #[test]
    fn mem0_items_keep_owner_times_and_payload() {
        let answer = json!({"results": [
            {"id": "8f6a0c1e-4d1b-4f43-9a57-3c2e1f0b9d11", "memory": "Is vegetarian", "hash": "abc",
             "metadata": {"category": "food"}, "score": null,
             "created_at": "2024-07-20T01:30:00.123456-07:00", "updated_at": null, "user_id": "alice"},
            {"id": "2", "memory": "Prefers short answers", "hash": "def", "metadata": null,
             "created_at": "2024-07-21T10:00:00", "updated_at": "2024-07-22T10:00:00",
             "agent_id": "helper", "run_id": "run-7", "role": "user"},
        ], "relations": [{"source": "alice", "relationship": "works_at", "target": "acme"}]});
        let read = read(Source::Mem0, &answer.to_string(), &ns("default"), true, now()).unwrap();
        assert_eq!(read.len(), 3);
        assert_eq!(
            (read[0].namespace.as_str(), read[0].content.as_str()),
            ("alice", "Is vegetarian")
        );
        assert_eq!(read[0].occurred_at, "2024-07-20T08:30:00.123456Z");
        assert_eq!(read[0].metadata["category"], "food");
        assert_eq!(read[0].metadata["mem0"]["id"], "8f6a0c1e-4d1b-4f43-9a57-3c2e1f0b9d11");
        assert_eq!(
            (read[1].namespace.as_str(), read[1].session_id.as_deref()),
            ("helper", Some("run-7"))
        );
        assert_eq!(read[1].updated_at, "2024-07-22T10:00:00Z");
        assert_eq!(
            (read[2].namespace.as_str(), read[2].content.as_str()),
            ("default", "alice works at acme")
        );
        // The same file again yields the same ids; another namespace, others.
        let again =
            super::read(Source::Mem0, &answer.to_string(), &ns("default"), true, now()).unwrap();
        assert_eq!(again[0].id, read[0].id);
        let elsewhere =
            super::read(Source::Mem0, &answer.to_string(), &ns("x"), false, now()).unwrap();
        assert_eq!(elsewhere[0].namespace, "x");
        assert_ne!(elsewhere[0].id, read[0].id);
    }

    #[test]
    fn mem0_relations_go_with_the_one_owner() {
        let answer = json!({"results": [{"id": "1", "memory": "Likes tea", "user_id": "carol"}],
            "relations": [{"source": "carol", "relationship": "lives_in", "destination": "oslo"}]});
        let read = read(Source::Mem0, &answer.to_string(), &ns("default"), true, now()).unwrap();
        assert_eq!(
            (read[1].namespace.as_str(), read[1].content.as_str()),
            ("carol", "carol lives in oslo")
        );
    }

    #[test]
    fn mem0_errors_name_the_record() {
        let error =
            read(Source::Mem0, r#"{"results": [{"id": "1"}]}"#, &ns("d"), true, now()).unwrap_err();
        assert!(
            format!("{error:#}").contains("memory 1 of the file: no `memory` text"),
            "{error:#}"
        );
        let error = read(Source::Mem0, r#"{"memories": []}"#, &ns("d"), true, now()).unwrap_err();
        assert!(error.to_string().contains("not a mem0 get_all() answer"), "{error}");
    }

    #[test]
    fn mcp_memory_entities_and_relations() {
        let file = [
            r#"{"type":"entity","name":"John_Smith","entityType":"person","observations":["Speaks fluent Spanish","喜欢爬山"]}"#,
            r#"{"type":"entity","name":"Anthropic","entityType":"organization","observations":[]}"#,
            r#"{"type":"relation","from":"John_Smith","to":"Anthropic","relationType":"works_at"}"#,
        ]
        .join("\n");
        let read = read(Source::McpMemory, &file, &ns("kg"), true, now()).unwrap();
        let contents: Vec<&str> = read.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(
            contents,
            [
                "John_Smith: Speaks fluent Spanish",
                "John_Smith: 喜欢爬山",
                "Anthropic (organization)",
                "John_Smith works at Anthropic"
            ]
        );
        assert_eq!(read[0].metadata["tags"], json!(["entity:John_Smith", "entity-type:person"]));
        assert_eq!(read[1].metadata["mcp_memory"]["observation"], "喜欢爬山");
        assert_eq!(read[3].metadata["tags"], json!(["entity:John_Smith", "entity:Anthropic"]));
        assert!(read.iter().all(|m| m.namespace == "kg" && m.memory_type == "semantic"));
        let error = read_err("{\"type\":\"thing\"}");
        assert!(error.contains("line 1: `type` is Some(\"thing\")"), "{error}");
    }

    fn read_err(text: &str) -> String {
        format!("{:#}", read(Source::McpMemory, text, &ns("kg"), true, now()).unwrap_err())
    }
}
