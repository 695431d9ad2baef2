//! The keyword index: FTS5 over namespace-prefixed tokens, scored by Okapi BM25.
//!
//! Every term is stored as `n{namespace id}_{term}`, so a namespace's posting lists and document
//! frequencies are its own. That holds only if FTS5 keeps the term as one token: its tokenizer
//! counts letters, marks, numbers and symbols as token characters (migration 0003), a superset of
//! what `normalize_term` keeps. BM25 is FTS5's `bm25()` (k1 = 1.2, b = 0.75); its IDF is
//! `ln((N − df + 0.5) / (df + 0.5))`, clamped by FTS5 to 1e-6 when that is ≤ 0.
//!
//! **Common-term pruning.** A query term found in more than half of the namespace's memories has
//! (near) zero IDF, so it adds nothing to any score, yet FTS5 must still visit every document that
//! contains it: with jieba tokens such as `我` or `去` that is most of the namespace. We look up
//! each term's document frequency (`fts5vocab`) and drop such terms before matching, unless every
//! term is that common, in which case we keep the rarest one so that the query still matches.
//! Namespaces under 1,000 memories skip this: there, matching everything is cheap.
//!
//! **Oversampling.** FTS5 ranks all matches and keeps the best `limit × 4`; only those are joined
//! with `memories` to apply the filter. If the filter rejects so many that fewer than `limit`
//! remain while more matches exist, we widen the window and try again.

use std::collections::HashSet;

use rearview_core::{MemoryFilter, Namespace, Timestamp};
use rearview_store::{
    KeywordEntry, KeywordHit, KeywordVisitor, PRUNE_MIN_DOCS, StoreError, normalize_term,
};
use rusqlite::{Connection, OptionalExtension, Transaction, params, params_from_iter};

use crate::codec::{AFTER_FACETS, FACET_COLUMNS, backend, decode_facets, parse_id};
use crate::filter_sql::FilterSql;

/// Indexes `terms` for one memory, prefixed with the namespace id.
pub(crate) fn write_terms(
    tx: &Transaction<'_>,
    rowid: i64,
    ns_id: i64,
    terms: &[String],
) -> Result<(), StoreError> {
    let doc = terms.iter().filter_map(|t| namespaced_term(ns_id, t)).collect::<Vec<_>>().join(" ");
    tx.execute("INSERT INTO memory_terms (rowid, terms) VALUES (?1, ?2)", params![rowid, doc])
        .map_err(backend("writing keyword entry"))?;
    Ok(())
}

/// The best `limit` BM25 matches for any of `terms` among memories matching `filter`.
pub(crate) fn search(
    conn: &Connection,
    ns_id: i64,
    terms: &[String],
    filter: &MemoryFilter,
    now: Timestamp,
    limit: usize,
) -> Result<Vec<KeywordHit>, StoreError> {
    let terms = informative_terms(conn, ns_id, terms)?;
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    // Terms are letters, digits and our '_' prefix, so quoting cannot be broken out of.
    let query = terms.iter().map(|t| format!("\"{t}\"")).collect::<Vec<_>>().join(" OR ");
    let clause = FilterSql::probe(ns_id, filter, now);
    let sql = format!(
        "SELECT m.id, f.score FROM \
           (SELECT rowid, -bm25(memory_terms) AS score FROM memory_terms \
            WHERE memory_terms MATCH ? ORDER BY rank LIMIT ?) f \
         JOIN memories m ON m.rowid = f.rowid WHERE {} ORDER BY f.score DESC, m.id",
        clause.sql
    );
    let mut stmt = conn.prepare_cached(&sql).map_err(backend("preparing keyword search"))?;
    let mut window = limit.saturating_mul(4).max(32);
    loop {
        let mut values: Vec<rusqlite::types::Value> =
            vec![query.clone().into(), i64::try_from(window).unwrap_or(i64::MAX).into()];
        values.extend(clause.values.iter().cloned());
        let rows = stmt
            .query_map(params_from_iter(values), |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, f64>(1)?))
            })
            .map_err(backend("running keyword search"))?;
        let mut hits = Vec::new();
        for row in rows {
            let (id, score) = row.map_err(backend("reading keyword hit"))?;
            hits.push(KeywordHit { id: parse_id(&id)?, bm25: score as f32 });
        }
        // Fewer than `limit` passed the filter: if the window was full, there may be more.
        if hits.len() >= limit || !window_was_full(conn, &query, window)? {
            hits.truncate(limit);
            return Ok(hits);
        }
        window = window.saturating_mul(8);
    }
}

/// Whether FTS5 has more than `window` matches for `query` (so widening could find more).
fn window_was_full(conn: &Connection, query: &str, window: usize) -> Result<bool, StoreError> {
    let n: i64 = conn
        .query_row(
            "SELECT count(*) FROM (SELECT 1 FROM memory_terms WHERE memory_terms MATCH ?1 LIMIT ?2)",
            params![query, i64::try_from(window).unwrap_or(i64::MAX).saturating_add(1)],
            |r| r.get(0),
        )
        .map_err(backend("counting keyword matches"))?;
    Ok(n as usize > window)
}

/// The namespaced, de-duplicated query terms worth matching (see the module docs).
fn informative_terms(
    conn: &Connection,
    ns_id: i64,
    terms: &[String],
) -> Result<Vec<String>, StoreError> {
    let mut seen = HashSet::new();
    let terms: Vec<String> = terms
        .iter()
        .filter_map(|t| namespaced_term(ns_id, t))
        .filter(|t| seen.insert(t.clone()))
        .collect();
    if terms.len() <= 1 {
        return Ok(terms);
    }
    let docs: i64 = conn
        .query_row("SELECT doc_count FROM namespaces WHERE id = ?1", [ns_id], |r| r.get(0))
        .map_err(backend("reading namespace size"))?;
    if docs < PRUNE_MIN_DOCS {
        return Ok(terms);
    }
    let placeholders = vec!["?"; terms.len()].join(",");
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT term, doc FROM memory_terms_vocab WHERE term IN ({placeholders})"
        ))
        .map_err(backend("preparing term statistics"))?;
    let df: Vec<(String, i64)> = stmt
        .query_map(params_from_iter(terms.iter()), |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(backend("reading term statistics"))?
        .collect::<Result<_, _>>()
        .map_err(backend("reading term statistics"))?;
    Ok(rearview_store::informative_terms(docs, df))
}

/// `n12_爬山` for term `爬山` in namespace 12, keeping only what [`normalize_term`] keeps
/// (letters, digits and the marks and symbols Unicode counts as alphabetic, lower-cased), or
/// `None` if nothing is left. Every such character is a token character of `memory_terms`
/// (schema v3), so the whole prefixed term is one FTS5 token: no unprefixed piece can leak into
/// another namespace's statistics (`tests/keyword_scripts.rs` checks every character).
fn namespaced_term(ns_id: i64, term: &str) -> Option<String> {
    normalize_term(term).map(|clean| format!("n{ns_id}_{clean}"))
}

/// Reads every memory's indexed terms back, without their namespace prefix.
pub(crate) fn visit_entries(
    conn: &Connection,
    except: &[Namespace],
    mut visit: KeywordVisitor,
) -> Result<(), StoreError> {
    let joined = "FROM memory_terms t JOIN memories m ON m.rowid = t.rowid \
                  JOIN namespaces n ON n.id = m.ns";
    if except.is_empty() {
        // One pass over the whole keyword table, in its own order.
        let sql = format!("SELECT n.name, {FACET_COLUMNS}, t.terms {joined} ORDER BY m.rowid");
        return visit_rows(conn, &sql, [], &mut visit);
    }
    // Namespace by namespace through the memories' namespace index, so the excluded ones (a
    // saved index of a million memories) cost nothing to skip.
    let mut namespaces: Vec<(i64, String)> = Vec::new();
    {
        let mut stmt = conn
            .prepare_cached("SELECT id, name FROM namespaces ORDER BY id")
            .map_err(backend("listing namespaces"))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(backend("listing namespaces"))?;
        for row in rows {
            namespaces.push(row.map_err(backend("listing namespaces"))?);
        }
    }
    let sql = one_namespace_sql();
    for (ns_id, name) in namespaces {
        if !except.iter().any(|e| e.as_str() == name) {
            visit_rows(conn, &sql, [ns_id], &mut visit)?;
        }
    }
    Ok(())
}

/// Visits the keyword entries of the namespace whose id is `ns_id`, through the memories'
/// namespace index.
pub(crate) fn visit_namespace_entries(
    conn: &Connection,
    ns_id: i64,
    mut visit: KeywordVisitor,
) -> Result<(), StoreError> {
    visit_rows(conn, &one_namespace_sql(), [ns_id], &mut visit)
}

/// The keyword entries of one namespace (`?1`), read through the memories' namespace index
/// (`CROSS JOIN` keeps SQLite from starting at the terms table, which would read every
/// namespace's terms for each one).
fn one_namespace_sql() -> String {
    format!(
        "SELECT n.name, {FACET_COLUMNS}, t.terms FROM memories m \
         CROSS JOIN memory_terms t ON t.rowid = m.rowid JOIN namespaces n ON n.id = m.ns \
         WHERE m.ns = ?1"
    )
}

/// Visits the keyword entries `sql` selects (namespace, facets, terms).
fn visit_rows(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    visit: &mut KeywordVisitor,
) -> Result<(), StoreError> {
    let mut stmt = conn.prepare_cached(sql).map_err(backend("preparing keyword entry load"))?;
    let mut rows = stmt.query(params).map_err(backend("loading keyword entries"))?;
    while let Some(row) = rows.next().map_err(backend("reading keyword entry"))? {
        let (namespace, id, facets) = decode_facets(row)?;
        let doc = row.get_ref(AFTER_FACETS).and_then(|v| Ok(v.as_str()?));
        let doc = doc.map_err(backend("reading keyword entry"))?;
        visit(KeywordEntry { namespace, id, facets, terms: doc_terms(doc) });
    }
    Ok(())
}

/// The terms of one memory's keyword entry (empty when it has none).
pub(crate) fn terms_of(conn: &Connection, rowid: i64) -> Result<Vec<String>, StoreError> {
    let doc: Option<String> = conn
        .prepare_cached("SELECT terms FROM memory_terms WHERE rowid = ?1")
        .and_then(|mut stmt| stmt.query_row([rowid], |r| r.get(0)).optional())
        .map_err(backend("reading keyword entry"))?;
    Ok(doc.as_deref().map(doc_terms).unwrap_or_default())
}

/// A stored document's terms without their namespace prefix.
fn doc_terms(doc: &str) -> Vec<String> {
    doc.split(' ').filter_map(|t| t.split_once('_').map(|(_, term)| term.to_owned())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_namespaced_and_cleaned() {
        assert_eq!(namespaced_term(7, "爬山").as_deref(), Some("n7_爬山"));
        assert_eq!(namespaced_term(7, "Port").as_deref(), Some("n7_port"));
        assert_eq!(namespaced_term(7, "\"x\"").as_deref(), Some("n7_x"));
        assert_eq!(namespaced_term(7, "()*"), None);
    }
}
