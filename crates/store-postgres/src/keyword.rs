//! The keyword index: postings per namespace and term, scored by Okapi BM25 in SQL.
//!
//! The score is FTS5's `bm25()` (what the SQLite backend uses), so ranking stays one pure
//! function across backends: k1 = 1.2, b = 0.75, IDF `ln((N − df + 0.5) / (df + 0.5))` clamped
//! to 1e-6 when that is ≤ 0. N, the document frequencies and the average length are the
//! namespace's own (SQLite's FTS5 takes N and the average length over the whole file), so a
//! tenant's scores never depend on what other tenants stored.
//!
//! Common query terms are pruned as in the SQLite backend: in a namespace of 1,000 memories or
//! more, a term found in more than half of them carries (near) zero weight but would make the
//! query visit most postings, so it is dropped unless every term is that common.

use std::collections::{BTreeMap, HashSet};

use rearview_core::{MemoryFilter, MemoryId, Timestamp};
use rearview_store::{KeywordHit, PRUNE_MIN_DOCS, StoreError, normalize_term};
use tokio_postgres::Transaction;

use crate::codec::backend;
use crate::{Params, filter};

/// The terms as indexed: normalised, in order, empty ones dropped.
pub(crate) fn normalized(terms: &[String]) -> Vec<String> {
    terms.iter().filter_map(|t| normalize_term(t)).collect()
}

/// Memory-term entries per multi-row `INSERT` (4 parameters each).
const ENTRIES_PER_STATEMENT: usize = 1000;

/// Writes the keyword entry and postings of each `(memory, namespace id, terms)`.
pub(crate) async fn write_terms(
    tx: &Transaction<'_>,
    entries: &[(MemoryId, i64, &[String])],
) -> Result<(), StoreError> {
    // Postings as parallel arrays for one `unnest`: (ns, term, memory, tf, length).
    let (mut p_ns, mut p_term, mut p_id, mut p_tf, mut p_len) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for chunk in entries.chunks(ENTRIES_PER_STATEMENT) {
        let mut params = Params::default();
        let mut values = Vec::with_capacity(chunk.len());
        for (id, ns_id, terms) in chunk {
            let terms = normalized(terms);
            let length = terms.len() as i32;
            let mut tf: BTreeMap<&str, i32> = BTreeMap::new();
            for t in &terms {
                *tf.entry(t.as_str()).or_default() += 1;
            }
            for (term, count) in tf {
                p_ns.push(*ns_id);
                p_term.push(term.to_owned());
                p_id.push(id.0);
                p_tf.push(count);
                p_len.push(length);
            }
            values.push(format!(
                "({}, {}, {}, {})",
                params.push(id.0),
                params.push(*ns_id),
                params.push(terms),
                params.push(length)
            ));
        }
        let sql = format!(
            "INSERT INTO memory_terms (memory_id, ns, terms, length) VALUES {}",
            values.join(", ")
        );
        tx.execute(&sql, &params.refs()).await.map_err(backend("writing keyword entries"))?;
    }
    if !p_id.is_empty() {
        tx.execute(
            "INSERT INTO term_postings (ns, term, memory_id, tf, length) \
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::uuid[], $4::int[], $5::int[])",
            &[&p_ns, &p_term, &p_id, &p_tf, &p_len],
        )
        .await
        .map_err(backend("writing keyword postings"))?;
    }
    Ok(())
}

/// Removes one memory's keyword entry and postings (before writing new ones).
pub(crate) async fn delete_terms(tx: &Transaction<'_>, id: MemoryId) -> Result<(), StoreError> {
    tx.execute("DELETE FROM term_postings WHERE memory_id = $1", &[&id.0])
        .await
        .map_err(backend("deleting keyword postings"))?;
    tx.execute("DELETE FROM memory_terms WHERE memory_id = $1", &[&id.0])
        .await
        .map_err(backend("deleting keyword entry"))?;
    Ok(())
}

/// The best `limit` BM25 matches for any of `terms` among memories matching `filter`.
pub(crate) async fn search(
    tx: &Transaction<'_>,
    ns_id: i64,
    terms: &[String],
    filter: &MemoryFilter,
    now: Timestamp,
    limit: usize,
) -> Result<Vec<KeywordHit>, StoreError> {
    let terms = informative_terms(tx, ns_id, terms).await?;
    let weights = vec![1.0; terms.len()];
    scored(tx, ns_id, terms, weights, filter, now, limit).await
}

/// The best `limit` memories matching `filter` by BM25 over `terms` (normalised, distinct),
/// each term's contribution multiplied by its weight: the one scoring query of both keyword
/// searches.
#[allow(clippy::too_many_arguments)] // one search's parameters
pub(crate) async fn scored(
    tx: &Transaction<'_>,
    ns_id: i64,
    terms: Vec<String>,
    weights: Vec<f32>,
    filter: &MemoryFilter,
    now: Timestamp,
    limit: usize,
) -> Result<Vec<KeywordHit>, StoreError> {
    if terms.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    tx.batch_execute(WORK_MEM).await.map_err(backend("sizing the keyword search's memory"))?;
    // First the best few times `limit` by score, filtered after: checking the filter costs a
    // row read per scored memory (51,692 for a long Chinese question at 100k memories, a third
    // of the query). When fewer than `limit` of those pass, the filter is selective: then every
    // scored memory is checked. Either way the answer is the exact top `limit`.
    let pool = limit.saturating_mul(POOL_FACTOR);
    let found = scoring_query(tx, ns_id, &terms, &weights, filter, now, limit, Some(pool)).await?;
    if found.len() >= limit {
        return Ok(found);
    }
    scoring_query(tx, ns_id, &terms, &weights, filter, now, limit, None).await
}

/// Memory for the scoring query's aggregate, one per scored memory: at 1M memories a 26-term
/// Chinese question scores 237,186 of them in 28 MB; at PostgreSQL's default (4 MB, hash
/// aggregates get twice that) the aggregate spilled to disk in 5 batches and the query took
/// 1.42 s instead of 0.97 s (measured). For this transaction only.
const WORK_MEM: &str = "SET LOCAL work_mem = '32MB'";

/// How many times `limit` the best-scored memories are before the filter is checked.
const POOL_FACTOR: usize = 4;

/// The scoring query: the best `limit` matching `filter` among the best `pool` by score (all
/// scored memories when `None`).
#[allow(clippy::too_many_arguments)] // one search's parameters
async fn scoring_query(
    tx: &Transaction<'_>,
    ns_id: i64,
    terms: &[String],
    weights: &[f32],
    filter: &MemoryFilter,
    now: Timestamp,
    limit: usize,
    pool: Option<usize>,
) -> Result<Vec<KeywordHit>, StoreError> {
    let mut params = Params::default();
    let ns = params.push(ns_id);
    let wanted = params.push(terms.to_vec());
    let weighted = params.push(weights.to_vec());
    let clause = filter::clause(&mut params, ns_id, filter, now);
    let limit = params.push(i64::try_from(limit).unwrap_or(i64::MAX));
    let pool = match pool {
        Some(pool) => format!("LIMIT {}", params.push(i64::try_from(pool).unwrap_or(i64::MAX))),
        None => String::new(),
    };
    // `w` is materialised so that each term's IDF is computed once, not once per posting (an
    // inlined CTE put `ln` into the aggregate: 3× the time at 10k memories); the constants are
    // float8 so that no posting is scored in `numeric`. The two `LATERAL … OFFSET 0` fix the
    // plan: each term's postings and each scored memory are looked up by index, whatever the
    // planner's statistics say (a new schema has none until autovacuum analyses it, and the
    // planner then scanned every memory once per scored one: 68 ms instead of 4 at 1k).
    let sql = format!(
        "WITH s AS (SELECT doc_count::float8 AS n, \
                       GREATEST(total_terms::float8 / GREATEST(doc_count, 1), 1e-9) AS avgdl \
                    FROM namespaces WHERE id = {ns}), \
              w AS MATERIALIZED (SELECT d.term, q.weight::float8 \
                       * GREATEST(ln((s.n - d.df + 0.5::float8) / (d.df + 0.5::float8)), 1e-6::float8) \
                       AS idf \
                     FROM unnest({wanted}::text[], {weighted}::float4[]) AS q(term, weight) \
                     JOIN term_df d ON d.ns = {ns} AND d.term = q.term CROSS JOIN s), \
              sc AS MATERIALIZED (SELECT p.memory_id, sum(w.idf * p.tf * 2.2::float8 \
                       / (p.tf + 1.2::float8 * (0.25::float8 + 0.75::float8 * p.length / s.avgdl))) \
                       AS score \
                     FROM w CROSS JOIN s CROSS JOIN LATERAL (SELECT p.memory_id, p.tf, p.length \
                       FROM term_postings p WHERE p.ns = {ns} AND p.term = w.term OFFSET 0) p \
                     GROUP BY p.memory_id), \
              best AS MATERIALIZED (SELECT memory_id, score FROM sc \
                     ORDER BY score DESC, memory_id {pool}) \
         SELECT best.memory_id, best.score FROM best \
         CROSS JOIN LATERAL (SELECT 1 FROM memories m WHERE m.id = best.memory_id AND {clause} \
           OFFSET 0) m \
         ORDER BY best.score DESC, best.memory_id LIMIT {limit}"
    );
    let rows = tx.query(&sql, &params.refs()).await.map_err(backend("running keyword search"))?;
    rows.iter()
        .map(|r| {
            let id: uuid::Uuid = r.try_get(0).map_err(backend("reading keyword hit"))?;
            let score: f64 = r.try_get(1).map_err(backend("reading keyword hit"))?;
            Ok(KeywordHit { id: MemoryId(id), bm25: score as f32 })
        })
        .collect()
}

/// The normalised, de-duplicated query terms worth matching (see the module docs).
pub(crate) async fn informative_terms(
    tx: &Transaction<'_>,
    ns_id: i64,
    terms: &[String],
) -> Result<Vec<String>, StoreError> {
    let mut seen = HashSet::new();
    let terms: Vec<String> =
        normalized(terms).into_iter().filter(|t| seen.insert(t.clone())).collect();
    if terms.len() <= 1 {
        return Ok(terms);
    }
    let docs: i64 = tx
        .query_one("SELECT doc_count FROM namespaces WHERE id = $1", &[&ns_id])
        .await
        .and_then(|r| r.try_get(0))
        .map_err(backend("reading namespace size"))?;
    if docs < PRUNE_MIN_DOCS {
        return Ok(terms);
    }
    let rows = tx
        .query(
            "SELECT term, df FROM term_df WHERE ns = $1 AND term = ANY($2) AND df > 0 \
             ORDER BY df, term",
            &[&ns_id, &terms],
        )
        .await
        .map_err(backend("reading term statistics"))?;
    let mut df = Vec::with_capacity(rows.len());
    for r in &rows {
        let term: String = r.try_get(0).map_err(backend("reading term statistics"))?;
        let n: i64 = r.try_get(1).map_err(backend("reading term statistics"))?;
        df.push((term, n));
    }
    Ok(rearview_store::informative_terms(docs, df))
}
