//! Searching in the database, so that a server keeps no copy of a namespace in memory: nearest
//! vectors (pgvector's cosine distance), similarities of given memories, and BM25 with a weight
//! per query term plus the query's full-match score, the same figures the in-memory indexes give.

use std::collections::HashMap;

use rearview_core::{Embedding, MemoryFilter, MemoryId, Timestamp};
use rearview_store::{StoreError, VectorMatch, WeightedKeywordHits};
use tokio_postgres::Client;

use crate::codec::backend;
use crate::{Params, filter, keyword};

/// The `k` nearest vectors of `model` among the namespace's memories matching `filter`: an
/// exact scan, or through the model's HNSW index at `hnsw.ef_search` = `graph` (`hnsw.rs`).
#[allow(clippy::too_many_arguments)] // one search's parameters, as the trait method takes them
pub(crate) async fn nearest(
    tx: &tokio_postgres::Transaction<'_>,
    ns_id: i64,
    model: &str,
    query: &Embedding,
    filter: &MemoryFilter,
    now: Timestamp,
    k: usize,
    graph: Option<i32>,
) -> Result<Vec<VectorMatch>, StoreError> {
    let mut params = Params::default();
    let q = params.push(pgvector::Vector::from(query.as_slice().to_vec()));
    let sql = if let Some(ef_search) = graph {
        // The index's own expression and constant predicate, so the planner uses it; the
        // iterative scan goes on past filtered-out neighbours (in relaxed order: sorted after).
        tx.batch_execute(&format!(
            "SET LOCAL hnsw.ef_search = {ef_search}; SET LOCAL hnsw.iterative_scan = relaxed_order"
        ))
        .await
        .map_err(backend("configuring the vector index scan"))?;
        let dims = query.dimensions();
        let distance = format!("(v.embedding::vector({dims}) <=> {q}::vector({dims}))");
        let model = crate::hnsw::literal(model)?;
        let clause = filter::clause(&mut params, ns_id, filter, now);
        let k = params.push(i64::try_from(k).unwrap_or(i64::MAX));
        format!(
            "SELECT id, cos FROM (SELECT m.id, (1 - {distance})::float4 AS cos, {distance} AS dist \
               FROM vectors v JOIN memories m ON m.id = v.memory_id \
               WHERE v.model_id = {model} AND {clause} ORDER BY {distance} LIMIT {k}) found \
             ORDER BY dist, id"
        )
    } else {
        let model = params.push(model.to_owned());
        let clause = filter::clause(&mut params, ns_id, filter, now);
        let k = params.push(i64::try_from(k).unwrap_or(i64::MAX));
        format!(
            "SELECT m.id, (1 - (v.embedding <=> {q}))::float4 FROM vectors v \
             JOIN memories m ON m.id = v.memory_id WHERE v.model_id = {model} AND {clause} \
             ORDER BY v.embedding <=> {q}, m.id LIMIT {k}"
        )
    };
    let rows = tx.query(&sql, &params.refs()).await.map_err(backend("searching vectors"))?;
    rows.iter()
        .map(|r| {
            let id: uuid::Uuid = r.try_get(0).map_err(backend("reading a vector match"))?;
            let cosine: f32 = r.try_get(1).map_err(backend("reading a vector match"))?;
            Ok(VectorMatch { id: MemoryId(id), cosine })
        })
        .collect()
}

/// Each of `ids`' cosine to `query` in `model`'s space, in order.
pub(crate) async fn similarities(
    client: &Client,
    ns_id: i64,
    model: &str,
    ids: &[MemoryId],
    query: &Embedding,
) -> Result<Vec<Option<f32>>, StoreError> {
    let wanted: Vec<uuid::Uuid> = ids.iter().map(|id| id.0).collect();
    let q = pgvector::Vector::from(query.as_slice().to_vec());
    let rows = client
        .query(
            "SELECT v.memory_id, (1 - (v.embedding <=> $1))::float4 FROM vectors v \
             JOIN memories m ON m.id = v.memory_id \
             WHERE v.model_id = $2 AND m.ns = $3 AND v.memory_id = ANY($4)",
            &[&q, &model, &ns_id, &wanted],
        )
        .await
        .map_err(backend("reading similarities"))?;
    let mut found: HashMap<uuid::Uuid, f32> = HashMap::with_capacity(rows.len());
    for r in &rows {
        let id: uuid::Uuid = r.try_get(0).map_err(backend("reading a similarity"))?;
        found.insert(id, r.try_get(1).map_err(backend("reading a similarity"))?);
    }
    Ok(ids.iter().map(|id| found.get(&id.0).copied()).collect())
}

/// BM25 with a weight per term (the first weight of a repeated term), and the full-match score.
pub(crate) async fn weighted_keywords(
    tx: &tokio_postgres::Transaction<'_>,
    ns_id: i64,
    terms: &[(String, f32)],
    filter: &MemoryFilter,
    now: Timestamp,
    k: usize,
) -> Result<WeightedKeywordHits, StoreError> {
    // Normalised, first weight of each term kept (as the in-memory index reads them).
    let mut seen = std::collections::HashSet::new();
    let (names, weights): (Vec<String>, Vec<f32>) = terms
        .iter()
        .filter_map(|(t, w)| rearview_store::normalize_term(t).map(|t| (t, *w)))
        .filter(|(t, _)| seen.insert(t.clone()))
        .unzip();
    if names.is_empty() {
        return Ok(WeightedKeywordHits { hits: Vec::new(), full_match: 0.0 });
    }
    let frequencies = keyword::document_frequencies(tx, ns_id, &names).await?;
    let dfs: Vec<i64> = frequencies.iter().map(|(_, df)| *df).collect();
    let full_match: f64 = tx
        .query_one(
            &format!(
                "WITH s AS (SELECT doc_count::float8 AS n FROM namespaces WHERE id = $1) \
                 SELECT coalesce(sum({}), 0)::float8 \
                 FROM unnest($2::float4[], $3::int8[]) AS q(weight, df) CROSS JOIN s",
                keyword::WEIGHTED_IDF
            ),
            &[&ns_id, &weights, &dfs],
        )
        .await
        .and_then(|r| r.try_get(0))
        .map_err(backend("scoring a full match"))?;
    if k == 0 {
        return Ok(WeightedKeywordHits { hits: Vec::new(), full_match: full_match as f32 });
    }
    let matched = keyword::informative_terms(tx, ns_id, &frequencies).await?;
    let weight_of: HashMap<&str, f32> =
        names.iter().map(String::as_str).zip(weights.iter().copied()).collect();
    let matched_weights: Vec<f32> = matched.iter().map(|t| weight_of[t.as_str()]).collect();
    let hits = keyword::scored(tx, ns_id, &matched, &matched_weights, &frequencies, filter, now, k)
        .await?;
    Ok(WeightedKeywordHits { hits, full_match: full_match as f32 })
}
