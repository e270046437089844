#pragma once
// One connection to one Redis server, ready for the reconcile script: connected and
// authenticated within the timeouts, checked to be a master (ROLE), its run id read, the script
// loaded. Shared by the store on one Redis (redis_store.*) and on a Redis Cluster
// (redis_cluster_store.*, one per master). Every call has a timeout.
#include <memory>
#include <string>
#include <vector>

#include "state/shared_store.h"
#include "state/state_url.h"
#include "util/clock.h"

struct redisContext;
struct redisReply;

namespace wr::state {

struct ReplyDeleter {
    void operator()(redisReply* reply) const;
};
using RedisReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

struct LinkTimeouts {
    util::Milliseconds connect{500};
    util::Milliseconds command{1000};
};

// "10.0.0.5:6379", "[::1]:6379"
std::string endpoint_text(const RedisEndpoint& endpoint);

// A connection with the timeouts set; throws StoreUnavailable (nothing sent) naming `role`.
redisContext* open_context(const RedisEndpoint& endpoint, const char* role, const LinkTimeouts& timeouts);
// One command; nullptr when the connection failed (the context says why).
RedisReplyPtr run_command(redisContext* context, const std::vector<std::string>& arguments);
// Queues one command on the connection's pipeline.
void append_command(redisContext* context, const std::vector<std::string>& arguments);

class RedisLink {
public:
    RedisLink() = default;
    ~RedisLink() { close(); }
    RedisLink(const RedisLink&) = delete;
    RedisLink& operator=(const RedisLink&) = delete;

    // Connects to the master at `endpoint` with `url`'s credentials and database; throws
    // StoreUnavailable (nothing sent) when it cannot, or when the server is not a master.
    void open(const RedisEndpoint& endpoint, const StateUrl& url, const LinkTimeouts& timeouts);
    void close();
    bool is_open() const { return m_context != nullptr; }
    void set_command_timeout(util::Milliseconds timeout);

    redisContext* context() const { return m_context; }
    const RedisEndpoint& endpoint() const { return m_endpoint; }
    const std::string& sha() const { return m_sha; }
    const std::string& server() const { return m_server; }

private:
    redisContext* m_context = nullptr;
    RedisEndpoint m_endpoint;
    std::string m_sha;
    std::string m_server; // the run id of the server connected to
};

} // namespace wr::state
