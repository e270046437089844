// Chooses and builds the counters.
#include "state/make_counters.h"

#include <stdexcept>

#include "state/memory_counters.h"
#include "state/redis_cluster_store.h"
#include "state/redis_store.h"
#include "state/shared_counters.h"
#include "state/state_url.h"

namespace wr::state {

FailureMode parse_failure_mode(const std::string& text) {
    if (text == "local-share") return FailureMode::local_share;
    if (text == "open") return FailureMode::open;
    if (text == "closed") return FailureMode::closed;
    throw std::invalid_argument("expected local-share, open or closed, not '" + text + "'");
}

std::unique_ptr<Counters> make_counters(const StateOptions& options, const util::Clock& clock) {
    StateUrl url;
    try {
        url = parse_state_url(options.url);
    } catch (const std::invalid_argument& error) {
        throw std::invalid_argument(std::string("--state: ") + error.what());
    }
    FailureMode failure_mode = FailureMode::local_share;
    try {
        failure_mode = parse_failure_mode(options.failure_mode);
    } catch (const std::invalid_argument& error) {
        throw std::invalid_argument(std::string("--state-failure: ") + error.what());
    }
    if (options.sync_interval < std::chrono::milliseconds{10} || options.sync_interval > std::chrono::seconds{10})
        throw std::invalid_argument("--state-sync-interval: must be between 10ms and 10s");
    if (url.kind == StateUrl::Kind::memory) return std::make_unique<MemoryCounters>();

    SharedCountersOptions shared;
    shared.node_name = options.node_name;
    shared.sync_interval = options.sync_interval;
    shared.failure_mode = failure_mode;
    return std::make_unique<SharedCounters>(shared, make_shared_store(url, options.sync_interval), clock);
}

std::unique_ptr<SharedStore> make_shared_store(const StateUrl& url, std::chrono::milliseconds sync_interval) {
    // A round trip slower than this counts as a failure: the failure mode takes over instead
    // of admissions stalling on a sick server.
    const auto command_timeout = std::max<std::chrono::milliseconds>(std::chrono::seconds{1}, 2 * sync_interval);
    if (url.kind == StateUrl::Kind::cluster) {
        RedisClusterStoreOptions store;
        store.url = url;
        store.command_timeout = command_timeout;
        return std::make_unique<RedisClusterStore>(store);
    }
    RedisStoreOptions store;
    store.url = url;
    store.command_timeout = command_timeout;
    return std::make_unique<RedisStore>(store);
}

} // namespace wr::state
