#pragma once
// The shared store on a Redis Cluster: every key of a room is under the room id as hash tag, so
// a room lives in one slot, on one master. Each sync groups the rooms by the master serving
// their slot (the slot map read with CLUSTER SLOTS, cluster_slots.h) and pipelines one EVALSHA
// of reconcile.lua per slot to each master — Redis refuses a script whose declared keys span
// slots, and declaring them is what lets MOVED and ASK name the room that moved — writing to
// every master before reading any answer. It follows MOVED (noting the slot's new master) and
// ASK (ASKING, then once at the target), a bounded number of times per sync, and reads the slot
// map again after a connection error, CLUSTERDOWN, TRYAGAIN or READONLY. The rooms of a master it
// cannot reach fail alone (they go on by --state-failure) while the others sync; when no master
// answers at all the whole exchange fails, as with one Redis. A promoted replica is another
// server to the script, which holds the rooms' grants until their counts are whole again, as
// after a Sentinel failover. Used from one thread only; every call has a timeout.
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "state/cluster_slots.h"
#include "state/redis_link.h"
#include "state/shared_store.h"
#include "state/state_url.h"

namespace wr::state {

struct RedisClusterStoreOptions {
    StateUrl url; // Kind::cluster: the nodes to read the slot map from at first
    util::Milliseconds connect_timeout{500};
    util::Milliseconds command_timeout{1000};
};

class RedisClusterStore final : public SharedStore {
public:
    explicit RedisClusterStore(RedisClusterStoreOptions options);

    std::vector<RoomReply> exchange(const std::string& node_id, const std::vector<RoomPush>& pushes, const StoreTiming& timing) override;
    // "redis-cluster via 10.0.0.1:7000,10.0.0.2:7000 (3 masters)"
    std::string describe() const override;
    std::string backend() const override { return "redis-cluster"; }

private:
    struct Call;  // one EVALSHA's rooms and where it goes (redis_cluster_store.cpp)
    struct Inbox; // one master's answers as they come
    void refresh_map(); // throws StoreUnavailable when no node answers
    // One node's CLUSTER SLOTS, and whether it says the cluster is whole (CLUSTER INFO's
    // cluster_state:ok); nullopt with `why` when it refused, StoreUnavailable when it cannot be
    // reached, std::invalid_argument when its answer cannot be read.
    std::optional<SlotMap> read_slot_map(const RedisEndpoint& node, const LinkTimeouts& timeouts, std::string& why, bool& whole);
    // Throws StoreUnavailable (nothing sent), at once for a master that failed less than a
    // command timeout ago.
    RedisLink& link_to(const RedisEndpoint& master);
    // A master that did not answer in time, or could not be reached: closed, and left alone for
    // a command timeout (its rooms fail at once meanwhile), then tried with short timeouts — a
    // master that stops answering costs the other masters' rooms one short wait, not every sync.
    void mark_failed(RedisLink& link);
    LinkTimeouts timeouts() const { return {m_options.connect_timeout, m_options.command_timeout}; }
    LinkTimeouts retry_timeouts() const { return {m_options.connect_timeout / 5, m_options.command_timeout / 5}; }

    RedisClusterStoreOptions m_options;
    SlotMap m_map;
    bool m_map_stale = true;
    std::map<std::string, std::unique_ptr<RedisLink>> m_links; // by endpoint_text of the master
    std::map<std::string, std::chrono::steady_clock::time_point> m_failed_at; // by endpoint_text: masters that failed lately
};

} // namespace wr::state
