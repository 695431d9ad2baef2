//! A BERT-family encoder (BERT, MiniLM, multilingual-e5, bge …) over plain `f32` buffers.
//!
//! Sequences of a batch are packed end to end, never padded: every per-token step (the linear
//! layers, GELU, layer normalisation) runs once over all tokens of the batch, and only attention
//! looks at sequence boundaries. The kernels are in [`crate::kernels`].

use std::collections::HashMap;
use std::path::Path;

use half::f16;
use half::slice::HalfFloatSliceExt;
use pulp::Arch;
use rayon::prelude::*;
use serde::Deserialize;

use crate::error::ModelError;
use crate::kernels::{self, Activation};
use crate::manifest::Pooling;

/// The fields of a Hugging Face BERT `config.json` the encoder uses.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub hidden_act: String,
    pub max_position_embeddings: usize,
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default)]
    pub pad_token_id: usize,
    #[serde(default)]
    pub model_type: Option<String>,
    #[serde(default)]
    pub position_embedding_type: Option<String>,
}

fn default_type_vocab() -> usize {
    2
}

fn default_eps() -> f64 {
    1e-12
}

/// Tensors by name: shape and values.
pub(crate) type Tensors = HashMap<String, (Vec<usize>, Values)>;

/// A tensor's values: `f32`, or half precision for the word embeddings.
pub(crate) enum Values {
    F32(Vec<f32>),
    F16(Vec<f16>),
}

/// Whether a tensor is held at half precision: the word embeddings, a table of
/// vocabulary × hidden (366 MiB at f32 for multilingual-e5-small's 250,037 pieces) that is only
/// ever looked up, a row per token; halving it costs no measurable accuracy (parity tests).
fn held_as_f16(name: &str) -> bool {
    name.ends_with("embeddings.word_embeddings.weight")
}

/// One transformer layer's weights, linear weights one row per output.
struct Layer {
    /// Query, key and value stacked: (3·hidden) × hidden.
    qkv: Vec<f32>,
    qkv_bias: Vec<f32>,
    attn_out: Vec<f32>,
    attn_out_bias: Vec<f32>,
    attn_norm: (Vec<f32>, Vec<f32>),
    up: Vec<f32>,
    up_bias: Vec<f32>,
    down: Vec<f32>,
    down_bias: Vec<f32>,
    out_norm: (Vec<f32>, Vec<f32>),
}

/// What `config.json` asks of the runtime, checked: the activation, and the position of a
/// sequence's first token (see [`Encoder::position_offset`]).
fn architecture(config: &Config, weights_path: &Path) -> Result<(Activation, usize), ModelError> {
    let bad = |message: String| ModelError::format(weights_path, message);
    let activation = match config.hidden_act.as_str() {
        "gelu" => Activation::Gelu,
        "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => Activation::GeluTanh,
        "relu" => Activation::Relu,
        other => {
            return Err(bad(format!(
                "config.json hidden_act {other:?} is not supported (gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu)"
            )));
        }
    };
    if let Some(kind) = config.position_embedding_type.as_deref()
        && kind != "absolute"
    {
        return Err(bad(format!(
            "config.json position_embedding_type {kind:?} is not supported (absolute)"
        )));
    }
    let h = config.hidden_size;
    if config.num_attention_heads == 0 || !h.is_multiple_of(config.num_attention_heads) {
        return Err(bad(format!(
            "config.json hidden_size {h} is not a multiple of num_attention_heads {}",
            config.num_attention_heads
        )));
    }
    let roberta = matches!(
        config.model_type.as_deref(),
        Some("roberta" | "xlm-roberta" | "xlm_roberta" | "camembert")
    );
    let position_offset = if roberta { config.pad_token_id + 1 } else { 0 };
    if position_offset >= config.max_position_embeddings {
        return Err(bad(format!(
            "config.json max_position_embeddings {} leaves no position after the RoBERTa offset {position_offset}",
            config.max_position_embeddings
        )));
    }
    Ok((activation, position_offset))
}

/// Takes a checkpoint's tensors by name, each checked against the shape `config.json` implies.
struct Taker<'a> {
    tensors: Tensors,
    /// `bert.`, `roberta.` or `<model_type>.` for checkpoints saved with a head; else empty.
    prefix: String,
    weights_path: &'a Path,
}

impl<'a> Taker<'a> {
    fn new(config: &Config, tensors: Tensors, weights_path: &'a Path) -> Self {
        let prefix = [
            "bert.".to_owned(),
            "roberta.".to_owned(),
            config.model_type.clone().unwrap_or_default() + ".",
        ]
        .into_iter()
        .find(|p| tensors.contains_key(&format!("{p}embeddings.word_embeddings.weight")))
        .unwrap_or_default();
        Taker { tensors, prefix, weights_path }
    }

    fn values(&mut self, name: &str, shape: &[usize]) -> Result<Values, ModelError> {
        let bad = |message: String| ModelError::format(self.weights_path, message);
        let full = format!("{}{name}", self.prefix);
        let (found, values) = self
            .tensors
            .remove(&full)
            .ok_or_else(|| bad(format!("tensor {full} is missing (config.json: a BERT model)")))?;
        if found != shape {
            return Err(bad(format!(
                "tensor {full} has shape {found:?}; config.json implies {shape:?}"
            )));
        }
        Ok(values)
    }

    fn f32(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, ModelError> {
        Ok(match self.values(name, shape)? {
            Values::F32(values) => values,
            Values::F16(values) => values.into_iter().map(f16::to_f32).collect(),
        })
    }

    /// A LayerNorm's weight and bias.
    fn norm(&mut self, name: &str, h: usize) -> Result<(Vec<f32>, Vec<f32>), ModelError> {
        Ok((self.f32(&format!("{name}.weight"), &[h])?, self.f32(&format!("{name}.bias"), &[h])?))
    }

    /// Layer `l`, of hidden width `h` and feed-forward width `ffn`.
    fn layer(&mut self, l: usize, h: usize, ffn: usize) -> Result<Layer, ModelError> {
        let p = format!("encoder.layer.{l}");
        let mut qkv = Vec::with_capacity(3 * h * h);
        let mut qkv_bias = Vec::with_capacity(3 * h);
        for part in ["query", "key", "value"] {
            qkv.extend(self.f32(&format!("{p}.attention.self.{part}.weight"), &[h, h])?);
            qkv_bias.extend(self.f32(&format!("{p}.attention.self.{part}.bias"), &[h])?);
        }
        Ok(Layer {
            qkv,
            qkv_bias,
            attn_out: self.f32(&format!("{p}.attention.output.dense.weight"), &[h, h])?,
            attn_out_bias: self.f32(&format!("{p}.attention.output.dense.bias"), &[h])?,
            attn_norm: self.norm(&format!("{p}.attention.output.LayerNorm"), h)?,
            up: self.f32(&format!("{p}.intermediate.dense.weight"), &[ffn, h])?,
            up_bias: self.f32(&format!("{p}.intermediate.dense.bias"), &[ffn])?,
            down: self.f32(&format!("{p}.output.dense.weight"), &[h, ffn])?,
            down_bias: self.f32(&format!("{p}.output.dense.bias"), &[h])?,
            out_norm: self.norm(&format!("{p}.output.LayerNorm"), h)?,
        })
    }
}

/// A loaded encoder.
pub(crate) struct Encoder {
    hidden: usize,
    heads: usize,
    eps: f32,
    activation: Activation,
    vocab: usize,
    /// Position of a sequence's first token: 0 for BERT; `pad_token_id + 1` for the RoBERTa
    /// family (XLM-R, bge-m3, multilingual-e5-base/large), whose position ids count from there.
    position_offset: usize,
    max_positions: usize,
    /// Word embeddings at half precision (see [`held_as_f16`]).
    words: Vec<f16>,
    /// Position embeddings with token type 0 already added (this runtime embeds single texts).
    positions: Vec<f32>,
    embed_norm: (Vec<f32>, Vec<f32>),
    layers: Vec<Layer>,
}

impl Encoder {
    /// Builds the encoder from `config` and the tensors of `weights_path` (for messages).
    pub(crate) fn new(
        config: &Config,
        tensors: Tensors,
        weights_path: &Path,
    ) -> Result<Self, ModelError> {
        let (activation, position_offset) = architecture(config, weights_path)?;
        let mut take = Taker::new(config, tensors, weights_path);
        let h = config.hidden_size;
        let words =
            match take.values("embeddings.word_embeddings.weight", &[config.vocab_size, h])? {
                Values::F16(values) => values,
                Values::F32(values) => values.into_iter().map(f16::from_f32).collect(),
            };
        let mut positions = take
            .f32("embeddings.position_embeddings.weight", &[config.max_position_embeddings, h])?;
        let types =
            take.f32("embeddings.token_type_embeddings.weight", &[config.type_vocab_size, h])?;
        for row in positions.chunks_exact_mut(h) {
            row.iter_mut().zip(&types[..h]).for_each(|(p, t)| *p += t);
        }
        let embed_norm = take.norm("embeddings.LayerNorm", h)?;
        let layers = (0..config.num_hidden_layers)
            .map(|l| take.layer(l, h, config.intermediate_size))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            hidden: h,
            heads: config.num_attention_heads,
            eps: config.layer_norm_eps as f32,
            activation,
            vocab: config.vocab_size,
            position_offset,
            max_positions: config.max_position_embeddings - position_offset,
            words,
            positions,
            embed_norm,
            layers,
        })
    }

    /// Width of the hidden states (and of the pooled vectors).
    pub(crate) fn hidden(&self) -> usize {
        self.hidden
    }

    /// Longest sequence the position embeddings cover.
    pub(crate) fn max_positions(&self) -> usize {
        self.max_positions
    }

    /// Encodes `seqs` (token ids, specials included) and pools each into one vector (not
    /// normalised). Runs on the current rayon pool.
    pub(crate) fn encode(
        &self,
        seqs: &[Vec<u32>],
        pooling: Pooling,
    ) -> Result<Vec<Vec<f32>>, ModelError> {
        let h = self.hidden;
        let starts = self.sequence_starts(seqs)?;
        let total = starts.last().copied().unwrap_or(0);
        let mut x = self.embed_tokens(seqs, total);
        let ffn = self.layers.first().map_or(0, |l| l.up_bias.len());
        let mut qkv = vec![0f32; total * 3 * h];
        let mut context = vec![0f32; total * h];
        let mut projected = vec![0f32; total * h];
        let mut inner = vec![0f32; total * ffn];
        for layer in &self.layers {
            kernels::linear(&x, &layer.qkv, &layer.qkv_bias, h, &mut qkv);
            self.attend(&qkv, &starts, &mut context);
            kernels::linear(&context, &layer.attn_out, &layer.attn_out_bias, h, &mut projected);
            kernels::layer_norm(
                &mut projected,
                Some(&x),
                &layer.attn_norm.0,
                &layer.attn_norm.1,
                self.eps,
            );
            std::mem::swap(&mut x, &mut projected);
            kernels::linear(&x, &layer.up, &layer.up_bias, h, &mut inner);
            kernels::activate(&mut inner, self.activation);
            kernels::linear(&inner, &layer.down, &layer.down_bias, ffn, &mut projected);
            kernels::layer_norm(
                &mut projected,
                Some(&x),
                &layer.out_norm.0,
                &layer.out_norm.1,
                self.eps,
            );
            std::mem::swap(&mut x, &mut projected);
        }
        Ok(starts.windows(2).map(|span| pool(&x[span[0] * h..span[1] * h], h, pooling)).collect())
    }

    /// Where each of `seqs` starts among all their tokens, and (last) the total; an empty or
    /// too long sequence, or a token id outside the vocabulary, is an error.
    fn sequence_starts(&self, seqs: &[Vec<u32>]) -> Result<Vec<usize>, ModelError> {
        let mut starts = Vec::with_capacity(seqs.len() + 1);
        let mut total = 0;
        for seq in seqs {
            if seq.is_empty() || seq.len() > self.max_positions {
                return Err(ModelError::Runtime(format!(
                    "a sequence of {} tokens; this model takes 1 to {}",
                    seq.len(),
                    self.max_positions
                )));
            }
            if let Some(&id) = seq.iter().find(|&&id| id as usize >= self.vocab) {
                return Err(ModelError::Runtime(format!(
                    "token id {id} is outside the model's vocabulary of {}; tokenizer.json does not belong to these weights",
                    self.vocab
                )));
            }
            starts.push(total);
            total += seq.len();
        }
        starts.push(total);
        Ok(starts)
    }

    /// The input rows of `total` tokens: word + position (+ token type 0), then LayerNorm.
    fn embed_tokens(&self, seqs: &[Vec<u32>], total: usize) -> Vec<f32> {
        let h = self.hidden;
        let mut x = vec![0f32; total * h];
        let tokens = seqs.iter().flat_map(|seq| seq.iter().enumerate());
        for (row, (position, &id)) in x.chunks_exact_mut(h).zip(tokens) {
            self.words[id as usize * h..][..h].convert_to_f32_slice(row);
            let pos = &self.positions[(self.position_offset + position) * h..][..h];
            row.iter_mut().zip(pos).for_each(|(v, p)| *v += p);
        }
        kernels::layer_norm(&mut x, None, &self.embed_norm.0, &self.embed_norm.1, self.eps);
        x
    }

    /// Scaled dot-product self-attention within each sequence, every head: `qkv` rows are
    /// `[q | k | v]` per token, `context` receives the heads side by side.
    fn attend(&self, qkv: &[f32], starts: &[usize], context: &mut [f32]) {
        let h = self.hidden;
        let dh = h / self.heads;
        let scale = 1.0 / (dh as f32).sqrt();
        let jobs: Vec<(usize, usize)> = (0..starts.len() - 1)
            .flat_map(|s| (0..self.heads).map(move |head| (s, head)))
            .collect();
        let outputs: Vec<Vec<f32>> = jobs
            .par_iter()
            .map(|&(s, head)| {
                let (first, len) = (starts[s], starts[s + 1] - starts[s]);
                let rows = &qkv[first * 3 * h..(first + len) * 3 * h];
                let mut out = vec![0f32; len * dh];
                let mut scores = vec![0f32; len];
                attend_head(rows, h, head * dh, dh, scale, &mut scores, &mut out);
                out
            })
            .collect();
        for (&(s, head), out) in jobs.iter().zip(outputs) {
            let first = starts[s];
            for (i, part) in out.chunks_exact(dh).enumerate() {
                context[(first + i) * h + head * dh..][..dh].copy_from_slice(part);
            }
        }
    }
}

/// One head of one sequence: `rows` are the sequence's `[q | k | v]` rows (width 3·h), the head
/// occupies columns `offset..offset + dh` of each part.
fn attend_head(
    rows: &[f32],
    h: usize,
    offset: usize,
    dh: usize,
    scale: f32,
    scores: &mut [f32],
    out: &mut [f32],
) {
    struct Head<'a> {
        rows: &'a [f32],
        h: usize,
        offset: usize,
        dh: usize,
        scale: f32,
        scores: &'a mut [f32],
        out: &'a mut [f32],
    }
    impl pulp::WithSimd for Head<'_> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, simd: S) {
            let Head { rows, h, offset, dh, scale, scores, out } = self;
            let width = 3 * h;
            for (i, out_row) in out.chunks_exact_mut(dh).enumerate() {
                let q = &rows[i * width + offset..][..dh];
                for (j, score) in scores.iter_mut().enumerate() {
                    let k = &rows[j * width + h + offset..][..dh];
                    *score = kernels::dot(simd, q, k) * scale;
                }
                kernels::softmax(scores);
                for (j, &p) in scores.iter().enumerate() {
                    let v = &rows[j * width + 2 * h + offset..][..dh];
                    kernels::axpy(simd, p, v, out_row);
                }
            }
        }
    }
    Arch::new().dispatch(Head { rows, h, offset, dh, scale, scores, out });
}

/// One sequence's output `rows` (`h` wide) pooled into one vector.
fn pool(rows: &[f32], h: usize, pooling: Pooling) -> Vec<f32> {
    match pooling {
        Pooling::Cls => rows[..h].to_vec(),
        Pooling::Mean => {
            let mut sum = vec![0f32; h];
            for row in rows.chunks_exact(h) {
                sum.iter_mut().zip(row).for_each(|(s, v)| *s += v);
            }
            let count = (rows.len() / h) as f32;
            sum.iter_mut().for_each(|s| *s /= count);
            sum
        }
    }
}

/// Reads a safetensors file one tensor at a time: `f32` vectors (F16, BF16 and F64 converted),
/// the word embeddings at half precision; integer tensors such as `position_ids` buffers are
/// skipped. Peak memory is the model's size rather than twice it.
pub(crate) fn read_safetensors(path: &Path) -> Result<Tensors, ModelError> {
    use std::io::{Read, Seek, SeekFrom};
    let bad = |message: String| ModelError::format(path, message);
    let mut file = std::fs::File::open(path).map_err(ModelError::io("reading", path))?;
    let (header, data_start, file_len) = read_safetensors_header(&mut file, path)?;
    let mut tensors = Tensors::with_capacity(header.len());
    for (name, info) in header {
        if name == "__metadata__" {
            continue;
        }
        let shape: Vec<usize> = serde_json::from_value(info["shape"].clone())
            .map_err(|e| bad(format!("tensor {name}: shape: {e}")))?;
        let offsets: [u64; 2] = serde_json::from_value(info["data_offsets"].clone())
            .map_err(|e| bad(format!("tensor {name}: data_offsets: {e}")))?;
        let width = match info["dtype"].as_str() {
            Some("F32") => 4,
            Some("F16" | "BF16") => 2,
            Some("F64") => 8,
            Some("I64" | "I32" | "I16" | "I8" | "U8" | "BOOL") => continue,
            other => return Err(bad(format!("tensor {name}: unsupported dtype {other:?}"))),
        };
        let count: usize = shape.iter().product();
        let bytes = offsets[1].checked_sub(offsets[0]).unwrap_or(u64::MAX);
        if bytes != (count * width) as u64 || data_start + offsets[1] > file_len {
            return Err(bad(format!("tensor {name}: its byte range does not match its shape")));
        }
        file.seek(SeekFrom::Start(data_start + offsets[0]))
            .map_err(ModelError::io("reading", path))?;
        let dtype = info["dtype"].as_str().unwrap_or_default();
        let values = if dtype == "F32" && !held_as_f16(&name) {
            let mut values = vec![0f32; count];
            file.read_exact(bytemuck::cast_slice_mut(&mut values))
                .map_err(ModelError::io("reading", path))?;
            Values::F32(values)
        } else {
            let wanted = Wanted { dtype, width, count, half_precision: held_as_f16(&name) };
            read_converted(&mut file, path, wanted)?
        };
        tensors.insert(name, (shape, values));
    }
    Ok(tensors)
}

/// A safetensors file's JSON header, where its data starts, and the file's length.
fn read_safetensors_header(
    file: &mut std::fs::File,
    path: &Path,
) -> Result<(serde_json::Map<String, serde_json::Value>, u64, u64), ModelError> {
    use std::io::Read;
    let bad = |message: String| ModelError::format(path, message);
    let file_len = file.metadata().map_err(ModelError::io("reading", path))?.len();
    let mut len = [0u8; 8];
    file.read_exact(&mut len).map_err(ModelError::io("reading", path))?;
    let header_len = u64::from_le_bytes(len);
    if header_len > 100 << 20 || header_len + 8 > file_len {
        return Err(bad("not a safetensors file (bad header length)".into()));
    }
    let mut header = vec![0u8; header_len as usize];
    file.read_exact(&mut header).map_err(ModelError::io("reading", path))?;
    let header = serde_json::from_slice(&header)
        .map_err(|e| bad(format!("not a safetensors file (header: {e})")))?;
    Ok((header, 8 + header_len, file_len))
}

/// What [`read_converted`] reads: `count` values of `dtype` (`width` bytes each), kept at half
/// precision or as `f32`.
struct Wanted<'a> {
    dtype: &'a str,
    width: usize,
    count: usize,
    half_precision: bool,
}

/// One tensor's values from where `file` stands, widened to `f32` (F16, BF16, F64) and kept at
/// half precision or as `f32`, read in 1 MiB slices so a large table never exists twice.
fn read_converted(
    file: &mut std::fs::File,
    path: &Path,
    wanted: Wanted<'_>,
) -> Result<Values, ModelError> {
    use std::io::Read;
    let Wanted { dtype, width, count, half_precision } = wanted;
    let mut halves = Vec::with_capacity(if half_precision { count } else { 0 });
    let mut floats = Vec::with_capacity(if half_precision { 0 } else { count });
    let mut buffer = vec![0f32; 1 << 18];
    let mut widened = Vec::new();
    let mut left = count;
    while left > 0 {
        let n = left.min(buffer.len() * 4 / width);
        let raw = &mut bytemuck::cast_slice_mut::<f32, u8>(&mut buffer)[..n * width];
        file.read_exact(raw).map_err(ModelError::io("reading", path))?;
        left -= n;
        let slice: &[f32] = if dtype == "F32" {
            &buffer[..n]
        } else {
            let raw = &bytemuck::cast_slice::<f32, u8>(&buffer)[..n * width];
            widened.clear();
            match dtype {
                "F16" => widened
                    .extend(raw.chunks_exact(2).map(|b| f16::from_le_bytes([b[0], b[1]]).to_f32())),
                "BF16" => widened.extend(
                    raw.chunks_exact(2).map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32()),
                ),
                _ => widened.extend(
                    raw.chunks_exact(8)
                        .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")) as f32),
                ),
            }
            &widened
        };
        if half_precision {
            // The slice conversion uses the CPU's F16C instructions where present.
            let start = halves.len();
            halves.resize(start + n, f16::ZERO);
            halves[start..].convert_from_f32_slice(slice);
        } else {
            floats.extend_from_slice(slice);
        }
    }
    Ok(if half_precision { Values::F16(halves) } else { Values::F32(floats) })
}
