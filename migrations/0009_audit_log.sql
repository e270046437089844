-- The audit log: one row per configuration object changed through the admin API, written in the
-- transaction of the change itself, so that no change lacks its entry and no entry outlives a
-- change that was rolled back. Token values and other secrets never reach it (the API layer masks
-- them as "(changed)"). Rows older than the retention (90 days by default) are pruned hourly.
CREATE TABLE audit_log (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT, -- order of writing, for entries of one millisecond
    id          TEXT NOT NULL UNIQUE,
    at          INTEGER NOT NULL,                  -- Unix milliseconds
    token_id    TEXT NOT NULL DEFAULT '',          -- no foreign key: a revoked token's entries stay
    token_name  TEXT NOT NULL DEFAULT '',
    address     TEXT NOT NULL DEFAULT '',
    via         TEXT NOT NULL DEFAULT 'api',       -- api, cli, console, apply
    action      TEXT NOT NULL,                     -- create, update, delete
    object_type TEXT NOT NULL,
    object_id   TEXT NOT NULL DEFAULT '',
    object_name TEXT NOT NULL DEFAULT '',
    zone_id     TEXT NOT NULL DEFAULT '',
    zone_name   TEXT NOT NULL DEFAULT '',
    room_id     TEXT NOT NULL DEFAULT '',          -- an event's or a rule's room
    room_name   TEXT NOT NULL DEFAULT '',
    changes     TEXT NOT NULL                      -- JSON: [{"field","before","after"}]
);
CREATE INDEX audit_log_at ON audit_log (at);
