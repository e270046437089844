-- Per-room, per-minute analytics, kept 30 days. Histograms are sparse JSON objects of
-- log-scale bucket counts (see server/analytics/histogram.h), so minutes merge exactly.
CREATE TABLE analytics_minutes (
    room_id                    TEXT NOT NULL REFERENCES waiting_rooms(id) ON DELETE CASCADE,
    minute                     INTEGER NOT NULL, -- minutes since the Unix epoch
    active_max                 INTEGER NOT NULL DEFAULT 0,
    active_sum                 INTEGER NOT NULL DEFAULT 0,
    active_samples             INTEGER NOT NULL DEFAULT 0,
    queued_max                 INTEGER NOT NULL DEFAULT 0,
    new_admitted               INTEGER NOT NULL DEFAULT 0,
    requests_admitted          INTEGER NOT NULL DEFAULT 0,
    requests_queued            INTEGER NOT NULL DEFAULT 0,
    requests_rejected          INTEGER NOT NULL DEFAULT 0,
    requests_bypassed          INTEGER NOT NULL DEFAULT 0,
    requests_passthrough       INTEGER NOT NULL DEFAULT 0,
    sessions_revoked           INTEGER NOT NULL DEFAULT 0,
    turnstile_challenges       INTEGER NOT NULL DEFAULT 0,
    turnstile_successes        INTEGER NOT NULL DEFAULT 0,
    turnstile_failures         INTEGER NOT NULL DEFAULT 0,
    turnstile_unsolved         INTEGER NOT NULL DEFAULT 0,
    infinite_queue_refreshes   INTEGER NOT NULL DEFAULT 0,
    total_active_users_limit   INTEGER NOT NULL DEFAULT 0,
    new_users_per_minute_limit INTEGER NOT NULL DEFAULT 0,
    estimated_wait             TEXT NOT NULL DEFAULT '{}',
    observed_wait              TEXT NOT NULL DEFAULT '{}',
    origin_time                TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (room_id, minute)
);
CREATE INDEX analytics_by_minute ON analytics_minutes (minute);
