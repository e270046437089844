-- Edge nodes (wr serve --role edge): tokens of scope 'edge', and the analytics streams edges
-- push to the control node. SQLite cannot change a CHECK constraint in place, so api_tokens is
-- rebuilt with the same columns and rows.
CREATE TABLE api_tokens_new (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    scope        TEXT NOT NULL CHECK (scope IN ('read', 'edit', 'edge')),
    zone_id      TEXT REFERENCES zones(id) ON DELETE CASCADE,
    token_hash   TEXT NOT NULL UNIQUE, -- SHA-256 of the token; the token itself is never stored
    created_on   INTEGER NOT NULL,
    last_used_on INTEGER,
    CHECK (scope != 'edge' OR zone_id IS NULL) -- an edge serves every zone
);
INSERT INTO api_tokens_new (id, name, scope, zone_id, token_hash, created_on, last_used_on)
    SELECT id, name, scope, zone_id, token_hash, created_on, last_used_on FROM api_tokens;
DROP TABLE api_tokens;
ALTER TABLE api_tokens_new RENAME TO api_tokens;

-- One row per stream of analytics batches an edge pushes: the edge numbers its batches, and a
-- batch at or below last_sequence was merged already (its answer was lost and the edge sent it
-- again), so it is acknowledged without being counted twice. A stream is an edge's data
-- directory's run of batches; a new one starts when its outbox starts afresh.
CREATE TABLE analytics_streams (
    node          TEXT NOT NULL,
    stream        TEXT NOT NULL,
    last_sequence INTEGER NOT NULL,
    last_push_on  INTEGER NOT NULL, -- Unix milliseconds; streams idle for 30 days are dropped
    PRIMARY KEY (node, stream)
);
