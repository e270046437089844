-- Notifications: the webhook destinations operators configure, and each notification's delivery
-- to each destination, kept here so that retries survive a restart. The secret signs deliveries
-- (HMAC-SHA256), so it is stored as given; the API never shows it again, the audit log shows
-- only that it changed, and `wr export` leaves it out.
CREATE TABLE notification_destinations (
    id                     TEXT PRIMARY KEY,
    name                   TEXT NOT NULL UNIQUE,
    url                    TEXT NOT NULL,
    secret                 TEXT NOT NULL,
    kinds                  TEXT NOT NULL DEFAULT '[]', -- JSON array of kind names; [] means every kind
    wait_threshold_minutes INTEGER NOT NULL DEFAULT 30,
    enabled                INTEGER NOT NULL DEFAULT 1,
    created_on             INTEGER NOT NULL,
    modified_on            INTEGER NOT NULL
);

CREATE TABLE notification_deliveries (
    id              TEXT PRIMARY KEY,
    destination_id  TEXT NOT NULL REFERENCES notification_destinations(id) ON DELETE CASCADE,
    notification_id TEXT NOT NULL,     -- the same for every destination and every attempt
    kind            TEXT NOT NULL,
    room_id         TEXT NOT NULL DEFAULT '',
    payload         TEXT NOT NULL,     -- the JSON body, the same bytes at every attempt
    created_on      INTEGER NOT NULL,  -- Unix milliseconds
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_on INTEGER,           -- while pending
    last_attempt_on INTEGER,
    last_status     INTEGER,           -- the receiver's HTTP status
    last_error      TEXT NOT NULL DEFAULT '',
    delivered_on    INTEGER
);
CREATE INDEX notification_deliveries_due ON notification_deliveries (status, next_attempt_on);
CREATE INDEX notification_deliveries_destination ON notification_deliveries (destination_id, created_on);
