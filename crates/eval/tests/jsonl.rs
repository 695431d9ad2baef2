//! The generic JSONL format end to end with the test embedder: loading, errors naming the line,
//! scoring, dedup mapping, and unknown configurations.

use std::sync::Arc;

use rearview_embed::{Embedder, TestEmbedder};
use rearview_eval::{NoProgress, config, load_jsonl};

fn write(lines: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.jsonl");
    std::fs::write(&path, lines.join("\n")).unwrap();
    (dir, path)
}

#[tokio::test]
async fn a_small_benchmark_scores_as_computed_by_hand() {
    let (_dir, path) = write(&[
        r#"{"type":"memory","namespace":"u1","id":"m1","text":"我喜欢在周末去香山爬山","timestamp":"2024-03-02T10:00:00Z"}"#,
        r#"{"type":"memory","namespace":"u1","id":"m2","text":"the api listens on port 8765","timestamp":"2024-03-03"}"#,
        r#"{"type":"memory","namespace":"u1","id":"m3","text":"the api listens on port 8765","timestamp":"2024-03-04"}"#,
        r#"{"type":"memory","namespace":"u2","id":"m1","text":"likes green tea","timestamp":"2024-03-02"}"#,
        "",
        r#"{"type":"question","namespace":"u1","id":"q1","text":"爬山","as_of":"2024-03-10","gold":["m1"],"category":"hobby"}"#,
        r#"{"type":"question","namespace":"u1","id":"q2","text":"port 8765","as_of":"2024-03-10","gold":["m3"]}"#,
        r#"{"type":"question","namespace":"u2","id":"q3","text":"green tea","as_of":"2024-03-10","gold":["m1"]}"#,
        r#"{"type":"question","namespace":"u2","id":"q4","text":"nothing","as_of":"2024-03-10","gold":[]}"#,
    ]);
    let data = load_jsonl(&path).unwrap();
    // q4 has no gold: a question about something never stored, scored by an empty answer.
    assert_eq!((data.memories.len(), data.questions.len(), data.skipped.len()), (4, 4, 0));
    let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new(64));
    let configs = [
        config("bm25").unwrap(),
        config("hybrid-nodecay").unwrap(),
        config("weighted:0.5:0.5:20+decay").unwrap(),
    ];
    let report = rearview_eval::run(&data, Some(embedder), &configs, &NoProgress).await.unwrap();
    assert_eq!(report.merged, 1, "m3 repeats m2 word for word and merges into it");
    for c in ["bm25", "hybrid-nodecay", "weighted:0.5:0.5:20+decay"] {
        // m3 merged into m2's memory, so that memory stands for both ids and q2 is found.
        assert_eq!(report.get(c, "frac", 1), Some(1.0), "{c}: {}", report.to_text());
        assert_eq!(report.get(c, "mrr", 50), Some(1.0));
    }
    // Keywords alone find nothing for `nothing`; the vector configurations return their
    // nearest (the test embedder has no relevance floor).
    assert_eq!(report.get("bm25", "empty", 50), Some(1.0));
    assert_eq!(report.get("hybrid-nodecay", "empty", 50), Some(0.0));
    let json = report.to_json();
    assert_eq!(json["configs"][0]["categories"]["hobby"]["questions"], 1, "{json}");
    assert!(report.to_text().contains("frac@5"));
}

#[test]
fn bad_lines_and_unknown_configurations_are_named() {
    let (_dir, path) = write(&[
        r#"{"type":"memory","namespace":"u1","id":"m1","text":"x","timestamp":"2024-03-02"}"#,
        r#"{"type":"memory","namespace":"u1","id":"m2","text":"y","timestamp":"yesterday"}"#,
    ]);
    let err = load_jsonl(&path).unwrap_err().to_string();
    assert!(err.contains("line 2") && err.contains("timestamp"), "{err}");
    let (_dir, path) = write(&[r#"{"type":"note","text":"x"}"#]);
    assert!(load_jsonl(&path).unwrap_err().to_string().contains("line 1"));
    let err = config("best").unwrap_err().to_string();
    assert!(err.contains("bm25") && err.contains("weighted:V:K:S"), "{err}");
    assert!(config("weighted:1:2").is_err());
}

#[tokio::test]
async fn exact_ties_break_the_same_way_on_every_run() {
    // Twelve memories of one instant that BM25 scores alike for `apple` (one match each, two
    // words each). Ties break by creation order, so the first stored comes first: before the
    // run stored each a millisecond after the one before, their ids (one instant) ordered by
    // random bits and so did these twelve.
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"];
    let lines: Vec<String> = names
        .iter()
        .map(|n| {
            format!(
                r#"{{"type":"memory","namespace":"u1","id":"m{n}","text":"apple {n}{n}{n}","timestamp":"2024-03-02T10:00:00Z"}}"#
            )
        })
        .chain([
            r#"{"type":"question","namespace":"u1","id":"q1","text":"apple","as_of":"2024-03-10","gold":["ma"]}"#.to_owned(),
        ])
        .collect();
    let (_dir, path) = write(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    let data = load_jsonl(&path).unwrap();
    let expected: Vec<Vec<String>> = names[..10].iter().map(|n| vec![format!("m{n}")]).collect();
    for _ in 0..3 {
        let report =
            rearview_eval::run(&data, None, &[config("bm25").unwrap()], &NoProgress).await.unwrap();
        assert_eq!(report.configs[0].answers[0].top, expected);
    }
}
