#pragma once
// How this node reaches the state it shares with other nodes, as /metrics shows it. Filled by
// the composition root from state::Counters::health(), so analytics need not know state.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wr::analytics {

struct StateMetrics {
    std::string node;          // --node-name
    std::string backend;       // memory, redis, redis-sentinel, redis-cluster
    bool connected = true;
    std::string failure_mode;  // local-share, open, closed ("" for memory)
    int64_t rooms_degraded = 0;
    uint64_t syncs = 0;
    uint64_t sync_failures = 0;
    uint64_t room_sync_failures = 0;
    uint64_t outages = 0;
    // Round-trip times: (upper bound in seconds, count in that bucket), then the count above them.
    std::vector<std::pair<double, uint64_t>> sync_buckets;
    uint64_t sync_over = 0;
    uint64_t sync_count = 0;
    double sync_sum_seconds = 0;
};

// The families, in Prometheus text format: wr_state_connected, wr_state_failure_mode,
// wr_state_degraded_rooms, wr_state_syncs_total, wr_state_sync_failures_total,
// wr_state_room_sync_failures_total, wr_state_outages_total and the histogram wr_state_sync_duration_seconds.
std::string state_metrics_text(const StateMetrics& state);

} // namespace wr::analytics
