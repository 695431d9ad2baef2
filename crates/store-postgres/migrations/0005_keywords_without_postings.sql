-- Keyword search without per-term postings in SQL (see keyword.rs): servers keep each
-- namespace's keyword index in memory, loaded from memory_terms; one-shot commands read a
-- namespace's entries by this index. The postings and their document frequencies were two
-- thirds of a schema's disk and most of a store's writes.
SET LOCAL lock_timeout = '30s';

CREATE INDEX IF NOT EXISTS memory_terms_by_ns ON memory_terms (ns);

DROP TRIGGER IF EXISTS term_postings_added ON term_postings;
DROP TRIGGER IF EXISTS term_postings_removed ON term_postings;
DROP FUNCTION IF EXISTS rearview_count_postings_added();
DROP FUNCTION IF EXISTS rearview_count_postings_removed();
DROP TABLE IF EXISTS term_postings;
DROP TABLE IF EXISTS term_df;
