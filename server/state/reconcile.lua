-- One node's sync of one room (wr, server/state/). Run with EVALSHA, one call per room, all of a
-- node's rooms pipelined in one round trip. Applies the node's batches of changes once each,
-- hands the node a grant of free slots that it reserves until the node's next sync, and
-- returns the room's global counts. server/state/memory_store.cpp is the same logic in C++;
-- keep the two in step.
--
-- KEYS: 1 meta (hash: epoch, revbase, seed:<minute>), 2 active (minute -> users),
--       3 waiting (bucket_ms:slot -> users, slot = ten seconds), 4 admitted (minute -> admissions),
--       5 revoked (list of session:until_ms), 6 nodes (node -> weight:seen:grant_total:
--       grant_minute:minute:expires), 7 seq (node -> last_batch:seen), 8 slots (v:slot -> arrivals
--       into the queue, c:slot -> check-ins of waiting users, b:slot -> milliseconds between
--       admitted users' requests), 9 own (node -> its part of the admission counts, as of its
--       last batch applied: server/state/contribution.h; never read here, only handed back),
--       10.. joins of a minute (address -> joins). Every key carries the room id as a hash tag.
-- ARGV: 1 node, 2 epoch, 3 now_ms (the node's clock), 4 total_active_users,
--       5 new_users_per_minute, 6 session minutes, 7 demand rate now, 8 liveness ms,
--       9 grant validity ms, 10 revocation cursor, 11 ttl seconds, 12 read-only (1/0),
--       13 demand over the share window, 14 what the node may admit while this push is on its
--       way, 15 the server's run id as the node's connection found it, 16 the last batch the store
--       acknowledged to the node, 17 the node's contribution once the batches are in,
--       18 number of join keys, then their minutes, then the number of batches, then per batch:
--       sequence, number of changes, number of joins, changes as (kind, key, minute, delta)
--       with kind a(ctive) w(aiting) m (admitted) r(evoked) s(eed) v (arrived) c (checked in)
--       b (browsed),
--       joins as (minute, address, delta).
-- Returns: {status ("ok", "epoch" or "lost"), epoch, last batch applied before, active, waiting,
--           admitted, seeds, revocations, revocation cursor, joins, {grant_total, grant_minute,
--           minute}, share, live nodes, slots, the node's contribution as stored ("lost" only)}
local node = ARGV[1]
local epoch = ARGV[2]
local now_ms = tonumber(ARGV[3])
local total = tonumber(ARGV[4])
local per_minute = tonumber(ARGV[5])
local session = tonumber(ARGV[6])
local rate = tonumber(ARGV[7])
local liveness = tonumber(ARGV[8])
local validity = tonumber(ARGV[9])
local cursor = tonumber(ARGV[10])
local ttl = tonumber(ARGV[11])
local read_only = ARGV[12] == '1'
local weight = tonumber(ARGV[13])
local in_flight = tonumber(ARGV[14])
local server = ARGV[15]
local acknowledged = tonumber(ARGV[16])
local contribution = ARGV[17]
local recount_livenesses = 10 -- k_recount_livenesses (server/state/shared_store.h)
local now_minute = math.floor(now_ms / 60000)
local now_slot = math.floor(now_ms / 10000)
local time = redis.call('TIME')
local store_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local join_keys = {}
local n_join_keys = tonumber(ARGV[18])
for i = 1, n_join_keys do join_keys[ARGV[18 + i]] = KEYS[9 + i] end
local at = 19 + n_join_keys

-- The epoch names this incarnation of the room's state: a new one when the state is gone, so
-- that every node pushes all it still counts again instead of its latest changes only.
local stored_epoch = redis.call('HGET', KEYS[1], 'epoch')
if not stored_epoch and not read_only then
  stored_epoch = node .. '@' .. time[1] .. '.' .. time[2]
  redis.call('HSET', KEYS[1], 'epoch', stored_epoch)
  redis.call('EXPIRE', KEYS[1], ttl)
end
stored_epoch = stored_epoch or ''

-- State that another server wrote (a promoted replica, a restart from disk) may lack what nodes
-- were told was applied: grants wait until they have synced (see the grant below).
if not read_only then
  local wrote = redis.call('HGET', KEYS[1], 'server')
  if wrote and wrote ~= server then
    local newest = 0
    local nodes = redis.call('HGETALL', KEYS[6])
    for i = 2, #nodes, 2 do
      local seen = tonumber(string.match(nodes[i], '^[^:]+:(%d+):'))
      if seen > newest then newest = seen end
    end
    redis.call('HSET', KEYS[1], 'failover', store_ms, 'failseen', newest)
  end
  if wrote ~= server then redis.call('HSET', KEYS[1], 'server', server) end
end

local function add(key, field, delta)
  if delta ~= 0 then
    if redis.call('HINCRBY', key, field, delta) == 0 then redis.call('HDEL', key, field) end
  end
end

local status = 'ok'
local before = 0
local stored_contribution = ''
local pushed_joins = {}
if not read_only then
  local entry = redis.call('HGET', KEYS[7], node)
  if entry then before = tonumber(string.match(entry, '^(%d+)')) end
  -- A node that never synced the room ('') has nothing from an older epoch to push again.
  if epoch ~= stored_epoch and epoch ~= '' then
    -- The state this node knew is gone: every node pushes all it counts again.
    status = 'epoch'
    redis.call('HSET', KEYS[1], 'failover', store_ms, 'failseen', 0)
  elseif acknowledged > before then
    -- Batches acknowledged to the node are missing (a failover to a replica that lagged):
    -- nothing applied; the node sends again what this copy of its contribution lacks.
    status = 'lost'
    stored_contribution = redis.call('HGET', KEYS[9], node) or ''
  else
    local last = before
    local n_batches = tonumber(ARGV[at])
    at = at + 1
    for _ = 1, n_batches do
      local sequence = tonumber(ARGV[at])
      local n_changes = tonumber(ARGV[at + 1])
      local n_joins = tonumber(ARGV[at + 2])
      at = at + 3
      -- A batch applied before (its answer was lost) is skipped: no one is counted twice.
      local fresh = sequence > before
      for _ = 1, n_changes do
        if fresh then
          local kind, key, minute, delta = ARGV[at], ARGV[at + 1], ARGV[at + 2], tonumber(ARGV[at + 3])
          if kind == 'a' then add(KEYS[2], key, delta)
          elseif kind == 'w' then add(KEYS[3], key .. ':' .. minute, delta)
          elseif kind == 'm' then add(KEYS[4], key, delta)
          elseif kind == 'r' then redis.call('RPUSH', KEYS[5], key .. ':' .. minute)
          elseif kind == 's' then redis.call('HSETNX', KEYS[1], 'seed:' .. key, minute)
          elseif kind == 'v' or kind == 'c' or kind == 'b' then add(KEYS[8], kind .. ':' .. key, delta)
          end
        end
        at = at + 4
      end
      for _ = 1, n_joins do
        local minute, address, delta = ARGV[at], ARGV[at + 1], tonumber(ARGV[at + 2])
        local key = join_keys[minute]
        if key then
          if fresh then
            add(key, address, delta)
            redis.call('EXPIRE', key, 120)
          end
          if tonumber(minute) == now_minute then pushed_joins[address] = key end
        end
        at = at + 3
      end
      if sequence > last then last = sequence end
    end
    redis.call('HSET', KEYS[7], node, last .. ':' .. store_ms)
    if n_batches > 0 then redis.call('HSET', KEYS[9], node, contribution) end
  end
end

-- The counts that still matter at now_ms; older fields are dropped (left alone when only reading).
local function kept_fields(key, oldest, minute_of)
  local all = redis.call('HGETALL', key)
  local kept = {}
  for i = 1, #all, 2 do
    if minute_of(all[i]) < oldest then
      if not read_only then redis.call('HDEL', key, all[i]) end
    else
      kept[#kept + 1] = all[i]
      kept[#kept + 1] = all[i + 1]
    end
  end
  return kept
end
local function plain(field) return tonumber(field) end
local function after_colon(field) return tonumber(string.match(field, ':(%-?%d+)$')) end
local active = kept_fields(KEYS[2], now_minute - 31, plain)
-- Waiting users and check-ins by ten-second slot: the window and the departures measured behind
-- it (21 slots); arrivals and admitted users' browsing half an hour (181 slots).
local waiting = kept_fields(KEYS[3], now_slot - 21, after_colon)
local admitted = kept_fields(KEYS[4], now_minute - 31, plain)
local slots = kept_fields(KEYS[8], now_slot - 181, after_colon)

local seeds = {}
local revocation_base = 0
local meta = redis.call('HGETALL', KEYS[1])
for i = 1, #meta, 2 do
  local field = meta[i]
  if field == 'revbase' then
    revocation_base = tonumber(meta[i + 1])
  elseif string.sub(field, 1, 5) == 'seed:' then
    local minute = tonumber(string.sub(field, 6))
    if minute < now_minute - 1 then
      if not read_only then redis.call('HDEL', KEYS[1], field) end
    else
      seeds[#seeds + 1] = string.sub(field, 6)
      seeds[#seeds + 1] = meta[i + 1]
    end
  end
end

-- Revocations past their cookies' end leave the head of the list (they arrive roughly in order).
if not read_only then
  local popped = 0
  while popped < 100 do
    local head = redis.call('LINDEX', KEYS[5], 0)
    if not head or tonumber(string.match(head, ':(%-?%d+)$')) > now_ms then break end
    redis.call('LPOP', KEYS[5])
    popped = popped + 1
  end
  if popped > 0 then
    revocation_base = revocation_base + popped
    redis.call('HSET', KEYS[1], 'revbase', revocation_base)
  end
end
local start = cursor - revocation_base
if start < 0 then start = 0 end
local revocations = redis.call('LRANGE', KEYS[5], start, start + 4999)
local new_cursor = revocation_base + start + #revocations

local joins = {}
for address, key in pairs(pushed_joins) do
  joins[#joins + 1] = address
  joins[#joins + 1] = tonumber(redis.call('HGET', key, address) or '0')
end

-- The grant: this node's seats of the free slots, capped by its need, less what other nodes'
-- grants reserve (see server/state/shares.h).
local grant_total, grant_minute, share, live = 0, 0, 0, 0
if not read_only and status == 'ok' then
  local active_users = 0
  for i = 1, #active, 2 do
    if tonumber(active[i]) >= now_minute - session then active_users = active_users + tonumber(active[i + 1]) end
  end
  local admitted_now = 0
  for i = 1, #admitted, 2 do
    if tonumber(admitted[i]) == now_minute then admitted_now = tonumber(admitted[i + 1]) end
  end
  local free_total = total - math.max(0, active_users)
  local free_minute = per_minute - admitted_now
  local reserved_total, reserved_minute = 0, 0
  local failover = tonumber(redis.call('HGET', KEYS[1], 'failover') or '0')
  local failover_seen = tonumber(redis.call('HGET', KEYS[1], 'failseen') or '0')
  local waiting_for_a_node = false
  local seats = {{node = node, weight = weight}}
  local nodes = redis.call('HGETALL', KEYS[6])
  for i = 1, #nodes, 2 do
    if nodes[i] ~= node then
      local w, seen, g_total, g_minute, g_of, expires =
        string.match(nodes[i + 1], '^([^:]+):(%d+):(%d+):(%d+):(%-?%d+):(%d+)$')
      w, seen, expires = tonumber(w), tonumber(seen), tonumber(expires)
      -- Live before the failover and not heard from since: it may have changes to send again.
      if seen < failover and seen >= failover_seen - liveness then waiting_for_a_node = true end
      if expires > store_ms then
        reserved_total = reserved_total + tonumber(g_total)
        if tonumber(g_of) == now_minute then reserved_minute = reserved_minute + tonumber(g_minute) end
      end
      if seen >= store_ms - liveness then
        seats[#seats + 1] = {node = nodes[i], weight = w}
      elseif expires <= store_ms and seen < store_ms - 60000 then
        redis.call('HDEL', KEYS[6], nodes[i])
      end
    end
  end
  live = #seats
  -- Names compared byte by byte (Lua's '<' follows the server's locale), and nodes in that
  -- order, so that sums run in the same order as in the C++ twin.
  local function before(a, b)
    local length = math.min(#a, #b)
    for i = 1, length do
      local x, y = string.byte(a, i), string.byte(b, i)
      if x ~= y then return x < y end
    end
    return #a < #b
  end
  table.sort(seats, function(a, b) return before(a.node, b.node) end)
  local weights = 0
  for _, seat in ipairs(seats) do weights = weights + seat.weight end
  if weights > 0 then share = math.min(1, math.max(0, weight / weights)) else share = 1 / live end
  -- This node's seats of `free` shared out by weight, largest remainders first (ties by name).
  local function apportioned(free)
    local handed = 0
    for _, seat in ipairs(seats) do
      local quota
      if weights > 0 then quota = seat.weight / weights * free else quota = free / live end
      seat.whole = math.floor(quota)
      seat.remainder = quota - seat.whole
      handed = handed + seat.whole
    end
    local ranked = {}
    for i, seat in ipairs(seats) do ranked[i] = seat end
    table.sort(ranked, function(a, b)
      if a.remainder ~= b.remainder then return a.remainder > b.remainder end
      return before(a.node, b.node)
    end)
    for rank, seat in ipairs(ranked) do
      if seat.node == node then
        if rank - 1 < free - handed then return seat.whole + 1 end
        return seat.whole
      end
    end
    return 0
  end
  local function granted(free, reserved)
    if free <= 0 then return 0 end
    local need = math.ceil(2 * rate * validity / 1000) + 1
    local even = math.ceil(free / (live + 1))
    local quiet_floor = 0
    if free >= 2 * live then quiet_floor = math.min(even, need + 4) end
    local want = math.min(math.max(apportioned(free), quiet_floor), math.max(need, even))
    return math.max(0, math.min(want, free - reserved))
  end
  local recounting = store_ms < failover + liveness or
                     (waiting_for_a_node and store_ms < failover + recount_livenesses * liveness)
  if not recounting then
    grant_total = granted(free_total, reserved_total)
    grant_minute = granted(free_minute, reserved_minute)
  end
  -- Reserved: the grant, or what the node may admit before the answer reaches it, if more.
  redis.call('HSET', KEYS[6], node, ARGV[13] .. ':' .. store_ms .. ':' .. math.max(grant_total, in_flight) .. ':' ..
                                     math.max(grant_minute, in_flight) .. ':' .. now_minute .. ':' .. (store_ms + validity))
  -- Batch numbers and contributions of node runs gone for an hour are forgotten.
  local sequences = redis.call('HGETALL', KEYS[7])
  for i = 1, #sequences, 2 do
    if tonumber(string.match(sequences[i + 1], ':(%d+)$')) < store_ms - 3600000 then
      redis.call('HDEL', KEYS[7], sequences[i])
      redis.call('HDEL', KEYS[9], sequences[i])
    end
  end
  for i = 1, 9 do redis.call('EXPIRE', KEYS[i], ttl) end
end

return {status, stored_epoch, before, active, waiting, admitted, seeds, revocations, new_cursor, joins,
        {grant_total, grant_minute, now_minute}, string.format('%.17g', share), live, slots, stored_contribution}
