#pragma once
// The shared store on Redis (hiredis): one pipeline per sync of EVALSHA calls running
// reconcile.lua, each covering up to a hundred rooms. With Sentinel it asks the Sentinels for the master, checks that the
// server it reached says it is the master (ROLE), and asks again after any connection error or
// READONLY answer, so it follows a failover without a restart. Used from one thread only (the
// sync thread); every call has a timeout, so nothing waits on Redis for long.
#include <memory>
#include <string>

#include "state/redis_link.h"
#include "state/shared_store.h"
#include "state/state_url.h"
#include "util/clock.h"

namespace wr::state {

struct RedisStoreOptions {
    StateUrl url;
    util::Milliseconds connect_timeout{500};
    util::Milliseconds command_timeout{1000};
};

class RedisStore final : public SharedStore {
public:
    explicit RedisStore(RedisStoreOptions options);
    RedisStore(const RedisStore&) = delete;
    RedisStore& operator=(const RedisStore&) = delete;

    std::vector<RoomReply> exchange(const std::string& node_id, const std::vector<RoomPush>& pushes, const StoreTiming& timing) override;
    std::string describe() const override;
    std::string backend() const override { return m_options.url.backend(); }

private:
    void connect(); // throws StoreUnavailable (nothing sent)
    RedisEndpoint discover_master();
    LinkTimeouts timeouts() const { return {m_options.connect_timeout, m_options.command_timeout}; }

    RedisStoreOptions m_options;
    RedisLink m_link;
    RedisEndpoint m_master;       // the server in use (for Sentinel: the master found)
    size_t m_next_sentinel = 0;   // the Sentinel that answered last is asked first
};

} // namespace wr::state
