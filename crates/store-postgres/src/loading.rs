//! What a process loads from the database: export pages, every vector of a model (with facets,
//! or the facets alone around a saved graph), one namespace's vectors, and the keyword entries
//! an in-memory index is built from.

use std::collections::HashMap;

use rearview_core::{Memory, MemoryId, Namespace};
use rearview_store::{
    FacetEntry, KeywordEntry, KeywordVisitor, StoreError, StoredVector, VectorEntry,
};
use tokio_postgres::Row;

use crate::PgStore;
use crate::codec::{
    AFTER_FACETS, FACET_COLUMNS, MEMORY_COLUMNS, backend, decode_facets, decode_vector, uuid,
};
use crate::store::{limit, memories, vectors_by_memory};

pub(crate) async fn export_page(
    store: &PgStore,
    namespace: &Namespace,
    after: Option<MemoryId>,
    page_size: usize,
    with_vectors: bool,
) -> Result<Vec<(Memory, Vec<StoredVector>)>, StoreError> {
    let client = store.client().await?;
    let Some(ns_id) = store.namespace_id(&client, namespace).await? else {
        return Ok(Vec::new());
    };
    let sql = format!(
        "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.ns = $1 \
         AND ($2::uuid IS NULL OR m.id > $2) ORDER BY m.id LIMIT $3"
    );
    let rows = client
        .query(&sql, &[&ns_id, &after.map(uuid), &limit(page_size)])
        .await
        .map_err(backend("exporting memories"))?;
    let page = memories(&rows, namespace)?;
    let mut vectors = if with_vectors {
        let wanted: Vec<MemoryId> = page.iter().map(|m| m.id).collect();
        vectors_by_memory(&client, &wanted).await?
    } else {
        HashMap::new()
    };
    Ok(page
        .into_iter()
        .map(|m| {
            let v = vectors.remove(&m.id).unwrap_or_default();
            (m, v)
        })
        .collect())
}

pub(crate) async fn vectors(
    store: &PgStore,
    model_id: &str,
) -> Result<Vec<VectorEntry>, StoreError> {
    let client = store.client().await?;
    let sql = format!(
        "SELECT n.name, {FACET_COLUMNS}, v.embedding FROM vectors v \
         JOIN memories m ON m.id = v.memory_id JOIN namespaces n ON n.id = m.ns \
         WHERE v.model_id = $1 ORDER BY m.created_at, m.id"
    );
    let rows = client.query(&sql, &[&model_id]).await.map_err(backend("loading vectors"))?;
    vector_entries(&rows)
}

pub(crate) async fn vector_facets(
    store: &PgStore,
    model_id: &str,
) -> Result<Vec<FacetEntry>, StoreError> {
    let client = store.client().await?;
    let sql = format!(
        "SELECT n.name, {FACET_COLUMNS} FROM vectors v \
         JOIN memories m ON m.id = v.memory_id JOIN namespaces n ON n.id = m.ns \
         WHERE v.model_id = $1"
    );
    let rows = client.query(&sql, &[&model_id]).await.map_err(backend("loading facets"))?;
    rows.iter()
        .map(|r| {
            let (namespace, id, facets) = decode_facets(r)?;
            Ok(FacetEntry { namespace, id, facets })
        })
        .collect()
}

pub(crate) async fn namespace_vectors(
    store: &PgStore,
    model_id: &str,
    namespace: &Namespace,
) -> Result<Vec<VectorEntry>, StoreError> {
    let client = store.client().await?;
    let Some(ns_id) = store.namespace_id(&client, namespace).await? else {
        return Ok(Vec::new());
    };
    let sql = format!(
        "SELECT n.name, {FACET_COLUMNS}, v.embedding FROM vectors v \
         JOIN memories m ON m.id = v.memory_id JOIN namespaces n ON n.id = m.ns \
         WHERE v.model_id = $1 AND m.ns = $2 ORDER BY m.created_at, m.id"
    );
    let rows =
        client.query(&sql, &[&model_id, &ns_id]).await.map_err(backend("loading vectors"))?;
    vector_entries(&rows)
}

/// Which namespaces' keyword entries to visit.
pub(crate) enum Visiting<'a> {
    /// Every namespace but these.
    AllBut(&'a [Namespace]),
    /// This one only.
    Only(&'a Namespace),
}

pub(crate) async fn visit_keyword_entries(
    store: &PgStore,
    visiting: Visiting<'_>,
    mut visit: KeywordVisitor,
) -> Result<(), StoreError> {
    let client = store.client().await?;
    let which = match visiting {
        Visiting::AllBut(_) => "n.name <> ALL($1)",
        Visiting::Only(_) => "n.name = ANY($1)",
    };
    let sql = format!(
        "SELECT n.name, {FACET_COLUMNS}, t.terms FROM memory_terms t \
         JOIN memories m ON m.id = t.memory_id JOIN namespaces n ON n.id = m.ns \
         WHERE {which} ORDER BY m.created_at, m.id"
    );
    let names: Vec<&str> = match visiting {
        Visiting::AllBut(except) => except.iter().map(Namespace::as_str).collect(),
        Visiting::Only(namespace) => vec![namespace.as_str()],
    };
    let rows = client.query(&sql, &[&names]).await.map_err(backend("loading keyword entries"))?;
    drop(client);
    // The visitor builds an index: CPU work, kept off the async workers. (The rows are read
    // in one piece: a server on PostgreSQL searches keywords in the database by default and
    // never gets here.)
    let visited = tokio::task::spawn_blocking(move || {
        for r in &rows {
            let (namespace, id, facets) = decode_facets(r)?;
            let terms: Vec<String> =
                r.try_get(AFTER_FACETS).map_err(backend("reading keyword entry"))?;
            visit(KeywordEntry { namespace, id, facets, terms });
        }
        Ok(())
    });
    visited.await.map_err(|e| StoreError::Backend {
        context: "building from keyword entries".into(),
        source: Box::new(e),
    })?
}

fn vector_entries(rows: &[Row]) -> Result<Vec<VectorEntry>, StoreError> {
    rows.iter()
        .map(|r| {
            let (namespace, id, facets) = decode_facets(r)?;
            Ok(VectorEntry { namespace, id, facets, embedding: decode_vector(r, AFTER_FACETS)? })
        })
        .collect()
}
