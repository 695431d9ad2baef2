//! The local encoder on a tiny generated BERT: agreement with candle's BERT, shapes, pooling,
//! packing and windowing are checked here on every run; the real models' parity with their
//! reference implementations is checked in `real_model.rs`.

mod common;

use common::{cosine, write_tiny_model};
use rearview_embed::{Embedder, TextKind};
use rearview_embed_local::{LoadOptions, LocalEmbedder, ModelError, ModelManifest, Pooling};

fn texts(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

fn tiny(max_positions: usize) -> (tempfile::TempDir, LocalEmbedder) {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path(), max_positions);
    let embedder =
        LocalEmbedder::load(dir.path(), LoadOptions { threads: 2, ..Default::default() }).unwrap();
    (dir, embedder)
}

#[tokio::test]
async fn embeds_unit_vectors_of_the_model_width_in_input_order() {
    let (_dir, embedder) = tiny(32);
    assert_eq!(embedder.dimensions(), 32);
    assert!(embedder.model_id().starts_with("local/"), "{}", embedder.model_id());
    let batch = texts(&["hello world", "rust memory", "我喜欢爬山"]);
    let vectors = embedder.embed(&batch, TextKind::Passage).await.unwrap();
    assert_eq!(vectors.len(), 3);
    for v in &vectors {
        assert_eq!(v.as_slice().len(), 32);
        let norm: f32 = v.as_slice().iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
    }
    // Order is preserved: each matches its own single-text embedding.
    for (text, v) in batch.iter().zip(&vectors) {
        let alone = embedder.embed(std::slice::from_ref(text), TextKind::Passage).await.unwrap();
        assert!(cosine(alone[0].as_slice(), v.as_slice()) > 0.9999, "{text}");
    }
    assert!(
        cosine(vectors[0].as_slice(), vectors[1].as_slice()) < 0.9999,
        "different texts, same vector"
    );
    assert!(embedder.embed(&[], TextKind::Query).await.unwrap().is_empty());
}

#[tokio::test]
async fn batch_neighbours_do_not_change_a_vector() {
    // A short text is packed with a long one into one pass; attention must stay within each
    // text.
    let (_dir, embedder) = tiny(64);
    let short = texts(&["hello"]);
    let mixed = texts(&["hello", "the rust memory of the world, hello hello the rust memory"]);
    let alone = embedder.embed_blocking(&short, TextKind::Passage).unwrap();
    let batched = embedder.embed_blocking(&mixed, TextKind::Passage).unwrap();
    let c = cosine(&alone[0], &batched[0]);
    assert!(c > 0.99999, "padding changed the vector: cosine {c}");
}

/// candle's BERT (or XLM-RoBERTa, by `model_type`) on the same directory: one text at a time,
/// mean-pooled, not normalised.
fn candle_reference(dir: &std::path::Path, text: &str) -> Vec<f32> {
    use candle_core::{D, DType, Device, Tensor};
    let config_text = std::fs::read_to_string(dir.join("config.json")).unwrap();
    let tensors =
        candle_core::safetensors::load(dir.join("model.safetensors"), &Device::Cpu).unwrap();
    let vb = candle_nn::VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
    let mut tokenizer = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    tokenizer.with_truncation(None).unwrap();
    let ids = tokenizer.encode(text, true).unwrap().get_ids().to_vec();
    let ids = Tensor::new(ids.as_slice(), &Device::Cpu).unwrap().unsqueeze(0).unwrap();
    let types = ids.zeros_like().unwrap();
    let hidden = if config_text.contains("\"xlm-roberta\"") {
        use candle_transformers::models::xlm_roberta::{Config, XLMRobertaModel};
        let config: Config = serde_json::from_str(&config_text).unwrap();
        let model = XLMRobertaModel::new(&config, vb).unwrap();
        model.forward(&ids, &ids.ones_like().unwrap(), &types, None, None, None).unwrap()
    } else {
        use candle_transformers::models::bert::{BertModel, Config};
        let config: Config = serde_json::from_str(&config_text).unwrap();
        BertModel::load(vb, &config).unwrap().forward(&ids, &types, None).unwrap()
    };
    hidden.mean(D::Minus2).unwrap().squeeze(0).unwrap().to_vec1().unwrap()
}

#[test]
fn the_encoder_agrees_with_candle() {
    let batch = texts(&[
        "hello",
        "the rust memory of the world, hello hello the rust memory world",
        "我喜欢爬山",
        "hello world",
    ]);
    let variants = [
        ("bert", "gelu"),
        ("bert", "relu"),
        // RoBERTa-style position ids (they start at pad_token_id + 1): bge-m3, e5-base/large.
        ("xlm-roberta", "gelu"),
    ];
    for (model_type, activation) in variants {
        let dir = tempfile::tempdir().unwrap();
        write_tiny_model(dir.path(), 66);
        let config_path = dir.path().join("config.json");
        let mut config: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&config_path).unwrap()).unwrap();
        config["hidden_act"] = activation.into();
        config["model_type"] = model_type.into();
        config["position_embedding_type"] = "absolute".into();
        std::fs::write(&config_path, config.to_string()).unwrap();
        let embedder =
            LocalEmbedder::load(dir.path(), LoadOptions { threads: 2, ..Default::default() })
                .unwrap();
        // All four in one pass, against candle one at a time.
        let ours = embedder.embed_blocking(&batch, TextKind::Passage).unwrap();
        for (text, ours) in batch.iter().zip(&ours) {
            let reference = candle_reference(dir.path(), text);
            let worst =
                ours.iter().zip(&reference).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
            // Word embeddings are held at half precision (relative rounding 2⁻¹¹), hence 1e-3,
            // not f32 round-off; a real slip (a wrong scale, a missed bias, positions off by
            // two) moves values by 1e-2 and more.
            let label = format!("{model_type}/{activation}, {text:?}");
            assert!(worst < 1e-3, "{label}: max difference {worst}");
            let c = cosine(ours, &reference);
            assert!(c > 0.99999, "{label}: cosine {c}");
        }
    }
}

#[test]
fn the_tokenizer_files_own_truncation_is_ignored() {
    // tokenizer.json truncates at 4 tokens; the runtime manages windows itself, so a longer text
    // must still differ from its first four tokens.
    let (_dir, embedder) = tiny(64);
    let v = embedder
        .embed_blocking(
            &texts(&["hello world rust memory", "hello world rust memory the the the"]),
            TextKind::Passage,
        )
        .unwrap();
    assert!(cosine(&v[0], &v[1]) < 0.9999);
}

#[test]
fn texts_longer_than_the_window_are_embedded_in_windows() {
    let (dir, _) = tiny(8);
    let mut manifest = ModelManifest {
        id: "tiny".into(),
        query_prefix: String::new(),
        passage_prefix: String::new(),
        pooling: Pooling::Mean,
        max_tokens: 8,
        source: "test".into(),
        files: Default::default(),
    };
    manifest.write(dir.path()).unwrap();
    let embedder = LocalEmbedder::load(dir.path(), LoadOptions::default()).unwrap();
    let head = "hello world rust memory the hello";
    let long = format!("{head} 我喜欢爬山 我喜欢爬山 我喜欢爬山");
    let v = embedder.embed_blocking(&texts(&[head, &long]), TextKind::Passage).unwrap();
    assert!(v[1].iter().all(|x| x.is_finite()));
    assert!(cosine(&v[0], &v[1]) < 0.999, "the tail past the first window was ignored");

    // max_windows bounds the work: with one window the tail is dropped.
    let one = LocalEmbedder::load(dir.path(), LoadOptions { max_windows: 1, ..Default::default() })
        .unwrap();
    let w = one
        .embed_blocking(&texts(&[&long, &format!("{long} 我喜欢爬山")]), TextKind::Passage)
        .unwrap();
    assert!(cosine(&w[0], &w[1]) > 0.99999);

    // Prefixes come from the manifest and apply per kind.
    manifest.query_prefix = "hello ".into();
    manifest.write(dir.path()).unwrap();
    let prefixed = LocalEmbedder::load(dir.path(), LoadOptions::default()).unwrap();
    let q = prefixed.embed_blocking(&texts(&["rust"]), TextKind::Query).unwrap();
    let p = prefixed.embed_blocking(&texts(&["rust"]), TextKind::Passage).unwrap();
    assert!(cosine(&q[0], &p[0]) < 0.9999);
    assert_eq!(prefixed.model_id(), "tiny");
}

#[test]
fn cls_pooling_differs_from_mean_pooling() {
    let (dir, mean) = tiny(32);
    std::fs::create_dir_all(dir.path().join("1_Pooling")).unwrap();
    std::fs::write(dir.path().join("1_Pooling/config.json"), r#"{"pooling_mode_cls_token": true}"#)
        .unwrap();
    let cls = LocalEmbedder::load(dir.path(), LoadOptions::default()).unwrap();
    assert_eq!(cls.manifest().pooling, Pooling::Cls);
    let t = texts(&["hello world"]);
    let a = mean.embed_blocking(&t, TextKind::Passage).unwrap();
    let b = cls.embed_blocking(&t, TextKind::Passage).unwrap();
    assert!(cosine(&a[0], &b[0]) < 0.9999);
}

#[test]
fn broken_model_directories_fail_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let err = LocalEmbedder::load(dir.path(), LoadOptions::default()).unwrap_err();
    assert!(matches!(err, ModelError::Missing { .. }), "{err}");
    assert!(
        err.to_string().contains("config.json")
            && err.to_string().contains("rearview models fetch"),
        "{err}"
    );

    write_tiny_model(dir.path(), 16);
    std::fs::write(dir.path().join("config.json"), r#"{"hidden_size": "wide"}"#).unwrap();
    let err = LocalEmbedder::load(dir.path(), LoadOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("config.json") && err.to_string().contains("BERT-family"),
        "{err}"
    );

    write_tiny_model(dir.path(), 16);
    std::fs::write(dir.path().join("model.safetensors"), b"not weights").unwrap();
    let err = LocalEmbedder::load(dir.path(), LoadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("model.safetensors"), "{err}");

    // A manifest's recorded sizes catch a truncated install.
    write_tiny_model(dir.path(), 16);
    let mut files = std::collections::BTreeMap::new();
    let mut digest =
        rearview_embed_local::digest_file(&dir.path().join("model.safetensors")).unwrap();
    digest.size += 1;
    files.insert("model.safetensors".to_owned(), digest);
    ModelManifest {
        id: "x".into(),
        query_prefix: String::new(),
        passage_prefix: String::new(),
        pooling: Pooling::Mean,
        max_tokens: 16,
        source: String::new(),
        files,
    }
    .write(dir.path())
    .unwrap();
    let err = LocalEmbedder::load(dir.path(), LoadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("fetch the model again"), "{err}");
}

/// Rewrites `dir/model.safetensors` with every tensor in `dtype` (F16, BF16 or F64).
fn rewrite_weights(dir: &std::path::Path, dtype: safetensors::Dtype) {
    let path = dir.join("model.safetensors");
    let bytes = std::fs::read(&path).unwrap();
    let file = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let data: Vec<(String, Vec<usize>, Vec<u8>)> = file
        .tensors()
        .into_iter()
        .map(|(name, view)| {
            let values =
                view.data().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap()));
            let raw: Vec<u8> = match dtype {
                safetensors::Dtype::F16 => {
                    values.flat_map(|v| half::f16::from_f32(v).to_le_bytes()).collect()
                }
                safetensors::Dtype::BF16 => {
                    values.flat_map(|v| half::bf16::from_f32(v).to_le_bytes()).collect()
                }
                _ => values.flat_map(|v| f64::from(v).to_le_bytes()).collect(),
            };
            (name, view.shape().to_vec(), raw)
        })
        .collect();
    let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = data
        .iter()
        .map(|(n, s, d)| {
            (n.clone(), safetensors::tensor::TensorView::new(dtype, s.clone(), d).unwrap())
        })
        .collect();
    safetensors::tensor::serialize_to_file(views, None, &path).unwrap();
}

#[test]
fn half_precision_and_f64_checkpoints_load_and_agree() {
    let batch = texts(&["hello world", "the rust memory of the world", "我喜欢爬山"]);
    let (_dir, reference) = tiny(64);
    let want = reference.embed_blocking(&batch, TextKind::Passage).unwrap();
    for (dtype, min_cosine) in [
        (safetensors::Dtype::F16, 0.9999),
        (safetensors::Dtype::BF16, 0.999),
        (safetensors::Dtype::F64, 0.99999),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write_tiny_model(dir.path(), 64);
        rewrite_weights(dir.path(), dtype);
        let embedder =
            LocalEmbedder::load(dir.path(), LoadOptions { threads: 2, ..Default::default() })
                .unwrap();
        let got = embedder.embed_blocking(&batch, TextKind::Passage).unwrap();
        for ((text, got), want) in batch.iter().zip(&got).zip(&want) {
            let c = cosine(got, want);
            assert!(c > min_cosine, "{dtype:?}, {text:?}: cosine {c}");
        }
    }
}
