-- wr's own room field: new-queue joins allowed per client address per minute (0: no limit).
ALTER TABLE waiting_rooms ADD COLUMN join_limit_per_ip_per_minute INTEGER NOT NULL DEFAULT 0
    CHECK (join_limit_per_ip_per_minute >= 0);
