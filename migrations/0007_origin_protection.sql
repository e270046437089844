-- Origin protection. A zone caps its connections to the origin (0: no limit); requests beyond
-- the cap wait in wr up to origin_queue_timeout_seconds. A room's origin guard admits below the
-- room's limits while the origin is over its targets (wr's own field origin_guard).
ALTER TABLE zones ADD COLUMN max_origin_connections INTEGER NOT NULL DEFAULT 0
    CHECK (max_origin_connections BETWEEN 0 AND 1000000);
ALTER TABLE zones ADD COLUMN origin_queue_timeout_seconds INTEGER NOT NULL DEFAULT 10
    CHECK (origin_queue_timeout_seconds BETWEEN 1 AND 120);
ALTER TABLE waiting_rooms ADD COLUMN origin_guard_enabled INTEGER NOT NULL DEFAULT 0
    CHECK (origin_guard_enabled IN (0, 1));
ALTER TABLE waiting_rooms ADD COLUMN origin_guard_target_ttfb_ms INTEGER NOT NULL DEFAULT 500
    CHECK (origin_guard_target_ttfb_ms BETWEEN 50 AND 60000);
ALTER TABLE waiting_rooms ADD COLUMN origin_guard_max_error_rate REAL NOT NULL DEFAULT 0.05
    CHECK (origin_guard_max_error_rate BETWEEN 0 AND 1);
ALTER TABLE waiting_rooms ADD COLUMN origin_guard_min_new_users_per_minute INTEGER NOT NULL DEFAULT 0
    CHECK (origin_guard_min_new_users_per_minute BETWEEN 0 AND new_users_per_minute);
