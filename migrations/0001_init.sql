-- wr's first schema: zones, waiting rooms with their routes, events, bypass rules, zone
-- settings, API tokens (hashed) and template previews. Times are Unix milliseconds (UTC);
-- times a user gave are also kept as the exact text they sent.

CREATE TABLE zones (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    origin      TEXT NOT NULL,
    created_on  INTEGER NOT NULL,
    modified_on INTEGER NOT NULL
);

CREATE TABLE zone_settings (
    zone_id                      TEXT PRIMARY KEY REFERENCES zones(id) ON DELETE CASCADE,
    search_engine_crawler_bypass INTEGER NOT NULL DEFAULT 0 CHECK (search_engine_crawler_bypass IN (0, 1)),
    modified_on                  INTEGER NOT NULL
);

CREATE TABLE waiting_rooms (
    id                        TEXT PRIMARY KEY,
    zone_id                   TEXT NOT NULL REFERENCES zones(id) ON DELETE RESTRICT,
    name                      TEXT NOT NULL,
    description               TEXT NOT NULL DEFAULT '',
    total_active_users        INTEGER NOT NULL CHECK (total_active_users BETWEEN 200 AND 2147483647),
    new_users_per_minute      INTEGER NOT NULL CHECK (new_users_per_minute BETWEEN 200 AND total_active_users),
    session_duration          INTEGER NOT NULL CHECK (session_duration BETWEEN 1 AND 30),
    disable_session_renewal   INTEGER NOT NULL CHECK (disable_session_renewal IN (0, 1)),
    queue_all                 INTEGER NOT NULL CHECK (queue_all IN (0, 1)),
    queueing_method           TEXT NOT NULL CHECK (queueing_method IN ('fifo', 'random', 'passthrough', 'reject')),
    queueing_status_code      INTEGER NOT NULL CHECK (queueing_status_code IN (200, 202, 429)),
    suspended                 INTEGER NOT NULL CHECK (suspended IN (0, 1)),
    json_response_enabled     INTEGER NOT NULL CHECK (json_response_enabled IN (0, 1)),
    cookie_suffix             TEXT NOT NULL DEFAULT '',
    cookie_samesite           TEXT NOT NULL CHECK (cookie_samesite IN ('auto', 'lax', 'none', 'strict')),
    cookie_secure             TEXT NOT NULL CHECK (cookie_secure IN ('auto', 'always', 'never')),
    custom_page_html          TEXT NOT NULL DEFAULT '',
    default_template_language TEXT NOT NULL DEFAULT 'en-US',
    revoke_origin_command     INTEGER NOT NULL CHECK (revoke_origin_command IN (0, 1)),
    turnstile_mode            TEXT NOT NULL CHECK (turnstile_mode IN ('off', 'invisible', 'visible_non_interactive', 'visible_managed')),
    turnstile_action          TEXT NOT NULL CHECK (turnstile_action IN ('log', 'infinite_queue')),
    created_on                INTEGER NOT NULL,
    modified_on               INTEGER NOT NULL,
    UNIQUE (zone_id, name)
);

-- Every route of a room: position 0 is its own host and path, 1.. its additional_routes in
-- order. The unique key makes (host, path) unique across all rooms of all zones.
CREATE TABLE room_routes (
    room_id  TEXT NOT NULL REFERENCES waiting_rooms(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    host     TEXT NOT NULL,
    host_key TEXT NOT NULL, -- lowercased host
    path     TEXT NOT NULL,
    PRIMARY KEY (room_id, position),
    UNIQUE (host_key, path)
);

CREATE TABLE events (
    id                      TEXT PRIMARY KEY,
    room_id                 TEXT NOT NULL REFERENCES waiting_rooms(id) ON DELETE CASCADE,
    name                    TEXT NOT NULL,
    description             TEXT NOT NULL DEFAULT '',
    event_start_time        TEXT NOT NULL,
    event_start_ms          INTEGER NOT NULL,
    event_end_time          TEXT NOT NULL,
    event_end_ms            INTEGER NOT NULL,
    prequeue_start_time     TEXT,
    prequeue_start_ms       INTEGER,
    shuffle_at_event_start  INTEGER NOT NULL CHECK (shuffle_at_event_start IN (0, 1)),
    suspended               INTEGER NOT NULL CHECK (suspended IN (0, 1)),
    total_active_users      INTEGER,
    new_users_per_minute    INTEGER,
    session_duration        INTEGER,
    queueing_method         TEXT,
    disable_session_renewal INTEGER,
    custom_page_html        TEXT,
    turnstile_mode          TEXT,
    turnstile_action        TEXT,
    created_on              INTEGER NOT NULL,
    modified_on             INTEGER NOT NULL,
    UNIQUE (room_id, name),
    CHECK (event_end_ms > event_start_ms)
);

CREATE TABLE rules (
    id           TEXT PRIMARY KEY,
    room_id      TEXT NOT NULL REFERENCES waiting_rooms(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    action       TEXT NOT NULL CHECK (action = 'bypass_waiting_room'),
    expression   TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    enabled      INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    version      INTEGER NOT NULL,
    last_updated INTEGER NOT NULL
);
CREATE INDEX rules_by_room ON rules (room_id, position);

CREATE TABLE api_tokens (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    scope        TEXT NOT NULL CHECK (scope IN ('read', 'edit')),
    zone_id      TEXT REFERENCES zones(id) ON DELETE CASCADE,
    token_hash   TEXT NOT NULL UNIQUE, -- SHA-256 of the token; the token itself is never stored
    created_on   INTEGER NOT NULL,
    last_used_on INTEGER
);

CREATE TABLE previews (
    id         TEXT PRIMARY KEY,
    zone_id    TEXT REFERENCES zones(id) ON DELETE CASCADE,
    html       TEXT NOT NULL,
    created_on INTEGER NOT NULL,
    expires_on INTEGER NOT NULL
);
CREATE INDEX previews_by_expiry ON previews (expires_on);
