-- Schema version 6: a change log, so that every process on this file sees the others' writes
-- (issue 16). Each process keeps in-memory indexes (keyword, vectors) built from the store; it
-- tails this log and refreshes the memories named here. Triggers write it in the same
-- transaction as the change itself, so no write path can forget to, and an entry exists exactly
-- when its change committed. Access counts (`access_count`, `last_accessed_at`) change no index
-- and are not logged.
CREATE TABLE changes (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    ns        INTEGER NOT NULL,
    memory_id TEXT    NOT NULL
);

CREATE TRIGGER memories_logged_insert AFTER INSERT ON memories BEGIN
    INSERT INTO changes (ns, memory_id) VALUES (NEW.ns, NEW.id);
END;

CREATE TRIGGER memories_logged_update AFTER UPDATE OF
    memory_type, content, metadata, session_id, ttl_secs, occurred_at, expires_at, archived,
    summary, superseded_by, invalid_at ON memories BEGIN
    INSERT INTO changes (ns, memory_id) VALUES (NEW.ns, NEW.id);
END;

CREATE TRIGGER memories_logged_delete AFTER DELETE ON memories BEGIN
    INSERT INTO changes (ns, memory_id) VALUES (OLD.ns, OLD.id);
END;

-- A vector added later (backfill, reindex) changes what vector search finds. Vectors written
-- with their memory log the memory twice, which readers collapse.
CREATE TRIGGER vectors_logged_insert AFTER INSERT ON vectors BEGIN
    INSERT INTO changes (ns, memory_id)
    SELECT ns, id FROM memories WHERE rowid = NEW.memory_rowid;
END;
