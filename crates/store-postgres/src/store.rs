//! [`MemoryStore`] for [`PgStore`](crate::PgStore): each method is one statement or one transaction.

use std::collections::HashMap;

use async_trait::async_trait;
use rearview_core::{Embedding, Memory, MemoryFilter, MemoryId, MemoryType, Namespace, Timestamp};
use rearview_store::{
    ApiKeyRecord, Change, Changes, DayCount, FacetEntry, KeywordEntry, KeywordHit, KeywordVisitor,
    MemoryRecord, MemoryStore, MemoryUpdate, Page, PendingEmbedding, StoreError, StoreStats,
    StoredVector, TierCount, VectorEntry, VectorMatch, WeightedKeywordHits,
};
use tokio_postgres::Row;

use crate::codec::{
    AFTER_FACETS, FACET_COLUMNS, MEMORY_COLUMNS, backend, corrupt, decode_facets, decode_memory,
    decode_vector, micros, optional_time, parse_namespace, parse_tier, timestamp, uuid,
};
use crate::insert::{latest_per_model, write_vectors};
use crate::{Params, PgStore, filter, keyword, search};

const LOCK_WRITES: &str = "SELECT pg_advisory_xact_lock(hashtext(current_schema()))";

fn ids(ids: &[MemoryId]) -> Vec<uuid::Uuid> {
    ids.iter().map(|id| id.0).collect()
}

fn memories(rows: &[Row], namespace: &Namespace) -> Result<Vec<Memory>, StoreError> {
    rows.iter().map(|r| decode_memory(r, namespace)).collect()
}

fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Opens a write transaction holding the schema's write lock (see the crate docs).
macro_rules! write_tx {
    ($client:ident) => {{
        let tx = $client.transaction().await.map_err(backend("starting a write transaction"))?;
        tx.execute(LOCK_WRITES, &[]).await.map_err(backend("taking the write lock"))?;
        tx
    }};
}

/// The stored vectors of each of `wanted`, by model id, in one round trip.
async fn vectors_by_memory(
    client: &tokio_postgres::Client,
    wanted: &[MemoryId],
) -> Result<HashMap<MemoryId, Vec<StoredVector>>, StoreError> {
    let rows = client
        .query(
            "SELECT memory_id, model_id, embedding FROM vectors WHERE memory_id = ANY($1) \
             ORDER BY memory_id, model_id",
            &[&ids(wanted)],
        )
        .await
        .map_err(backend("loading memory vectors"))?;
    let mut out: HashMap<MemoryId, Vec<StoredVector>> = HashMap::new();
    for r in &rows {
        let id = MemoryId(r.try_get(0).map_err(backend("reading vector row"))?);
        let model_id: String = r.try_get(1).map_err(backend("reading vector row"))?;
        out.entry(id).or_default().push(StoredVector { model_id, embedding: decode_vector(r, 2)? });
    }
    Ok(out)
}

/// Applies `u` to memory `id` (which exists) inside `tx`.
async fn apply_update(
    tx: &tokio_postgres::Transaction<'_>,
    id: MemoryId,
    ns_id: i64,
    u: &MemoryUpdate,
) -> Result<(), StoreError> {
    let mut params = Params::default();
    let mut sets: Vec<String> = Vec::new();
    let mut edited = false;
    if let Some((content, _, hash)) = &u.content {
        sets.push(format!("content = {}", params.push(content.clone())));
        sets.push(format!("content_hash = {}", params.push(hash.clone())));
        edited = true;
    }
    if let Some(summary) = &u.summary {
        sets.push(format!("summary = {}", params.push(summary.clone())));
        edited = true;
    }
    if let Some(occurred_at) = u.occurred_at {
        sets.push(format!("occurred_at = {}", params.push(micros(occurred_at))));
        edited = true;
    }
    if let Some(metadata) = &u.metadata {
        let json = serde_json::Value::Object(metadata.clone());
        sets.push(format!("metadata = {}", params.push(json)));
        edited = true;
    }
    if let Some(tier) = u.memory_type {
        sets.push(format!("memory_type = {}", params.push(tier.as_str().to_owned())));
        edited = true;
    }
    if let Some((ttl, expires_at)) = u.ttl {
        sets.push(format!("ttl_secs = {}", params.push(i64::try_from(ttl).unwrap_or(i64::MAX))));
        sets.push(format!("expires_at = {}", params.push(expires_at.map(micros))));
        edited = true;
    }
    // Archiving and supersession change state, not content: `updated_at` stays for them.
    if let Some(archived) = u.archived {
        sets.push(format!("archived = {}", params.push(archived)));
    }
    if let Some(superseded) = u.superseded {
        let (by, at) = superseded.unzip();
        sets.push(format!("superseded_by = {}", params.push(by.map(uuid))));
        sets.push(format!("invalid_at = {}", params.push(at.map(micros))));
    }
    if edited {
        sets.push(format!("updated_at = {}", params.push(micros(u.at))));
    }
    if !sets.is_empty() {
        let sql =
            format!("UPDATE memories SET {} WHERE id = {}", sets.join(", "), params.push(id.0));
        tx.execute(&sql, &params.refs()).await.map_err(backend("updating memory"))?;
    }
    if let Some((_, terms, _)) = &u.content {
        keyword::delete_terms(tx, id).await?;
        keyword::write_terms(tx, &[(id, ns_id, terms.as_slice())]).await?;
    }
    if let Some(vectors) = &u.vectors {
        tx.execute("DELETE FROM vectors WHERE memory_id = $1", &[&id.0])
            .await
            .map_err(backend("replacing vectors"))?;
        let latest: Vec<(MemoryId, &StoredVector)> = latest_per_model(id, vectors).collect();
        write_vectors(tx, &latest).await?;
    }
    Ok(())
}

/// `(namespace, id)` pairs from rows of `n.name, m.id`.
fn named_ids(rows: &[Row]) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
    rows.iter()
        .map(|r| {
            let name: &str = r.try_get(0).map_err(backend("reading a memory id"))?;
            let id: uuid::Uuid = r.try_get(1).map_err(backend("reading a memory id"))?;
            Ok((parse_namespace(name)?, MemoryId(id)))
        })
        .collect()
}

fn vector_entries(rows: &[Row]) -> Result<Vec<VectorEntry>, StoreError> {
    rows.iter()
        .map(|r| {
            let (namespace, id, facets) = decode_facets(r)?;
            Ok(VectorEntry { namespace, id, facets, embedding: decode_vector(r, AFTER_FACETS)? })
        })
        .collect()
}

#[async_trait]
impl MemoryStore for PgStore {
    async fn insert(&self, record: &MemoryRecord) -> Result<(), StoreError> {
        match self.insert_many(std::slice::from_ref(record)).await?.as_slice() {
            [true] => Ok(()),
            _ => Err(StoreError::Conflict { id: record.memory.id.to_string() }),
        }
    }

    async fn insert_many(&self, records: &[MemoryRecord]) -> Result<Vec<bool>, StoreError> {
        if records.is_empty() {
            return Ok(Vec::new());
        }
        let mut client = self.client().await?;
        let tx = write_tx!(client);
        let (written, namespaces) = self.insert_records(&tx, records).await?;
        if !written.contains(&true) {
            // Nothing new: leave no namespace row behind.
            return Ok(written);
        }
        tx.commit().await.map_err(backend("committing"))?;
        for (namespace, id) in namespaces {
            self.cache_id(&namespace, id);
        }
        Ok(written)
    }

    async fn get(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        now: Timestamp,
    ) -> Result<Option<Memory>, StoreError> {
        Ok(self.get_many(namespace, &[id], now).await?.pop())
    }

    async fn get_many(
        &self,
        namespace: &Namespace,
        ids_wanted: &[MemoryId],
        now: Timestamp,
    ) -> Result<Vec<Memory>, StoreError> {
        if ids_wanted.is_empty() {
            return Ok(Vec::new());
        }
        let client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = ANY($1) AND m.ns = $2 \
             AND (m.expires_at IS NULL OR m.expires_at > $3)"
        );
        let rows = client
            .query(&sql, &[&ids(ids_wanted), &ns_id, &micros(now)])
            .await
            .map_err(backend("reading memories"))?;
        memories(&rows, namespace)
    }

    async fn update(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        update: &MemoryUpdate,
    ) -> Result<Option<Memory>, StoreError> {
        let mut client = self.client().await?;
        let tx = write_tx!(client);
        let Some(ns_id) = self.namespace_id_in(&tx, namespace).await? else { return Ok(None) };
        let found = tx
            .query_opt(
                "SELECT 1 FROM memories WHERE ns = $1 AND id = $2 \
                 AND (expires_at IS NULL OR expires_at > $3) FOR UPDATE",
                &[&ns_id, &id.0, &micros(update.at)],
            )
            .await
            .map_err(backend("finding the memory to update"))?;
        if found.is_none() {
            return Ok(None);
        }
        apply_update(&tx, id, ns_id, update).await?;
        let sql = format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = $1");
        let rows = tx.query(&sql, &[&id.0]).await.map_err(backend("reading the update"))?;
        let updated = memories(&rows, namespace)?.pop();
        tx.commit().await.map_err(backend("committing"))?;
        Ok(updated)
    }

    async fn delete(&self, namespace: &Namespace, id: MemoryId) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = write_tx!(client);
        let Some(ns_id) = self.namespace_id_in(&tx, namespace).await? else { return Ok(false) };
        // Keyword entry, postings and vectors go with the row (ON DELETE CASCADE).
        let n = tx
            .execute("DELETE FROM memories WHERE ns = $1 AND id = $2", &[&ns_id, &id.0])
            .await
            .map_err(backend("deleting memory"))?;
        tx.commit().await.map_err(backend("committing"))?;
        Ok(n == 1)
    }

    async fn list(
        &self,
        namespace: &Namespace,
        filter: &MemoryFilter,
        now: Timestamp,
        page: Page,
    ) -> Result<Vec<Memory>, StoreError> {
        let client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else {
            return Ok(Vec::new());
        };
        let mut params = Params::default();
        let clause = filter::clause(&mut params, ns_id, filter, now);
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {clause} \
             ORDER BY m.occurred_at DESC, m.id DESC LIMIT {} OFFSET {}",
            params.push(i64::try_from(page.limit).unwrap_or(i64::MAX)),
            params.push(i64::try_from(page.offset).unwrap_or(i64::MAX)),
        );
        let rows = client.query(&sql, &params.refs()).await.map_err(backend("listing memories"))?;
        memories(&rows, namespace)
    }

    async fn count(
        &self,
        namespace: &Namespace,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else { return Ok(0) };
        let mut params = Params::default();
        let clause = filter::clause(&mut params, ns_id, filter, now);
        let sql = format!("SELECT count(*) FROM memories m WHERE {clause}");
        let n: i64 = client
            .query_one(&sql, &params.refs())
            .await
            .and_then(|r| r.try_get(0))
            .map_err(backend("counting memories"))?;
        Ok(n.max(0) as u64)
    }

    async fn keyword_search(
        &self,
        namespace: &Namespace,
        terms: &[String],
        filter: &MemoryFilter,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<KeywordHit>, StoreError> {
        if limit == 0 || terms.is_empty() {
            return Ok(Vec::new());
        }
        let mut client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else {
            return Ok(Vec::new());
        };
        // One snapshot for the statistics and the scores.
        let tx = client
            .build_transaction()
            .read_only(true)
            .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
            .start()
            .await
            .map_err(backend("starting a keyword search"))?;
        let hits = keyword::search(&tx, ns_id, terms, filter, now, limit).await?;
        tx.commit().await.map_err(backend("ending a keyword search"))?;
        Ok(hits)
    }

    async fn record_access(
        &self,
        namespace: &Namespace,
        ids_used: &[MemoryId],
        at: Timestamp,
    ) -> Result<(), StoreError> {
        if ids_used.is_empty() {
            return Ok(());
        }
        let client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else { return Ok(()) };
        // One atomic UPDATE: increments happen in the database, so concurrent recalls (on any
        // server) never overwrite each other's counts; an id given n times adds n. Rows are
        // locked in id order, so two such updates cannot deadlock. Access columns are not
        // logged and take no write lock.
        client
            .execute(
                "WITH wanted AS (SELECT id, count(*) AS n FROM unnest($3::uuid[]) AS u(id) \
                                 GROUP BY id), \
                      locked AS (SELECT m.id FROM memories m JOIN wanted w ON w.id = m.id \
                                 WHERE m.ns = $2 ORDER BY m.id FOR NO KEY UPDATE OF m) \
                 UPDATE memories m SET access_count = m.access_count + w.n, \
                   last_accessed_at = GREATEST(coalesce(m.last_accessed_at, $1), $1) \
                 FROM wanted w JOIN locked l ON l.id = w.id WHERE m.id = w.id",
                &[&micros(at), &ns_id, &ids(ids_used)],
            )
            .await
            .map_err(backend("recording access"))?;
        Ok(())
    }

    async fn put_vector(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        vector: &StoredVector,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = write_tx!(client);
        let Some(ns_id) = self.namespace_id_in(&tx, namespace).await? else { return Ok(false) };
        let exists = tx
            .query_opt("SELECT 1 FROM memories WHERE ns = $1 AND id = $2", &[&ns_id, &id.0])
            .await
            .map_err(backend("finding the memory for a vector"))?;
        if exists.is_none() {
            return Ok(false);
        }
        write_vectors(&tx, &[(id, vector)]).await?;
        tx.commit().await.map_err(backend("committing"))?;
        Ok(true)
    }

    async fn delete_expired(
        &self,
        namespace: Option<&Namespace>,
        now: Timestamp,
    ) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
        let mut client = self.client().await?;
        let tx = write_tx!(client);
        let name = namespace.map(|n| n.as_str().to_owned());
        let rows = tx
            .query(
                // Rows locked in id order first, as record_access locks them: no deadlock.
                "WITH doomed AS (SELECT m.id FROM memories m JOIN namespaces n ON n.id = m.ns \
                   WHERE m.expires_at IS NOT NULL AND m.expires_at <= $1 \
                     AND ($2::text IS NULL OR n.name = $2) ORDER BY m.id FOR UPDATE OF m), \
                 gone AS (DELETE FROM memories m USING doomed d, namespaces n \
                   WHERE m.id = d.id AND n.id = m.ns RETURNING n.name, m.id) \
                 SELECT name, id FROM gone",
                &[&micros(now), &name],
            )
            .await
            .map_err(backend("deleting expired memories"))?;
        let deleted = named_ids(&rows)?;
        tx.commit().await.map_err(backend("committing"))?;
        Ok(deleted)
    }

    async fn predecessors(
        &self,
        namespace: &Namespace,
        id: MemoryId,
        now: Timestamp,
    ) -> Result<Vec<Memory>, StoreError> {
        let client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.superseded_by = $1 AND m.ns = $2 \
             AND (m.expires_at IS NULL OR m.expires_at > $3) \
             ORDER BY m.invalid_at DESC NULLS LAST, m.id DESC"
        );
        let rows = client
            .query(&sql, &[&id.0, &ns_id, &micros(now)])
            .await
            .map_err(backend("reading predecessors"))?;
        memories(&rows, namespace)
    }

    async fn find_by_hash(
        &self,
        namespace: &Namespace,
        hash: &str,
        now: Timestamp,
    ) -> Result<Vec<Memory>, StoreError> {
        let client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.ns = $1 AND m.content_hash = $2 \
             AND (m.expires_at IS NULL OR m.expires_at > $3) ORDER BY m.created_at, m.id"
        );
        let rows = client
            .query(&sql, &[&ns_id, &hash, &micros(now)])
            .await
            .map_err(backend("finding duplicates"))?;
        memories(&rows, namespace)
    }

    async fn archive_idle(
        &self,
        namespace: Option<&Namespace>,
        memory_type: MemoryType,
        idle_since: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<(Namespace, MemoryId)>, StoreError> {
        let mut client = self.client().await?;
        let tx = write_tx!(client);
        let name = namespace.map(|n| n.as_str().to_owned());
        let rows = tx
            .query(
                // Rows locked in id order first, as record_access locks them: no deadlock.
                "WITH idle AS (SELECT m.id FROM memories m JOIN namespaces n ON n.id = m.ns \
                   WHERE m.memory_type = $1 AND NOT m.archived \
                     AND GREATEST(m.updated_at, coalesce(m.last_accessed_at, 0)) < $2 \
                     AND (m.expires_at IS NULL OR m.expires_at > $3) \
                     AND ($4::text IS NULL OR n.name = $4) ORDER BY m.id FOR UPDATE OF m), \
                 moved AS (UPDATE memories m SET archived = TRUE FROM idle i, namespaces n \
                   WHERE m.id = i.id AND n.id = m.ns RETURNING n.name, m.id) \
                 SELECT name, id FROM moved",
                &[&memory_type.as_str(), &micros(idle_since), &micros(now), &name],
            )
            .await
            .map_err(backend("archiving idle memories"))?;
        let archived = named_ids(&rows)?;
        tx.commit().await.map_err(backend("committing"))?;
        Ok(archived)
    }

    async fn export_page(
        &self,
        namespace: &Namespace,
        after: Option<MemoryId>,
        page_size: usize,
        with_vectors: bool,
    ) -> Result<Vec<(Memory, Vec<StoredVector>)>, StoreError> {
        let client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else {
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

    async fn vectors(&self, model_id: &str) -> Result<Vec<VectorEntry>, StoreError> {
        let client = self.client().await?;
        let sql = format!(
            "SELECT n.name, {FACET_COLUMNS}, v.embedding FROM vectors v \
             JOIN memories m ON m.id = v.memory_id JOIN namespaces n ON n.id = m.ns \
             WHERE v.model_id = $1 ORDER BY m.created_at, m.id"
        );
        let rows = client.query(&sql, &[&model_id]).await.map_err(backend("loading vectors"))?;
        vector_entries(&rows)
    }

    async fn vector_facets(&self, model_id: &str) -> Result<Vec<FacetEntry>, StoreError> {
        let client = self.client().await?;
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

    async fn namespace_vectors(
        &self,
        model_id: &str,
        namespace: &Namespace,
    ) -> Result<Vec<VectorEntry>, StoreError> {
        let client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else {
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

    async fn visit_keyword_entries(
        &self,
        except: &[Namespace],
        mut visit: KeywordVisitor,
    ) -> Result<(), StoreError> {
        let client = self.client().await?;
        let sql = format!(
            "SELECT n.name, {FACET_COLUMNS}, t.terms FROM memory_terms t \
             JOIN memories m ON m.id = t.memory_id JOIN namespaces n ON n.id = m.ns \
             WHERE n.name <> ALL($1) ORDER BY m.created_at, m.id"
        );
        let except: Vec<&str> = except.iter().map(Namespace::as_str).collect();
        let rows =
            client.query(&sql, &[&except]).await.map_err(backend("loading keyword entries"))?;
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

    async fn pending_embeddings(
        &self,
        model_id: &str,
        namespace: Option<&Namespace>,
        page_size: usize,
    ) -> Result<Vec<PendingEmbedding>, StoreError> {
        let client = self.client().await?;
        let name = namespace.map(|n| n.as_str().to_owned());
        let rows = client
            .query(
                "SELECT n.name, m.id, m.content FROM memories m JOIN namespaces n ON n.id = m.ns \
                 WHERE NOT EXISTS (SELECT 1 FROM vectors v \
                                   WHERE v.memory_id = m.id AND v.model_id = $1) \
                   AND ($3::text IS NULL OR n.name = $3) \
                 ORDER BY m.created_at, m.id LIMIT $2",
                &[&model_id, &limit(page_size), &name],
            )
            .await
            .map_err(backend("listing pending embeddings"))?;
        rows.iter()
            .map(|r| {
                let name: &str = r.try_get(0).map_err(backend("reading pending embedding"))?;
                let id: uuid::Uuid = r.try_get(1).map_err(backend("reading pending embedding"))?;
                Ok(PendingEmbedding {
                    namespace: parse_namespace(name)?,
                    id: MemoryId(id),
                    content: r.try_get(2).map_err(backend("reading pending embedding"))?,
                })
            })
            .collect()
    }

    async fn change_position(&self) -> Result<u64, StoreError> {
        let client = self.client().await?;
        let position: i64 = client
            .query_one(
                "SELECT GREATEST(coalesce((SELECT max(seq) FROM changes), 0), \
                   (SELECT pruned_through FROM change_log_state))",
                &[],
            )
            .await
            .and_then(|r| r.try_get(0))
            .map_err(backend("reading the change log position"))?;
        Ok(position.max(0) as u64)
    }

    async fn changes_since(&self, position: u64, page: usize) -> Result<Changes, StoreError> {
        let client = self.client().await?;
        let after = i64::try_from(position).unwrap_or(i64::MAX);
        let rows = client
            .query(
                "SELECT c.seq, n.name, c.memory_id FROM changes c JOIN namespaces n ON n.id = c.ns \
                 WHERE c.seq > $1 ORDER BY c.seq LIMIT $2",
                &[&after, &limit(page)],
            )
            .await
            .map_err(backend("reading the change log"))?;
        let changes = rows
            .iter()
            .map(|r| {
                let seq: i64 = r.try_get(0).map_err(backend("reading a change"))?;
                let name: &str = r.try_get(1).map_err(backend("reading a change"))?;
                let id: uuid::Uuid = r.try_get(2).map_err(backend("reading a change"))?;
                Ok(Change {
                    position: seq as u64,
                    namespace: parse_namespace(name)?,
                    id: MemoryId(id),
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        // Complete when nothing after `position` was pruned (positions may have gaps: a
        // rolled-back transaction keeps the numbers it drew). Read after the rows: a prune
        // between the two reads then shows as incomplete, never as a silent gap.
        let pruned: i64 = client
            .query_one("SELECT pruned_through FROM change_log_state", &[])
            .await
            .and_then(|r| r.try_get(0))
            .map_err(backend("reading the change log"))?;
        Ok(Changes { changes, complete: pruned <= after })
    }

    async fn prune_changes(&self, keep: u64) -> Result<u64, StoreError> {
        let mut client = self.client().await?;
        let tx = write_tx!(client);
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        let rows = tx
            .query(
                // By rank, not arithmetic: positions may have gaps.
                "WITH gone AS (DELETE FROM changes WHERE seq <= \
                   (SELECT seq FROM changes ORDER BY seq DESC OFFSET $1 LIMIT 1) RETURNING seq) \
                 SELECT count(*), coalesce(max(seq), 0) FROM gone",
                &[&keep],
            )
            .await
            .map_err(backend("pruning the change log"))?;
        let (dropped, through): (i64, i64) = match rows.first() {
            Some(r) => (
                r.try_get(0).map_err(backend("pruning the change log"))?,
                r.try_get(1).map_err(backend("pruning the change log"))?,
            ),
            None => (0, 0),
        };
        tx.execute(
            "UPDATE change_log_state SET pruned_through = GREATEST(pruned_through, $1)",
            &[&through],
        )
        .await
        .map_err(backend("pruning the change log"))?;
        tx.commit().await.map_err(backend("committing"))?;
        Ok(dropped.max(0) as u64)
    }

    async fn records(
        &self,
        namespace: &Namespace,
        wanted: &[MemoryId],
    ) -> Result<Vec<MemoryRecord>, StoreError> {
        let client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT {MEMORY_COLUMNS}, t.terms FROM memories m \
             LEFT JOIN memory_terms t ON t.memory_id = m.id WHERE m.id = ANY($1) AND m.ns = $2"
        );
        let rows = client
            .query(&sql, &[&ids(wanted), &ns_id])
            .await
            .map_err(backend("reading records"))?;
        let terms_at = MEMORY_COLUMNS.split(',').count();
        // Every record's vectors in one round trip, not one per record.
        let found: Vec<MemoryId> = rows
            .iter()
            .map(|r| r.try_get::<_, uuid::Uuid>(0).map(MemoryId))
            .collect::<Result<_, _>>()
            .map_err(backend("reading a record"))?;
        let mut vectors = vectors_by_memory(&client, &found).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            let memory = decode_memory(row, namespace)?;
            let terms: Option<Vec<String>> =
                row.try_get(terms_at).map_err(backend("reading a record"))?;
            let vectors = vectors.remove(&memory.id).unwrap_or_default();
            out.push(MemoryRecord { memory, terms: terms.unwrap_or_default(), vectors });
        }
        Ok(out)
    }

    async fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt("SELECT value FROM settings WHERE key = $1", &[&key])
            .await
            .map_err(backend("reading a setting"))?;
        row.map(|r| r.try_get(0)).transpose().map_err(backend("reading a setting"))
    }

    async fn set_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                "INSERT INTO settings (key, value) VALUES ($1, $2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[&key, &value],
            )
            .await
            .map_err(backend("writing a setting"))?;
        Ok(())
    }

    fn searches_in_store(&self) -> bool {
        true
    }

    async fn nearest_vectors(
        &self,
        namespace: &Namespace,
        model_id: &str,
        query: &Embedding,
        filter: &MemoryFilter,
        now: Timestamp,
        k: usize,
    ) -> Result<Option<Vec<VectorMatch>>, StoreError> {
        let mut client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else {
            return Ok(Some(Vec::new()));
        };
        let docs: i64 = client
            .query_one("SELECT doc_count FROM namespaces WHERE id = $1", &[&ns_id])
            .await
            .and_then(|r| r.try_get(0))
            .map_err(backend("reading namespace size"))?;
        let graph = docs >= self.hnsw_from
            && self.hnsw.ready(&self.pool, model_id, query.dimensions()).await?;
        let tx = client.transaction().await.map_err(backend("starting a vector search"))?;
        let found = search::nearest(&tx, ns_id, model_id, query, filter, now, k, graph).await?;
        tx.commit().await.map_err(backend("ending a vector search"))?;
        Ok(Some(found))
    }

    async fn vector_similarities(
        &self,
        namespace: &Namespace,
        model_id: &str,
        wanted: &[MemoryId],
        query: &Embedding,
    ) -> Result<Option<Vec<Option<f32>>>, StoreError> {
        let client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else {
            return Ok(Some(vec![None; wanted.len()]));
        };
        search::similarities(&client, ns_id, model_id, wanted, query).await.map(Some)
    }

    async fn weighted_keyword_search(
        &self,
        namespace: &Namespace,
        terms: &[(String, f32)],
        filter: &MemoryFilter,
        now: Timestamp,
        k: usize,
    ) -> Result<Option<WeightedKeywordHits>, StoreError> {
        let mut client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else {
            return Ok(Some(WeightedKeywordHits { hits: Vec::new(), full_match: 0.0 }));
        };
        // One snapshot for the statistics and the scores.
        let tx = client
            .build_transaction()
            .read_only(true)
            .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
            .start()
            .await
            .map_err(backend("starting a keyword search"))?;
        let found = search::weighted_keywords(&tx, ns_id, terms, filter, now, k).await?;
        tx.commit().await.map_err(backend("ending a keyword search"))?;
        Ok(Some(found))
    }

    async fn claim_sweep(
        &self,
        now: Timestamp,
        every: chrono::TimeDelta,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        // Under the write lock: of servers racing for one interval, one claims it.
        let tx = write_tx!(client);
        let last: Option<String> = tx
            .query_opt("SELECT value FROM settings WHERE key = 'sweep_claimed_at'", &[])
            .await
            .map_err(backend("reading the last sweep"))?
            .map(|r| r.try_get(0))
            .transpose()
            .map_err(backend("reading the last sweep"))?;
        let last = last.and_then(|v| v.parse::<i64>().ok());
        let every = every.num_microseconds().unwrap_or(i64::MAX);
        if last.is_some_and(|last| micros(now) - last < every) {
            return Ok(false);
        }
        tx.execute(
            "INSERT INTO settings (key, value) VALUES ('sweep_claimed_at', $1) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &[&micros(now).to_string()],
        )
        .await
        .map_err(backend("claiming the sweep"))?;
        tx.commit().await.map_err(backend("committing"))?;
        Ok(true)
    }

    async fn stats(&self, now: Timestamp) -> Result<StoreStats, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                "SELECT n.name, m.memory_type, \
                   count(*) FILTER (WHERE NOT m.archived \
                     AND (m.expires_at IS NULL OR m.expires_at > $1) \
                     AND (m.invalid_at IS NULL OR m.invalid_at > $1)), \
                   count(*) FILTER (WHERE m.archived \
                     AND (m.expires_at IS NULL OR m.expires_at > $1) \
                     AND (m.invalid_at IS NULL OR m.invalid_at > $1)), \
                   count(*) FILTER (WHERE (m.expires_at IS NULL OR m.expires_at > $1) \
                     AND m.invalid_at IS NOT NULL AND m.invalid_at <= $1), \
                   count(*) FILTER (WHERE m.expires_at IS NOT NULL AND m.expires_at <= $1) \
                 FROM memories m JOIN namespaces n ON n.id = m.ns \
                 GROUP BY n.name, m.memory_type ORDER BY n.name, m.memory_type",
                &[&micros(now)],
            )
            .await
            .map_err(backend("reading stats"))?;
        let mut tiers = Vec::with_capacity(rows.len());
        for r in &rows {
            let get = |i: usize| -> Result<u64, StoreError> {
                let n: i64 = r.try_get(i).map_err(backend("reading stats"))?;
                Ok(n.max(0) as u64)
            };
            tiers.push(TierCount {
                namespace: parse_namespace(r.try_get(0).map_err(backend("reading stats"))?)?,
                memory_type: parse_tier(r.try_get(1).map_err(backend("reading stats"))?)?,
                live: get(2)?,
                archived: get(3)?,
                superseded: get(4)?,
                expired: get(5)?,
            });
        }
        // As the SQLite backend orders them: namespace, then tier in the tiers' own order.
        tiers.sort_by(|a, b| (&a.namespace, a.memory_type).cmp(&(&b.namespace, b.memory_type)));
        let rows = client
            .query(
                "SELECT model_id, count(*) FROM vectors GROUP BY model_id ORDER BY model_id",
                &[],
            )
            .await
            .map_err(backend("reading vector stats"))?;
        let mut vectors_per_model = Vec::with_capacity(rows.len());
        for r in &rows {
            let n: i64 = r.try_get(1).map_err(backend("reading vector stats"))?;
            vectors_per_model
                .push((r.try_get(0).map_err(backend("reading vector stats"))?, n.max(0) as u64));
        }
        let size: i64 = client
            .query_one(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c \
                 JOIN pg_namespace s ON s.oid = c.relnamespace \
                 WHERE s.nspname = current_schema() AND c.relkind IN ('r', 'm')",
                &[],
            )
            .await
            .and_then(|r| r.try_get(0))
            .map_err(backend("reading the database size"))?;
        Ok(StoreStats {
            tiers,
            vectors_per_model,
            size_bytes: size.max(0) as u64,
            location: self.location.clone(),
        })
    }

    async fn daily_counts(
        &self,
        namespace: &Namespace,
        since: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<DayCount>, StoreError> {
        const DAY: i64 = 86_400_000_000;
        let client = self.client().await?;
        let Some(ns_id) = self.namespace_id(&client, namespace).await? else {
            return Ok(Vec::new());
        };
        let from = micros(since).div_euclid(DAY) * DAY;
        let rows = client
            .query(
                "SELECT div(m.occurred_at - ((m.occurred_at % $4) + $4) % $4, $4)::bigint AS day, \
                   m.memory_type, count(*) FROM memories m \
                 WHERE m.ns = $1 AND m.occurred_at >= $2 \
                   AND (m.expires_at IS NULL OR m.expires_at > $3) \
                 GROUP BY day, m.memory_type ORDER BY day, m.memory_type",
                &[&ns_id, &from, &micros(now), &DAY],
            )
            .await
            .map_err(backend("reading daily counts"))?;
        rows.iter()
            .map(|r| {
                let count: i64 = r.try_get(2).map_err(backend("reading daily counts"))?;
                Ok(DayCount {
                    day: r.try_get(0).map_err(backend("reading daily counts"))?,
                    memory_type: parse_tier(
                        r.try_get(1).map_err(backend("reading daily counts"))?,
                    )?,
                    count: count.max(0) as u64,
                })
            })
            .collect()
    }

    async fn insert_key(&self, key: &ApiKeyRecord) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let namespaces: Vec<&str> = key.namespaces.iter().map(|n| n.as_str()).collect();
        let n = client
            .execute(
                "INSERT INTO api_keys (id, digest, label, namespaces, admin, created_at, \
                   expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                 ON CONFLICT (id) DO NOTHING",
                &[
                    &key.id,
                    &key.digest.as_slice(),
                    &key.label,
                    &namespaces,
                    &key.admin,
                    &micros(key.created_at),
                    &key.expires_at.map(micros),
                    &key.revoked_at.map(micros),
                ],
            )
            .await
            .map_err(backend("writing an api key"))?;
        Ok(n == 1)
    }

    async fn find_key(&self, id: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(&format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE id = $1"), &[&id])
            .await
            .map_err(backend("reading an api key"))?;
        row.as_ref().map(decode_key).transpose()
    }

    async fn list_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(&format!("SELECT {KEY_COLUMNS} FROM api_keys ORDER BY created_at, id"), &[])
            .await
            .map_err(backend("listing api keys"))?;
        rows.iter().map(decode_key).collect()
    }

    async fn revoke_key(&self, id: &str, at: Timestamp) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                "WITH found AS (SELECT id FROM api_keys WHERE id = $1), \
                      done AS (UPDATE api_keys SET revoked_at = $2 \
                               WHERE id = $1 AND revoked_at IS NULL RETURNING id) \
                 SELECT count(*) FROM found",
                &[&id, &micros(at)],
            )
            .await
            .map_err(backend("revoking an api key"))?;
        let found: i64 = rows
            .first()
            .map(|r| r.try_get(0))
            .transpose()
            .map_err(backend("revoking an api key"))?
            .unwrap_or(0);
        Ok(found > 0)
    }

    async fn count_active_keys(&self, now: Timestamp) -> Result<u64, StoreError> {
        let client = self.client().await?;
        let n: i64 = client
            .query_one(
                "SELECT count(*) FROM api_keys WHERE revoked_at IS NULL \
                 AND (expires_at IS NULL OR expires_at > $1)",
                &[&micros(now)],
            )
            .await
            .and_then(|r| r.try_get(0))
            .map_err(backend("counting api keys"))?;
        Ok(n.max(0) as u64)
    }

    async fn refresh_statistics(&self) -> Result<(), StoreError> {
        // Autovacuum would get there within a minute or so; until it does, a namespace filled
        // by the load is planned as the empty one it was (at 10,000 memories: an exact scan of
        // 24 ms instead of 3 ms through the HNSW index, measured).
        let client = self.client().await?;
        client.batch_execute(ANALYZE).await.map_err(backend("refreshing the planner statistics"))
    }
}

/// The tables whose statistics searches are planned by. `SKIP_LOCKED`: a table another session
/// holds (an index being built concurrently holds `vectors` for minutes at 1M) is left to
/// autovacuum rather than waited for.
pub(crate) const ANALYZE: &str =
    "ANALYZE (SKIP_LOCKED) memories, memory_terms, term_postings, term_df, vectors, namespaces";

const KEY_COLUMNS: &str =
    "id, digest, label, namespaces, admin, created_at, expires_at, revoked_at";

fn decode_key(r: &Row) -> Result<ApiKeyRecord, StoreError> {
    let e = |e: tokio_postgres::Error| corrupt(format!("api key row: {e}"));
    let digest: Vec<u8> = r.try_get(1).map_err(e)?;
    let digest: [u8; 32] =
        digest.try_into().map_err(|_| corrupt("api key digest is not 32 bytes".into()))?;
    let namespaces: Vec<String> = r.try_get(3).map_err(e)?;
    Ok(ApiKeyRecord {
        id: r.try_get(0).map_err(e)?,
        digest,
        label: r.try_get(2).map_err(e)?,
        namespaces: namespaces.iter().map(|n| parse_namespace(n)).collect::<Result<_, _>>()?,
        admin: r.try_get(4).map_err(e)?,
        created_at: timestamp(r.try_get(5).map_err(e)?)?,
        expires_at: optional_time(r.try_get(6).map_err(e)?)?,
        revoked_at: optional_time(r.try_get(7).map_err(e)?)?,
    })
}
