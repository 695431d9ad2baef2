-- Schema version 5: facts that change (issue 15). A memory replaced by a newer statement of the
-- same fact, or an earlier text kept by an update, names the memory that replaced it and the end
-- of its validity (UTC microseconds); both NULL while it is current. Its validity starts at
-- `occurred_at`.
ALTER TABLE memories ADD COLUMN superseded_by TEXT;
ALTER TABLE memories ADD COLUMN invalid_at INTEGER;

-- A memory's history: the memories it superseded (`MemoryStore::predecessors`). Few rows have a
-- successor, so the index is partial.
CREATE INDEX memories_by_successor ON memories (superseded_by) WHERE superseded_by IS NOT NULL;
