-- BM25 reads each query term's postings: (memory, tf, length). With tf and length in the
-- primary key's index, PostgreSQL answers that from the index alone (an index-only scan, once
-- vacuum has marked the pages all-visible) instead of visiting a heap page per posting: a
-- 35-term Chinese query at 10,000 memories visited ~11,000 heap buffers for 14,782 postings.
-- Rebuilding the index takes an exclusive lock on term_postings for as long as the build runs
-- (seconds per million postings); servers starting together migrate once (the advisory lock).
-- A server still running the previous version holds locks on the table while it writes: wait
-- at most 30 s for them, then fail (the start-up error names this migration; stop the old
-- servers or retry) rather than queue every search behind the migration indefinitely.
SET LOCAL lock_timeout = '30s';
ALTER TABLE term_postings
    DROP CONSTRAINT term_postings_pkey,
    ADD CONSTRAINT term_postings_pkey PRIMARY KEY (ns, term, memory_id) INCLUDE (tf, length);
