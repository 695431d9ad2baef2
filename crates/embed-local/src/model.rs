//! The local runtime: a BERT-family encoder loaded from a standard model directory.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use async_trait::async_trait;
use rearview_core::Embedding;
use rearview_embed::{EmbedError, Embedder, TextKind, validate_batch};
use tokenizers::Tokenizer;

use crate::encoder::{Config, Encoder, read_safetensors};
use crate::error::ModelError;
use crate::manifest::{ModelManifest, Pooling};

/// How a [`LocalEmbedder`] runs.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Threads of the inference pool. Defaults to the machine's available parallelism; set lower
    /// when the server shares the machine with other CPU-heavy work.
    pub threads: usize,
    /// Tokens per forward pass: windows are packed end to end, never padded, up to this many
    /// tokens (a longer window runs alone). Bounds the pass's working memory: about
    /// `batch_tokens × (6·hidden + intermediate) × 4` bytes, 63 MiB for e5-small at 4,096.
    pub batch_tokens: usize,
    /// Windows per text: a text longer than the model's window is embedded as up to this many
    /// windows whose mean vectors are averaged (weighted by tokens); the rest is ignored.
    pub max_windows: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        Self { threads, batch_tokens: 4096, max_windows: 8 }
    }
}

/// A local transformer embedder (BERT and XLM-RoBERTa checkpoints: multilingual-e5, bge,
/// bge-m3, MiniLM): mean or CLS pooling, L2-normalised, with the model's query/passage prefixes.
///
/// Loaded once; [`Embedder::embed`] runs on a dedicated pool of [`LoadOptions::threads`]
/// threads, one batch at a time, so concurrent requests queue instead of oversubscribing the
/// cores.
#[derive(Clone)]
pub struct LocalEmbedder {
    inner: Arc<Inner>,
}

struct Inner {
    id: String,
    dims: usize,
    manifest: ModelManifest,
    tokenizer: Tokenizer,
    encoder: Encoder,
    /// The ids wrapped around every window (`<s>`/`</s>` or `[CLS]`/`[SEP]`).
    bos: u32,
    eos: u32,
    pool: rayon::ThreadPool,
    /// One forward pass at a time: the pool already uses every thread it may.
    running: Mutex<()>,
    options: LoadOptions,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder")
            .field("id", &self.inner.id)
            .field("dims", &self.inner.dims)
            .field("threads", &self.inner.options.threads)
            .finish()
    }
}

impl LocalEmbedder {
    /// Loads `dir` (config.json, tokenizer.json, model.safetensors, optional
    /// rearview-model.json). Takes a second or two for a small model; call it once at start-up.
    pub fn load(dir: &Path, options: LoadOptions) -> Result<Self, ModelError> {
        let started = Instant::now();
        let manifest = match ModelManifest::read(dir)? {
            Some(m) => {
                m.check_sizes(dir)?;
                m
            }
            None => manifest_for_plain_dir(dir)?,
        };
        let config_path = require(dir, "config.json")?;
        let config_text = std::fs::read_to_string(&config_path)
            .map_err(ModelError::io("reading", &config_path))?;
        let config: Config = serde_json::from_str(&config_text).map_err(|e| {
            ModelError::format(&config_path, format!("not a BERT-family config.json: {e}"))
        })?;

        let tokenizer_path = require(dir, "tokenizer.json")?;
        let weights_path = require(dir, "model.safetensors")?;
        // The tokenizer (for e5, a Unigram trie of 250,037 pieces: about half the load time)
        // builds on its own thread while the weights are read.
        let (tokenizer, encoder) = std::thread::scope(|scope| {
            let tokenizer = scope.spawn(|| load_tokenizer(&tokenizer_path));
            let encoder = read_safetensors(&weights_path)
                .and_then(|tensors| Encoder::new(&config, tensors, &weights_path));
            let tokenizer = tokenizer.join().unwrap_or_else(|_| {
                Err(ModelError::format(&tokenizer_path, "the tokenizer panicked while loading"))
            });
            (tokenizer, encoder)
        });
        let (tokenizer, bos, eos) = tokenizer?;
        let encoder = encoder?;

        let max_positions = encoder.max_positions();
        let mut manifest = manifest;
        manifest.max_tokens = manifest.max_tokens.clamp(3, max_positions);
        let threads = options.threads.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("rearview-embed-{i}"))
            .build()
            .map_err(|e| ModelError::Runtime(format!("starting the inference pool: {e}")))?;
        let embedder = Self {
            inner: Arc::new(Inner {
                id: manifest.id.clone(),
                dims: encoder.hidden(),
                manifest,
                tokenizer,
                encoder,
                bos,
                eos,
                pool,
                running: Mutex::new(()),
                options: LoadOptions { threads, ..options },
            }),
        };
        tracing::info!(
            model = %embedder.inner.id,
            dims = embedder.inner.dims,
            threads,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "local embedding model loaded"
        );
        Ok(embedder)
    }

    /// The manifest in effect (prefixes, pooling, window size).
    pub fn manifest(&self) -> &ModelManifest {
        &self.inner.manifest
    }

    /// Embeds on the calling thread (blocking). Returns raw pooled vectors, not yet normalised.
    pub fn embed_blocking(
        &self,
        texts: &[String],
        kind: TextKind,
    ) -> Result<Vec<Vec<f32>>, ModelError> {
        self.inner.embed(texts, kind)
    }
}

impl Inner {
    fn embed(&self, texts: &[String], kind: TextKind) -> Result<Vec<Vec<f32>>, ModelError> {
        let prefix = match kind {
            TextKind::Query => &self.manifest.query_prefix,
            TextKind::Passage => &self.manifest.passage_prefix,
        };
        // 1. Tokenise every text into windows of content tokens.
        let window = self.manifest.max_tokens - 2;
        let mut windows: Vec<(usize, Vec<u32>)> = Vec::with_capacity(texts.len());
        for (i, text) in texts.iter().enumerate() {
            let full = format!("{prefix}{text}");
            let encoding = self
                .tokenizer
                .encode(full.as_str(), false)
                .map_err(|e| ModelError::Tokenizer(e.to_string()))?;
            let ids = encoding.get_ids();
            if ids.is_empty() {
                windows.push((i, Vec::new()));
                continue;
            }
            for chunk in ids.chunks(window).take(self.options.max_windows) {
                windows.push((i, chunk.to_vec()));
            }
        }
        // 2. Run the windows in passes of up to `batch_tokens` tokens.
        let mut sums = vec![vec![0f32; self.dims]; texts.len()];
        let mut weights = vec![0f32; texts.len()];
        let _running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let mut first = 0;
        while first < windows.len() {
            let mut last = first + 1;
            let mut tokens = windows[first].1.len() + 2;
            while last < windows.len()
                && tokens + windows[last].1.len() + 2 <= self.options.batch_tokens
            {
                tokens += windows[last].1.len() + 2;
                last += 1;
            }
            let batch = &windows[first..last];
            let seqs: Vec<&[u32]> = batch.iter().map(|(_, ids)| ids.as_slice()).collect();
            let pooled = self.pool.install(|| self.forward(&seqs))?;
            for ((text, ids), vector) in batch.iter().zip(pooled) {
                let weight = (ids.len() + 2) as f32;
                weights[*text] += weight;
                for (s, v) in sums[*text].iter_mut().zip(vector) {
                    *s += v * weight;
                }
            }
            first = last;
        }
        for (sum, weight) in sums.iter_mut().zip(weights) {
            if weight > 0.0 {
                sum.iter_mut().for_each(|s| *s /= weight);
            }
        }
        Ok(sums)
    }

    /// One forward pass over `seqs` (content ids), each wrapped in bos/eos; returns one pooled
    /// vector per sequence.
    fn forward(&self, seqs: &[&[u32]]) -> Result<Vec<Vec<f32>>, ModelError> {
        let wrapped: Vec<Vec<u32>> = seqs
            .iter()
            .map(|seq| {
                let mut ids = Vec::with_capacity(seq.len() + 2);
                ids.push(self.bos);
                ids.extend_from_slice(seq);
                ids.push(self.eos);
                ids
            })
            .collect();
        self.encoder.encode(&wrapped, self.manifest.pooling)
    }
}

#[async_trait]
impl Embedder for LocalEmbedder {
    fn model_id(&self) -> &str {
        &self.inner.id
    }

    fn dimensions(&self) -> usize {
        self.inner.dims
    }

    async fn embed(&self, texts: &[String], kind: TextKind) -> Result<Vec<Embedding>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let inner = Arc::clone(&self.inner);
        let owned = texts.to_vec();
        let raw = tokio::task::spawn_blocking(move || inner.embed(&owned, kind))
            .await
            .map_err(|e| EmbedError::Unavailable {
                message: format!("embedding task failed: {e}"),
            })?
            .map_err(|e| EmbedError::BadOutput { message: e.to_string() })?;
        validate_batch(raw, texts.len(), self.inner.dims)
    }
}

/// Loads `tokenizer.json` with its own truncation and padding turned off (windows, padding and
/// specials are ours to manage; a tokenizer.json's truncation, MiniLM ships 128, would silently
/// drop text), with the start and end ids it wraps a text in.
fn load_tokenizer(path: &Path) -> Result<(Tokenizer, u32, u32), ModelError> {
    let mut tokenizer =
        Tokenizer::from_file(path).map_err(|e| ModelError::format(path, e.to_string()))?;
    tokenizer.with_truncation(None).map_err(|e| ModelError::format(path, e.to_string()))?;
    tokenizer.with_padding(None);
    let (bos, eos) = window_specials(&tokenizer).ok_or_else(|| {
        ModelError::format(
            path,
            "its post-processor does not wrap a text in one start and one end token",
        )
    })?;
    Ok((tokenizer, bos, eos))
}

fn require(dir: &Path, name: &str) -> Result<PathBuf, ModelError> {
    let path = dir.join(name);
    if path.is_file() { Ok(path) } else { Err(ModelError::Missing { path }) }
}

/// The start and end ids the tokenizer's post-processor puts around a single text.
fn window_specials(tokenizer: &Tokenizer) -> Option<(u32, u32)> {
    let encoding = tokenizer.encode("", true).ok()?;
    match encoding.get_ids() {
        [bos, eos] => Some((*bos, *eos)),
        _ => None,
    }
}

/// A manifest for a plain Hugging Face / sentence-transformers directory: id from the directory
/// name, pooling from `1_Pooling/config.json` when present, no prefixes.
fn manifest_for_plain_dir(dir: &Path) -> Result<ModelManifest, ModelError> {
    let name = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "model".to_owned());
    let pooling_path = dir.join("1_Pooling").join("config.json");
    let pooling = match std::fs::read_to_string(&pooling_path) {
        Ok(text) => {
            let value: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| ModelError::format(&pooling_path, e.to_string()))?;
            if value["pooling_mode_cls_token"].as_bool() == Some(true) {
                Pooling::Cls
            } else {
                Pooling::Mean
            }
        }
        Err(_) => Pooling::Mean,
    };
    // sentence-transformers' window (all-MiniLM-L6-v2: 256), else the model's own limit.
    let max_tokens = std::fs::read_to_string(dir.join("sentence_bert_config.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["max_seq_length"].as_u64())
        .map_or(512, |n| n as usize);
    Ok(ModelManifest {
        id: format!("local/{name}"),
        query_prefix: String::new(),
        passage_prefix: String::new(),
        pooling,
        max_tokens,
        source: dir.display().to_string(),
        files: Default::default(),
    })
}
