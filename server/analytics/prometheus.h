#pragma once
// Prometheus text exposition (format 0.0.4) of wr's live figures and counters.
#include <array>
#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "analytics/room_stats.h"
#include "analytics/origin_metrics.h"
#include "analytics/state_metrics.h"

namespace wr::analytics {

// Time taken by admission decisions, in fixed buckets; cumulative since start. Lock-free.
class LatencyHistogram {
public:
    static constexpr std::array<int64_t, 12> k_bounds_ns = {250, 500, 1'000, 2'000, 5'000, 10'000,
                                                            25'000, 50'000, 100'000, 250'000, 1'000'000, 10'000'000};
    void observe(std::chrono::nanoseconds took);

    struct Snapshot {
        std::array<uint64_t, k_bounds_ns.size() + 1> counts{}; // the last is above every bound
        uint64_t sum_ns = 0;
        uint64_t count = 0;
    };
    Snapshot snapshot() const;

private:
    std::array<std::atomic<uint64_t>, k_bounds_ns.size() + 1> m_counts{};
    std::atomic<uint64_t> m_sum_ns{0};
};

struct RoomMetrics {
    std::string zone;
    std::string room;
    int64_t active_users = 0;
    int64_t queued_users = 0;
    int64_t total_active_users_limit = 0;
    int64_t new_users_per_minute_limit = 0;
    Totals totals;
    std::string origin_guard_state; // off, content, throttling, recovering; "" where no guard is known (edge nodes)
};

// The node the figures come from: every series carries its name as the label node.
struct NodeMetrics {
    std::string name = "wr";
    std::string role = "all";                // all, control, edge
    std::string state_backend = "memory";    // the admission state's store
    std::optional<StateMetrics> state;       // how it reaches the admission state (wr_state_* families)
    std::optional<bool> control_reachable;   // edges: the last exchange with the control node worked
    uint64_t http1_requests = 0;             // requests the edge read over HTTP/1.x
    uint64_t h2_requests = 0;                // and over HTTP/2 (streams) with TLS
    uint64_t h2c_requests = 0;               // and over cleartext HTTP/2 (--edge-h2c)
    uint64_t h2_connections = 0;             // HTTP/2 connections opened, either way
    uint64_t h2_calm_goaways = 0;            // HTTP/2 connections ended for resetting streams or flooding
    int64_t open_tunnels = 0;                // upgraded connections the edge tunnels now
    uint64_t tunnels_opened = 0;             // and since it started
    uint64_t access_log_lines = 0;           // access log lines written
    uint64_t access_log_dropped = 0;         // and dropped because the disk could not keep up
    std::vector<OriginMetrics> origins;      // each zone's origin (wr_origin_* families)
};

std::string prometheus_text(const std::vector<RoomMetrics>& rooms, const LatencyHistogram::Snapshot& decisions,
                            const NodeMetrics& node = {});

// Appends a family's HELP and TYPE lines.
void family(std::string& out, const char* name, const char* type, const char* help);

// "a\"b" → "a\\\"b": a label value as the format wants it.
std::string escape_label(const std::string& value);

} // namespace wr::analytics
