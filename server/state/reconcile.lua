-- One node's sync of the rooms it serves on this server (wr, server/state/): one EVALSHA per
-- node, server and sync covering up to a hundred of its rooms. For each room it applies the
-- node's batches of changes once each, hands the node a grant of free places that it reserves
-- until the node's next sync, and returns the counts that changed since the node last read them.
-- server/state/memory_store.cpp is the same logic in C++; keep the two in step (a test holds
-- them to the same answers).
--
-- Cheap per room (docs/design.md, "What a room-sync costs"): a range of the sorted set naming
-- the counts other nodes changed since this node's last read, one HMGET of the room's state
-- (its header, the counts the grant and the batches touch, and those others changed), one HGET
-- and one HSET of the node's entry, a ZADD when counts changed and one HSET of the state —
-- whatever the number of nodes and however long the room has run. Each command called from here
-- costs a few µs beyond its own work (its arguments made into Redis strings, its answer parsed
-- back into Lua), and each table or string made costs more than a line of arithmetic: so there
-- are no more commands than these, numbers travel and rest packed (struct, little-endian 64-bit
-- integers), field names are made once per call and scratch tables once per call, counts are
-- read by version rather than whole, the nodes' demand and reservations are kept as running sums
-- (each node's part released by the node at its next sync or, once expired, by a scan of the
-- node entries once per liveness), and pruning and the keys' time to live happen once a minute (a
-- key a sync makes gets its time to live at once).
--
-- Keys of a room (all under the room id as hash tag, so one Cluster slot holds them):
--   state  hash: _e epoch (names this incarnation of the state), _s server (run id of the server
--          that wrote it last), _m packed {generation (bumped whenever the state may differ from
--          what nodes read: a new epoch, another server), version of the counts, minute last
--          pruned, when node entries were last scanned, revocations popped, revocations pushed,
--          when a failover was found, the newest sync the state it came with had seen, nodes live
--          then not heard from since}, _x packed sums of the node entries in force {demand
--          (thousandths), how many, places held against total_active_users, places held against
--          new users of minute …, that minute}, _r<minute> release seed, and the counts:
--          field -> packed count (server/state/store_fields.h names the fields)
--   nodes  hash: node -> packed {last batch, seen ms, weight, held total, held minute, its
--          minute, in the sums (1/0)} followed by its contribution (server/state/contribution.h;
--          never read here, handed back)
--   chg    sorted set: count field, by the version that last changed it
--   rev    list of session:until ms
--   then the join keys of the minutes pushed (address -> joins)
-- ARGV: node, now_ms (the node's clock: minutes are the node's minutes), liveness ms, grant
--   validity ms, ttl seconds, server run id, number of rooms, then per room: packed {number of
--   keys, read only, total_active_users, new_users_per_minute, session minutes, demand rate now
--   (thousandths), demand over the share window (thousandths), what the node may admit while
--   this push is on its way, revocation cursor, last batch acknowledged, version read,
--   generation read, number of join keys, number of batches}, epoch, contribution, the join
--   keys' minutes, then per batch: packed {sequence, count changes, revocations, seeds, joins},
--   packed deltas, the count fields, (session, until) per revocation, (minute, seed) per seed,
--   (minute, address, delta) per join.
-- Returns per room: {status ("ok", "epoch", "lost" or "failed"), epoch, last batch applied
--   before, version, generation, changed counts (field, packed count, …), seeds (minute, seed,
--   …), revocations, revocation cursor, joins (address, count, …), held total, held minute,
--   minute, share (millionths), live nodes, the node's contribution as stored ("lost"), error
--   ("failed")}
local node = ARGV[1]
local now_ms = tonumber(ARGV[2])
local liveness = tonumber(ARGV[3])
local validity = tonumber(ARGV[4])
local ttl = tonumber(ARGV[5])
local server = ARGV[6]
local n_rooms = tonumber(ARGV[7])
local now_minute = math.floor(now_ms / 60000)
local now_slot = math.floor(now_ms / 10000)
local time = redis.call('TIME')
local store_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local store_us = tonumber(time[1]) * 1000000 + tonumber(time[2]) -- below 2^53: exact
local recount_livenesses = 10 -- k_recount_livenesses (server/state/shared_store.h)
local node_forgotten_ms = 3600000
local empty = {}
local pack, unpack_struct = struct.pack, struct.unpack
local ROOM = '<i8i8i8i8i8i8i8i8i8i8i8i8i8i8'
local BATCH = '<i8i8i8i8i8'
local META = '<i8i8i8i8i8i8i8i8i8'
local SUMS = '<i8i8i8i8i8'
local ENTRY = '<i8i8i8i8i8i8i8'
local ENTRY_SIZE = 56
local COUNT = '<i8'

-- Field names, made once for every room of the call. The header's places in an HMGET answer:
local EPOCH, SERVER, META_AT, SUMS_AT, SEED_LAST, SEED_NOW = 1, 2, 3, 4, 5, 6
local header = {'_e', '_s', '_m', '_x', '_r' .. (now_minute - 1), '_r' .. now_minute}
local n_header = #header
local active_names = {} -- minute -> 'a<minute>', made when a room first needs it (a call may carry one room)
local admitted_name = 'm' .. now_minute

-- Retention by field, as store_fields.cpp's field_expired (and ChangeSet::prune).
local function expired(field)
  local kind = string.sub(field, 1, 1)
  if kind == 'w' then
    local _, slot = string.match(field, '^w(%-?%d+):(%-?%d+)$')
    return not slot or tonumber(slot) < now_slot - 21
  end
  local at = tonumber(string.sub(field, 2))
  if not at then return true end
  if kind == 'a' then return at < now_minute - 31 end
  if kind == 'm' then return at < now_minute - 31 end
  if kind == 'v' or kind == 'b' then return at < now_slot - 181 end
  if kind == 'c' then return at < now_slot - 21 end
  return true
end

local function count_of(text)
  if not text then return 0 end
  return (unpack_struct(COUNT, text))
end

-- Lua's unpack takes about 8,000 values at most: a command with more arguments (a room with
-- thousands of fields to read or write, after an outage or a lost state) goes in parts. An even
-- part size keeps field-value pairs together. Returns the parts' answers summed (ZADD: the
-- members new to the set).
local PART = 4000
local function call_in_parts(command, key, list, n)
  local sum = 0
  for i = 1, n, PART do sum = sum + redis.call(command, key, unpack(list, i, math.min(n, i + PART - 1))) end
  return sum
end
local function hmget(key, list, n)
  if n <= PART then return redis.call('HMGET', key, unpack(list, 1, n)) end
  local values = {}
  for i = 1, n, PART do
    local part = redis.call('HMGET', key, unpack(list, i, math.min(n, i + PART - 1)))
    for j = 1, #part do values[i + j - 1] = part[j] end
  end
  return values
end

-- Once a minute: counts no ledger keeps any more and seeds of past minutes leave the state,
-- node runs gone for an hour are forgotten, and revocations past their cookies' end leave the
-- head of the list (they arrive roughly in order). Returns how many revocations went.
local function prune(state_key, nodes_key, chg_key, rev_key)
  local all = redis.call('HGETALL', state_key)
  local gone, counts_gone = {}, {}
  for i = 1, #all, 2 do
    local field = all[i]
    if string.sub(field, 1, 1) == '_' then
      if string.sub(field, 2, 2) == 'r' then
        local minute = tonumber(string.sub(field, 3))
        if minute and minute < now_minute - 1 then gone[#gone + 1] = field end
      end
    elseif expired(field) then
      gone[#gone + 1] = field
      counts_gone[#counts_gone + 1] = field
    end
  end
  call_in_parts('HDEL', state_key, gone, #gone)
  call_in_parts('ZREM', chg_key, counts_gone, #counts_gone)
  local nodes = redis.call('HGETALL', nodes_key)
  for i = 1, #nodes, 2 do
    -- (an entry too short to hold its time is damaged: forgotten too)
    if #nodes[i + 1] < ENTRY_SIZE or select(2, unpack_struct('<i8i8', nodes[i + 1])) < store_ms - node_forgotten_ms then
      redis.call('HDEL', nodes_key, nodes[i])
    end
  end
  local popped = 0
  while popped < 1000 do
    local head = redis.call('LINDEX', rev_key, 0)
    if not head then break end
    local until_ms = tonumber(string.match(head, ':(%-?%d+)$'))
    if until_ms and until_ms > now_ms then break end
    redis.call('LPOP', rev_key)
    popped = popped + 1
  end
  return popped
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

-- Once per liveness: entries whose grant has expired leave the sums (their nodes stopped
-- syncing; a node that syncs takes its own out).
local function scan(nodes_key, sw, sl, st, sm, so, except)
  local nodes = redis.call('HGETALL', nodes_key)
  for i = 1, #nodes, 2 do
    if nodes[i] ~= except and #nodes[i + 1] >= ENTRY_SIZE then
      local entry = nodes[i + 1]
      local sequence, seen, weight, total, minute, of, counted = unpack_struct(ENTRY, entry)
      if counted == 1 and seen + validity <= store_ms then
        sw, sl, st, sm, so = add_entry(sw, sl, st, sm, so, weight, total, minute, of, -1)
        redis.call('HSET', nodes_key, nodes[i], pack(ENTRY, sequence, seen, weight, total, minute, of, 0) .. string.sub(entry, ENTRY_SIZE + 1))
      end
    end
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
-- the fields read (the header's never change), field -> its place there, the fields written,
-- the node's changes summed by field and in first-seen order, the sorted set's new scores.
local fields = {}
for i = 1, n_header do fields[i] = header[i] end
local position, set, deltas, order, members = {}, {}, {}, {}, {}
local n_fields = n_header

-- A count field the room's one HMGET reads too, once however often it is asked for.
local function read_also(field)
  if not position[field] then
    n_fields = n_fields + 1
    fields[n_fields] = field
    position[field] = n_fields
  end
end

local function sync_room(k, at)
  local state_key, nodes_key, chg_key, rev_key = KEYS[k], KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]
  local _, read_only, total, per_minute, session, rate, weight, in_flight, cursor, acknowledged, version_read, generation_read,
        n_join_keys, n_batches = unpack_struct(ROOM, ARGV[at])
  read_only = read_only == 1
  local epoch = ARGV[at + 1]
  local contribution = ARGV[at + 2]
  local join_keys = nil
  if n_join_keys > 0 then
    join_keys = {}
    for i = 1, n_join_keys do join_keys[ARGV[at + 2 + i]] = KEYS[k + 3 + i] end
  end
  local batches_at = at + 3 + n_join_keys
  if session > 31 then session = 31 end

  -- The counts other nodes changed since this node last read, if the state is still the one it
  -- read (checked below, with the state's generation): read with the rest, in the one HMGET.
  local others = empty
  if version_read > 0 then others = redis.call('ZRANGEBYSCORE', chg_key, version_read + 1, '+inf') end

  -- One read of the room's state: its header, the counts the grant and the batches touch, and
  -- those others changed.
  n_fields = n_header
  local first_active = n_header + 1
  if not read_only then
    for minute = now_minute - session, now_minute do
      local name = active_names[minute]
      if not name then
        name = 'a' .. minute
        active_names[minute] = name
      end
      n_fields = n_fields + 1
      fields[n_fields] = name
      position[name] = n_fields
    end
    n_fields = n_fields + 1
    fields[n_fields] = admitted_name
    position[admitted_name] = n_fields
    local a = batches_at
    for _ = 1, n_batches do
      local _, n_counts, n_revocations, n_seeds, n_joins = unpack_struct(BATCH, ARGV[a])
      for i = a + 2, a + 1 + n_counts do read_also(ARGV[i]) end
      a = a + 2 + n_counts + 2 * n_revocations + 2 * n_seeds + 3 * n_joins
    end
  end
  for i = 1, #others do read_also(others[i]) end
  local values = hmget(state_key, fields, n_fields)
  local stored_epoch = values[EPOCH]
  local generation, version, pruned, scanned, revocation_base, revocations_pushed, failover, failover_seen, pending = 0, 0, 0, 0, 0, 0,
    0, 0, 0
  if values[META_AT] then
    generation, version, pruned, scanned, revocation_base, revocations_pushed, failover, failover_seen, pending =
      unpack_struct(META, values[META_AT])
  end
  local sw, sl, st, sm, so = 0, 0, 0, 0, 0 -- the node entries' sums
  if values[SUMS_AT] and not read_only then sw, sl, st, sm, so = unpack_struct(SUMS, values[SUMS_AT]) end
  local meta_changed = false
  local created = false
  local n_set = 0

  -- The epoch names this incarnation of the room's state: a new one when the state is gone, so
  -- that every node pushes all it still counts again instead of its latest changes only.
  -- Generations are the store's time in µs when they move (at least one more than before): a
  -- state made anew, or taken over by another server, never has a generation a node read from
  -- another one.
  if not stored_epoch and not read_only then
    stored_epoch = time[1] .. '.' .. time[2]
    generation = math.max(generation + 1, store_us)
    meta_changed = true
    created = true
    set[1], set[2] = '_e', stored_epoch
    n_set = 2
  end
  stored_epoch = stored_epoch or ''

  local entry = nil
  if not read_only then
    entry = redis.call('HGET', nodes_key, node)
    -- State that another server wrote (a promoted replica, a restart from disk) may lack what
    -- nodes were told was applied: grants wait until the nodes live before have synced.
    local wrote = values[SERVER]
    if wrote and wrote ~= server then
      local seens = {}
      local newest = 0
      local nodes = redis.call('HGETALL', nodes_key)
      for i = 2, #nodes, 2 do
        if #nodes[i] >= ENTRY_SIZE then
          local _, seen = unpack_struct('<i8i8', nodes[i])
          seens[#seens + 1] = seen
          if seen > newest then newest = seen end
        end
      end
      pending = 0
      for _, seen in ipairs(seens) do
        if seen >= newest - liveness then pending = pending + 1 end
      end
      failover, failover_seen = store_ms, newest
      generation = math.max(generation + 1, store_us)
      meta_changed = true
    end
    if wrote ~= server then
      set[n_set + 1], set[n_set + 2] = '_s', server
      n_set = n_set + 2
    end
  end

  local status = 'ok'
  local own_sequence, own_seen, own_total, own_minute, own_of, own_counted = 0, 0, 0, 0, 0, false
  local own_weight = 0
  if entry then
    local counted
    own_sequence, own_seen, own_weight, own_total, own_minute, own_of, counted = unpack_struct(ENTRY, entry)
    own_counted = counted == 1
  end
  local stored_sequence = own_sequence
  local stored_contribution = ''
  if not read_only then
    -- A node that never synced the room ('') has nothing from an older epoch to push again.
    if epoch ~= stored_epoch and epoch ~= '' then
      -- The state this node knew is gone: every node pushes all it counts again.
      status = 'epoch'
      failover, failover_seen, pending = store_ms, 0, 0
      meta_changed = true
    elseif acknowledged > stored_sequence then
      -- Batches acknowledged to the node are missing (a failover to a replica that lagged):
      -- nothing applied; the node sends again what this copy of its contribution lacks.
      status = 'lost'
      -- No entry at all (its first sync never reached this copy): no copy, so it sends all again.
      if entry then stored_contribution = string.sub(entry, ENTRY_SIZE + 1) end
    end
  end

  -- The node's batches, each applied once (a batch applied before, whose answer was lost, is
  -- skipped: no one is counted twice).
  local last = stored_sequence
  local active_users, admitted_now = 0, 0
  local pushed_joins = nil
  local join_writes = nil -- key, address, delta, …: written once nothing left can fail
  local n_order = 0
  local version_before = version
  local pruned_now = false -- counts left the state in this push: `others` may name some of them
  if status == 'ok' and not read_only then
    local pushes = nil
    local a = batches_at
    for _ = 1, n_batches do
      local sequence, n_counts, n_revocations, n_seeds, n_joins = unpack_struct(BATCH, ARGV[a])
      local fresh = sequence > stored_sequence
      local packed = ARGV[a + 1]
      a = a + 2
      if fresh then
        local offset = 1
        for i = a, a + n_counts - 1 do
          local field = ARGV[i]
          local delta
          delta, offset = unpack_struct(COUNT, packed, offset)
          local sum = deltas[field]
          if not sum then
            n_order = n_order + 1
            order[n_order] = field
            deltas[field] = delta
          else
            deltas[field] = sum + delta
          end
        end
      end
      a = a + n_counts
      if fresh and n_revocations > 0 then
        pushes = pushes or {}
        for i = a, a + 2 * n_revocations - 1, 2 do pushes[#pushes + 1] = ARGV[i] .. ':' .. ARGV[i + 1] end
      end
      a = a + 2 * n_revocations
      for i = a, a + 2 * n_seeds - 1, 2 do
        -- The first seed any node pushed for a minute is the minute's.
        local minute = tonumber(ARGV[i])
        local index = minute == now_minute and SEED_NOW or (minute == now_minute - 1 and SEED_LAST or nil)
        if fresh and index and not values[index] then
          values[index] = ARGV[i + 1]
          set[n_set + 1], set[n_set + 2] = header[index], values[index]
          n_set = n_set + 2
        end
      end
      a = a + 2 * n_seeds
      for i = a, a + 3 * n_joins - 1, 3 do
        local minute, address, delta = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
        local key = join_keys and join_keys[minute]
        if key then
          if fresh then
            join_writes = join_writes or {}
            join_writes[#join_writes + 1], join_writes[#join_writes + 2], join_writes[#join_writes + 3] = key, address, delta
          end
          if tonumber(minute) == now_minute then
            pushed_joins = pushed_joins or {}
            pushed_joins[address] = key
          end
        end
      end
      a = a + 3 * n_joins
      if sequence > last then last = sequence end
    end
    -- The counts written whole, each field's version moved on. A count for a time no ledger
    -- keeps any more (a node cut off for a while sends old changes) is dropped by this sync's
    -- prune, if it prunes: it is not written back after the prune took it.
    local n_members = 0
    if n_order > 0 then
      version = version + 1
      meta_changed = true
      local pruning = pruned < now_minute
      for i = 1, n_order do
        local field = order[i]
        local index = position[field]
        if pruning and expired(field) then
          values[index] = nil
        else
          local text = pack(COUNT, count_of(values[index]) + deltas[field])
          values[index] = text
          set[n_set + 1], set[n_set + 2] = field, text
          n_set = n_set + 2
          members[n_members + 1], members[n_members + 2] = version, field
          n_members = n_members + 2
        end
      end
    end
    -- What the grant needs from the counts, read before the first write: a script that fails
    -- midway keeps what it wrote, so everything that can fail on a damaged value comes first.
    for i = first_active, first_active + session do active_users = active_users + count_of(values[i]) end
    admitted_now = count_of(values[first_active + session + 1])

    -- Keys made by a write get their time to live at once (a room no one serves leaves nothing
    -- behind), the others once a minute below.
    if n_members > 0 and call_in_parts('ZADD', chg_key, members, n_members) == n_members / 2 then redis.call('EXPIRE', chg_key, ttl) end
    if pushes then
      call_in_parts('RPUSH', rev_key, pushes, #pushes)
      redis.call('EXPIRE', rev_key, ttl)
      revocations_pushed = revocations_pushed + #pushes
      meta_changed = true
    end
    if join_writes then
      for i = 1, #join_writes, 3 do
        redis.call('HINCRBY', join_writes[i], join_writes[i + 1], join_writes[i + 2])
        redis.call('EXPIRE', join_writes[i], 120)
      end
    end

    if pruned < now_minute then
      revocation_base = revocation_base + prune(state_key, nodes_key, chg_key, rev_key)
      pruned = now_minute
      pruned_now = true
      meta_changed = true
    end
  end

  -- The grant: this node's seats of the free places, capped by its need, less what other
  -- nodes' grants hold (server/state/shares.h).
  local grant_total, grant_minute, share, live = 0, 0, 0, 0
  if status == 'ok' and not read_only then
    local free_total = total - math.max(0, active_users)
    local free_minute = per_minute - admitted_now
    if scanned + liveness <= store_ms then
      sw, sl, st, sm, so = scan(nodes_key, sw, sl, st, sm, so, node)
      scanned = store_ms
      meta_changed = true
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
      meta_changed = true
    end
    local recounting = store_ms < failover + liveness or (pending > 0 and store_ms < failover + recount_livenesses * liveness)
    if not recounting then
      grant_total = granted(free_total, st, weight, weights, live, rate)
      grant_minute = granted(free_minute, others_minute, weight, weights, live, rate)
    end
    -- Held: the grant, or what the node may admit before the answer reaches it, if more.
    local held_total, held_minute = math.max(grant_total, in_flight), math.max(grant_minute, in_flight)
    sw, sl, st, sm, so = add_entry(sw, sl, st, sm, so, weight, held_total, held_minute, now_minute, 1)
    set[n_set + 1], set[n_set + 2] = '_x', pack(SUMS, sw, sl, st, sm, so)
    n_set = n_set + 2
    -- A push without batches leaves the contribution as it was.
    local stored = pack(ENTRY, last, store_ms, weight, held_total, held_minute, now_minute, 1)
    if n_batches == 0 and entry then
      stored = stored .. string.sub(entry, ENTRY_SIZE + 1)
    else
      stored = stored .. contribution
    end
    redis.call('HSET', nodes_key, node, stored)
    if not entry then redis.call('EXPIRE', nodes_key, ttl) end
  end

  if meta_changed then
    set[n_set + 1], set[n_set + 2] = '_m', pack(META, generation, version, pruned, scanned, revocation_base, revocations_pushed, failover,
                                               failover_seen, pending)
    n_set = n_set + 2
  end
  if n_set > 0 then call_in_parts('HSET', state_key, set, n_set) end
  -- Every key's time to live set again once a minute (longer than any count a ledger keeps) and
  -- when the state is made, after the writes that make the keys.
  if created or pruned_now then
    for i = k, k + 3 do redis.call('EXPIRE', KEYS[i], ttl) end
  end

  -- What changed since the node last read (everything, for a node new to this incarnation of
  -- the state): its own changes, and those of others read above.
  local changed = empty
  local since = version_read
  if generation_read ~= generation or version_read > version then since = 0 end
  if status ~= 'ok' or since == version then
    changed = empty
  elseif since == version_read and (since == version_before or (#others > 0 and not pruned_now)) then
    changed = {}
    local n = 0
    for i = 1, n_order do
      local field = order[i]
      n = n + 2
      changed[n - 1], changed[n] = field, values[position[field]] or ''
    end
    for i = 1, #others do
      local field = others[i]
      -- A field this push changed too is in already.
      if deltas[field] == nil then
        n = n + 2
        changed[n - 1], changed[n] = field, values[position[field]] or ''
      end
    end
  else
    changed = {}
    local names = redis.call('ZRANGEBYSCORE', chg_key, since + 1, '+inf')
    if #names > 0 then
      local counts = hmget(state_key, names, #names)
      for j = 1, #names do changed[2 * j - 1], changed[2 * j] = names[j], counts[j] or '' end
    end
  end
  for i = n_header + 1, n_fields do position[fields[i]] = nil end
  for i = 1, n_order do deltas[order[i]] = nil end

  local seeds = empty
  if values[SEED_LAST] or values[SEED_NOW] then
    seeds = {}
    if values[SEED_LAST] then
      seeds[#seeds + 1] = now_minute - 1
      seeds[#seeds + 1] = values[SEED_LAST]
    end
    if values[SEED_NOW] then
      seeds[#seeds + 1] = now_minute
      seeds[#seeds + 1] = values[SEED_NOW]
    end
  end

  -- A cursor into another generation's list (a failover: the copy may hold fewer revocations, and
  -- later ones take the places this node read up to) reads the list from its start again:
  -- applying a revocation twice changes nothing.
  if generation_read ~= generation then cursor = 0 end
  local revocations = empty
  local start = cursor - revocation_base
  if start < 0 then start = 0 end
  if revocation_base + start < revocations_pushed then revocations = redis.call('LRANGE', rev_key, start, start + 4999) end
  local new_cursor = revocation_base + start + #revocations

  local joins = empty
  if pushed_joins then
    joins = {}
    for address, key in pairs(pushed_joins) do
      joins[#joins + 1] = address
      joins[#joins + 1] = tonumber(redis.call('HGET', key, address) or '0')
    end
  end

  return {status, stored_epoch, stored_sequence, version, generation, changed, seeds, revocations, new_cursor, joins, grant_total,
          grant_minute, now_minute, share, live, stored_contribution, ''}
end

-- Where the next room's arguments start.
local function after_room(at)
  local n_join_keys, n_batches = unpack_struct('<i8i8', ARGV[at], 97)
  at = at + 3 + n_join_keys
  for _ = 1, n_batches do
    local _, n_counts, n_revocations, n_seeds, n_joins = unpack_struct(BATCH, ARGV[at])
    at = at + 2 + n_counts + 2 * n_revocations + 2 * n_seeds + 3 * n_joins
  end
  return at
end

local results = {}
local k, at = 1, 8
for r = 1, n_rooms do
  local n_keys = unpack_struct('<i8', ARGV[at])
  local next_at = after_room(at)
  -- A room that fails (a damaged key) fails alone: the others are synced as usual.
  local ok, result = pcall(sync_room, k, at)
  if ok then
    results[r] = result
  else
    -- The scratch space as a room leaves it when it fails midway: emptied for the next.
    for field in pairs(position) do position[field] = nil end
    for field in pairs(deltas) do deltas[field] = nil end
    local message = type(result) == 'table' and (result.err or 'error') or tostring(result)
    results[r] = {'failed', '', 0, 0, 0, empty, empty, empty, 0, empty, 0, 0, 0, 0, 0, '', message}
  end
  k = k + n_keys
  at = next_at
end
return results
