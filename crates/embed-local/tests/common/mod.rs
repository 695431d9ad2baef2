//! Helpers shared by the integration tests: a tiny generated BERT model and a file server.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;

use serde_json::json;

/// Pieces of the tiny model's Unigram vocabulary (ids 0..3 are the specials).
const PIECES: &[&str] = &[
    "<s>",
    "<pad>",
    "</s>",
    "<unk>",
    "▁",
    "▁hello",
    "▁world",
    "▁memory",
    "▁rust",
    "▁the",
    "a",
    "b",
    "c",
    "d",
    "e",
    "h",
    "l",
    "o",
    "r",
    "s",
    "t",
    "w",
    "y",
    "m",
    "▁我",
    "喜",
    "欢",
    "山",
    "爬",
];

/// Writes a 2-layer, 32-wide BERT with deterministic pseudo-random weights to `dir`
/// (config.json, tokenizer.json, model.safetensors). `max_positions` bounds its window.
pub fn write_tiny_model(dir: &Path, max_positions: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let (hidden, layers, ffn, vocab) = (32usize, 2usize, 64usize, PIECES.len());
    let config = json!({
        "architectures": ["BertModel"], "model_type": "bert", "vocab_size": vocab,
        "hidden_size": hidden, "num_hidden_layers": layers, "num_attention_heads": 4,
        "intermediate_size": ffn, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1, "max_position_embeddings": max_positions,
        "type_vocab_size": 2, "initializer_range": 0.02, "layer_norm_eps": 1e-12,
        "pad_token_id": 1, "classifier_dropout": null,
    });
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();

    let mut shapes: Vec<(String, Vec<usize>)> = vec![
        ("embeddings.word_embeddings.weight".into(), vec![vocab, hidden]),
        ("embeddings.position_embeddings.weight".into(), vec![max_positions, hidden]),
        ("embeddings.token_type_embeddings.weight".into(), vec![2, hidden]),
        ("embeddings.LayerNorm.weight".into(), vec![hidden]),
        ("embeddings.LayerNorm.bias".into(), vec![hidden]),
    ];
    for l in 0..layers {
        let p = format!("encoder.layer.{l}");
        for (name, out, inp) in [
            ("attention.self.query", hidden, hidden),
            ("attention.self.key", hidden, hidden),
            ("attention.self.value", hidden, hidden),
            ("attention.output.dense", hidden, hidden),
            ("intermediate.dense", ffn, hidden),
            ("output.dense", hidden, ffn),
        ] {
            shapes.push((format!("{p}.{name}.weight"), vec![out, inp]));
            shapes.push((format!("{p}.{name}.bias"), vec![out]));
        }
        for name in ["attention.output.LayerNorm", "output.LayerNorm"] {
            shapes.push((format!("{p}.{name}.weight"), vec![hidden]));
            shapes.push((format!("{p}.{name}.bias"), vec![hidden]));
        }
    }
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let data: Vec<(String, Vec<usize>, Vec<u8>)> = shapes
        .into_iter()
        .map(|(name, shape)| {
            let n: usize = shape.iter().product();
            let values: Vec<f32> = if name.ends_with("LayerNorm.weight") {
                vec![1.0; n]
            } else if name.ends_with("LayerNorm.bias") {
                vec![0.0; n]
            } else {
                (0..n).map(|_| next() * 0.4).collect()
            };
            (name, shape, values.iter().flat_map(|v| v.to_le_bytes()).collect())
        })
        .collect();
    let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = data
        .iter()
        .map(|(n, s, d)| {
            (
                n.clone(),
                safetensors::tensor::TensorView::new(safetensors::Dtype::F32, s.clone(), d)
                    .unwrap(),
            )
        })
        .collect();
    safetensors::tensor::serialize_to_file(views, None, &dir.join("model.safetensors")).unwrap();

    let vocab: Vec<_> = PIECES
        .iter()
        .enumerate()
        .map(|(i, p)| {
            json!([p, if i < 4 { 0.0 } else { -(p.chars().count() as f64).recip() - 1.0 }])
        })
        .collect();
    let tokenizer = json!({
        "version": "1.0", "truncation": {"direction": "Right", "max_length": 4, "strategy": "LongestFirst", "stride": 0},
        "padding": null,
        "added_tokens": [
            {"id": 0, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
            {"id": 2, "content": "</s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
        ],
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {
                "<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]},
                "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]},
            },
        },
        "decoder": null,
        "model": {"type": "Unigram", "unk_id": 3, "vocab": vocab, "byte_fallback": false},
    });
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string()).unwrap();
}

/// A response body and its extra headers.
pub type Served = (Vec<u8>, Vec<(String, String)>);

/// A loopback HTTP server answering `GET path` from `files` (404 otherwise), with extra
/// headers per path. Serves until the test process ends.
pub fn serve_files(files: HashMap<String, Served>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() || line == "\r\n" || line.is_empty() {
                    break;
                }
            }
            let path = request_line.split_whitespace().nth(1).unwrap_or("/").to_owned();
            let response = match files.get(&path) {
                Some((body, headers)) => {
                    let mut head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n",
                        body.len()
                    );
                    for (k, v) in headers {
                        head.push_str(&format!("{k}: {v}\r\n"));
                    }
                    head.push_str("\r\n");
                    [head.into_bytes(), body.clone()].concat()
                }
                None => b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    .to_vec(),
            };
            let _ = stream.write_all(&response);
        }
    });
    url
}

/// Cosine of two vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}
