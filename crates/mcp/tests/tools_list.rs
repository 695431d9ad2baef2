//! Golden snapshot of `tools/list`: MCP clients are picky about schemas (design §5.4), so every
//! change to a tool's name, description, schema or annotations must show up in review.
//! Regenerate with `REARVIEW_UPDATE_SNAPSHOTS=1 cargo test -p rearview-mcp`.

use std::path::PathBuf;

#[test]
fn tools_list_matches_the_snapshot() {
    let actual = serde_json::to_string_pretty(&rearview_mcp::tool_definitions()).unwrap() + "\n";
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/tools_list.json");
    if std::env::var_os("REARVIEW_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "tools/list changed; review the diff and rerun with REARVIEW_UPDATE_SNAPSHOTS=1\n{actual}"
    );
}

#[test]
fn every_tool_has_a_description_an_object_schema_and_annotations() {
    let tools = rearview_mcp::tool_definitions();
    for tool in tools.as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        assert!(tool["description"].as_str().is_some_and(|d| d.len() > 30), "{name}: description");
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}: schema");
        assert!(tool["annotations"]["readOnlyHint"].is_boolean(), "{name}: annotations");
    }
}
