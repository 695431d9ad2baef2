-- Schema version 8: links between memories made visible (issue 40). A superseded memory records
-- who linked it to its successor (`caller`, `llm`, `rule` or `update`) and why; both NULL while
-- it is current, and for history made before version 8. A memory may list the older memories it
-- possibly changes (a JSON array of {"id", "similarity", "why"}), found when it was stored and
-- left for the caller to confirm or dismiss; NULL when there are none.
ALTER TABLE memories ADD COLUMN link_made_by TEXT;
ALTER TABLE memories ADD COLUMN link_reason TEXT;
ALTER TABLE memories ADD COLUMN possible_updates TEXT;

-- The review list (`MemoryStore::pending_review`): few rows have possible updates.
CREATE INDEX memories_pending_review ON memories (ns, created_at DESC)
    WHERE possible_updates IS NOT NULL;
