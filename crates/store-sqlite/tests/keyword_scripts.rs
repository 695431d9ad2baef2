//! The FTS5 keyword index keeps every term whole and inside its namespace, whatever its script:
//! each token in `memory_terms_vocab` must carry a namespace prefix `n{id}_`. A character that
//! `normalize_term` keeps but FTS5 treats as a separator would cut a term into an unprefixed tail
//! shared by every tenant (their BM25 statistics would leak into each other). Also: a database
//! written at schema version 2, before marks were token characters, migrates and still matches.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use rearview_core::{MemoryFilter, MemoryId, Namespace};
use rearview_store::prelude::*;
use rearview_store::testing::{memory, ns, t0};
use rearview_store::{MemoryRecord, normalize_term};
use rearview_store_sqlite::{SqliteConfig, SqliteStore};
use rusqlite::Connection;

/// Words whose marks or symbols unicode61 splits on by default, and controls that it never did.
const SCRIPTS: &[&str] = &[
    "हिंदी मेला मूल",                    // Hindi: vowel signs (Mc, Mn)
    "ภาษาไทย กิน กัน น้ำ",               // Thai: vowel and tone marks (Mn)
    "العَرَبِيَّة كَتَبَ كُتُب",                // Arabic with harakat (Mn)
    "tiếng Việt vie\u{323}\u{302}t",  // Vietnamese (decomposed accents are not alphanumeric)
    "한국어 공부",                    // Korean
    "喜欢 爬山",                      // Chinese
    "☕coffee 咖啡☕\u{fe0f} 👍🏽good", // emoji next to words
    "ⓐⓑⓒ Ⓧyz 🅰🅱",                     // circled and squared letters (So)
];

fn on_disk() -> (SqliteStore, PathBuf) {
    // Leaked on purpose: the directory must outlive the store; the OS cleans /tmp.
    let dir = tempfile::tempdir().expect("temp dir").keep();
    let path = dir.join("rearview.db");
    (SqliteStore::open(&SqliteConfig::new(&path)).expect("sqlite file opens"), path)
}

fn with_terms(namespace: &str, content: &str, terms: Vec<String>) -> MemoryRecord {
    MemoryRecord { memory: memory(namespace, content, t0()), terms, vectors: Vec::new() }
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

/// Every term of the keyword index, as FTS5 tokenised it.
fn vocabulary(path: &Path) -> Vec<String> {
    let conn = Connection::open(path).expect("second connection");
    let mut stmt = conn.prepare("SELECT term FROM memory_terms_vocab").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

/// The namespace ids in use.
fn namespace_ids(path: &Path) -> Vec<i64> {
    let conn = Connection::open(path).expect("second connection");
    let mut stmt = conn.prepare("SELECT id FROM namespaces").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

/// Fails naming the first vocabulary term that is not `n{id}_…` for a namespace in use.
fn assert_all_prefixed(path: &Path) {
    let ids = namespace_ids(path);
    assert!(!ids.is_empty());
    let vocabulary = vocabulary(path);
    assert!(!vocabulary.is_empty());
    for term in vocabulary {
        let owned = ids
            .iter()
            .any(|id| term.strip_prefix(&format!("n{id}_")).is_some_and(|rest| !rest.is_empty()));
        assert!(
            owned,
            "token {term:?} ({:x?}) lost its namespace prefix",
            term.chars().collect::<Vec<_>>()
        );
    }
}

async fn search(store: &SqliteStore, namespace: &Namespace, query: &str) -> Vec<MemoryId> {
    let any = MemoryFilter::default();
    let hits = store.keyword_search(namespace, &words(query), &any, t0(), 50).await.unwrap();
    hits.into_iter().map(|h| h.id).collect()
}

#[tokio::test]
async fn every_token_keeps_its_namespace_prefix_in_every_script() {
    let (store, path) = on_disk();
    let mut hindi = Vec::new();
    for namespace in ["alice", "bob"] {
        for text in SCRIPTS {
            let record = with_terms(namespace, text, words(text));
            store.insert(&record).await.unwrap();
            if text.starts_with("हिंदी") {
                hindi.push(record.memory.id);
            }
        }
    }
    assert_all_prefixed(&path);

    // A Hindi word finds its own namespace's memory, and only that.
    assert_eq!(search(&store, &ns("alice"), "हिंदी").await, [hindi[0]]);
    assert_eq!(search(&store, &ns("bob"), "हिंदी").await, [hindi[1]]);
    // Words sharing only their base letters are different words.
    assert_eq!(search(&store, &ns("alice"), "मूल").await, [hindi[0]]);
    assert!(search(&store, &ns("alice"), "माल").await.is_empty());
    for word in ["กัน", "كُتُب", "vie\u{323}\u{302}t", "ⓐⓑⓒ", "🅰🅱", "good", "咖啡"]
    {
        assert_eq!(search(&store, &ns("bob"), word).await.len(), 1, "{word:?}");
    }
    assert!(search(&store, &ns("bob"), "ⓧⓨ").await.is_empty());
}

/// Exhaustive: every character `normalize_term` keeps, in the middle of a term, stays in it.
#[tokio::test]
async fn every_character_normalize_term_keeps_is_a_token_character() {
    let (store, path) = on_disk();
    let kept: Vec<char> =
        (0..=char::MAX as u32).filter_map(char::from_u32).filter(|c| c.is_alphanumeric()).collect();
    assert!(kept.len() > 100_000, "{}", kept.len());
    let terms: Vec<String> = kept.iter().map(|c| format!("x{c}y")).collect();
    store.insert(&with_terms("every", "every letter and number", terms)).await.unwrap();
    // A separator would leave an unprefixed tail ("y") and a cut head ("n1_x").
    assert_all_prefixed(&path);
    assert!(!vocabulary(&path).contains(&"n1_x".to_owned()), "a term was cut after its head");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any text, split on whitespace into terms and stored in two namespaces, leaves only
    /// prefixed tokens, and each of its terms finds its memory in its namespace.
    #[test]
    fn any_text_stays_inside_its_namespace(text in "\\PC{1,40}( \\PC{1,40}){0,6}", other in "\\PC{1,60}") {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let (store, path) = on_disk();
            let mine = with_terms("mine", &text, words(&text));
            store.insert(&mine).await.unwrap();
            store.insert(&with_terms("theirs", &other, words(&other))).await.unwrap();
            store.insert(&with_terms("theirs", "anchor", words("anchor"))).await.unwrap();
            assert_all_prefixed(&path);
            for term in words(&text).iter().filter(|t| normalize_term(t).is_some()) {
                let found = search(&store, &ns("mine"), term).await;
                prop_assert_eq!(found, vec![mine.memory.id], "term {:?}", term);
            }
            Ok(())
        })?;
    }
}

/// A database written by schema version 2 (old tokenizer) migrates: its keyword entries are
/// re-tokenised whole, keep their rowids, and still match.
#[tokio::test]
async fn a_version_2_database_migrates_and_its_keyword_entries_still_match() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("v2.db");
    let id = MemoryId::new_v7(t0());
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(include_str!("../migrations/0001_init.sql")).unwrap();
        conn.execute_batch(include_str!("../migrations/0002_summary.sql")).unwrap();
        conn.pragma_update(None, "user_version", 2).unwrap();
        conn.execute_batch(&format!(
            "INSERT INTO namespaces (id, name, doc_count) VALUES (7, 'legacy', 1);
             INSERT INTO memories (rowid, id, ns, memory_type, content, metadata, ttl_secs,
                                   created_at, occurred_at, updated_at, content_hash)
               VALUES (42, '{id}', 7, 'semantic', 'हिंदी मेला and 爬山 in Port 8765', '{{}}', 0,
                       1750000000000000, 1750000000000000, 1750000000000000, 'h');
             INSERT INTO memory_terms (rowid, terms)
               VALUES (42, 'n7_हिंदी n7_मेला n7_and n7_爬山 n7_in n7_port n7_8765');"
        ))
        .unwrap();
        // The premise: version 2 cut the Hindi words into unprefixed pieces.
        let mut stmt = conn.prepare("SELECT term FROM memory_terms_vocab").unwrap();
        let old: Vec<String> =
            stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap();
        assert!(old.iter().any(|t| !t.starts_with("n7_")), "{old:?}");
    }
    let store = SqliteStore::open(&SqliteConfig::new(&path)).unwrap();
    let inspection = SqliteStore::inspect(&path).unwrap();
    assert_eq!(inspection.schema_version, SqliteStore::schema_version());
    assert_eq!(inspection.schema_version, 8);
    assert!(inspection.integrity.is_empty(), "{:?}", inspection.integrity);
    assert_all_prefixed(&path);
    let legacy = ns("legacy");
    for word in ["हिंदी", "मेला", "爬山", "port", "8765"] {
        assert_eq!(search(&store, &legacy, word).await, [id], "{word:?}");
    }
    assert!(search(&store, &legacy, "मूल").await.is_empty(), "the old false match is gone");
    let migrated = store.get(&legacy, id, t0()).await.unwrap().expect("migrated memory");
    assert_eq!((migrated.superseded_by, migrated.invalid_at), (None, None), "current after v5");
    let rowid: i64 = Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT rowid FROM memory_terms WHERE memory_terms MATCH '\"n7_हिंदी\"'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(rowid, 42, "the keyword entry kept its memory's rowid");
    // And the migrated index takes new writes as before.
    let fresh = with_terms("legacy", "नया", words("नया"));
    store.insert(&fresh).await.unwrap();
    assert_eq!(search(&store, &legacy, "नया").await, [fresh.memory.id]);
    let entries = store.keyword_entries().await.unwrap();
    let old = entries.iter().find(|e| e.id == id).expect("migrated entry");
    assert_eq!(old.terms, ["हिंदी", "मेला", "and", "爬山", "in", "port", "8765"]);
}
