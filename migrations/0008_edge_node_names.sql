-- The edge token each node name belongs to: recorded when a node first pushes its analytics, so
-- that no other edge token can push reports or batches under that name (a made-up report could
-- show any figures in a room's status, or overwrite a real edge's). Revoking the token frees
-- the name.
CREATE TABLE edge_nodes (
    node          TEXT PRIMARY KEY,
    token_id      TEXT NOT NULL REFERENCES api_tokens(id) ON DELETE CASCADE,
    first_push_on INTEGER NOT NULL -- Unix milliseconds
);
