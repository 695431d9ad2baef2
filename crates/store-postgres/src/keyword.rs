//! The keyword index: each memory's terms (`memory_terms`), scored by Okapi BM25 in SQL.
//!
//! The score is FTS5's `bm25()` (what the SQLite backend uses), so ranking stays one pure
//! function across backends: k1 = 1.2, b = 0.75, IDF `ln((N − df + 0.5) / (df + 0.5))` clamped
//! to 1e-6 when that is ≤ 0. N, the document frequencies and the average length are the
//! namespace's own (SQLite's FTS5 takes N and the average length over the whole file), so a
//! tenant's scores never depend on what other tenants stored.
//!
//! There are no per-term postings in SQL (schema 5 dropped them): a server keeps each
//! namespace's keyword index in memory, loaded from these entries when the namespace is first
//! used (`visit_namespace_keyword_entries`), and follows other servers' writes through the change
//! log. What searches here are one-shot commands: they read the namespace's entries holding a
//! query term (`memory_terms_by_ns`, then the array overlap), so the cost grows with the
//! namespace. The postings cost two thirds of a schema's disk and most of a store's writes
//! (100,000 memories in 1,000 namespaces: 562 of 853 MB), for a search servers no longer ran.
//!
//! Common query terms are pruned as in the SQLite backend: in a namespace of 1,000 memories or
//! more, a term found in more than half of them carries (near) zero weight, so it is dropped
//! unless every term is that common.

use std::collections::HashSet;

use rearview_core::{MemoryFilter, MemoryId, Timestamp};
use rearview_store::{KeywordHit, PRUNE_MIN_DOCS, StoreError, normalize_term};
use tokio_postgres::Transaction;

use crate::codec::backend;
use crate::{Params, filter};

/// A term's weighted IDF in SQL, from the columns `weight`, `df` and the namespace's `s.n`: the
/// one spelling of the formula for scoring and the full-match score.
pub(crate) const WEIGHTED_IDF: &str = "q.weight::float8 * GREATEST(ln((s.n - q.df::float8 + 0.5::float8) \
     / (q.df::float8 + 0.5::float8)), 1e-6::float8)";

/// The terms as indexed: normalised, in order, empty ones dropped.
pub(crate) fn normalized(terms: &[String]) -> Vec<String> {
    terms.iter().filter_map(|t| normalize_term(t)).collect()
}

/// Memory-term entries per multi-row `INSERT` (4 parameters each).
const ENTRIES_PER_STATEMENT: usize = 1000;

/// Writes the keyword entry of each `(memory, namespace id, terms)`.
pub(crate) async fn write_terms(
    tx: &Transaction<'_>,
    entries: &[(MemoryId, i64, &[String])],
) -> Result<(), StoreError> {
    for chunk in entries.chunks(ENTRIES_PER_STATEMENT) {
        let mut params = Params::default();
        let mut values = Vec::with_capacity(chunk.len());
        for (id, ns_id, terms) in chunk {
            let terms = normalized(terms);
            let length = terms.len() as i32;
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
    Ok(())
}

/// Removes one memory's keyword entry (before writing a new one).
pub(crate) async fn delete_terms(tx: &Transaction<'_>, id: MemoryId) -> Result<(), StoreError> {
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
    let terms = distinct(terms);
    let frequencies = document_frequencies(tx, ns_id, &terms).await?;
    let terms = informative_terms(tx, ns_id, &frequencies).await?;
    let weights = vec![1.0; terms.len()];
    scored(tx, ns_id, &terms, &weights, &frequencies, filter, now, limit).await
}

/// The normalised terms of `terms`, each once, in order.
pub(crate) fn distinct(terms: &[String]) -> Vec<String> {
    let mut seen = HashSet::new();
    normalized(terms).into_iter().filter(|t| seen.insert(t.clone())).collect()
}

/// How many of the namespace's memories hold each of `terms` (normalised, distinct), in order
/// (0 for a term in none): one read of the namespace's entries holding any of them.
pub(crate) async fn document_frequencies(
    tx: &Transaction<'_>,
    ns_id: i64,
    terms: &[String],
) -> Result<Vec<(String, i64)>, StoreError> {
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let rows = tx
        .query(
            "SELECT x.term, count(*) FROM memory_terms t \
             CROSS JOIN LATERAL (SELECT DISTINCT u FROM unnest(t.terms) AS u \
                                 WHERE u = ANY($2::text[])) AS x(term) \
             WHERE t.ns = $1 AND t.terms && $2::text[] \
             GROUP BY x.term",
            &[&ns_id, &terms],
        )
        .await
        .map_err(backend("reading term statistics"))?;
    let mut found = std::collections::HashMap::with_capacity(rows.len());
    for r in &rows {
        let term: String = r.try_get(0).map_err(backend("reading term statistics"))?;
        let df: i64 = r.try_get(1).map_err(backend("reading term statistics"))?;
        found.insert(term, df);
    }
    Ok(terms.iter().map(|t| (t.clone(), found.get(t).copied().unwrap_or(0))).collect())
}

/// The best `limit` memories matching `filter` by BM25 over `terms` (normalised, distinct),
/// each term's contribution multiplied by its weight: the one scoring query of both keyword
/// searches. `frequencies` holds each term's document frequency.
#[allow(clippy::too_many_arguments)] // one search's parameters
pub(crate) async fn scored(
    tx: &Transaction<'_>,
    ns_id: i64,
    terms: &[String],
    weights: &[f32],
    frequencies: &[(String, i64)],
    filter: &MemoryFilter,
    now: Timestamp,
    limit: usize,
) -> Result<Vec<KeywordHit>, StoreError> {
    if terms.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let dfs: Vec<i64> = terms
        .iter()
        .map(|t| frequencies.iter().find(|(f, _)| f == t).map_or(0, |(_, df)| *df))
        .collect();
    tx.batch_execute(WORK_MEM).await.map_err(backend("sizing the keyword search's memory"))?;
    // First the best few times `limit` by score, filtered after: checking the filter costs a
    // row read per scored memory. When fewer than `limit` of those pass, the filter is
    // selective: then every scored memory is checked. Either way the answer is the exact top
    // `limit`.
    let pool = limit.saturating_mul(POOL_FACTOR);
    let query = Scoring { ns_id, terms, weights, dfs: &dfs, filter, now, limit };
    let found = query.run(tx, Some(pool)).await?;
    if found.len() >= limit {
        return Ok(found);
    }
    query.run(tx, None).await
}

/// Memory for the scoring query's materialised scores and their sort, one row per scored memory
/// (a 26-term Chinese question scored 237,186 of 1M memories; at PostgreSQL's default 4 MB such
/// a query spilled to disk). For this transaction only.
const WORK_MEM: &str = "SET LOCAL work_mem = '32MB'";

/// How many times `limit` the best-scored memories are before the filter is checked.
const POOL_FACTOR: usize = 4;

/// One keyword search's scoring query.
struct Scoring<'a> {
    ns_id: i64,
    terms: &'a [String],
    weights: &'a [f32],
    dfs: &'a [i64],
    filter: &'a MemoryFilter,
    now: Timestamp,
    limit: usize,
}

impl Scoring<'_> {
    /// The best `limit` matching the filter among the best `pool` by score (all scored memories
    /// when `None`).
    async fn run(
        &self,
        tx: &Transaction<'_>,
        pool: Option<usize>,
    ) -> Result<Vec<KeywordHit>, StoreError> {
        let mut params = Params::default();
        let ns = params.push(self.ns_id);
        let wanted = params.push(self.terms.to_vec());
        let weighted = params.push(self.weights.to_vec());
        let dfs = params.push(self.dfs.to_vec());
        let clause = filter::clause(&mut params, self.ns_id, self.filter, self.now);
        let limit = params.push(i64::try_from(self.limit).unwrap_or(i64::MAX));
        let pool = match pool {
            Some(pool) => format!("LIMIT {}", params.push(i64::try_from(pool).unwrap_or(i64::MAX))),
            None => String::new(),
        };
        // `w` is materialised so that each term's IDF is computed once, not once per match; the
        // constants are float8 so that nothing is scored in `numeric`. `sc` reads the entries
        // holding a query term once (by namespace, then the array overlap) and scores each on
        // its own (no aggregate spans the namespace), summing its terms in one order so that
        // equal memories score equal to the bit and tie by id. The last `LATERAL … OFFSET 0`
        // looks each scored memory up by its key, whatever the planner's statistics say.
        let sql = format!(
            "WITH s AS (SELECT doc_count::float8 AS n, \
                           GREATEST(total_terms::float8 / GREATEST(doc_count, 1), 1e-9) AS avgdl \
                        FROM namespaces WHERE id = {ns}), \
                  w AS MATERIALIZED (SELECT q.term, {WEIGHTED_IDF} AS idf \
                         FROM unnest({wanted}::text[], {weighted}::float4[], {dfs}::int8[]) \
                           AS q(term, weight, df) CROSS JOIN s), \
                  sc AS MATERIALIZED (SELECT t.memory_id, r.score \
                         FROM memory_terms t CROSS JOIN s CROSS JOIN LATERAL ( \
                           SELECT sum(w.idf * c.tf * 2.2::float8 / (c.tf + 1.2::float8 \
                               * (0.25::float8 + 0.75::float8 * t.length / s.avgdl)) \
                               ORDER BY c.term) AS score \
                           FROM (SELECT x.term, count(*)::float8 AS tf FROM unnest(t.terms) AS x(term) \
                                 WHERE x.term = ANY({wanted}::text[]) GROUP BY x.term) c \
                           JOIN w ON w.term = c.term) r \
                         WHERE t.ns = {ns} AND t.terms && {wanted}::text[]), \
                  best AS MATERIALIZED (SELECT memory_id, score FROM sc \
                         ORDER BY score DESC, memory_id {pool}) \
             SELECT best.memory_id, best.score FROM best \
             CROSS JOIN LATERAL (SELECT 1 FROM memories m WHERE m.id = best.memory_id AND {clause} \
               OFFSET 0) m \
             ORDER BY best.score DESC, best.memory_id LIMIT {limit}"
        );
        let rows =
            tx.query(&sql, &params.refs()).await.map_err(backend("running keyword search"))?;
        rows.iter()
            .map(|r| {
                let id: uuid::Uuid = r.try_get(0).map_err(backend("reading keyword hit"))?;
                let score: f64 = r.try_get(1).map_err(backend("reading keyword hit"))?;
                Ok(KeywordHit { id: MemoryId(id), bm25: score as f32 })
            })
            .collect()
    }
}

/// The terms of `frequencies` worth matching (see the module docs), in order.
pub(crate) async fn informative_terms(
    tx: &Transaction<'_>,
    ns_id: i64,
    frequencies: &[(String, i64)],
) -> Result<Vec<String>, StoreError> {
    let terms = || frequencies.iter().map(|(t, _)| t.clone()).collect();
    if frequencies.len() <= 1 {
        return Ok(terms());
    }
    let docs: i64 = tx
        .query_one("SELECT doc_count FROM namespaces WHERE id = $1", &[&ns_id])
        .await
        .and_then(|r| r.try_get(0))
        .map_err(backend("reading namespace size"))?;
    if docs < PRUNE_MIN_DOCS {
        return Ok(terms());
    }
    // Terms in no memory match nothing; the rest rarest first, as the pruning rule reads them.
    let mut df: Vec<(String, i64)> =
        frequencies.iter().filter(|(_, df)| *df > 0).cloned().collect();
    df.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    Ok(rearview_store::informative_terms(docs, df))
}
