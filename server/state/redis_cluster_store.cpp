// The shared store on a Redis Cluster: the slot map, a pipeline per master, redirections.
#include "state/redis_cluster_store.h"

#include <hiredis/hiredis.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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

// One master's answers as they come in: the calls sent to it, in order, and how far its answers
// have got.
struct RedisClusterStore::Inbox {
    RedisLink* link = nullptr;
    std::vector<Call> calls;
    size_t next = 0;          // the call whose answer comes next
    bool asking_done = false; // that call's ASKING has been answered
    bool reconnect = false;   // it answered as no master ready for the script would
    bool done() const { return next == calls.size(); }
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
    // The masters known first (they answer for the cluster as it is now), then the URL's nodes;
    // those that failed lately last, and asked with short timeouts: a master that stopped
    // answering does not hold up the map every sync.
    std::vector<RedisEndpoint> candidates = m_map.masters();
    for (const RedisEndpoint& seed : m_options.url.endpoints)
        if (std::find(candidates.begin(), candidates.end(), seed) == candidates.end()) candidates.push_back(seed);
    std::stable_partition(candidates.begin(), candidates.end(),
                          [&](const RedisEndpoint& node) { return !m_failed_at.contains(endpoint_text(node)); });
    const auto adopt = [&](SlotMap map) {
        m_map = std::move(map);
        m_map_stale = false;
        // Connections to servers that are no masters any more go.
        const auto& masters = m_map.masters();
        std::erase_if(m_links,
                      [&](const auto& link) { return std::find(masters.begin(), masters.end(), link.second->endpoint()) == masters.end(); });
    };
    // A node that says the cluster is not whole (cluster_state:fail) may be a master cut off from
    // the others while this node still reaches it: its map names itself for slots the others have
    // given its replica since. Its map is taken only when no node says the cluster is whole.
    std::optional<SlotMap> not_whole;
    std::string failures;
    for (const RedisEndpoint& node : candidates) {
        std::string why;
        try {
            const LinkTimeouts timeouts = m_failed_at.contains(endpoint_text(node)) ? retry_timeouts() : this->timeouts();
            bool whole = false;
            std::optional<SlotMap> map = read_slot_map(node, timeouts, why, whole);
            if (map && map->empty()) why = "serves no slots (a cluster not created yet?)";
            if (map && !map->empty()) {
                m_failed_at.erase(endpoint_text(node));
                if (whole) {
                    adopt(std::move(*map));
                    return;
                }
                why = "says cluster_state:fail";
                if (!not_whole) not_whole = std::move(map);
            }
        } catch (const StoreUnavailable& error) {
            why = error.what();
            m_failed_at[endpoint_text(node)] = std::chrono::steady_clock::now();
        } catch (const std::invalid_argument& error) {
            why = error.what();
        }
        failures += (failures.empty() ? "" : "; ") + endpoint_text(node) + ": " + why;
    }
    // No node says the cluster is whole (it is down, or every node this one reaches is cut off):
    // the map of the first that answered; its masters answer CLUSTERDOWN until it is whole.
    if (not_whole) {
        adopt(std::move(*not_whole));
        return;
    }
    throw StoreUnavailable("no Redis Cluster node answered CLUSTER SLOTS (" + failures + ")", false);
}

std::optional<SlotMap> RedisClusterStore::read_slot_map(const RedisEndpoint& node, const LinkTimeouts& timeouts, std::string& why, bool& whole) {
    redisContext* context = open_context(node, "Redis Cluster node", timeouts);
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
    const RedisReplyPtr info = ask({"CLUSTER", "INFO"});
    if (!info) return std::nullopt;
    whole = reply_text(info.get()).find("cluster_state:ok") != std::string::npos;
    const RedisReplyPtr slots = ask({"CLUSTER", "SLOTS"});
    if (!slots) return std::nullopt;
    return SlotMap::from_cluster_slots(slots.get(), node.host); // throws std::invalid_argument
}

RedisLink& RedisClusterStore::link_to(const RedisEndpoint& master) {
    const std::string name = endpoint_text(master);
    std::unique_ptr<RedisLink>& link = m_links[name];
    if (!link) link = std::make_unique<RedisLink>();
    if (link->is_open()) return *link;
    const auto now = std::chrono::steady_clock::now();
    const auto failed = m_failed_at.find(name);
    if (failed != m_failed_at.end() && now < failed->second + m_options.command_timeout)
        throw StoreUnavailable("redis " + name + " failed less than " + std::to_string(m_options.command_timeout.count()) +
                                   " ms ago: its rooms wait for it, or for its replica",
                               false);
    try {
        link->open(master, m_options.url, failed != m_failed_at.end() ? retry_timeouts() : timeouts());
    } catch (const StoreUnavailable&) {
        m_failed_at[name] = now;
        throw;
    }
    link->set_command_timeout(m_options.command_timeout);
    m_failed_at.erase(name);
    return *link;
}

void RedisClusterStore::mark_failed(RedisLink& link) {
    m_failed_at[endpoint_text(link.endpoint())] = std::chrono::steady_clock::now();
    link.close();
    m_map_stale = true; // a master away: the cluster may be promoting its replica
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
        std::vector<Inbox> sent;
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
            sent.push_back(Inbox{link, std::move(calls)});
        }

        // The script's answer for the call's rooms (an error the script raised fails them all).
        const auto answer_rooms = [&](const Call& call, const redisReply* answer) {
            std::vector<RoomReply> answered;
            read_call_answer(answer, call.rooms.size(), answered);
            for (size_t r = 0; r < call.rooms.size(); ++r) replies[call.rooms[r]] = std::move(answered[r]);
        };
        // One answer of a master, to the call it answers.
        const auto take = [&](Inbox& inbox, RedisReplyPtr answer) {
            Call& call = inbox.calls[inbox.next];
            if (call.asking && !inbox.asking_done) {
                inbox.asking_done = true; // ASKING's +OK
                return;
            }
            ++inbox.next;
            inbox.asking_done = false;
            reached = true;
            const std::string master = endpoint_text(inbox.link->endpoint());
            if (answer->type != REDIS_REPLY_ERROR) {
                answer_rooms(call, answer.get());
                return;
            }
            const std::string error = reply_text(answer.get());
            const Redirection redirection = redirection_of(error, inbox.link->endpoint().host);
            switch (next_step(redirection, call.redirections)) {
            case NextStep::follow:
                if (redirection.kind == Redirection::Kind::moved) m_map.move(redirection.slot, redirection.target);
                call.target = redirection.target;
                call.asking = redirection.kind == Redirection::Kind::ask;
                ++call.redirections;
                pending.push_back(std::move(call));
                break;
            case NextStep::give_up:
                // CLUSTERDOWN, TRYAGAIN (a slot half migrated), or a slot bouncing: these rooms
                // wait for the next sync, on a slot map read again.
                m_map_stale = true;
                fail_call(call, "redis " + master + " answered: " + error);
                break;
            case NextStep::done:
                if (is_server_error(error)) {
                    // READONLY (this master became a replica), NOSCRIPT (its script cache
                    // emptied), LOADING…: connect again once its answers are read, load the
                    // script anew, on a slot map read again.
                    inbox.reconnect = true;
                    fail_call(call, "redis " + master + " answered: " + error);
                } else {
                    answer_rooms(call, answer.get());
                }
                break;
            }
        };
        // The calls a master did not answer are lost with its connection; some of them may
        // have run: the rooms push the same batches again.
        const auto give_up_on = [&](Inbox& inbox, const std::string& why, bool rest) {
            for (size_t rest_of = inbox.next; rest_of < inbox.calls.size(); ++rest_of) fail_call(inbox.calls[rest_of], why);
            inbox.next = inbox.calls.size();
            maybe_applied = true;
            if (rest) mark_failed(*inbox.link);
            else {
                inbox.link->close();
                m_map_stale = true;
            }
        };

        // Every master's answers are read as they come, side by side: one that is slow or gone
        // costs the others' rooms nothing. The answers have the command timeout; once any master
        // has answered everything, the others have half of it more at most, so the rooms of the
        // masters that answered get their replies while their grants still hold.
        const auto started = std::chrono::steady_clock::now();
        auto deadline = started + m_options.command_timeout;
        bool cut = false;
        for (;;) {
            std::vector<pollfd> watched;
            std::vector<Inbox*> watching;
            for (Inbox& inbox : sent)
                if (!inbox.done()) {
                    watched.push_back(pollfd{inbox.link->context()->fd, POLLIN, 0});
                    watching.push_back(&inbox);
                }
            if (watched.empty()) break;
            const auto now = std::chrono::steady_clock::now();
            if (now >= deadline) {
                for (Inbox* inbox : watching)
                    give_up_on(*inbox,
                               "redis " + endpoint_text(inbox->link->endpoint()) + " did not answer within " +
                                   std::to_string(std::chrono::duration_cast<util::Milliseconds>(now - started).count()) + " ms",
                               true);
                break;
            }
            const auto left = std::chrono::duration_cast<util::Milliseconds>(deadline - now).count() + 1;
            if (::poll(watched.data(), watched.size(), static_cast<int>(left)) < 0 && errno != EINTR) {
                for (Inbox* inbox : watching) give_up_on(*inbox, std::string("poll failed: ") + std::strerror(errno), false);
                break;
            }
            for (size_t w = 0; w < watched.size(); ++w) {
                if (watched[w].revents == 0) continue;
                Inbox& inbox = *watching[w];
                redisContext* context = inbox.link->context();
                if (redisBufferRead(context) != REDIS_OK) {
                    give_up_on(inbox, "lost the connection to redis " + endpoint_text(inbox.link->endpoint()) + ": " + context->errstr, false);
                    continue;
                }
                while (!inbox.done()) {
                    void* raw = nullptr;
                    if (redisGetReplyFromReader(context, &raw) != REDIS_OK) {
                        give_up_on(inbox, "redis " + endpoint_text(inbox.link->endpoint()) + " answered what cannot be read: " + context->errstr,
                                   false);
                        break;
                    }
                    if (!raw) break; // the rest has not come yet
                    take(inbox, RedisReplyPtr(static_cast<redisReply*>(raw)));
                }
                if (inbox.done() && !cut) {
                    cut = true;
                    deadline = std::min(deadline, std::chrono::steady_clock::now() + m_options.command_timeout / 2);
                }
            }
        }
        for (Inbox& inbox : sent)
            if (inbox.reconnect && inbox.link->is_open()) {
                inbox.link->close();
                m_map_stale = true;
            }
    }
    // No master answered anything: the store as a whole is away, as one Redis would be.
    if (!reached && !first_failure.empty()) throw StoreUnavailable(first_failure, maybe_applied);
    return replies;
}

} // namespace wr::state
