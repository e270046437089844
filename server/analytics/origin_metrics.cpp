// The wr_origin_* families of /metrics.
#include "analytics/origin_metrics.h"

#include <cstdio>

#include "analytics/prometheus.h"

namespace wr::analytics {
namespace {

// Time-to-first-byte buckets, in seconds: fine where a healthy origin answers, coarser above.
constexpr double k_ttfb_bounds_seconds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

} // namespace

std::string origin_metrics_text(const std::string& node_label, const std::vector<OriginMetrics>& origins) {
    std::string out;
    if (origins.empty()) return out;
    const auto labels = [&node_label](const OriginMetrics& origin) { return node_label + ",zone=\"" + escape_label(origin.zone) + "\""; };
    const auto gauge = [&](const char* name, const char* type, const char* help, auto value_of) {
        family(out, name, type, help);
        for (const OriginMetrics& origin : origins) out += std::string(name) + "{" + labels(origin) + "} " + std::to_string(value_of(origin)) + "\n";
    };
    gauge("wr_origin_connection_limit", "gauge", "The zone's max_origin_connections (0: no cap).",
          [](const OriginMetrics& o) { return o.connection_limit; });
    gauge("wr_origin_connections", "gauge", "Connections to the zone's origin open now, idle pooled ones included.",
          [](const OriginMetrics& o) { return o.connections_open; });
    gauge("wr_origin_connections_idle", "gauge", "Of those, connections sitting idle in a pool.",
          [](const OriginMetrics& o) { return o.connections_idle; });
    gauge("wr_origin_connections_most", "gauge", "The most connections to the zone's origin ever open at once.",
          [](const OriginMetrics& o) { return o.most_connections_open; });
    gauge("wr_origin_requests_waiting", "gauge", "Requests waiting in wr for a connection under the zone's cap.",
          [](const OriginMetrics& o) { return o.requests_waiting; });
    gauge("wr_origin_requests_waited_total", "counter", "Requests that had to wait for a connection under the zone's cap.",
          [](const OriginMetrics& o) { return o.requests_waited; });
    gauge("wr_origin_queue_timeouts_total", "counter", "Requests that waited out origin_queue_timeout_seconds and got a 503.",
          [](const OriginMetrics& o) { return o.queue_timeouts; });
    family(out, "wr_origin_responses_total", "counter", "Answers from the zone's origin, by status class.");
    for (const OriginMetrics& origin : origins)
        for (size_t i = 0; i < origin.answers.size(); ++i)
            out += "wr_origin_responses_total{" + labels(origin) + ",class=\"" + std::to_string(i + 1) + "xx\"} " +
                   std::to_string(origin.answers[i]) + "\n";
    family(out, "wr_origin_errors_total", "counter", "Proxied requests the zone's origin gave no answer to, by kind.");
    for (const OriginMetrics& origin : origins)
        for (size_t i = 0; i < origin.errors.size(); ++i)
            out += "wr_origin_errors_total{" + labels(origin) + ",kind=\"" +
                   model::origin_error_name(static_cast<model::OriginErrorKind>(i)) + "\"} " + std::to_string(origin.errors[i]) + "\n";
    family(out, "wr_origin_ttfb_seconds", "histogram", "Time from a request sent to the origin to its answer's head.");
    char bound[32];
    for (const OriginMetrics& origin : origins) {
        // The histogram's buckets are at most 9 % wide: each is counted under the first bound at or above its top.
        const auto& buckets = origin.ttfb_ms.buckets();
        uint64_t total = 0;
        double sum_ms = 0;
        for (size_t b = 0; b < buckets.size(); ++b) {
            total += buckets[b];
            sum_ms += static_cast<double>(buckets[b]) * static_cast<double>(model::bucket_upper_bound(b));
        }
        for (const double le : k_ttfb_bounds_seconds) {
            uint64_t within = 0;
            for (size_t b = 0; b < buckets.size(); ++b)
                if (static_cast<double>(model::bucket_upper_bound(b)) <= le * 1000) within += buckets[b];
            std::snprintf(bound, sizeof bound, "%g", le);
            out += "wr_origin_ttfb_seconds_bucket{" + labels(origin) + ",le=\"" + bound + "\"} " + std::to_string(within) + "\n";
        }
        out += "wr_origin_ttfb_seconds_bucket{" + labels(origin) + ",le=\"+Inf\"} " + std::to_string(total) + "\n";
        std::snprintf(bound, sizeof bound, "%g", sum_ms / 1000);
        out += "wr_origin_ttfb_seconds_sum{" + labels(origin) + "} " + bound + "\n";
        out += "wr_origin_ttfb_seconds_count{" + labels(origin) + "} " + std::to_string(total) + "\n";
    }
    return out;
}

} // namespace wr::analytics
