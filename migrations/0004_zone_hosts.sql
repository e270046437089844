-- wr's own zone field: the hosts the edge proxies besides the zone's name and its rooms' hosts
-- (a JSON array of names, "*.example.com" for every name under example.com).
ALTER TABLE zones ADD COLUMN hosts TEXT NOT NULL DEFAULT '[]';
