//! A scripted OpenAI-compatible embeddings server on a loopback port, for tests of this crate
//! and of everything that embeds through HTTP (feature `testing`).
//!
//! [`serve`] is `rearview_openai_client::testing::serve_with` whose default answer ([`Reply::ok`]) gives
//! each input the 3-d vector `[1, chars(input), 0.5]`, listed in reverse order with indexes, so
//! tests can check ordering.

use std::sync::{Arc, Mutex};

pub use rearview_openai_client::testing::{Reply, Seen};

/// Starts a scripted embeddings server; returns its base URL (`http://127.0.0.1:PORT/v1`) and
/// the log of requests.
pub fn serve(script: Vec<Reply>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    rearview_openai_client::testing::serve_with(script, vectors_for)
}

/// `[1, chars(input), 0.5]` per input, listed in reverse order with indexes.
fn vectors_for(body: &serde_json::Value) -> String {
    let inputs = body["input"].as_array().cloned().unwrap_or_default();
    let mut data: Vec<serde_json::Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let n = t.as_str().unwrap_or("").chars().count() as f32;
            serde_json::json!({ "index": i, "embedding": [1.0, n, 0.5] })
        })
        .collect();
    data.reverse();
    serde_json::json!({ "object": "list", "data": data }).to_string()
}
