-- Schema version 1: memories, their keyword index and their vectors.
-- Timestamps are INTEGER microseconds since the Unix epoch, UTC.

-- Settings that must stay fixed for the data already stored (e.g. the keyword tokenizer).
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE namespaces (
    id        INTEGER PRIMARY KEY,
    name      TEXT    NOT NULL UNIQUE,
    -- Memories in the namespace (maintained in the same transactions as inserts and deletes);
    -- keyword search uses it to drop query terms too common to carry BM25 weight.
    doc_count INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE memories (
    rowid            INTEGER PRIMARY KEY,
    id               TEXT    NOT NULL UNIQUE,
    ns               INTEGER NOT NULL REFERENCES namespaces(id),
    memory_type      TEXT    NOT NULL CHECK (memory_type IN ('working', 'episodic', 'semantic')),
    content          TEXT    NOT NULL,
    metadata         TEXT    NOT NULL CHECK (json_type(metadata) = 'object'),
    session_id       TEXT,
    ttl_secs         INTEGER NOT NULL CHECK (ttl_secs >= 0),
    created_at       INTEGER NOT NULL,
    occurred_at      INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    last_accessed_at INTEGER,
    expires_at       INTEGER,
    access_count     INTEGER NOT NULL DEFAULT 0,
    archived         INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
    source_ids       TEXT    NOT NULL DEFAULT '[]',
    content_hash     TEXT    NOT NULL
);

CREATE INDEX memories_by_ns_time ON memories (ns, occurred_at DESC, id DESC);
CREATE INDEX memories_by_ns_hash ON memories (ns, content_hash);
CREATE INDEX memories_by_expiry ON memories (expires_at) WHERE expires_at IS NOT NULL;

-- Keyword index. Each document is the memory's tokens, produced in Rust (Chinese segmented,
-- English lower-cased), each prefixed with its namespace ("n12_爬山") so that posting lists and
-- document frequencies never mix tenants. rowid = memories.rowid.
CREATE VIRTUAL TABLE memory_terms USING fts5(
    terms,
    tokenize = "unicode61 remove_diacritics 0 tokenchars '_'"
);

-- One vector per memory and embedding model; little-endian f32, unit length.
CREATE TABLE vectors (
    memory_rowid INTEGER NOT NULL REFERENCES memories(rowid) ON DELETE CASCADE,
    model_id     TEXT    NOT NULL,
    dims         INTEGER NOT NULL,
    vector       BLOB    NOT NULL,
    PRIMARY KEY (memory_rowid, model_id)
) WITHOUT ROWID;

CREATE INDEX vectors_by_model ON vectors (model_id);

-- Document frequency per term (namespace-prefixed), for pruning common query terms.
CREATE VIRTUAL TABLE memory_terms_vocab USING fts5vocab(memory_terms, 'row');
