//! The store contract against a real PostgreSQL with pgvector: each check in a schema of its
//! own. `REARVIEW_TEST_PG_URL` names the server (`scripts/pg-up.sh` starts one and prints it);
//! without it the checks skip, unless `REARVIEW_REQUIRE_PG` is set (as in CI), when they fail.

use std::sync::Arc;

use rearview_store::MemoryStore;
use rearview_store_postgres::{PgConfig, PgStore};

/// A store in a fresh schema, or `None` when no server is configured (and none is required).
pub async fn make() -> Option<Arc<dyn MemoryStore>> {
    let url = rearview_store::testing::pg_test_url()?;
    let schema = format!("t_{}", uuid::Uuid::now_v7().simple());
    let config = PgConfig { schema: Some(schema), pool_size: 4, ..PgConfig::new(url) };
    Some(Arc::new(PgStore::connect(&config).await.expect("connecting to the test server")))
}

rearview_store::store_contract_tests!(make);
