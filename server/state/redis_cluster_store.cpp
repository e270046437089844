// The shared store on a Redis Cluster: the slot map, a pipeline per master, redirections.
#include "state/redis_cluster_store.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "state/reconcile_call.h"

namespace wr::state {

struct RedisClusterStore::Call {
    std::vector<size_t> rooms; // indices into the pushes, all of one slot and one moment
    int slot = 0;
    RedisEndpoint target;
    bool asking = false; // an ASK sent it here: ASKING first
    int redirections = 0;
};

namespace {

// Sends what the connection has queued; false when the connection failed.
bool flush(redisContext* context) {
    int done = 0;
    while (!done)
        if (redisBufferWrite(context, &done) != REDIS_OK) return false;
    return true;
}

} // namespace

RedisClusterStore::RedisClusterStore(RedisClusterStoreOptions options) : m_options(std::move(options)) {}

std::string RedisClusterStore::describe() const {
    if (m_map.empty()) return m_options.url.describe();
    const size_t masters = m_map.masters().size();
    return m_options.url.describe() + " (" + std::to_string(masters) + (masters == 1 ? " master)" : " masters)");
}

void RedisClusterStore::refresh_map() {
    // The masters known first (they answer for the cluster as it is now), then the URL's nodes.
    std::vector<RedisEndpoint> candidates = m_map.masters();
    for (const RedisEndpoint& seed : m_options.url.endpoints)
        if (std::find(candidates.begin(), candidates.end(), seed) == candidates.end()) candidates.push_back(seed);
    std::string failures;
    for (const RedisEndpoint& node : candidates) {
        std::string why;
        try {
            std::optional<SlotMap> map = read_slot_map(node, why);
            if (map && map->empty()) why = "serves no slots (a cluster not created yet?)";
            if (map && !map->empty()) {
                m_map = std::move(*map);
                m_map_stale = false;
                // Connections to servers that are no masters any more go.
                const auto& masters = m_map.masters();
                std::erase_if(m_links, [&](const auto& link) {
                    return std::find(masters.begin(), masters.end(), link.second->endpoint()) == masters.end();
                });
                return;
            }
        } catch (const StoreUnavailable& error) {
            why = error.what();
        } catch (const std::invalid_argument& error) {
            why = error.what();
        }
        failures += (failures.empty() ? "" : "; ") + endpoint_text(node) + ": " + why;
    }
    throw StoreUnavailable("no Redis Cluster node answered CLUSTER SLOTS (" + failures + ")", false);
}

std::optional<SlotMap> RedisClusterStore::read_slot_map(const RedisEndpoint& node, std::string& why) {
    redisContext* context = open_context(node, "Redis Cluster node", timeouts());
    std::unique_ptr<redisContext, void (*)(redisContext*)> owned(context, redisFree);
    const auto ask = [&](const std::vector<std::string>& arguments) -> RedisReplyPtr {
        RedisReplyPtr reply = run_command(context, arguments);
        if (!reply) why = context->errstr;
        else if (reply->type == REDIS_REPLY_ERROR) why = arguments.front() + ": " + reply_text(reply.get());
        else return reply;
        return nullptr;
    };
    const StateUrl& url = m_options.url;
    if (!url.password.empty() && !ask(url.username.empty() ? std::vector<std::string>{"AUTH", url.password}
                                                             : std::vector<std::string>{"AUTH", url.username, url.password}))
        return std::nullopt;
    const RedisReplyPtr slots = ask({"CLUSTER", "SLOTS"});
    if (!slots) return std::nullopt;
    return SlotMap::from_cluster_slots(slots.get(), node.host); // throws std::invalid_argument
}

RedisLink& RedisClusterStore::link_to(const RedisEndpoint& master) {
    std::unique_ptr<RedisLink>& link = m_links[endpoint_text(master)];
    if (!link) link = std::make_unique<RedisLink>();
    if (!link->is_open()) link->open(master, m_options.url, timeouts());
    return *link;
}

std::vector<RoomReply> RedisClusterStore::exchange(const std::string& node_id, const std::vector<RoomPush>& pushes,
                                                   const StoreTiming& timing) {
    if (m_map_stale || m_map.empty()) refresh_map();

    // One call per slot (rooms sharing a slot share it, up to a hundred, synced at one moment).
    std::vector<Call> pending;
    std::map<std::pair<int, int64_t>, size_t> open_call; // (slot, now_ms) -> index in pending
    std::vector<RoomReply> replies(pushes.size());
    for (size_t i = 0; i < pushes.size(); ++i) {
        const int slot = key_slot(pushes[i].room_id);
        const auto master = m_map.master_of(slot);
        if (!master) {
            replies[i] = failed_room("no master serves slot " + std::to_string(slot) + " of the Redis Cluster");
            m_map_stale = true;
            continue;
        }
        const auto key = std::make_pair(slot, pushes[i].now_ms);
        const auto it = open_call.find(key);
        if (it != open_call.end() && pending[it->second].rooms.size() < k_rooms_per_call) {
            pending[it->second].rooms.push_back(i);
            continue;
        }
        open_call[key] = pending.size();
        pending.push_back(Call{{i}, slot, *master});
    }

    bool reached = pending.empty(); // whether any master answered this sync
    bool maybe_applied = false;
    std::string first_failure;
    const auto fail_call = [&](const Call& call, const std::string& why) {
        for (const size_t i : call.rooms) replies[i] = failed_room(why);
        if (first_failure.empty()) first_failure = why;
    };
    while (!pending.empty()) {
        // Every master's pipeline is written before any answer is read: the masters work at once.
        std::map<std::string, std::vector<Call>> by_master;
        for (Call& call : pending) by_master[endpoint_text(call.target)].push_back(std::move(call));
        pending.clear();
        std::vector<std::pair<RedisLink*, std::vector<Call>>> sent;
        for (auto& [name, calls] : by_master) {
            RedisLink* link = nullptr;
            try {
                link = &link_to(calls.front().target);
            } catch (const StoreUnavailable& error) {
                m_map_stale = true; // a master away: the cluster may be promoting its replica
                for (const Call& call : calls) fail_call(call, error.what());
                continue;
            }
            for (const Call& call : calls) {
                std::vector<const RoomPush*> rooms;
                for (const size_t i : call.rooms) rooms.push_back(&pushes[i]);
                if (call.asking) append_command(link->context(), {"ASKING"});
                append_command(link->context(), script_call(link->sha(), link->server(), node_id, rooms, timing));
            }
            if (!flush(link->context())) {
                const std::string why = "lost the connection to redis " + endpoint_text(link->endpoint()) + ": " + link->context()->errstr;
                link->close();
                m_map_stale = true;
                maybe_applied = true;
                for (const Call& call : calls) fail_call(call, why);
                continue;
            }
            sent.emplace_back(link, std::move(calls));
        }
        for (auto& [link, calls] : sent) {
            const std::string master = endpoint_text(link->endpoint());
            const std::string host = link->endpoint().host;
            std::string server_error; // READONLY, NOSCRIPT, LOADING…: reconnect after the answers
            // Read every answer, even after an error one, so the connection stays in step.
            for (size_t c = 0; c < calls.size(); ++c) {
                Call& call = calls[c];
                RedisReplyPtr answer;
                bool read = true;
                for (int n = call.asking ? 2 : 1; n > 0 && read; --n) {
                    void* raw = nullptr;
                    read = redisGetReply(link->context(), &raw) == REDIS_OK;
                    answer.reset(static_cast<redisReply*>(raw));
                }
                if (!read) {
                    // The rest of this master's calls are lost with the connection; some of
                    // them may have run: the rooms push the same batches again.
                    const std::string why = "lost the connection to redis " + master + ": " + link->context()->errstr;
                    link->close();
                    m_map_stale = true;
                    maybe_applied = true;
                    for (size_t rest = c; rest < calls.size(); ++rest) fail_call(calls[rest], why);
                    break;
                }
                reached = true;
                if (answer->type != REDIS_REPLY_ERROR) {
                    std::vector<RoomReply> answered;
                    read_call_answer(answer.get(), call.rooms.size(), answered);
                    for (size_t r = 0; r < call.rooms.size(); ++r) replies[call.rooms[r]] = std::move(answered[r]);
                    continue;
                }
                const std::string error = reply_text(answer.get());
                const Redirection redirection = redirection_of(error, host);
                switch (next_step(redirection, call.redirections)) {
                case NextStep::follow:
                    if (redirection.kind == Redirection::Kind::moved) m_map.move(redirection.slot, redirection.target);
                    call.target = redirection.target;
                    call.asking = redirection.kind == Redirection::Kind::ask;
                    ++call.redirections;
                    pending.push_back(std::move(call));
                    break;
                case NextStep::give_up:
                    // CLUSTERDOWN, TRYAGAIN (a slot half migrated), or a slot bouncing: these
                    // rooms wait for the next sync, on a slot map read again.
                    m_map_stale = true;
                    fail_call(call, "redis " + master + " answered: " + error);
                    break;
                case NextStep::done:
                    if (is_server_error(error)) {
                        server_error = error;
                        fail_call(call, "redis " + master + " answered: " + error);
                    } else {
                        std::vector<RoomReply> answered;
                        read_call_answer(answer.get(), call.rooms.size(), answered);
                        for (size_t r = 0; r < call.rooms.size(); ++r) replies[call.rooms[r]] = std::move(answered[r]);
                    }
                    break;
                }
            }
            if (!server_error.empty() && link->is_open()) {
                // READONLY (this master became a replica), NOSCRIPT (its script cache emptied),
                // LOADING…: connect again, load the script anew, on a slot map read again.
                link->close();
                m_map_stale = true;
            }
        }
    }
    // No master answered anything: the store as a whole is away, as one Redis would be.
    if (!reached && !first_failure.empty()) throw StoreUnavailable(first_failure, maybe_applied);
    return replies;
}

} // namespace wr::state
