-- Schema version 2: long memories keep a summary as their recall text (design §6); the full
-- original stays in `content`. NULL for memories short enough to be their own recall text.
ALTER TABLE memories ADD COLUMN summary TEXT;

-- The archive sweep looks for idle memories of one tier that are not archived yet.
CREATE INDEX memories_by_tier_use ON memories (memory_type, archived, updated_at);
