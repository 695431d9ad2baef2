//! Operating rearview: layered configuration through the real binary, `doctor`, `health`,
//! export → import round trips, and graceful shutdown of the HTTP server under write load.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::rearview;

fn ok(out: Output, what: &str) -> String {
    assert!(out.status.success(), "{what} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn json(out: Output, what: &str) -> serde_json::Value {
    serde_json::from_str(&ok(out, what)).unwrap()
}

#[test]
fn config_show_reports_each_layer_and_redacts_secrets() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("config").join("rearview");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "sweep_interval = 10\narchive_after_days = 5\nllm_timeout = 30\nembed_api_key = \"sk-in-the-file\"\n[llm]\nurl = \"https://ann:hunter2@llm.test/v1\"\nmodel = \"qwen\"\n",
    )
    .unwrap();
    let out = rearview(home.path())
        .env("REARVIEW_ARCHIVE_AFTER_DAYS", "6")
        .env("REARVIEW_LLM_TIMEOUT", "40")
        .args(["--llm-timeout", "50", "--json", "config", "show"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let shown = json(out, "config show");
    let s = &shown["settings"];
    assert_eq!(s["sweep_interval"]["value"], "10");
    assert!(s["sweep_interval"]["source"].as_str().unwrap().starts_with("config file"));
    assert_eq!(s["archive_after_days"]["value"], "6");
    assert_eq!(
        s["archive_after_days"]["source"],
        "environment variable REARVIEW_ARCHIVE_AFTER_DAYS"
    );
    assert_eq!(s["llm_timeout"]["value"], "50");
    assert_eq!(s["llm_timeout"]["source"], "flag --llm-timeout");
    assert_eq!(s["max_content_chars"]["source"], "default");
    assert_eq!(s["embed_api_key"]["value"], "<redacted>");
    assert_eq!(s["llm_url"]["value"], "https://ann:<redacted>@llm.test/v1");
    assert!(!text.contains("sk-in-the-file") && !text.contains("hunter2"), "{text}");
}

#[test]
fn the_designs_settings_yaml_and_variable_names_work() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join("settings.yaml");
    std::fs::write(&settings, "namespace: 团队\nmax_content_chars: 20\n").unwrap();
    let db = home.path().join("app").join("memory.db");
    let run = |args: &[&str]| {
        rearview(home.path())
            .env("REARVIEW_CONFIG", &settings)
            .env("DB_PATH", &db)
            .args(args)
            .output()
            .unwrap()
    };
    ok(run(&["add", "短的记忆"]), "add");
    assert!(db.exists(), "DB_PATH chose the database");
    let listed = json(run(&["--json", "list"]), "list");
    assert_eq!(listed[0]["namespace"], "团队");
    let too_long = run(&["add", "这一条记忆的内容超过了配置文件里设置的二十个字符的上限"]);
    assert_eq!(too_long.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&too_long.stderr).contains("20"));
    let bad = rearview(home.path())
        .env("REARVIEW_CONFIG", &settings)
        .env("VECTOR_DIM", "many")
        .args(["stats"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("`vector_dim`") && err.contains("VECTOR_DIM"), "{err}");
}

#[test]
fn the_shipped_config_file_is_valid() {
    let home = tempfile::tempdir().unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/settings.yaml");
    let shown = json(
        rearview(home.path())
            .env("REARVIEW_CONFIG", &shipped)
            .args(["--json", "config", "show"])
            .output()
            .unwrap(),
        "config show",
    );
    assert_eq!(shown["settings"]["dedup_threshold"]["value"], "0.95");
    assert!(
        shown["settings"]["dedup_threshold"]["source"].as_str().unwrap().contains("settings.yaml")
    );
    let supersede = &shown["settings"]["supersede_threshold"];
    assert_eq!(
        (
            supersede["value"].as_str(),
            supersede["source"].as_str().map(|s| s.contains("settings.yaml"))
        ),
        (Some("0.82"), Some(true)),
        "{supersede}"
    );
    let off = rearview(home.path())
        .args(["--json", "--supersede-threshold", "off", "config", "show"])
        .output()
        .unwrap();
    let off = json(off, "config show");
    assert_eq!(off["settings"]["supersede_threshold"]["value"], "off");
    assert_eq!(off["settings"]["supersede_by_rule"]["value"], "true", "on by default");
    let rule = rearview(home.path())
        .env("REARVIEW_SUPERSEDE_BY_RULE", "false")
        .args(["--json", "config", "show"])
        .output()
        .unwrap();
    assert_eq!(json(rule, "config show")["settings"]["supersede_by_rule"]["value"], "false");
}

#[test]
fn doctor_checks_and_says_what_to_fix() {
    use rearview_embed::testing::{Reply, serve};

    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("d.db");
    let out = rearview(home.path()).args(["--db"]).arg(&db).args(["add", "x"]).output().unwrap();
    ok(out, "add");
    let report = json(
        rearview(home.path())
            .args(["--db"])
            .arg(&db)
            .env("REARVIEW_LISTEN", "127.0.0.1:0")
            .args(["--json", "doctor"])
            .output()
            .unwrap(),
        "doctor",
    );
    let checks = report["checks"].as_array().unwrap();
    let status = |name: &str| {
        checks.iter().find(|c| c["name"] == name).map(|c| c["status"].as_str().unwrap().to_owned())
    };
    assert_eq!(status("database").as_deref(), Some("ok"), "{report}");
    assert_eq!(status("embedding model").as_deref(), Some("skip"), "{report}");
    assert_eq!(status("llm endpoint").as_deref(), Some("skip"));
    assert_eq!(status("listen address").as_deref(), Some("ok"));
    let db_detail = checks.iter().find(|c| c["name"] == "database").unwrap()["detail"].to_string();
    assert!(db_detail.contains("1 memories") && db_detail.contains("integrity ok"), "{db_detail}");

    // A model whose dimension disagrees with VECTOR_DIM, and an LLM that is not there.
    let (url, _) = serve(vec![Reply::ok()]);
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let out = rearview(home.path())
        .args(["--db"])
        .arg(&db)
        .env("REARVIEW_LISTEN", "127.0.0.1:0")
        .env("VECTOR_DIM", "7")
        .args(["--embed-url", &url, "--embed-model", "m"])
        .args(["--llm-url", &format!("http://{dead}/v1"), "--llm-model", "q", "doctor"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "a failed check exits 1");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[FAIL] embedding model") && text.contains("`vector_dim`"), "{text}");
    assert!(text.contains("[FAIL] llm endpoint") && text.contains("unreachable"), "{text}");
    assert!(text.contains("fix: start the LLM server"), "{text}");

    // A damaged file is reported, not "fixed".
    let broken = home.path().join("broken.db");
    std::fs::write(&broken, b"this is not a database").unwrap();
    let out = rearview(home.path())
        .args(["--db"])
        .arg(&broken)
        .env("REARVIEW_LISTEN", "127.0.0.1:0")
        .arg("doctor")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("[FAIL] database"));
    assert_eq!(std::fs::read(&broken).unwrap(), b"this is not a database");
}

#[test]
fn export_then_import_preserves_every_field_and_vector() {
    use rearview_embed::testing::{Reply, serve};

    let home = tempfile::tempdir().unwrap();
    let (url, _) = serve(vec![Reply::ok()]);
    let (a, b) = (home.path().join("a.db"), home.path().join("b.db"));
    let run = |db: &Path, args: &[&str]| {
        rearview(home.path())
            .arg("--db")
            .arg(db)
            .args(["--embed-url", &url, "--embed-model", "m", "-n", "alice"])
            .args(args)
            .output()
            .unwrap()
    };
    let first = json(
        run(
            &a,
            &[
                "--json",
                "add",
                "用户把数据库从 MySQL 迁移到了 PostgreSQL",
                "--tag",
                "db",
                "--session",
                "s1",
                "--occurred-at",
                "2024-03-01T08:30:00.123456Z",
            ],
        ),
        "add",
    );
    json(
        run(
            &a,
            &[
                "--json",
                "add",
                "The deploy port is 8765",
                "--type",
                "semantic",
                "--metadata",
                r#"{"source":"chat","confidence":0.9}"#,
            ],
        ),
        "add",
    );
    json(run(&a, &["--json", "add", "working note", "--type", "working", "--ttl", "1"]), "add");
    let archived = json(run(&a, &["--json", "add", "an old episode to archive"]), "add");
    ok(run(&a, &["archive", archived["id"].as_str().unwrap()]), "archive");
    ok(run(&a, &["recall", "数据库 迁移"]), "recall bumps access counts");
    std::thread::sleep(Duration::from_millis(1100)); // the working note expires: exported anyway

    let dump1 = home.path().join("1.jsonl");
    ok(run(&a, &["export", "--vectors", "-o", dump1.to_str().unwrap()]), "export");
    let imported = json(run(&b, &["--json", "import", dump1.to_str().unwrap()]), "import");
    assert_eq!((imported["inserted"].as_u64(), imported["skipped"].as_u64()), (Some(4), Some(0)));
    assert_eq!(imported["embedded"], 0, "the vectors came from the file");
    let again = json(run(&b, &["--json", "import", dump1.to_str().unwrap()]), "import");
    assert_eq!((again["inserted"].as_u64(), again["skipped"].as_u64()), (Some(0), Some(4)));

    let dump2 = home.path().join("2.jsonl");
    ok(run(&b, &["export", "--vectors", "-o", dump2.to_str().unwrap()]), "export");
    let body = |p: &Path| {
        let text = std::fs::read_to_string(p).unwrap();
        text.lines().skip(1).map(str::to_owned).collect::<Vec<_>>()
    };
    let (lines1, lines2) = (body(&dump1), body(&dump2));
    assert_eq!(lines1.len(), 4);
    assert_eq!(lines1, lines2, "byte-identical memories: content, ids, timestamps, vectors");
    let line: serde_json::Value = serde_json::from_str(&lines1[0]).unwrap();
    assert_eq!(line["id"], first["id"]);
    assert_eq!(line["occurred_at"], "2024-03-01T08:30:00.123456Z");
    assert_eq!(line["access_count"], 1);
    assert!(line["vectors"][0]["embedding"].as_array().unwrap().len() > 1);
    assert!(lines1.iter().any(|l| l.contains("\"archived\":true")));

    // The imported copy is searchable at once.
    let hits =
        json(run(&b, &["--json", "recall", "PostgreSQL", "--as-of", "2024-03-02"]), "recall");
    assert_eq!(hits["hits"][0]["memory"]["id"], first["id"]);

    // Without vectors, another namespace, re-embedded on import.
    let bare = home.path().join("bare.jsonl");
    ok(run(&a, &["export", "-o", bare.to_str().unwrap()]), "export");
    let out = rearview(home.path())
        .arg("--db")
        .arg(&b)
        .args(["--embed-url", &url, "--embed-model", "m", "-n", "bob", "--json", "import"])
        .arg(&bare)
        .output()
        .unwrap();
    let report = json(out, "import");
    assert_eq!(report["inserted"], 0, "ids are global: the same memories are not copied twice");

    // A damaged line is refused with its line number; the lines before it are written (in one
    // batch with it), nothing after it.
    let text = std::fs::read_to_string(&bare).unwrap().replace("8765", "9999");
    let bad_line = text.lines().position(|l| l.contains("9999")).unwrap() + 1;
    assert!(bad_line > 2, "the damaged memory has others before it");
    let damaged = home.path().join("damaged.jsonl");
    std::fs::write(&damaged, text).unwrap();
    let c = home.path().join("c.db");
    let out = run(&c, &["import", damaged.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("line {bad_line}")) && err.contains("content_hash"), "{err}");
    let dump3 = home.path().join("3.jsonl");
    ok(run(&c, &["export", "-o", dump3.to_str().unwrap()]), "export");
    let written = body(&dump3);
    assert_eq!(written.len(), bad_line - 2, "every memory above the damaged line");
    assert_eq!(written, body(&bare)[..bad_line - 2]);
}

/// Starts `rearview serve` on a free port; returns the child and its address.
fn start_server(home: &Path, db: &Path) -> (Child, String) {
    let mut cmd = rearview(home);
    cmd.arg("--db").arg(db).args(["serve", "--listen", "127.0.0.1:0"]);
    common::start(cmd)
}

/// One HTTP/1.1 request on a fresh connection; the status and body, or an I/O error.
fn http(address: &str, method: &str, path: &str, body: &str) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let status = response
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status line in {response:?}")))?;
    let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    Ok((status, body))
}

#[test]
fn sigterm_under_write_load_loses_no_acknowledged_write() {
    let home = tempfile::tempdir().unwrap();
    let db: PathBuf = home.path().join("serve.db");
    let (mut child, address) = start_server(home.path(), &db);
    let health = rearview(home.path())
        .args(["health", "--url", &format!("http://{address}")])
        .output()
        .unwrap();
    assert!(health.status.success(), "health: {}", String::from_utf8_lossy(&health.stderr));

    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (acknowledged, stop, address) =
                (Arc::clone(&acknowledged), Arc::clone(&stop), address.clone());
            std::thread::spawn(move || {
                for i in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let body = serde_json::json!({ "content": format!("写入 {w}-{i}: load test memory"), "dedup": false });
                    match http(&address, "POST", "/v1/memories", &body.to_string()) {
                        Ok((201, text)) => {
                            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
                            let id = v["memory"]["id"].as_str().or(v["id"].as_str());
                            acknowledged.lock().unwrap().push(id.unwrap().to_owned());
                        }
                        // Refused or cut off during shutdown: not acknowledged, not counted.
                        Ok(_) | Err(_) => break,
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(1500));
    let before = acknowledged.lock().unwrap().len();
    assert!(before > 20, "the load is real: {before} writes in 1.5 s");
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the server did not stop within 30 s of SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    assert!(status.success(), "SIGTERM is a clean shutdown: {status}");
    let ids = acknowledged.lock().unwrap().clone();
    let dump = home.path().join("after-shutdown.jsonl");
    let out =
        rearview(home.path()).arg("--db").arg(&db).arg("export").arg("-o").arg(&dump).output();
    ok(out.unwrap(), "export");
    let stored: std::collections::HashSet<String> = std::fs::read_to_string(&dump)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].as_str().unwrap().to_owned()
        })
        .collect();
    let missing: Vec<_> = ids.iter().filter(|id| !stored.contains(*id)).collect();
    assert!(missing.is_empty(), "{} of {} acknowledged writes lost", missing.len(), ids.len());
}
