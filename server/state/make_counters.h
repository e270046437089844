#pragma once
// Builds the counters `wr serve` asked for: in memory, or shared through Redis (directly or
// through Sentinel, or on a Redis Cluster). The composition root calls this; nothing else names an implementation.
#include <chrono>
#include <memory>
#include <string>

#include "state/counters.h"
#include "state/shared_store.h"
#include "state/state_url.h"
#include "state/shares.h"
#include "util/clock.h"

namespace wr::state {

struct StateOptions {
    std::string url = "memory";                 // --state
    std::chrono::milliseconds sync_interval{250}; // --state-sync-interval
    std::string failure_mode = "local-share";   // --state-failure
    std::string node_name = "wr";               // --node-name
};

// "local-share", "open" or "closed"; throws std::invalid_argument naming the choices.
FailureMode parse_failure_mode(const std::string& text);

// The store a shared --state URL names (redis://, redis-sentinel://, redis-cluster://), with the timeouts its
// sync interval calls for; nothing is connected yet.
std::unique_ptr<SharedStore> make_shared_store(const StateUrl& url, std::chrono::milliseconds sync_interval);

// Throws std::invalid_argument with the flag's name first ("--state: …") for a bad setting.
// An unreachable Redis is not an error here: the counters start degraded and log it.
std::unique_ptr<Counters> make_counters(const StateOptions& options, const util::Clock& clock);

} // namespace wr::state
