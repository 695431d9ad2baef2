-- Schema version 4: API keys (issue 14). Only the SHA-256 digest of a secret is stored; the id is
-- derived from the digest, so a presented secret finds its row by primary key.
CREATE TABLE api_keys (
    id          TEXT    PRIMARY KEY,
    digest      BLOB    NOT NULL,
    label       TEXT,
    namespaces  TEXT    NOT NULL,  -- JSON array of namespace names; ignored when admin = 1
    admin       INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,  -- UTC microseconds
    expires_at  INTEGER,
    revoked_at  INTEGER
);
