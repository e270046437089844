// reconcile.lua in C++ (see there for the steps and why).
#include "state/memory_store.h"

#include <algorithm>
#include <cmath>
#include <set>

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

RoomReply MemoryStore::exchange_one(const std::string& node_id, const RoomPush& push, const StoreTiming& timing, int64_t store_ms) {
    RoomReply reply;
    const int64_t now_minute = minute_of_ms(push.now_ms);
    // Keys that outlived their time to live are gone, as in Redis.
    if (const auto it = m_rooms.find(push.room_id); it != m_rooms.end() && it->second.expires_ms <= store_ms) m_rooms.erase(it);
    if (push.read_only && !m_rooms.contains(push.room_id)) {
        reply.revocation_cursor = push.revocation_cursor;
        return reply;
    }
    RoomState& room = m_rooms[push.room_id];
    if (room.epoch.empty()) {
        room.epoch = node_id + "@" + std::to_string(store_ms) + "." + std::to_string(++m_epochs);
        room.expires_ms = store_ms + k_room_ttl_seconds * 1000;
    }
    reply.epoch = room.epoch;

    std::set<queue::ClientAddress> pushed_joins;
    if (!push.read_only) {
        // State that another server wrote (a promoted replica, a restart from disk) may lack
        // what nodes were told was applied: grants wait until they have synced.
        const std::string server = std::to_string(m_server);
        if (!room.server.empty() && room.server != server) {
            room.failover_ms = store_ms;
            room.failover_seen_ms = 0;
            for (const auto& [name, entry] : room.nodes) room.failover_seen_ms = std::max(room.failover_seen_ms, entry.seen_ms);
        }
        room.server = server;
    }
    const auto sequence = room.sequences.find(node_id);
    const uint64_t stored_sequence = sequence == room.sequences.end() ? 0 : sequence->second.first;
    if (!push.read_only) {
        if (push.epoch != room.epoch && !push.epoch.empty()) {
            // The state this node knew is gone: every node pushes all it counts again.
            reply.status = RoomReply::Status::epoch_changed;
            room.failover_ms = store_ms;
            room.failover_seen_ms = 0;
        } else if (push.acknowledged_sequence > stored_sequence) {
            reply.status = RoomReply::Status::lost;
            reply.stored_sequence_before = stored_sequence;
            if (const auto copy = room.contributions.find(node_id); copy != room.contributions.end()) reply.stored_contribution = copy->second;
        } else {
            auto& [last_sequence, seen] = room.sequences[node_id];
            reply.stored_sequence_before = last_sequence;
            const uint64_t before = last_sequence;
            for (const PushedBatch& batch : push.batches) {
                const bool fresh = batch.sequence > before;
                if (fresh) {
                    for (const queue::LedgerChange& change : batch.changes) {
                        switch (change.kind) {
                        case Kind::active: add(room.active, change.key, change.delta); break;
                        case Kind::waiting: add(room.waiting, std::pair{change.key, change.minute}, change.delta); break;
                        case Kind::admitted: add(room.admitted, change.key, change.delta); break;
                        case Kind::revoked: room.revoked.emplace_back(static_cast<uint64_t>(change.key), change.minute); break;
                        case Kind::release_seed: room.seeds.try_emplace(change.key, change.minute); break;
                        case Kind::arrived: add(room.arrived, change.key, change.delta); break;
                        case Kind::checked_in: add(room.checked_in, change.key, change.delta); break;
                        case Kind::browsed: add(room.browsed, change.key, change.delta); break;
                        }
                    }
                }
                for (const JoinChange& join : batch.joins) {
                    if (fresh) add(room.joins[join.minute], join.address, join.delta);
                    if (join.minute == now_minute) pushed_joins.insert(join.address);
                }
                last_sequence = std::max(last_sequence, batch.sequence);
            }
            seen = store_ms;
            if (!push.batches.empty()) room.contributions[node_id] = push.contribution;
        }
    }

    // Counts that still matter; older ones are dropped (kept when only reading).
    const auto keep = [&](auto& counts, auto minute_of, int64_t oldest) {
        for (auto it = counts.begin(); it != counts.end();) {
            if (minute_of(it->first) < oldest && !push.read_only) it = counts.erase(it);
            else ++it;
        }
    };
    const auto plain = [](int64_t minute) { return minute; };
    keep(room.active, plain, now_minute - 31);
    // Waiting users and check-ins by ten-second slot: the window and the departures measured
    // behind it (21 slots); arrivals and admitted users' browsing half an hour (181 slots).
    const int64_t now_slot = slot_of_ms(push.now_ms);
    keep(room.waiting, [](const std::pair<int64_t, int64_t>& key) { return key.second; }, now_slot - 21);
    keep(room.admitted, plain, now_minute - 31);
    keep(room.seeds, plain, now_minute - 1);
    keep(room.arrived, plain, now_slot - 181);
    keep(room.checked_in, plain, now_slot - 181);
    keep(room.browsed, plain, now_slot - 181);
    for (const auto& [minute, users] : room.active)
        if (minute >= now_minute - 31) reply.counts.push_back({Kind::active, minute, 0, users});
    for (const auto& [key, users] : room.waiting)
        if (key.second >= now_slot - 21) reply.counts.push_back({Kind::waiting, key.first, key.second, users});
    for (const auto& [minute, admissions] : room.admitted)
        if (minute >= now_minute - 31) reply.counts.push_back({Kind::admitted, minute, 0, admissions});
    for (const auto& [minute, seed] : room.seeds)
        if (minute >= now_minute - 1) reply.counts.push_back({Kind::release_seed, minute, seed, 0});
    for (const auto& [slot, users] : room.arrived)
        if (slot >= now_slot - 181) reply.counts.push_back({Kind::arrived, slot, 0, users});
    for (const auto& [slot, check_ins] : room.checked_in)
        if (slot >= now_slot - 181) reply.counts.push_back({Kind::checked_in, slot, 0, check_ins});
    for (const auto& [slot, ms] : room.browsed)
        if (slot >= now_slot - 181) reply.counts.push_back({Kind::browsed, slot, 0, ms});

    if (!push.read_only) {
        int popped = 0;
        while (popped < 100 && !room.revoked.empty() && room.revoked.front().second <= push.now_ms) {
            room.revoked.pop_front();
            ++popped;
        }
        room.revocation_base += popped;
    }
    const int64_t start = std::max<int64_t>(0, push.revocation_cursor - room.revocation_base);
    for (int64_t i = start; i < static_cast<int64_t>(room.revoked.size()) && i < start + 5000; ++i)
        reply.revocations.push_back(room.revoked[static_cast<size_t>(i)]);
    reply.revocation_cursor = room.revocation_base + start + static_cast<int64_t>(reply.revocations.size());

    for (const queue::ClientAddress& address : pushed_joins) {
        const auto& minute = room.joins[now_minute];
        const auto it = minute.find(address);
        reply.joins.emplace_back(address, it == minute.end() ? 0 : it->second);
    }
    std::erase_if(room.joins, [now_minute](const auto& entry) { return entry.first < now_minute - 1; });

    if (!push.read_only && reply.status == RoomReply::Status::ok) {
        int64_t active_users = 0;
        for (const auto& [minute, users] : room.active)
            if (minute >= now_minute - push.session_minutes) active_users += users;
        const auto admitted_now = room.admitted.find(now_minute);
        GrantRequest request;
        request.free_total = push.total_active_users - std::max<int64_t>(0, active_users);
        request.free_minute = push.new_users_per_minute - (admitted_now == room.admitted.end() ? 0 : admitted_now->second);
        request.node = node_id;
        request.own_weight = push.share_weight;
        request.own_rate = push.demand_weight;
        request.validity_ms = timing.grant_validity_ms;
        bool waiting_for_a_node = false;
        for (auto it = room.nodes.begin(); it != room.nodes.end();) {
            const NodeEntry& other = it->second;
            if (it->first == node_id) {
                ++it;
                continue;
            }
            // Live before the failover and not heard from since: it may have changes to send again.
            if (other.seen_ms < room.failover_ms && other.seen_ms >= room.failover_seen_ms - timing.node_liveness_ms) waiting_for_a_node = true;
            if (other.expires_ms > store_ms) {
                request.reserved_total += other.grant.total;
                if (other.grant.minute == now_minute) request.reserved_minute += other.grant.this_minute;
            }
            if (other.seen_ms >= store_ms - timing.node_liveness_ms) {
                request.others.push_back({it->first, other.weight});
            } else if (other.expires_ms <= store_ms && other.seen_ms < store_ms - 60000) {
                it = room.nodes.erase(it);
                continue;
            }
            ++it;
        }
        const bool recounting = store_ms < room.failover_ms + timing.node_liveness_ms ||
                                (waiting_for_a_node && store_ms < room.failover_ms + k_recount_livenesses * timing.node_liveness_ms);
        reply.grant = recounting ? Grant{0, 0, now_minute} : compute_grant(request, now_minute);
        reply.share = demand_share(request);
        reply.live_nodes = static_cast<int64_t>(request.others.size()) + 1;
        // Reserved: the grant, or what the node may admit before the answer reaches it, if more.
        const Grant reserved{std::max(reply.grant.total, push.in_flight_allowance), std::max(reply.grant.this_minute, push.in_flight_allowance),
                             now_minute};
        room.nodes[node_id] = NodeEntry{push.share_weight, store_ms, reserved, store_ms + timing.grant_validity_ms};
        for (auto it = room.sequences.begin(); it != room.sequences.end();) {
            if (it->second.second < store_ms - 3600000) {
                room.contributions.erase(it->first);
                it = room.sequences.erase(it);
            } else {
                ++it;
            }
        }
        room.expires_ms = store_ms + k_room_ttl_seconds * 1000;
    }
    return reply;
}

} // namespace wr::state
