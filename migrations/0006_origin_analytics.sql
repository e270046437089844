-- What the origin did in each room's minute, beside the rest of its analytics: answers by status
-- class, failures by kind, and the limits the origin guard let the room admit by, as one JSON
-- object ({"answers":[1xx,…,5xx], "errors":[refused, reset, timeout, invalid, tls],
-- "effective":[total_active_users, new_users_per_minute]}; "{}" for minutes before it existed).
ALTER TABLE analytics_minutes ADD COLUMN origin TEXT NOT NULL DEFAULT '{}';
