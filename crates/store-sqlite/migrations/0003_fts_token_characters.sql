-- Schema version 3: every character a keyword term may hold is a token character for FTS5.
--
-- Terms are stored as "n{namespace id}_{term}", where the term keeps what Rust's
-- `char::is_alphanumeric` keeps: letters and numbers, but also combining marks (Devanagari, Thai
-- and Arabic vowel signs, decomposed Vietnamese accents) and a few symbols (circled letters).
-- unicode61 splits tokens on everything outside L*, N* and Co by default, so "n3_मेला" was indexed
-- as "n3_म" + "ल": the pieces after the first mark carried no namespace prefix, were shared by
-- every tenant's posting lists and document frequencies, and matched other words with the same
-- consonants ("मूल"). With marks and symbols as token characters a term is one token again.
-- (Documents hold only terms and single spaces, so no other character reaches the tokenizer.)

-- A regular FTS5 table keeps its documents, so they can be copied into the new one; rowids stay
-- those of `memories`.
CREATE TEMP TABLE memory_terms_v2 AS SELECT rowid AS doc, terms FROM memory_terms;

DROP TABLE memory_terms_vocab;
DROP TABLE memory_terms;

CREATE VIRTUAL TABLE memory_terms USING fts5(
    terms,
    tokenize = "unicode61 remove_diacritics 0 categories 'L* M* N* S* Co' tokenchars '_'"
);

INSERT INTO memory_terms (rowid, terms) SELECT doc, terms FROM memory_terms_v2 ORDER BY doc;
DROP TABLE memory_terms_v2;

-- Document frequency per term (namespace-prefixed), for pruning common query terms.
CREATE VIRTUAL TABLE memory_terms_vocab USING fts5vocab(memory_terms, 'row');
