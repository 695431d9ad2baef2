//! `import_many`: a batch of exported memories written in one transaction, the missing vectors
//! embedded in one batch per model, and one text the model refuses costing only its own vector.

use std::sync::Arc;

use chrono::DateTime;
use rearview_core::{Clock, Embedding, ManualClock};
use rearview_embed::{EmbedError, Embedder, TestEmbedder, TextKind};
use rearview_service::{Imported, MemoryService, ServiceConfig};
use rearview_store::MemoryStore;
use rearview_store::testing::{memory, ns, t0};
use rearview_store_sqlite::SqliteStore;

/// The test embedder, refusing any batch that holds a text with "POISON" in it.
struct Refusing(TestEmbedder);

#[async_trait::async_trait]
impl Embedder for Refusing {
    fn model_id(&self) -> &str {
        self.0.model_id()
    }

    fn dimensions(&self) -> usize {
        self.0.dimensions()
    }

    async fn embed(&self, texts: &[String], kind: TextKind) -> Result<Vec<Embedding>, EmbedError> {
        if texts.iter().any(|t| t.contains("POISON")) {
            return Err(EmbedError::Unavailable { message: "refused".into() });
        }
        self.0.embed(texts, kind).await
    }
}

#[tokio::test]
async fn one_refused_text_costs_only_its_own_vector() {
    let store: Arc<dyn MemoryStore> = Arc::new(SqliteStore::in_memory().unwrap());
    let clock: Arc<dyn Clock> =
        Arc::new(ManualClock::new(DateTime::from_timestamp(1_760_000_000, 0).unwrap()));
    let embedder: Arc<dyn Embedder> = Arc::new(Refusing(TestEmbedder::new(32)));
    let service =
        MemoryService::open(Arc::clone(&store), Some(embedder), clock, ServiceConfig::default())
            .await
            .unwrap();
    let texts = ["the deploy port is 8765", "POISON pill", "备份在凌晨三点"];
    let memories: Vec<_> = texts.iter().map(|t| memory("a", t, t0())).collect();
    let items = memories
        .iter()
        .map(|m| service.check_import(&ns("a"), m.clone(), Vec::new()).unwrap())
        .collect();
    let done = service.import_many(items).await.unwrap();
    assert_eq!(
        done,
        [
            Imported::Inserted { embedded: 1 },
            Imported::Inserted { embedded: 0 },
            Imported::Inserted { embedded: 1 }
        ]
    );
    let pending = store.pending_embeddings("test-hash-32", Some(&ns("a")), 10).await.unwrap();
    assert_eq!(pending.iter().map(|p| p.id).collect::<Vec<_>>(), [memories[1].id]);
    // Imported again: every id is there already.
    let again = memories
        .iter()
        .map(|m| service.check_import(&ns("a"), m.clone(), Vec::new()).unwrap())
        .collect();
    assert_eq!(service.import_many(again).await.unwrap(), [Imported::Skipped; 3]);
}
