//! The design's own answer shapes for `POST /mcp/tools/call` (article §4.4), where they differ
//! from rearview's: its LangChain tools (§4.5) read `result[i]["content"]` from a recall, so a
//! recall through that endpoint answers a list of
//! `{id, timestamp, content, memory_type, metadata, score}`. `store_memory`'s
//! `{"id", "status"}` and `cleanup_expired`'s `{"cleaned"}` are already part of rearview's
//! answers. Everything else answers as over MCP.

use serde_json::{Value, json};

/// Reshapes tool `name`'s rearview answer into the design's, where the design defines one.
pub fn design_result(name: &str, result: Value) -> Value {
    match name {
        "retrieve_memory" => retrieve_result(&result),
        _ => result,
    }
}

/// A recall (`{"hits": [{"score", "memory": {...}}]}`) as the design's list.
fn retrieve_result(recall: &Value) -> Value {
    let hits = recall["hits"].as_array().map(Vec::as_slice).unwrap_or_default();
    Value::Array(
        hits.iter()
            .map(|hit| {
                let m = &hit["memory"];
                json!({
                    "id": m["id"],
                    "timestamp": m["timestamp"],
                    "content": m["content"],
                    "memory_type": m["memory_type"],
                    "metadata": m["metadata"],
                    "score": hit["score"],
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recall_becomes_the_designs_list_in_rank_order() {
        let recall = json!({
            "hits": [
                {"score": 0.9, "memory": {"id": "a", "timestamp": "t1", "content": "端口 8765",
                  "memory_type": "semantic", "metadata": {"k": 1}, "namespace": "n"}},
                {"score": 0.5, "memory": {"id": "b", "timestamp": "t2", "content": "dark theme",
                  "memory_type": "episodic", "metadata": {}}}
            ],
            "query_terms": ["端口"]
        });
        let list = design_result("retrieve_memory", recall);
        assert_eq!(list[0]["content"], "端口 8765");
        assert_eq!(list[0]["score"], 0.9);
        assert_eq!(list[1]["id"], "b");
        assert_eq!(list[1]["memory_type"], "episodic");
        assert!(list[0].get("namespace").is_none());
    }

    #[test]
    fn other_tools_answer_as_over_mcp() {
        let stored = json!({"id": "x", "status": "stored", "memory": {}});
        assert_eq!(design_result("store_memory", stored.clone()), stored);
    }
}
