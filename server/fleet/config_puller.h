#pragma once
// An edge's configuration: pulled from the control node every poll interval (an unchanged one
// costs a 304), compiled and published to the edge's ConfigSource, and kept in
// <data-dir>/edge-config.json (mode 0600, written atomically) so that the edge keeps serving —
// and can start — while the control node is away. The request path never waits for any of it.
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

#include "analytics/room_stats.h"
#include "edge/config_source.h"
#include "fleet/control_client.h"
#include "util/clock.h"

namespace wr::origin {
class Registry;
}

namespace wr::fleet {

inline constexpr std::string_view k_config_cache_file = "edge-config.json";

class ConfigPuller {
public:
    // What the edge serves and where it came from, for /healthz and /metrics.
    struct State {
        std::string etag;
        std::string source;            // "control" or "cache"
        util::TimePoint fetched_on{};  // when the control node handed it out
        bool control_reachable = false;
        util::TimePoint unreachable_since{};
        std::string last_error;        // "" while the last poll worked
    };

    // Publishes the first snapshot before returning: the control node's, or, when it cannot be
    // reached, the cached copy (logged). Throws a one-line std::runtime_error when the control
    // node refuses the token (cache or not: a wrong token is a mistake to fix now), or when it
    // cannot be reached and there is no cached copy.
    ConfigPuller(ControlClient client, std::filesystem::path cache_file, analytics::Registry& registry, origin::Registry& origins,
                 edge::ConfigSource& target,
                 const util::Clock& clock, std::chrono::milliseconds interval = std::chrono::milliseconds{1000});
    ~ConfigPuller();

    void start();
    void stop();
    // One poll now (tests).
    void poll();
    State state() const;

private:
    enum class PollResult { unchanged, applied, failed };
    PollResult fetch_and_apply();
    bool apply(const std::string& body, const std::string& etag, util::TimePoint fetched_on, const std::string& source);
    bool load_cache();
    void run();

    ControlClient m_client;
    std::filesystem::path m_cache_file;
    analytics::Registry& m_registry;
    origin::Registry& m_origins;
    edge::ConfigSource& m_target;
    const util::Clock& m_clock;
    std::chrono::milliseconds m_interval;
    std::mutex m_poll_mutex; // one poll at a time (the thread, or a test's poll())
    mutable std::mutex m_state_mutex;
    State m_state;
    std::thread m_thread;
    std::mutex m_stop_mutex;
    std::condition_variable m_stop_signal;
    bool m_stopping = false;
};

} // namespace wr::fleet
