// reconcile.lua in C++ (see there for the steps and why).
#include "state/memory_store.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "state/count_log.h"
#include "state/store_keys.h"

namespace wr::state {
namespace {

using Kind = queue::LedgerChange::Kind;

int64_t minute_of_ms(int64_t ms) { return static_cast<int64_t>(std::floor(static_cast<double>(ms) / 60000.0)); }

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
    reply.grant.minute = now_minute;
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
    if (room.epoch == 0) {
        room.epoch = store_ms * 1000 + static_cast<int64_t>(++m_epochs % 1000);
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
        if (push.epoch != room.epoch && push.epoch != 0) {
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

    // The merger: this node if the room has none alive.
    bool merger = false;
    if (reply.status == RoomReply::Status::ok && !push.read_only) {
        merger = room.merger == node_id || room.merger.empty() || room.merger_seen_ms + timing.node_liveness_ms <= store_ms;
        if (merger) {
            room.merger = node_id;
            room.merger_seen_ms = store_ms;
        }
    }
    const auto raw_end = [&room] { return room.raw_base + static_cast<int64_t>(room.raw.size()); };
    const auto digest_end = [&room] { return room.digest_base + static_cast<int64_t>(room.digests.size()); };
    const int64_t digest_end_before = digest_end();
    int64_t own_last_record = own ? own->last_record : -1;

    // The node's batches, each applied once.
    uint64_t last = stored_sequence;
    std::set<queue::ClientAddress> pushed_joins;
    bool pruned_now = false;
    if (reply.status == RoomReply::Status::ok && !push.read_only) {
        std::vector<std::string> order;
        std::map<std::string, int64_t> deltas;
        std::vector<std::pair<uint64_t, int64_t>> revocations;
        std::string record;
        for (const PushedBatch& batch : push.batches) {
            const bool fresh = batch.sequence > stored_sequence;
            if (fresh) append_record(record, batch.changes);
            for (const queue::LedgerChange& change : batch.changes) {
                if (!fresh) continue;
                if (is_admission_count(change)) {
                    const std::string field = admission_field(change);
                    if (!deltas.contains(field)) order.push_back(field);
                    deltas[field] += change.delta;
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
        // A count for a minute no ledger keeps any more, pushed in the sync that prunes, is not
        // written back after the prune took it.
        const bool pruning = room.pruned_minute < now_minute;
        for (const std::string& field : order)
            if (!pruning || std::stoll(field.substr(1)) >= now_minute - k_admission_minutes_kept) room.admission_counts[field] += deltas[field];

        // The merger's digest of the raw records from where the last one ended: the raw log up
        // to there goes.
        if (merger && push.digest_to > push.digest_from && push.digest_from == room.digested && push.digest_to <= raw_end()) {
            std::string digest;
            append_record(digest, push.digest);
            if (!digest.empty()) room.digests.push_back(std::move(digest));
            room.raw.erase(room.raw.begin(), room.raw.begin() + (push.digest_to - room.raw_base));
            room.raw_base = room.digested = push.digest_to;
        }
        // A snapshot as of the digests this node read, if none is as recent: digests older than
        // the previous snapshot go.
        if (push.snapshot && push.generation == room.generation && push.version > room.snapshot_at && push.version <= digest_end_before) {
            if (room.snapshot_at > room.digest_base) {
                room.digests.erase(room.digests.begin(), room.digests.begin() + (room.snapshot_at - room.digest_base));
                room.digest_base = room.snapshot_at;
            }
            room.snapshot_at = push.version;
            room.snapshot_asked_ms = 0;
            room.snapshot.clear();
            append_record(room.snapshot, *push.snapshot);
        }
        if (merger && digest_end() - room.snapshot_at >= k_snapshot_digests && room.snapshot_asked_ms + k_snapshot_retry_ms <= store_ms) {
            reply.snapshot_wanted = true;
            room.snapshot_asked_ms = store_ms;
        }
        // The node's changes into the raw log.
        if (!record.empty()) {
            own_last_record = raw_end();
            room.raw.push_back(std::move(record));
        }
        for (const auto& revocation : revocations) room.revoked.push_back(revocation);
        room.revocations_pushed += static_cast<int64_t>(revocations.size());

        // Once a minute: admission counts no ledger keeps any more, seeds of past minutes, node
        // runs gone for an hour and revocations past their cookies' end go; the time to live is
        // set again.
        if (pruning) {
            if (room.pruned_minute > 0) {
                for (int64_t minute = std::max(room.pruned_minute - 32, now_minute - 100); minute <= now_minute - 32; ++minute) {
                    room.admission_counts.erase("a" + std::to_string(minute));
                    room.admission_counts.erase("m" + std::to_string(minute));
                }
                std::erase_if(room.seeds, [now_minute](const auto& seed) { return seed.first < now_minute - 1; });
            }
            std::erase_if(room.nodes, [&](const auto& entry) { return entry.first != node_id && entry.second.seen_ms < store_ms - k_node_forgotten_ms; });
            int popped = 0;
            while (popped < 1000 && !room.revoked.empty() && room.revoked.front().second <= push.now_ms) {
                room.revoked.pop_front();
                ++popped;
            }
            room.revocation_base += popped;
            room.pruned_minute = now_minute;
            pruned_now = true;
        }
    }

    if (!push.read_only && reply.status == RoomReply::Status::ok) {
        const auto count = [&](const std::string& field) {
            const auto it = room.admission_counts.find(field);
            return it == room.admission_counts.end() ? int64_t{0} : it->second;
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
                        std::max(reply.grant.this_minute, push.in_flight_allowance), now_minute, true, own_last_record,
                        // A push without batches leaves the contribution as it was.
                        push.batches.empty() && own ? own->contribution : push.contribution};
        others.add(fresh, 1);
        room.sums = others;
        room.nodes[node_id] = std::move(fresh);
    }

    // The digests this node has not read (everything, from the snapshot on, for a node new to
    // this incarnation of the state or behind the digests kept), and the merger's raw records.
    reply.version = digest_end();
    reply.generation = room.generation;
    reply.digested = room.digested;
    reply.own_last_record = own_last_record;
    reply.merger = merger;
    if (reply.status == RoomReply::Status::ok) {
        int64_t from = push.version;
        if (push.generation != room.generation || push.version < room.digest_base || push.version > digest_end()) {
            reply.whole = true;
            read_records(room.snapshot, reply.changes);
            from = room.snapshot_at;
        }
        for (int64_t i = from; i < digest_end(); ++i) read_records(room.digests[static_cast<size_t>(i - room.digest_base)], reply.changes);
    }
    if (merger)
        for (size_t i = 0; i < room.raw.size() && i < static_cast<size_t>(k_raw_per_read); ++i, ++reply.raw_records)
            read_records(room.raw[i], reply.raw);

    // The seeds, to a node that asks for them or brings one.
    const bool pushes_seeds = std::any_of(push.batches.begin(), push.batches.end(), [](const PushedBatch& batch) {
        return std::any_of(batch.changes.begin(), batch.changes.end(), [](const queue::LedgerChange& change) { return change.kind == Kind::release_seed; });
    });
    if (push.want_seeds || (pushes_seeds && !push.read_only))
        for (const int64_t minute : {now_minute - 1, now_minute})
            if (const auto seed = room.seeds.find(minute); seed != room.seeds.end()) reply.seeds.emplace_back(minute, seed->second);

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
    if (room.expires_ms == 0 || pruned_now) room.expires_ms = store_ms + k_room_ttl_seconds * 1000;
    return reply;
}

} // namespace wr::state
