// The shared store on Redis: Sentinel discovery and the pipelined script calls.
#include "state/redis_store.h"

#include <hiredis/hiredis.h>

#include "state/reconcile_call.h"

namespace wr::state {

RedisStore::RedisStore(RedisStoreOptions options) : m_options(std::move(options)) {
    if (!m_options.url.endpoints.empty()) m_master = m_options.url.endpoints.front();
}

std::string RedisStore::describe() const {
    if (m_options.url.kind == StateUrl::Kind::sentinel && m_link.is_open())
        return m_options.url.describe() + " (master " + endpoint_text(m_master) + ")";
    return m_options.url.describe();
}

RedisEndpoint RedisStore::discover_master() {
    const std::vector<RedisEndpoint>& sentinels = m_options.url.endpoints;
    std::string failures;
    for (size_t i = 0; i < sentinels.size(); ++i) {
        const size_t index = (m_next_sentinel + i) % sentinels.size();
        const RedisEndpoint& sentinel = sentinels[index];
        std::string why;
        try {
            redisContext* context = open_context(sentinel, "Sentinel", timeouts());
            const RedisReplyPtr reply = run_command(context, {"SENTINEL", "get-master-addr-by-name", m_options.url.master_name});
            if (!reply) {
                why = context->errstr;
            } else if (reply->type == REDIS_REPLY_ARRAY && reply->elements == 2) {
                RedisEndpoint master{reply_text(reply->element[0]), 0};
                try {
                    master.port = std::stoi(reply_text(reply->element[1]));
                } catch (const std::exception&) {
                }
                if (master.port > 0) {
                    redisFree(context);
                    m_next_sentinel = index;
                    return master;
                }
                why = "answered an address that is not one";
            } else if (reply->type == REDIS_REPLY_ERROR) {
                why = reply_text(reply.get());
            } else {
                why = "knows no master named '" + m_options.url.master_name + "'";
            }
            redisFree(context);
        } catch (const StoreUnavailable& error) {
            why = error.what();
        }
        failures += (failures.empty() ? "" : "; ") + endpoint_text(sentinel) + ": " + why;
    }
    throw StoreUnavailable("no Sentinel named the master '" + m_options.url.master_name + "' (" + failures + ")", false);
}

void RedisStore::connect() {
    const RedisEndpoint endpoint = m_options.url.kind == StateUrl::Kind::sentinel ? discover_master() : m_options.url.endpoints.front();
    m_link.open(endpoint, m_options.url, timeouts());
    m_master = endpoint;
}

std::vector<RoomReply> RedisStore::exchange(const std::string& node_id, const std::vector<RoomPush>& pushes, const StoreTiming& timing) {
    if (!m_link.is_open()) connect();
    // One script call per hundred rooms synced at the same moment, all in one pipeline.
    std::vector<std::vector<const RoomPush*>> calls;
    for (const RoomPush& push : pushes) {
        if (calls.empty() || calls.back().size() >= k_rooms_per_call || calls.back().front()->now_ms != push.now_ms) calls.emplace_back();
        calls.back().push_back(&push);
    }
    for (const auto& call : calls) append_command(m_link.context(), script_call(m_link.sha(), m_link.server(), node_id, call, timing));
    // Read every answer, even after an error one, so the connection stays in step.
    std::vector<RedisReplyPtr> answers;
    std::string server_error;
    for (size_t i = 0; i < calls.size(); ++i) {
        void* raw = nullptr;
        if (redisGetReply(m_link.context(), &raw) != REDIS_OK) {
            const std::string why = m_link.context()->errstr;
            m_link.close();
            throw StoreUnavailable("lost the connection to redis " + endpoint_text(m_master) + ": " + why, true);
        }
        RedisReplyPtr reply(static_cast<redisReply*>(raw));
        if (reply->type == REDIS_REPLY_ERROR && server_error.empty() && is_server_error(reply_text(reply.get())))
            server_error = reply_text(reply.get());
        answers.push_back(std::move(reply));
    }
    if (!server_error.empty()) {
        // READONLY: the master became a replica (a failover); NOSCRIPT: the script cache was
        // emptied. Both: connect again, rediscovering the master, and load the script anew.
        m_link.close();
        throw StoreUnavailable("redis " + endpoint_text(m_master) + " answered: " + server_error, true);
    }
    // A room the script failed on (one of its keys damaged) fails alone; the others go on.
    std::vector<RoomReply> replies;
    replies.reserve(pushes.size());
    for (size_t c = 0; c < calls.size(); ++c) read_call_answer(answers[c].get(), calls[c].size(), replies);
    return replies;
}

} // namespace wr::state
