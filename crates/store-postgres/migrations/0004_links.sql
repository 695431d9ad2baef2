-- Version 4: links between memories made visible (issue 40), as SQLite's version 8. A
-- superseded memory records who linked it to its successor (`caller`, `llm`, `rule` or
-- `update`) and why; a memory may list the older memories it possibly changes (a JSON array of
-- {"id", "similarity", "why"}), for the caller to confirm or dismiss. Idempotent (IF NOT
-- EXISTS), so a schema rolled back by hand re-applies cleanly.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS link_made_by TEXT;
ALTER TABLE memories ADD COLUMN IF NOT EXISTS link_reason TEXT;
ALTER TABLE memories ADD COLUMN IF NOT EXISTS possible_updates TEXT;

CREATE INDEX IF NOT EXISTS memories_pending_review ON memories (ns, created_at DESC)
    WHERE possible_updates IS NOT NULL;
