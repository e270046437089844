// reconcile.lua in C++ (see there for the steps and why).
#include "state/memory_store.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "state/store_fields.h"

namespace wr::state {
namespace {

using Kind = queue::LedgerChange::Kind;

int64_t minute_of_ms(int64_t ms) { return static_cast<int64_t>(std::floor(static_cast<double>(ms) / 60000.0)); }
int64_t slot_of_ms(int64_t ms) { return static_cast<int64_t>(std::floor(static_cast<double>(ms) / 10000.0)); }

template <typename Map, typename Key>
void add(Map& counts, const Key& key, int64_t delta) {
    if (delta == 0) return;
    const auto [it, inserted] = counts.try_emplace(key, 0);
    if ((it->second += delta) == 0) counts.erase(it);
}

} // namespace

void MemoryStore::lose_everything() {
    std::lock_guard lock(m_mutex);
    m_rooms.clear();
    ++m_server;
}

MemoryStore::Snapshot MemoryStore::snapshot_for_test() const {
    std::lock_guard lock(m_mutex);
    Snapshot snapshot;
    snapshot.m_rooms = m_rooms;
    return snapshot;
}

void MemoryStore::restore_for_test(const Snapshot& snapshot) {
    std::lock_guard lock(m_mutex);
    m_rooms = snapshot.m_rooms;
    ++m_server;
}

size_t MemoryStore::room_count() const {
    std::lock_guard lock(m_mutex);
    const int64_t store_ms = m_clock.now().time_since_epoch().count();
    return static_cast<size_t>(std::count_if(m_rooms.begin(), m_rooms.end(),
                                             [store_ms](const auto& room) { return room.second.expires_ms > store_ms; }));
}

std::vector<RoomReply> MemoryStore::exchange(const std::string& node_id, const std::vector<RoomPush>& pushes, const StoreTiming& timing) {
    std::lock_guard lock(m_mutex);
    const int64_t store_ms = m_clock.now().time_since_epoch().count();
    std::vector<RoomReply> replies;
    replies.reserve(pushes.size());
    for (const RoomPush& push : pushes) replies.push_back(exchange_one(node_id, push, timing, store_ms));
    return replies;
}

void MemoryStore::Sums::add(const NodeEntry& entry, int sign) {
    // Holds against new users count for one minute only: the sum starts afresh with the first
    // hold for a later minute.
    weight += sign * entry.weight;
    live += sign;
    held_total += sign * entry.held_total;
    if (entry.held_of_minute == minute) {
        held_minute += sign * entry.held_minute;
    } else if (sign > 0 && entry.held_of_minute > minute) {
        minute = entry.held_of_minute;
        held_minute = entry.held_minute;
    }
}

RoomReply MemoryStore::exchange_one(const std::string& node_id, const RoomPush& push, const StoreTiming& timing, int64_t store_ms) {
    constexpr int64_t k_node_forgotten_ms = 3600000;
    RoomReply reply;
    const int64_t now_minute = minute_of_ms(push.now_ms);
    const int64_t now_slot = slot_of_ms(push.now_ms);
    // Keys that outlived their time to live are gone, as in Redis.
    if (const auto it = m_rooms.find(push.room_id); it != m_rooms.end() && it->second.expires_ms <= store_ms) m_rooms.erase(it);
    if (push.read_only && !m_rooms.contains(push.room_id)) {
        reply.revocation_cursor = push.generation == 0 ? std::max<int64_t>(0, push.revocation_cursor) : 0;
        return reply;
    }
    RoomState& room = m_rooms[push.room_id];
    // Generations are the store's time in µs when they move (at least one more than before, and
    // than any given before): a state made anew, or taken over by another server, never has a
    // generation a node read from another.
    const auto next_generation = [&] {
        m_last_generation = std::max({room.generation + 1, store_ms * 1000, m_last_generation + 1});
        room.generation = m_last_generation;
    };
    if (room.epoch.empty()) {
        room.epoch = std::to_string(store_ms) + "." + std::to_string(++m_epochs);
        next_generation();
    }
    reply.epoch = room.epoch;

    std::optional<NodeEntry> own; // a copy: pruning may drop the entry
    if (!push.read_only) {
        if (const auto it = room.nodes.find(node_id); it != room.nodes.end()) own = it->second;
        // State that another server wrote (a promoted replica, a restart from disk) may lack what
        // nodes were told was applied: grants wait until the nodes live before have synced.
        const std::string server = std::to_string(m_server);
        if (!room.server.empty() && room.server != server) {
            int64_t newest = 0;
            for (const auto& [name, entry] : room.nodes) newest = std::max(newest, entry.seen_ms);
            room.pending = 0;
            for (const auto& [name, entry] : room.nodes) room.pending += entry.seen_ms >= newest - timing.node_liveness_ms;
            room.failover_ms = store_ms;
            room.failover_seen_ms = newest;
            next_generation();
        }
        room.server = server;
    }
    const uint64_t stored_sequence = own ? own->sequence : 0;
    reply.stored_sequence_before = stored_sequence;
    if (!push.read_only) {
        if (push.epoch != room.epoch && !push.epoch.empty()) {
            // The state this node knew is gone: every node pushes all it counts again.
            reply.status = RoomReply::Status::epoch_changed;
            room.failover_ms = store_ms;
            room.failover_seen_ms = 0;
            room.pending = 0;
        } else if (push.acknowledged_sequence > stored_sequence) {
            reply.status = RoomReply::Status::lost;
            if (own) reply.stored_contribution = own->contribution;
        }
    }

    // The node's batches, each applied once.
    uint64_t last = stored_sequence;
    std::set<queue::ClientAddress> pushed_joins;
    const int64_t version_before = room.version;
    std::vector<std::string> mine;
    if (reply.status == RoomReply::Status::ok && !push.read_only) {
        std::vector<std::string> order;
        std::map<std::string, int64_t> deltas;
        std::vector<std::pair<uint64_t, int64_t>> revocations;
        for (const PushedBatch& batch : push.batches) {
            const bool fresh = batch.sequence > stored_sequence;
            for (const queue::LedgerChange& change : batch.changes) {
                if (!fresh) continue;
                if (const auto field = field_of(change)) {
                    if (!deltas.contains(*field)) order.push_back(*field);
                    deltas[*field] += change.delta;
                } else if (change.kind == Kind::revoked) {
                    revocations.emplace_back(static_cast<uint64_t>(change.key), change.minute);
                } else if (change.kind == Kind::release_seed && (change.key == now_minute || change.key == now_minute - 1)) {
                    room.seeds.try_emplace(change.key, change.minute);
                }
            }
            for (const JoinChange& join : batch.joins) {
                if (fresh) add(room.joins[join.minute], join.address, join.delta);
                if (join.minute == now_minute) pushed_joins.insert(join.address);
            }
            last = std::max(last, batch.sequence);
        }
        if (!order.empty()) {
            ++room.version;
            for (const std::string& field : order) {
                room.counts[field] += deltas[field];
                room.versions[field] = room.version;
            }
            mine = order;
        }
        for (const auto& revocation : revocations) room.revoked.push_back(revocation);
        room.revocations_pushed += static_cast<int64_t>(revocations.size());

        // Once a minute: counts no ledger keeps any more, seeds of past minutes, node runs gone
        // for an hour and revocations past their cookies' end go; the time to live is set again.
        if (room.pruned_minute < now_minute) {
            for (auto it = room.counts.begin(); it != room.counts.end();) {
                if (field_expired(it->first, now_minute, now_slot)) {
                    room.versions.erase(it->first);
                    it = room.counts.erase(it);
                } else {
                    ++it;
                }
            }
            std::erase_if(room.seeds, [now_minute](const auto& seed) { return seed.first < now_minute - 1; });
            std::erase_if(room.nodes, [store_ms](const auto& entry) { return entry.second.seen_ms < store_ms - k_node_forgotten_ms; });
            int popped = 0;
            while (popped < 1000 && !room.revoked.empty() && room.revoked.front().second <= push.now_ms) {
                room.revoked.pop_front();
                ++popped;
            }
            room.revocation_base += popped;
            room.pruned_minute = now_minute;
            room.expires_ms = store_ms + k_room_ttl_seconds * 1000;
        }
    }

    if (!push.read_only && reply.status == RoomReply::Status::ok) {
        const auto count = [&](const std::string& field) {
            const auto it = room.counts.find(field);
            return it == room.counts.end() ? int64_t{0} : it->second;
        };
        int64_t active_users = 0;
        for (int64_t minute = now_minute - std::min<int64_t>(push.session_minutes, 31); minute <= now_minute; ++minute)
            active_users += count("a" + std::to_string(minute));
        // Once per liveness: entries whose grant expired leave the sums (their nodes stopped
        // syncing; a node that syncs takes its own out).
        if (room.scanned_ms + timing.node_liveness_ms <= store_ms) {
            for (auto& [name, entry] : room.nodes)
                if (name != node_id && entry.counted && entry.seen_ms + timing.grant_validity_ms <= store_ms) {
                    room.sums.add(entry, -1);
                    entry.counted = false;
                }
            room.scanned_ms = store_ms;
        }
        Sums others = room.sums;
        if (own && own->counted) others.add(*own, -1);
        GrantRequest request;
        request.free_total = push.total_active_users - std::max<int64_t>(0, active_users);
        request.free_minute = push.new_users_per_minute - count("m" + std::to_string(now_minute));
        request.own_weight = push.share_weight_milli;
        request.own_rate_milli = push.demand_rate_milli;
        request.validity_ms = timing.grant_validity_ms;
        request.others_weight = others.weight;
        request.others_live = others.live;
        request.reserved_total = others.held_total;
        request.reserved_minute = others.minute == now_minute ? others.held_minute : 0;
        // A recount after a failover or a loss: no grants until the counts are whole again.
        if (own && own->seen_ms < room.failover_ms && own->seen_ms >= room.failover_seen_ms - timing.node_liveness_ms && room.pending > 0)
            --room.pending;
        const bool recounting = store_ms < room.failover_ms + timing.node_liveness_ms ||
                                (room.pending > 0 && store_ms < room.failover_ms + k_recount_livenesses * timing.node_liveness_ms);
        reply.grant = recounting ? Grant{0, 0, now_minute} : compute_grant(request, now_minute);
        reply.share = demand_share(request);
        reply.live_nodes = request.others_live + 1;
        // Held: the grant, or what the node may admit before the answer reaches it, if more.
        NodeEntry fresh{last, store_ms, push.share_weight_milli, std::max(reply.grant.total, push.in_flight_allowance),
                        std::max(reply.grant.this_minute, push.in_flight_allowance), now_minute, true,
                        // A push without batches leaves the contribution as it was.
                        push.batches.empty() && own ? own->contribution : push.contribution};
        others.add(fresh, 1);
        room.sums = others;
        room.nodes[node_id] = std::move(fresh);
    }

    // What changed since the node last read (everything, for a node new to this incarnation of
    // the state).
    reply.version = room.version;
    reply.generation = room.generation;
    const int64_t since = push.generation != room.generation || push.version > room.version ? 0 : push.version;
    if (reply.status == RoomReply::Status::ok && since != room.version) {
        std::vector<std::pair<int64_t, std::string>> changed;
        if (since == version_before && !mine.empty()) {
            for (const std::string& field : mine) changed.emplace_back(room.version, field);
        } else {
            for (const auto& [field, version] : room.versions)
                if (version > since) changed.emplace_back(version, field);
            std::sort(changed.begin(), changed.end());
        }
        for (const auto& [version, field] : changed) {
            const auto count = room.counts.find(field);
            if (const auto change = change_of(field, count == room.counts.end() ? 0 : count->second)) reply.changed.push_back(*change);
        }
    }
    for (const int64_t minute : {now_minute - 1, now_minute})
        if (const auto seed = room.seeds.find(minute); seed != room.seeds.end()) reply.changed.push_back({Kind::release_seed, minute, seed->second, 0});

    // A cursor into another generation's list (a failover: the copy may hold fewer revocations,
    // and later ones take the places this node read up to) reads the list from its start again.
    const int64_t cursor = push.generation == room.generation ? push.revocation_cursor : 0;
    const int64_t start = std::max<int64_t>(0, cursor - room.revocation_base);
    if (room.revocation_base + start < room.revocations_pushed)
        for (int64_t i = start; i < static_cast<int64_t>(room.revoked.size()) && i < start + 5000; ++i)
            reply.revocations.push_back(room.revoked[static_cast<size_t>(i)]);
    reply.revocation_cursor = room.revocation_base + start + static_cast<int64_t>(reply.revocations.size());

    for (const queue::ClientAddress& address : pushed_joins) {
        const auto& minute = room.joins[now_minute];
        const auto it = minute.find(address);
        reply.joins.emplace_back(address, it == minute.end() ? 0 : it->second);
    }
    std::erase_if(room.joins, [now_minute](const auto& entry) { return entry.first < now_minute - 1; });
    if (room.expires_ms == 0) room.expires_ms = store_ms + k_room_ttl_seconds * 1000;
    return reply;
}

} // namespace wr::state
