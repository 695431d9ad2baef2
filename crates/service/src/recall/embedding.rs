//! Stage 2 of recall, its model side: the query's vector in each space, from the query cache
//! or the model, blended with the focus tail's.

use std::sync::Arc;

use rearview_core::{Embedding, truncate_chars};
use rearview_embed::{Embedder, TextKind};
use rearview_language::{Focused, QueryFocus};
use rearview_ranking::Scored;

use super::{Query, note_on_vector_signal};
use crate::{MemoryService, VectorSearch};

/// What is embedded beside the query, with its weight: a dialogue's latest turns.
pub(super) fn reading<'a>(focused: &'a Focused, focus: &QueryFocus) -> Option<(&'a str, f32)> {
    focused.tail.as_deref().map(|t| (t, focus.tail_weight))
}

/// Says in each vector signal's explanation what the query vector was blended with.
pub(super) fn explain_reading(ranked: &mut [Scored], query: &Query, focus: &QueryFocus) {
    let Some((text, weight)) = reading(&query.focused, focus) else { return };
    if query.vectors.is_empty() {
        return;
    }
    let note =
        format!("; the query vector blends in its latest turns, {text:?}, with weight {weight}");
    note_on_vector_signal(ranked, &note);
}

impl MemoryService {
    /// The vectors of a compound question's parts, computed in one batch per space and left in
    /// the query cache, where each part's own embedding then finds them. A failure is left for
    /// the parts to report.
    pub(super) async fn embed_parts(&self, parts: &[&str], models: Option<&[String]>) {
        let Ok(spaces) = self.query_spaces(models) else { return };
        let texts: Vec<String> = parts.iter().map(|p| (*p).to_owned()).collect();
        for embedder in spaces {
            let _ = self.query_vectors_of(embedder.as_ref(), &texts).await;
        }
    }

    /// The query's vector in each of `spaces` that could embed it: the whole query's, or with a
    /// second reading `(text, weight)` (a dialogue's tail),
    /// `normalise((1 − weight) · whole + weight · reading)`. Texts embedded lately come from the
    /// query cache; the others go to the model in one batch.
    pub(super) async fn embed_query(
        &self,
        query: &str,
        reading: Option<(&str, f32)>,
        spaces: &[Arc<dyn Embedder>],
    ) -> (Vec<(String, Embedding)>, VectorSearch) {
        let mut texts = vec![query.to_owned()];
        if let Some((reading, _)) = reading {
            texts.push(reading.to_owned());
        }
        let mut vectors = Vec::new();
        let mut failure = None;
        for embedder in spaces {
            match self.query_vectors_of(embedder.as_ref(), &texts).await {
                Ok(v) => match blend(&v, reading.map(|(_, w)| w)) {
                    Some(vector) => vectors.push((embedder.model_id().to_owned(), vector)),
                    None => failure = Some("the focused query vector is degenerate".to_owned()),
                },
                Err(reason) => failure = Some(reason),
            }
        }
        if vectors.is_empty() {
            let reason = failure.unwrap_or_else(|| "no vector".to_owned());
            return (vectors, VectorSearch::Failed { reason });
        }
        let model_id = vectors.iter().map(|(m, _)| m.as_str()).collect::<Vec<_>>().join(" + ");
        (vectors, VectorSearch::Used { model_id })
    }

    /// One vector per text in `embedder`'s space: cached ones reused, the rest embedded in one
    /// call and cached.
    async fn query_vectors_of(
        &self,
        embedder: &dyn Embedder,
        texts: &[String],
    ) -> Result<Vec<Embedding>, String> {
        let model = embedder.model_id();
        let mut found: Vec<Option<Embedding>> =
            texts.iter().map(|t| self.query_vectors.get(model, t)).collect();
        let missing: Vec<String> =
            texts.iter().zip(&found).filter(|(_, v)| v.is_none()).map(|(t, _)| t.clone()).collect();
        if !missing.is_empty() {
            let computed = match embedder.embed(&missing, TextKind::Query).await {
                Ok(v) if v.len() == missing.len() => v,
                Ok(_) => return Err("model returned no vector".to_owned()),
                Err(e) => {
                    tracing::warn!(model, error = %e, "query embedding failed; this space is skipped");
                    return Err(truncate_chars(&e.to_string(), 200));
                }
            };
            let mut computed = computed.into_iter();
            for (text, slot) in texts.iter().zip(found.iter_mut()) {
                if slot.is_none() {
                    let vector = computed.next().ok_or("model returned too few vectors")?;
                    self.query_vectors.put(model, text, vector.clone());
                    *slot = Some(vector);
                }
            }
        }
        Ok(found.into_iter().flatten().collect())
    }
}

/// The whole query's vector, or its blend with the second reading's.
fn blend(vectors: &[Embedding], weight: Option<f32>) -> Option<Embedding> {
    match (vectors, weight) {
        ([whole, reading], Some(w)) => {
            let mixed = whole
                .as_slice()
                .iter()
                .zip(reading.as_slice())
                .map(|(a, b)| (1.0 - w) * a + w * b)
                .collect();
            Embedding::new(mixed).ok()
        }
        ([whole, ..], _) => Some(whole.clone()),
        _ => None,
    }
}
