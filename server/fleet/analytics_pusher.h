#pragma once
// An edge's analytics and live figures, on their way to the control node: every interval a
// background thread drains the edge's per-minute counters into the outbox and pushes the next
// batch with a report of the node's live figures and state health. Counts wait in the outbox
// while the control node is away (late minutes merge when they arrive); on stop, what could not
// be sent is kept in <data-dir>/analytics-outbox.json (mode 0600) and sent after the restart.
// The control node's answer carries the origin guard's limits for the rooms it holds down; the
// edge applies them, and goes back to the configured limits when it has not heard from the
// control node for k_guard_hold (a guard nobody runs must not hold a room down for ever).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

#include "analytics/room_stats.h"
#include "model/live_status.h"
#include "edge/config_source.h"
#include "fleet/control_client.h"
#include "fleet/outbox.h"
#include "origin/registry.h"
#include "state/counters.h"
#include "util/clock.h"

namespace wr::fleet {

inline constexpr std::string_view k_outbox_file = "analytics-outbox.json";

struct PusherSources {
    analytics::Registry& registry;        // the edge's counters, drained here
    const edge::ConfigSource& config;     // which rooms exist
    const model::LiveStatus& live;      // the edge's live figures per room
    const state::Counters& counters;      // its health
    origin::Registry* origins = nullptr;  // where the guard's limits go (nullptr: not applied)
};

inline constexpr std::chrono::seconds k_guard_hold{120};

class AnalyticsPusher {
public:
    AnalyticsPusher(ControlClient client, std::filesystem::path outbox_file, PusherSources sources, std::string node_name,
                    const util::Clock& clock, std::chrono::milliseconds interval = std::chrono::milliseconds{2000});
    ~AnalyticsPusher();

    void start();
    // Pushes what is left (one last round) and keeps what could not be sent in the outbox file.
    void stop();
    // One round now (tests).
    void push_now();
    // Whether the last push was answered.
    bool control_reachable() const;

private:
    void round();
    NodeReport report(util::TimePoint now) const;
    void run();

    ControlClient m_client;
    std::filesystem::path m_outbox_file;
    PusherSources m_sources;
    std::string m_node_name;
    const util::Clock& m_clock;
    std::chrono::milliseconds m_interval;
    std::mutex m_round_mutex; // guards m_outbox; one round at a time
    Outbox m_outbox;
    std::string m_last_error; // guarded by m_round_mutex
    std::atomic<bool> m_reachable{true};
    util::TimePoint m_guard_heard{};   // when the control node last sent the guard's limits (round mutex)
    bool m_guard_applied = false;      // some limits of the control node's are in force (round mutex)
    std::thread m_thread;
    std::mutex m_stop_mutex;
    std::condition_variable m_stop_signal;
    bool m_stopping = false;
    bool m_stopped = false;
};

} // namespace wr::fleet
