-- One node's sync of the rooms it serves on this server (wr, server/state/): one EVALSHA per
-- node, server and sync covering up to a hundred of its rooms. For each room it applies the
-- node's batches of changes once each, hands the node a grant of free places that it reserves
-- until the node's next sync, and returns the count changes the node has not read.
-- server/state/memory_store.cpp is the same logic in C++; keep the two in step (a test holds
-- them to the same answers).
--
-- Cheap per room (docs/design.md, "What a room-sync costs"): in the steady state one HMGET of a
-- handful of fields and one HSET of the room's hash, whatever the number of nodes and however
-- long the room has run. Each command called from here costs a few µs beyond its own work, each
-- field read is a lookup that misses the cache, and each value that crosses between Lua and
-- Redis, each table and each string made costs more than a line of arithmetic (Redis's Lua
-- hashes every byte of every string it makes, and prints every number it turns into text). So:
--   - The counts that only nodes read — waiting users, arrivals, check-ins, browsing — are never
--     read here. Each batch brings its count changes as one record (server/state/count_log.h),
--     which the script adds to the room's raw log unread. One node, the room's merger (whichever
--     synced when there was none alive), gets the raw log and sends, at its next sync, the
--     records it got summed into one digest; every node reads the digests it has not read — one
--     a sync, however many nodes wrote — and adds them to its copy of the counts. Once many
--     digests have piled up the merger is asked for a snapshot (its copy of the counts as of the
--     digests it read), and digests older than the previous snapshot go: a node new to the room
--     reads the snapshot and the digests after it.
--   - What grants need is kept as numbers: active users and admissions by minute, and in the
--     header the active users of the session window and the admissions of the minute, kept up
--     to date by each change (the window's fields are read only when it moves).
--   - The header is two packed values, the part most pushes move apart from the part few do (a
--     number packed costs about what a field looked up does); the release seeds are read only by
--     a push that brings one or asks for them; numbers travel and rest packed as doubles
--     (struct's 'd', the cheapest of its formats to read and write: integers are exact in them
--     up to 2^53); field names are made once per call and scratch tables once per call; the nodes' demand and
--     reservations are running sums (each node's part released by the node at its next sync or,
--     once expired, by a scan of the node entries once per liveness); and pruning and the keys'
--     time to live happen once a minute (a key a sync makes gets its time to live at once).
--
-- Keys of a room (all under the room id as hash tag, so one Cluster slot holds them):
--   counts  hash: the header in two packed parts — _c {generation (bumped whenever the state may
--           differ from what nodes read: a new epoch, another server), epoch (names this
--           incarnation of the state), server (from the run id of the server that wrote it last),
--           minute last pruned, revocations popped, revocations pushed, when a failover was found,
--           the newest sync the state it came with had seen, nodes live then not heard from since,
--           the digests' first, the snapshot's place among the digests, when a snapshot was last
--           asked for, the merger (its number), when nodes of an earlier release were last seen,
--           the session window's last minute, its length in minutes, the minute of the admissions
--           below}, written when it changes, and _h {the sums of the node entries in force: demand
--           (thousandths), how many, places held against total_active_users, places held against
--           new users of minute …, that minute; the active users of the window, the admissions of
--           the minute, the raw log's end, when the merger last synced, the digests' end, the raw
--           log digested up to, when node entries were last scanned}, written by every push;
--           _r<minute> release seed; _p the snapshot (records); r<index> the raw log's records and d<index>
--           the digests (the index packed in 4 bytes); a<minute> active users and m<minute>
--           admissions (packed counts); n<node> per node run: packed {last batch, seen ms,
--           weight, held total, held minute, its minute, in the sums (1/0), its last record in
--           the raw log}; and k<node> its contribution (server/state/contribution.h; never read
--           here but to hand it back)
--   members  set: the node runs with an entry
--   revoked  list of session:until ms
--   joined:<minute>  hash: address -> joins of that minute (two minutes)
-- KEYS: each room's counts key (its other keys are named from it, in the same slot).
-- ARGV: node, node number (its merger number), now_ms (the node's clock: minutes are the node's
--   minutes), liveness ms, grant validity ms, ttl seconds, server run id, number of rooms, then
--   per room: its numbers, all packed in one argument (each argument costs a parse, an object and
--   a Lua string) — {number of arguments the room takes, read only, total_active_users,
--   new_users_per_minute, session minutes, demand rate now (thousandths), demand over the share
--   window (thousandths), what the node may admit while this push is on its way, revocation
--   cursor, last batch acknowledged, digests read, generation read, number of batches, a
--   snapshot as of the digests read (1/0), the digest's first raw record and its end (0 0:
--   none), epoch (0: none yet), the seeds wanted (1/0)} and per batch {sequence, admission
--   counts, revocations, seeds, joins} followed by its admission counts {kind (0 active, 1
--   admitted), minute, delta} each; then the contribution, the snapshot (records; only if there
--   is one), the digest (a record; only if there is one), then per batch: the batch's record of
--   count changes, (session, until) per revocation, (minute, seed) per seed, (minute, address,
--   delta) per join.
-- Returns per room: packed {status (0 ok, 1 epoch, 2 lost, 3 failed), epoch, last batch applied
--   before, digests' end, generation, revocation cursor, held total, held minute, minute, share
--   (millionths), live nodes, whole (1: the first record below is the snapshot, and the digests
--   after it follow: every count, from nothing), snapshot wanted (1/0), nodes of an earlier
--   release seen lately (1/0), merger (1/0), raw log digested up to (where the raw records below
--   start), this node's last record in the raw log (-1: none), how many digests, raw records,
--   seeds, revocations and joins follow}, the node's contribution as stored (lost) or the error
--   (failed), then the digests (records), the raw records (the merger's), (minute, seed) per
--   seed, the revocations (session:until), and (address, count) per join.
local node = ARGV[1]
local node_number = tonumber(ARGV[2])
local now_ms = tonumber(ARGV[3])
local liveness = tonumber(ARGV[4])
local validity = tonumber(ARGV[5])
local ttl = tonumber(ARGV[6])
local server = tonumber(string.sub(ARGV[7], 1, 13), 16) or 0 -- 52 bits of the run id: exact in a number
local n_rooms = tonumber(ARGV[8])
local now_minute = math.floor(now_ms / 60000)
local time = redis.call('TIME')
local store_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local store_us = tonumber(time[1]) * 1000000 + tonumber(time[2]) -- below 2^53: exact
local limit = {
  recount_livenesses = 10,     -- k_recount_livenesses (server/state/shared_store.h)
  node_forgotten_ms = 3600000,
  earlier_release_ms = 120000, -- how long a sighting of an earlier release's node counts
  snapshot_digests = 40,       -- k_snapshot_digests (server/state/store_keys.h)
  snapshot_retry_ms = 2000,    -- k_snapshot_retry_ms
  raw_per_read = 2000,         -- k_raw_per_read
  raw_deleted_together = 32,   -- digested raw records go this many at a time
}
local empty = {}
local pack, unpack_struct = struct.pack, struct.unpack
local ROOM = '<dddddddddddddddddd'
local BATCH = '<ddddd'
local DELTA = '<ddd'
local HOT = '<dddddddddddd'
local COLD = '<ddddddddddddddddd'
local ENTRY = '<dddddddd'
local ENTRY_SIZE = 64
local COUNT = '<d'
local ANSWER = '<dddddddddddddddddddddd'
local OK, EPOCH_CHANGED, LOST, FAILED = 0, 1, 2, 3 -- statuses

-- Field names, made once for every room of the call. Their places in the HMGET answer:
local HOT_AT, COLD_AT, ENTRY_AT, DIGEST_AT = 1, 2, 3, 4
local n_fixed = 4
local entry_field = 'n' .. node
local contribution_field = 'k' .. node
local seed_fields = {'_r' .. (now_minute - 1), '_r' .. now_minute}
-- minute -> 'a<minute>' and 'm<minute>', made when a room of the call first needs them (making
-- text of a number costs a printf).
local active_names, admitted_names = {}, {}
local function named(names, letter, minute)
  local name = names[minute]
  if not name then
    name = letter .. minute
    names[minute] = name
  end
  return name
end
local function active_name(minute) return named(active_names, 'a', minute) end
local function admitted_name(minute) return named(admitted_names, 'm', minute) end
local admitted_now_name = admitted_name(now_minute)

local function count_of(text)
  if not text then return 0 end
  return (unpack_struct(COUNT, text))
end

-- Lua's unpack takes about 8,000 values at most: a command with more arguments goes in parts.
-- An even part size keeps field-value pairs together.
local PART = 4000
local function call_in_parts(command, key, list, n)
  for i = 1, n, PART do redis.call(command, key, unpack(list, i, math.min(n, i + PART - 1))) end
end

local function hmget(key, names)
  if #names <= PART then return redis.call('HMGET', key, unpack(names)) end
  local values = {}
  for i = 1, #names, PART do
    local part = redis.call('HMGET', key, unpack(names, i, math.min(#names, i + PART - 1)))
    for j = 1, #part do values[i + j - 1] = part[j] end
  end
  return values
end

-- The fields of the raw log's and the digests' records: a letter and the index packed (packing
-- makes no text of a number, which costs Redis's Lua a printf).
local function raw_field(index) return 'r' .. pack('<I4', index) end
local function digest_field(index) return 'd' .. pack('<I4', index) end

-- The values of fields `from` to `to` (not included) named by `name_of` ({} for none).
local function read_range(state_key, name_of, from, to)
  if to <= from then return {} end
  local names = {}
  for i = from, to - 1 do names[i - from + 1] = name_of(i) end
  return hmget(state_key, names)
end

-- Fields `from` to `to` (not included) named by `name_of` go.
local function delete_range(state_key, name_of, from, to)
  if to <= from then return end
  local names = {}
  for i = from, to - 1 do names[i - from + 1] = name_of(i) end
  call_in_parts('HDEL', state_key, names, #names)
end

-- The sum of the active users of minutes `from` to `to`.
local function active_sum(state_key, from, to)
  if to < from then return 0 end
  local names = {}
  for minute = from, to do names[#names + 1] = active_name(minute) end
  local values = hmget(state_key, names)
  local sum = 0
  for i = 1, #names do sum = sum + count_of(values[i]) end
  return sum
end

-- The node entries of a room, read once per sync at most: names and entries, in step.
local function all_entries(members_key, state_key)
  local names = redis.call('SMEMBERS', members_key)
  if #names == 0 then return names, empty end
  local fields = {}
  for i = 1, #names do fields[i] = 'n' .. names[i] end
  return names, hmget(state_key, fields)
end

-- An entry's part in the sums (weight, live, total, minute, of) added (sign 1) or taken away
-- (-1). Holds against new users count for one minute only: the sum starts afresh with the first
-- hold for a later minute. Numbers in and out, no table: a table costs more than the sums.
local function add_entry(sw, sl, st, sm, so, weight, total, minute, of, sign)
  sw = sw + sign * weight
  sl = sl + sign
  st = st + sign * total
  if of == so then
    sm = sm + sign * minute
  elseif sign > 0 and of > so then
    so, sm = of, minute
  end
  return sw, sl, st, sm, so
end

local function granted(free, held, weight, weights, live, rate)
  if free <= 0 then return 0 end
  local seats
  if weights > 0 then seats = math.ceil(weight * free / weights) else seats = math.ceil(free / live) end
  -- Twice what its demand takes while the grant lasts, rounded up (integers, as shares.cpp).
  local need = math.floor((2 * rate * validity + 999999) / 1000000) + 1
  local even = math.ceil(free / (live + 1))
  local quiet_floor = 0
  if free >= 2 * live then quiet_floor = math.min(even, need + 4) end
  local want = math.min(math.max(seats, quiet_floor), math.max(need, even))
  return math.max(0, math.min(want, free - held))
end

-- Scratch space every room of the call reuses (a new table per room costs more than its work):
-- the fields read (the first three never change; the fourth is the digest the node most likely
-- has not read, its next), field -> its place there, the fields
-- written, the node's admission changes summed by field and in first-seen order (with each
-- field's kind and minute), and the answer's items.
local fields = {'_h', '_c', entry_field, ''}
local position, set, deltas, order, order_kind, order_minute = {}, {}, {}, {}, {}, {}
local n_fields = n_fixed

-- A field the room's one HMGET reads too, once however often it is asked for.
local function read_also(field)
  if not position[field] then
    n_fields = n_fields + 1
    fields[n_fields] = field
    position[field] = n_fields
  end
end

-- The room's other keys, named from its counts key ('…:counts'): only the syncs that need them
-- touch them.
local function key_of(state_key, name) return string.sub(state_key, 1, -7) .. name end

local function sync_room(state_key, at)
  local numbers = ARGV[at]
  local _, read_only, total, per_minute, session, rate, weight, in_flight, cursor, acknowledged, version_read, generation_read, n_batches,
        has_snapshot, digest_from, digest_to, epoch, want_seeds, batches_from = unpack_struct(ROOM, numbers)
  read_only = read_only == 1
  local contribution = ARGV[at + 1]
  local a = at + 2
  local snapshot, digest = '', ''
  if has_snapshot == 1 then snapshot, a = ARGV[a], a + 1 end
  if digest_to > digest_from then digest, a = ARGV[a], a + 1 end
  local batches_at = a
  if session > 31 then session = 31 end

  -- One read of the room's hash: its header, this node's entry, the digest it most likely has
  -- not read (the one after those it read), the seeds if it wants them or brings one, and the
  -- admission counts its batches touch.
  fields[DIGEST_AT] = digest_field(version_read)
  n_fields = n_fixed
  local n_order = 0
  local pushes_seeds = false
  if not read_only then
    local a, offset = batches_at, batches_from
    for _ = 1, n_batches do
      local _, n_counts, n_revocations, n_seeds, n_joins
      _, n_counts, n_revocations, n_seeds, n_joins, offset = unpack_struct(BATCH, numbers, offset)
      if n_counts > 0 then
        for _ = 1, n_counts do
          local kind, minute, delta
          kind, minute, delta, offset = unpack_struct(DELTA, numbers, offset)
          local field = kind == 0 and active_name(minute) or admitted_name(minute)
          if not position[field] then
            read_also(field)
            n_order = n_order + 1
            order[n_order], order_kind[n_order], order_minute[n_order] = field, kind, minute
          end
        end
      end
      if n_seeds > 0 then pushes_seeds = true end
      a = a + 1 + 2 * n_revocations + 2 * n_seeds + 3 * n_joins
    end
  end
  local seed_last_at, seed_now_at = nil, nil
  if want_seeds == 1 or pushes_seeds then
    read_also(seed_fields[1])
    read_also(seed_fields[2])
    seed_last_at, seed_now_at = position[seed_fields[1]], position[seed_fields[2]]
  end
  local values = redis.call('HMGET', state_key, unpack(fields, 1, n_fields))
  for i = n_fixed + 1, n_fields do position[fields[i]] = nil end
  if not values[COLD_AT] and read_only then
    -- Read only, and nothing there: nothing to read.
    if generation_read ~= 0 or cursor < 0 then cursor = 0 end
    return {pack(ANSWER, OK, 0, 0, 0, 0, cursor, 0, 0, now_minute, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0), ''}
  end
  local generation, stored_epoch, wrote, pruned, scanned, revocation_base, revocations_pushed, failover, failover_seen, pending = 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0
  local raw_end, digest_base, digest_end, digested, snapshot_at, snapshot_asked, merger_number, merger_seen, earlier_seen = 0, 0, 0, 0, 0, 0,
    0, 0, 0
  local window_users, window_minute, window_length, minute_admitted, admitted_minute = 0, 0, -1, 0, 0
  local sw, sl, st, sm, so = 0, 0, 0, 0, 0 -- the node entries' sums
  -- The header in two parts: what most pushes move, written by every push, and the rest,
  -- written only when it changed (`cold`).
  if values[COLD_AT] then
    generation, stored_epoch, wrote, pruned, revocation_base, revocations_pushed, failover, failover_seen, pending, digest_base, snapshot_at,
      snapshot_asked, merger_number, earlier_seen, window_minute, window_length, admitted_minute = unpack_struct(COLD, values[COLD_AT])
    if values[HOT_AT] then
      sw, sl, st, sm, so, window_users, minute_admitted, raw_end, merger_seen, digest_end, digested, scanned = unpack_struct(HOT, values[HOT_AT])
    end
  end
  local cold = false
  local created = false
  local n_set = 0

  -- The epoch names this incarnation of the room's state: a new one when the state is gone, so
  -- that every node pushes all it still counts again instead of its latest changes only.
  -- Generations are the store's time in µs when they move (at least one more than before): a
  -- state made anew, or taken over by another server, never has a generation a node read from
  -- another one.
  if not values[COLD_AT] then
    stored_epoch = store_us
    generation = store_us
    wrote = server
    created = true
    cold = true
  end

  local entry = values[ENTRY_AT]
  local names, entries = nil, nil -- every node entry, when this sync needs them
  local members_key = nil
  -- State that another server wrote (a promoted replica, a restart from disk) may lack what
  -- nodes were told was applied: grants wait until the nodes live before have synced.
  if not read_only and wrote ~= server then
    members_key = key_of(state_key, 'members')
    names, entries = all_entries(members_key, state_key)
    local newest = 0
    for i = 1, #names do
      if entries[i] and #entries[i] >= ENTRY_SIZE then
        local _, seen = unpack_struct('<dd', entries[i])
        if seen > newest then newest = seen end
      end
    end
    pending = 0
    for i = 1, #names do
      if entries[i] and #entries[i] >= ENTRY_SIZE then
        local _, seen = unpack_struct('<dd', entries[i])
        if seen >= newest - liveness then pending = pending + 1 end
      end
    end
    failover, failover_seen = store_ms, newest
    generation = math.max(generation + 1, store_us)
    wrote = server
    cold = true
  end

  local status = OK
  local own_sequence, own_seen, own_total, own_minute, own_of, own_counted, own_raw = 0, 0, 0, 0, 0, false, -1
  local own_weight = 0
  if entry then
    local counted
    own_sequence, own_seen, own_weight, own_total, own_minute, own_of, counted, own_raw = unpack_struct(ENTRY, entry)
    own_counted = counted == 1
  end
  local stored_sequence = own_sequence
  local text = '' -- the node's contribution as stored ("lost")
  if not read_only then
    -- A node that never synced the room (0) has nothing from an older epoch to push again.
    if epoch ~= stored_epoch and epoch ~= 0 then
      -- The state this node knew is gone: every node pushes all it counts again.
      status = EPOCH_CHANGED
      failover, failover_seen, pending = store_ms, 0, 0
      cold = true
    elseif acknowledged > stored_sequence then
      -- Batches acknowledged to the node are missing (a failover to a replica that lagged):
      -- nothing applied; the node sends again what this copy of its contribution lacks.
      status = LOST
      -- No entry at all (its first sync never reached this copy): no copy, so it sends all again.
      if entry then text = redis.call('HGET', state_key, contribution_field) or '' end
    end
  end

  -- The merger: this node if the room has none alive.
  local merger = false
  if status == OK and not read_only then
    merger = merger_number == node_number or merger_number == 0 or merger_seen + liveness <= store_ms
    if merger then
      if merger_number ~= node_number then
        merger_number = node_number
        cold = true
      end
      merger_seen = store_ms
    end
  end

  -- The node's batches, each applied once (a batch applied before, whose answer was lost, is
  -- skipped: no one is counted twice).
  local last = stored_sequence
  local pushed_joins = nil
  local record = '' -- the fresh batches' records, for the raw log
  local pruned_now = false
  local snapshot_wanted = 0
  local digest_end_before = digest_end
  local raw, n_raw = nil, 0
  local snapshot_taken = nil -- the snapshot this push brought, if the store took it
  if status == OK and not read_only then
    -- The session window's active users and the minute's admissions as of now, before this
    -- push: moved with the minute (the minutes that leave the window read once), or counted
    -- afresh when the session's length changed or the node's clock is behind the window's.
    if window_length ~= session or now_minute < window_minute or now_minute - window_minute > 31 then
      window_users = active_sum(state_key, now_minute - session, now_minute)
      window_minute, window_length = now_minute, session
      cold = true
    elseif now_minute > window_minute then
      window_users = window_users - active_sum(state_key, window_minute - session, now_minute - session - 1)
      window_minute = now_minute
      cold = true
    end
    if admitted_minute ~= now_minute then
      minute_admitted = count_of(redis.call('HGET', state_key, admitted_now_name))
      admitted_minute = now_minute
      cold = true
    end

    local pushes = nil
    local join_writes = nil -- key, address, delta, …: written once nothing left can fail
    local a, offset = batches_at, batches_from
    for _ = 1, n_batches do
      local sequence, n_counts, n_revocations, n_seeds, n_joins
      sequence, n_counts, n_revocations, n_seeds, n_joins, offset = unpack_struct(BATCH, numbers, offset)
      local fresh = sequence > stored_sequence
      if fresh then
        for _ = 1, n_counts do
          local kind, minute, delta
          kind, minute, delta, offset = unpack_struct(DELTA, numbers, offset)
          local field = kind == 0 and active_names[minute] or admitted_names[minute]
          deltas[field] = (deltas[field] or 0) + delta
        end
        if record == '' then record = ARGV[a] else record = record .. ARGV[a] end
      else
        offset = offset + 24 * n_counts
      end
      a = a + 1
      if fresh and n_revocations > 0 then
        pushes = pushes or {}
        for i = a, a + 2 * n_revocations - 1, 2 do pushes[#pushes + 1] = ARGV[i] .. ':' .. ARGV[i + 1] end
      end
      a = a + 2 * n_revocations
      for i = a, a + 2 * n_seeds - 1, 2 do
        -- The first seed any node pushed for a minute is the minute's.
        local minute = tonumber(ARGV[i])
        local index = minute == now_minute and seed_now_at or (minute == now_minute - 1 and seed_last_at or nil)
        if fresh and index and not values[index] then
          values[index] = ARGV[i + 1]
          set[n_set + 1], set[n_set + 2] = fields[index], values[index]
          n_set = n_set + 2
        end
      end
      a = a + 2 * n_seeds
      for i = a, a + 3 * n_joins - 1, 3 do
        local minute, address, delta = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
        local key = key_of(state_key, 'joined:' .. minute)
        if fresh then
          join_writes = join_writes or {}
          join_writes[#join_writes + 1], join_writes[#join_writes + 2], join_writes[#join_writes + 3] = key, address, delta
        end
        if tonumber(minute) == now_minute then
          pushed_joins = pushed_joins or {}
          pushed_joins[address] = key
        end
      end
      a = a + 3 * n_joins
      if sequence > last then last = sequence end
    end
    -- The admission counts written whole, and the window's and the minute's sums moved with
    -- them. A count for a minute no ledger keeps any more (a node cut off for a while sends old
    -- changes) is dropped by this sync's prune, if it prunes: it is not written back after the
    -- prune took it.
    local pruning = pruned < now_minute
    for i = 1, n_order do
      local field = order[i]
      local delta = deltas[field]
      if delta then
        deltas[field] = nil
        local minute = order_minute[i]
        if not (pruning and minute < now_minute - 31) then
          set[n_set + 1], set[n_set + 2] = field, pack(COUNT, count_of(values[n_fixed + i]) + delta)
          n_set = n_set + 2
        end
        if order_kind[i] == 0 then
          if minute >= window_minute - window_length and minute <= window_minute then window_users = window_users + delta end
        elseif minute == admitted_minute then
          minute_admitted = minute_admitted + delta
        end
      end
    end

    -- The merger's digest of the raw records from where the last one ended: the raw records up
    -- to there go, a few dozen at a time.
    if merger and digest_to > digest_from and digest_from == digested and digest_to <= raw_end then
      if digest ~= '' then
        set[n_set + 1], set[n_set + 2] = digest_field(digest_end), digest
        n_set = n_set + 2
        digest_end = digest_end + 1
      end
      local kept = digested - digested % limit.raw_deleted_together
      digested = digest_to
      local gone = digested - digested % limit.raw_deleted_together
      if gone > kept then delete_range(state_key, raw_field, kept, gone) end
    end
    -- A snapshot as of the digests this node read, if none is as recent: digests older than the
    -- previous snapshot go (a node that read less reads everything).
    if has_snapshot == 1 and generation_read == generation and version_read > snapshot_at and version_read <= digest_end_before then
      delete_range(state_key, digest_field, digest_base, snapshot_at)
      digest_base = math.max(digest_base, snapshot_at)
      snapshot_at = version_read
      snapshot_asked = 0
      cold = true
      snapshot_taken = snapshot
      set[n_set + 1], set[n_set + 2] = '_p', snapshot
      n_set = n_set + 2
    end
    if merger and digest_end - snapshot_at >= limit.snapshot_digests and snapshot_asked + limit.snapshot_retry_ms <= store_ms then
      snapshot_wanted = 1
      snapshot_asked = store_ms
      cold = true
    end
    -- The merger gets the raw records not digested yet (this push's among them, last).
    if merger then
      n_raw = math.min(raw_end, digested + limit.raw_per_read) - digested
      raw = read_range(state_key, raw_field, digested, digested + n_raw)
      for i = 1, n_raw do raw[i] = raw[i] or '' end -- a record gone (a damaged key) holds nothing any more
      if record ~= '' and n_raw < limit.raw_per_read then
        n_raw = n_raw + 1
        raw[n_raw] = record
      end
    end
    -- The node's changes into the raw log.
    if record ~= '' then
      set[n_set + 1], set[n_set + 2] = raw_field(raw_end), record
      n_set = n_set + 2
      own_raw = raw_end
      raw_end = raw_end + 1
    end

    -- Keys made by a write get their time to live at once (a room no one serves leaves nothing
    -- behind), the others once a minute below.
    if pushes then
      local rev_key = key_of(state_key, 'revoked')
      call_in_parts('RPUSH', rev_key, pushes, #pushes)
      redis.call('EXPIRE', rev_key, ttl)
      revocations_pushed = revocations_pushed + #pushes
      cold = true
    end
    if join_writes then
      for i = 1, #join_writes, 3 do
        redis.call('HINCRBY', join_writes[i], join_writes[i + 1], join_writes[i + 2])
        redis.call('EXPIRE', join_writes[i], 120)
      end
    end

    -- Once a minute: admission counts no ledger keeps any more and seeds of past minutes leave
    -- the hash, node runs gone for an hour (or whose entries are damaged) are forgotten,
    -- revocations past their cookies' end leave the head of the list (they arrive roughly in
    -- order), and nodes of an earlier release are looked for in the keys that release used.
    if pruning then
      local gone = {}
      if pruned > 0 then
        for minute = math.max(pruned - 32, now_minute - 100), now_minute - 32 do
          gone[#gone + 1] = active_name(minute)
          gone[#gone + 1] = admitted_name(minute)
        end
        for minute = math.max(pruned - 1, now_minute - 100), now_minute - 2 do gone[#gone + 1] = '_r' .. minute end
      end
      members_key = members_key or key_of(state_key, 'members')
      if not names then names, entries = all_entries(members_key, state_key) end
      local forgotten = nil
      for i = 1, #names do
        local stored = entries[i]
        if names[i] ~= node and (not stored or #stored < ENTRY_SIZE or select(2, unpack_struct('<dd', stored)) < store_ms - limit.node_forgotten_ms) then
          gone[#gone + 1] = 'n' .. names[i]
          gone[#gone + 1] = 'k' .. names[i]
          forgotten = forgotten or {}
          forgotten[#forgotten + 1] = names[i]
          entries[i] = false
        end
      end
      if #gone > 0 then call_in_parts('HDEL', state_key, gone, #gone) end
      if forgotten then call_in_parts('SREM', members_key, forgotten, #forgotten) end
      local rev_key = key_of(state_key, 'revoked')
      local popped = 0
      while popped < 1000 do
        local head = redis.call('LINDEX', rev_key, 0)
        if not head then break end
        local until_ms = tonumber(string.match(head, ':(%-?%d+)$'))
        if until_ms and until_ms > now_ms then break end
        redis.call('LPOP', rev_key)
        popped = popped + 1
      end
      revocation_base = revocation_base + popped
      local earlier = redis.call('HVALS', key_of(state_key, 'nodes'))
      for i = 1, #earlier do
        if #earlier[i] >= 16 and select(2, unpack_struct('<i8i8', earlier[i])) >= store_ms - limit.earlier_release_ms then earlier_seen = store_ms end
      end
      pruned = now_minute
      pruned_now = true
      cold = true
    end
  end
  for i = 1, n_order do deltas[order[i]] = nil end

  -- The grant: this node's seats of the free places, capped by its need, less what other
  -- nodes' grants hold (server/state/shares.h).
  local grant_total, grant_minute, share, live = 0, 0, 0, 0
  if status == OK and not read_only then
    local free_total = total - math.max(0, window_users)
    local free_minute = per_minute - minute_admitted
    -- Once per liveness: entries whose grant has expired leave the sums (their nodes stopped
    -- syncing; a node that syncs takes its own out).
    if scanned + liveness <= store_ms then
      members_key = members_key or key_of(state_key, 'members')
      if not names then names, entries = all_entries(members_key, state_key) end
      for i = 1, #names do
        local other = entries[i]
        if names[i] ~= node and other and #other >= ENTRY_SIZE then
          local sequence, seen, other_weight, other_total, other_minute, of, counted, other_raw = unpack_struct(ENTRY, other)
          if counted == 1 and seen + validity <= store_ms then
            sw, sl, st, sm, so = add_entry(sw, sl, st, sm, so, other_weight, other_total, other_minute, of, -1)
            set[n_set + 1] = 'n' .. names[i]
            set[n_set + 2] = pack(ENTRY, sequence, seen, other_weight, other_total, other_minute, of, 0, other_raw)
            n_set = n_set + 2
          end
        end
      end
      scanned = store_ms
    end
    -- This node's own part, while still in the sums, is not another node's.
    if own_counted then sw, sl, st, sm, so = add_entry(sw, sl, st, sm, so, own_weight, own_total, own_minute, own_of, -1) end
    local others_minute = so == now_minute and sm or 0
    live = sl + 1
    local weights = weight + sw
    if weights > 0 then share = math.min(1000000, math.max(0, math.floor(weight * 1000000 / weights))) else share = math.floor(1000000 / live) end
    -- A recount after a failover or a loss: no grants until the counts are whole again.
    if entry and own_seen < failover and own_seen >= failover_seen - liveness and pending > 0 then
      pending = pending - 1
      cold = true
    end
    local recounting = store_ms < failover + liveness or (pending > 0 and store_ms < failover + limit.recount_livenesses * liveness)
    if not recounting then
      grant_total = granted(free_total, st, weight, weights, live, rate)
      grant_minute = granted(free_minute, others_minute, weight, weights, live, rate)
    end
    -- Held: the grant, or what the node may admit before the answer reaches it, if more.
    local held_total, held_minute = math.max(grant_total, in_flight), math.max(grant_minute, in_flight)
    sw, sl, st, sm, so = add_entry(sw, sl, st, sm, so, weight, held_total, held_minute, now_minute, 1)
    set[n_set + 1], set[n_set + 2] = entry_field, pack(ENTRY, last, store_ms, weight, held_total, held_minute, now_minute, 1, own_raw)
    n_set = n_set + 2
    -- A push without batches leaves the contribution as it was.
    if n_batches > 0 or not entry then
      set[n_set + 1], set[n_set + 2] = contribution_field, contribution
      n_set = n_set + 2
    end
    if not entry then
      members_key = members_key or key_of(state_key, 'members')
      if redis.call('SADD', members_key, node) == 1 then redis.call('EXPIRE', members_key, ttl) end
    end
  end

  -- The header: its moving part whenever a push writes, the rest when it changed.
  if not read_only then
    set[n_set + 1], set[n_set + 2] = '_h', pack(HOT, sw, sl, st, sm, so, window_users, minute_admitted, raw_end, merger_seen, digest_end,
                                                 digested, scanned)
    n_set = n_set + 2
    if cold then
      set[n_set + 1], set[n_set + 2] = '_c', pack(COLD, generation, stored_epoch, wrote, pruned, revocation_base, revocations_pushed, failover,
                                                   failover_seen, pending, digest_base, snapshot_at, snapshot_asked, merger_number, earlier_seen,
                                                   window_minute, window_length, admitted_minute)
      n_set = n_set + 2
    end
  end
  if n_set > 0 then call_in_parts('HSET', state_key, set, n_set) end
  -- Every key's time to live set again once a minute (longer than any count a ledger keeps) and
  -- when the state is made, after the writes that make the keys.
  if created or pruned_now then
    redis.call('EXPIRE', state_key, ttl)
    redis.call('EXPIRE', key_of(state_key, 'members'), ttl)
    redis.call('EXPIRE', key_of(state_key, 'revoked'), ttl)
  end

  -- The answer: its numbers, the contribution ("lost"), then the digests this node has not read
  -- (everything, from the snapshot on, for a node new to this incarnation of the state or behind
  -- the digests kept: most often the one or two read above, and the merger's own digest of this
  -- sync), the merger's raw records, the seeds read, the revocations not seen, and the joins.
  local answer = {false, text}
  local n = 2
  local n_digests = 0
  local whole = 0
  if status == OK then
    whole = (generation_read ~= generation or version_read < digest_base or version_read > digest_end_before) and 1 or 0
    if whole == 0 and version_read < digest_end_before then
      n_digests = digest_end_before - version_read
      answer[3] = values[DIGEST_AT]
      if n_digests > 1 then
        local more = read_range(state_key, digest_field, version_read + 1, digest_end_before)
        for i = 1, n_digests - 1 do answer[i + 3] = more[i] end
      end
      -- A digest gone (a damaged key): the node reads everything instead.
      for i = 3, n_digests + 2 do
        if not answer[i] then whole = 1 end
      end
    end
    if whole == 1 then
      local all = read_range(state_key, digest_field, snapshot_at, digest_end_before)
      answer = {false, text}
      answer[3] = snapshot_taken or redis.call('HGET', state_key, '_p') or ''
      n_digests = digest_end_before - snapshot_at + 1
      for i = 2, n_digests do answer[i + 2] = all[i - 1] or '' end
    end
    n = n + n_digests
    if digest_end > digest_end_before then
      n = n + 1
      n_digests = n_digests + 1
      answer[n] = digest
    end
  end
  for i = 1, n_raw do answer[n + i] = raw[i] end
  n = n + n_raw

  local n_seeds = 0
  if seed_last_at then
    if values[seed_last_at] then
      answer[n + 1], answer[n + 2] = now_minute - 1, values[seed_last_at]
      n, n_seeds = n + 2, n_seeds + 1
    end
    if values[seed_now_at] then
      answer[n + 1], answer[n + 2] = now_minute, values[seed_now_at]
      n, n_seeds = n + 2, n_seeds + 1
    end
  end

  -- A cursor into another generation's list (a failover: the copy may hold fewer revocations, and
  -- later ones take the places this node read up to) reads the list from its start again:
  -- applying a revocation twice changes nothing.
  if generation_read ~= generation then cursor = 0 end
  local start = cursor - revocation_base
  if start < 0 then start = 0 end
  local n_revocations = 0
  if revocation_base + start < revocations_pushed then
    local revocations = redis.call('LRANGE', key_of(state_key, 'revoked'), start, start + 4999)
    n_revocations = #revocations
    for i = 1, n_revocations do answer[n + i] = revocations[i] end
    n = n + n_revocations
  end
  local new_cursor = revocation_base + start + n_revocations

  local n_joins = 0
  if pushed_joins then
    for address, key in pairs(pushed_joins) do
      answer[n + 1], answer[n + 2] = address, tonumber(redis.call('HGET', key, address) or '0')
      n, n_joins = n + 2, n_joins + 1
    end
  end

  local earlier_lately = 0
  if earlier_seen > 0 and earlier_seen + limit.earlier_release_ms > store_ms then earlier_lately = 1 end
  answer[1] = pack(ANSWER, status, stored_epoch, stored_sequence, digest_end, generation, new_cursor, grant_total, grant_minute, now_minute, share,
                   live, whole, snapshot_wanted, earlier_lately, merger and 1 or 0, digested, own_raw, n_digests, n_raw, n_seeds,
                   n_revocations, n_joins)
  return answer
end

local results = {}
local at = 9
for r = 1, n_rooms do
  local n_arguments = unpack_struct('<d', ARGV[at])
  -- A room that fails (a damaged key) fails alone: the others are synced as usual.
  local ok, result = pcall(sync_room, KEYS[r], at)
  if ok then
    results[r] = result
  else
    -- The scratch space as a room leaves it when it fails midway: emptied for the next.
    for field in pairs(position) do position[field] = nil end
    for field in pairs(deltas) do deltas[field] = nil end
    local message = type(result) == 'table' and (result.err or 'error') or tostring(result)
    results[r] = {pack(ANSWER, FAILED, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0), message}
  end
  at = at + n_arguments
end
return results
