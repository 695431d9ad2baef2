//! What the PostgreSQL tests share: a store on a schema of its own (so tests run side by side on
//! one server), and a plain connection to look into or drop that schema.
#![allow(dead_code, reason = "each test file uses part of it")]

use rearview_store_postgres::{PgConfig, PgStore};

/// A store on a fresh schema `<prefix>_<uuid>` (two connections), with that schema and the
/// server's URL; `None` when no PostgreSQL is configured (`pg_test_url`).
pub async fn fresh_store(prefix: &str) -> Option<(PgStore, String, String)> {
    let url = rearview_store::testing::pg_test_url()?;
    let schema = format!("{prefix}_{}", uuid::Uuid::now_v7().simple());
    let config = PgConfig { schema: Some(schema.clone()), pool_size: 2, ..PgConfig::new(&url) };
    let store = PgStore::connect(&config).await.unwrap();
    Some((store, schema, url))
}

/// A plain connection to the server at `url`.
pub async fn plain_client(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client
}

/// Drops `schema` and everything in it.
pub async fn drop_schema(url: &str, schema: &str) {
    let client = plain_client(url).await;
    client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
}
