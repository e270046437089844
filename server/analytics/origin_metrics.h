#pragma once
// The zones' origins as /metrics shows them: the connection cap (limit, open, idle, waiting,
// waits and timeouts) and what the origin did (answers by status class, failures by kind, time to
// first byte). Filled by the composition root from origin::Registry, so analytics need not
// know the origin side.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/histogram.h"
#include "model/minute_record.h"

namespace wr::analytics {

struct OriginMetrics {
    std::string zone; // the zone's name
    int64_t connection_limit = 0; // 0: no cap
    int64_t connections_open = 0;
    int64_t connections_idle = 0;
    int64_t requests_waiting = 0;
    int64_t most_connections_open = 0;
    uint64_t requests_waited = 0;
    uint64_t queue_timeouts = 0;
    std::array<uint64_t, model::k_status_classes> answers{};
    std::array<uint64_t, model::k_origin_error_kinds> errors{};
    model::Histogram ttfb_ms;
};

// The wr_origin_* families for every zone, labelled with `node_label` (node="…").
std::string origin_metrics_text(const std::string& node_label, const std::vector<OriginMetrics>& origins);

} // namespace wr::analytics
