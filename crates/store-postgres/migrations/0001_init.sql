-- Schema version 1 of the PostgreSQL backend: everything the SQLite schema holds after its six
-- migrations, in PostgreSQL's terms. Timestamps are BIGINT microseconds since the Unix epoch, UTC
-- (as in SQLite, so both backends compare and round the same way).

-- In `public`, where every schema's search path finds it (not in rearview's own schema).
CREATE EXTENSION IF NOT EXISTS vector SCHEMA public;

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE namespaces (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT   NOT NULL UNIQUE,
    -- Memories with a keyword entry, and their terms in all: BM25's N and average length,
    -- kept per namespace so that no tenant's statistics depend on another's.
    doc_count   BIGINT NOT NULL DEFAULT 0,
    total_terms BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE memories (
    id               UUID    PRIMARY KEY,
    ns               BIGINT  NOT NULL REFERENCES namespaces(id),
    memory_type      TEXT    NOT NULL CHECK (memory_type IN ('working', 'episodic', 'semantic')),
    content          TEXT    NOT NULL,
    metadata         JSONB   NOT NULL CHECK (jsonb_typeof(metadata) = 'object'),
    session_id       TEXT,
    ttl_secs         BIGINT  NOT NULL CHECK (ttl_secs >= 0),
    created_at       BIGINT  NOT NULL,
    occurred_at      BIGINT  NOT NULL,
    updated_at       BIGINT  NOT NULL,
    last_accessed_at BIGINT,
    expires_at       BIGINT,
    access_count     BIGINT  NOT NULL DEFAULT 0,
    archived         BOOLEAN NOT NULL DEFAULT FALSE,
    source_ids       UUID[]  NOT NULL DEFAULT '{}',
    content_hash     TEXT    NOT NULL,
    summary          TEXT,
    superseded_by    UUID,
    invalid_at       BIGINT
);

CREATE INDEX memories_by_ns_time ON memories (ns, occurred_at DESC, id DESC);
CREATE INDEX memories_by_ns_hash ON memories (ns, content_hash);
CREATE INDEX memories_by_expiry ON memories (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX memories_by_tier_use ON memories (memory_type, archived, updated_at);
CREATE INDEX memories_by_successor ON memories (superseded_by) WHERE superseded_by IS NOT NULL;

-- Keyword index: each memory's terms (produced in Rust: Chinese segmented, English lower-cased)
-- in order, and one posting per distinct term with its frequency, namespace first so that
-- postings and document frequencies never mix tenants. Scored as BM25 in SQL (keyword.rs).
CREATE TABLE memory_terms (
    memory_id UUID    PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
    ns        BIGINT  NOT NULL,
    terms     TEXT[]  NOT NULL,
    length    INTEGER NOT NULL
);

CREATE TABLE term_postings (
    ns        BIGINT  NOT NULL,
    term      TEXT    NOT NULL,
    memory_id UUID    NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    tf        INTEGER NOT NULL,
    -- The memory's number of terms (memory_terms.length), so scoring reads postings only.
    length    INTEGER NOT NULL,
    PRIMARY KEY (ns, term, memory_id)
);
CREATE INDEX term_postings_by_memory ON term_postings (memory_id);

CREATE TABLE term_df (
    ns   BIGINT NOT NULL,
    term TEXT   NOT NULL,
    df   BIGINT NOT NULL,
    PRIMARY KEY (ns, term)
);

CREATE FUNCTION rearview_count_terms() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE namespaces SET doc_count = doc_count + 1, total_terms = total_terms + NEW.length
         WHERE id = NEW.ns;
        RETURN NEW;
    END IF;
    UPDATE namespaces SET doc_count = doc_count - 1, total_terms = total_terms - OLD.length
     WHERE id = OLD.ns;
    RETURN OLD;
END $$;
CREATE TRIGGER memory_terms_counted AFTER INSERT OR DELETE ON memory_terms
    FOR EACH ROW EXECUTE FUNCTION rearview_count_terms();

CREATE FUNCTION rearview_count_postings() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO term_df (ns, term, df) VALUES (NEW.ns, NEW.term, 1)
            ON CONFLICT (ns, term) DO UPDATE SET df = term_df.df + 1;
        RETURN NEW;
    END IF;
    UPDATE term_df SET df = df - 1 WHERE ns = OLD.ns AND term = OLD.term;
    DELETE FROM term_df WHERE ns = OLD.ns AND term = OLD.term AND df <= 0;
    RETURN OLD;
END $$;
CREATE TRIGGER term_postings_counted AFTER INSERT OR DELETE ON term_postings
    FOR EACH ROW EXECUTE FUNCTION rearview_count_postings();

-- One vector per memory and embedding model, in pgvector's type (any dimension).
CREATE TABLE vectors (
    memory_id UUID    NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    model_id  TEXT    NOT NULL,
    dims      INTEGER NOT NULL,
    embedding vector  NOT NULL,
    PRIMARY KEY (memory_id, model_id)
);
CREATE INDEX vectors_by_model ON vectors (model_id);

-- API keys: only the SHA-256 digest of a secret.
CREATE TABLE api_keys (
    id         TEXT    PRIMARY KEY,
    digest     BYTEA   NOT NULL,
    label      TEXT,
    namespaces TEXT[]  NOT NULL,
    admin      BOOLEAN NOT NULL,
    created_at BIGINT  NOT NULL,
    expires_at BIGINT,
    revoked_at BIGINT
);

-- The change log: every server tails it to keep its in-memory indexes in step with the others'
-- writes. Positions must be in commit order, which a sequence alone does not give under
-- concurrency (a transaction can take a number and commit after a later one): every logging
-- transaction holds the schema's write lock (a transaction-level advisory lock) from its first
-- statement to its commit, so positions are handed out and committed in one order.
CREATE TABLE changes (
    seq       BIGSERIAL PRIMARY KEY,
    ns        BIGINT NOT NULL,
    memory_id UUID   NOT NULL
);

-- The newest position pruned away: a reader behind it has missed changes.
CREATE TABLE change_log_state (
    only_row        BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
    pruned_through  BIGINT  NOT NULL
);
INSERT INTO change_log_state (pruned_through) VALUES (0);

-- (Trigger functions keep the search path of the migration: a write by hand through another
-- path still logs into this schema's table under this schema's lock.)
CREATE FUNCTION rearview_log_memory() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext(current_schema()));
    IF TG_OP = 'DELETE' THEN
        INSERT INTO changes (ns, memory_id) VALUES (OLD.ns, OLD.id);
        RETURN OLD;
    END IF;
    INSERT INTO changes (ns, memory_id) VALUES (NEW.ns, NEW.id);
    RETURN NEW;
END $$;
CREATE TRIGGER memories_logged_insert AFTER INSERT OR DELETE ON memories
    FOR EACH ROW EXECUTE FUNCTION rearview_log_memory();
CREATE TRIGGER memories_logged_update AFTER UPDATE OF
    memory_type, content, metadata, session_id, ttl_secs, occurred_at, expires_at, archived,
    summary, superseded_by, invalid_at ON memories
    FOR EACH ROW EXECUTE FUNCTION rearview_log_memory();

CREATE FUNCTION rearview_log_vector() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext(current_schema()));
    INSERT INTO changes (ns, memory_id) SELECT ns, id FROM memories WHERE id = NEW.memory_id;
    RETURN NEW;
END $$;
CREATE TRIGGER vectors_logged AFTER INSERT OR UPDATE ON vectors
    FOR EACH ROW EXECUTE FUNCTION rearview_log_vector();
