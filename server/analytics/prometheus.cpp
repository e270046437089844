// Writes metrics in the Prometheus text format.
#include "analytics/prometheus.h"

#include <algorithm>
#include <cstdio>

namespace wr::analytics {

void family(std::string& out, const char* name, const char* type, const char* help) {
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help;
    out += "\n# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
}

namespace {

// node, zone, room: the node first, since every series has it.
std::string room_labels(const std::string& node, const RoomMetrics& room) {
    return node + ",zone=\"" + escape_label(room.zone) + "\",room=\"" + escape_label(room.room) + "\"";
}

std::string seconds(int64_t ns) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", static_cast<double>(ns) / 1e9);
    return buffer;
}

} // namespace

void LatencyHistogram::observe(std::chrono::nanoseconds took) {
    size_t bucket = 0;
    while (bucket < k_bounds_ns.size() && took.count() > k_bounds_ns[bucket]) ++bucket;
    m_counts[bucket].fetch_add(1, std::memory_order_relaxed);
    m_sum_ns.fetch_add(static_cast<uint64_t>(std::max<int64_t>(0, took.count())), std::memory_order_relaxed);
}

LatencyHistogram::Snapshot LatencyHistogram::snapshot() const {
    Snapshot snapshot;
    for (size_t i = 0; i < m_counts.size(); ++i) {
        snapshot.counts[i] = m_counts[i].load(std::memory_order_relaxed);
        snapshot.count += snapshot.counts[i];
    }
    snapshot.sum_ns = m_sum_ns.load(std::memory_order_relaxed);
    return snapshot;
}

std::string escape_label(const std::string& value) {
    std::string out;
    for (const char c : value) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

std::string prometheus_text(const std::vector<RoomMetrics>& rooms, const LatencyHistogram::Snapshot& decisions,
                            const NodeMetrics& node) {
    const std::string node_label = "node=\"" + escape_label(node.name) + "\"";
    const auto labels = [&node_label](const RoomMetrics& room) { return room_labels(node_label, room); };
    std::string out;
    family(out, "wr_node_info", "gauge", "This node: its role and where its admission state lives (always 1).");
    out += "wr_node_info{" + node_label + ",role=\"" + escape_label(node.role) + "\",state_backend=\"" +
           escape_label(node.state_backend) + "\"} 1\n";
    if (node.control_reachable) {
        family(out, "wr_control_reachable", "gauge", "1 while the last exchange with the control node worked (edge nodes).");
        out += "wr_control_reachable{" + node_label + "} " + (*node.control_reachable ? "1" : "0") + "\n";
    }
    family(out, "wr_room_active_users", "gauge", "Admitted users whose session is live.");
    for (const RoomMetrics& room : rooms) out += "wr_room_active_users{" + labels(room) + "} " + std::to_string(room.active_users) + "\n";
    family(out, "wr_room_queued_users", "gauge", "Users waiting who checked in within the last minutes.");
    for (const RoomMetrics& room : rooms) out += "wr_room_queued_users{" + labels(room) + "} " + std::to_string(room.queued_users) + "\n";
    family(out, "wr_room_total_active_users_limit", "gauge", "The total_active_users limit in force.");
    for (const RoomMetrics& room : rooms)
        out += "wr_room_total_active_users_limit{" + labels(room) + "} " + std::to_string(room.total_active_users_limit) + "\n";
    family(out, "wr_room_new_users_per_minute_limit", "gauge", "The new_users_per_minute limit in force.");
    for (const RoomMetrics& room : rooms)
        out += "wr_room_new_users_per_minute_limit{" + labels(room) + "} " + std::to_string(room.new_users_per_minute_limit) + "\n";
    if (std::any_of(rooms.begin(), rooms.end(), [](const RoomMetrics& room) { return !room.origin_guard_state.empty(); })) {
        family(out, "wr_room_origin_guard", "gauge",
               "The origin guard's state (1 on the room's current state): throttling and recovering hold the limits in force "
               "below the configured ones.");
        for (const RoomMetrics& room : rooms) {
            if (room.origin_guard_state.empty()) continue;
            for (const char* state : {"off", "content", "throttling", "recovering"})
                out += "wr_room_origin_guard{" + labels(room) + ",state=\"" + state + "\"} " + (room.origin_guard_state == state ? "1" : "0") +
                       "\n";
        }
    }
    family(out, "wr_requests_total", "counter", "Edge requests to a room, by outcome.");
    for (const RoomMetrics& room : rooms)
        for (size_t i = 0; i < k_outcomes; ++i)
            out += "wr_requests_total{" + labels(room) + ",outcome=\"" + outcome_name(static_cast<Outcome>(i)) + "\"} " +
                   std::to_string(room.totals.requests[i]) + "\n";
    family(out, "wr_new_users_admitted_total", "counter", "Users let in to the origin.");
    for (const RoomMetrics& room : rooms)
        out += "wr_new_users_admitted_total{" + labels(room) + "} " + std::to_string(room.totals.new_admitted) + "\n";
    family(out, "wr_sessions_revoked_total", "counter", "Sessions ended by the origin's revoke command.");
    for (const RoomMetrics& room : rooms)
        out += "wr_sessions_revoked_total{" + labels(room) + "} " + std::to_string(room.totals.revoked) + "\n";
    family(out, "wr_turnstile_total", "counter",
           "Turnstile on the queue page: widgets shown (challenge), and tokens siteverify passed (success) or failed (failure).");
    for (const RoomMetrics& room : rooms) {
        const std::pair<const char*, uint64_t> outcomes[] = {{"challenge", room.totals.turnstile_challenges},
                                                             {"success", room.totals.turnstile_successes},
                                                             {"failure", room.totals.turnstile_failures}};
        for (const auto& [outcome, count] : outcomes)
            out += "wr_turnstile_total{" + labels(room) + ",outcome=\"" + outcome + "\"} " + std::to_string(count) + "\n";
    }
    family(out, "wr_room_origin_responses_total", "counter", "Answers from the origin to the room's proxied requests, by status class.");
    for (const RoomMetrics& room : rooms)
        for (size_t i = 0; i < room.totals.origin_answers.size(); ++i)
            out += "wr_room_origin_responses_total{" + labels(room) + ",class=\"" + std::to_string(i + 1) + "xx\"} " +
                   std::to_string(room.totals.origin_answers[i]) + "\n";
    family(out, "wr_room_origin_errors_total", "counter", "The room's proxied requests the origin gave no answer to, by kind.");
    for (const RoomMetrics& room : rooms)
        for (size_t i = 0; i < room.totals.origin_errors.size(); ++i)
            out += "wr_room_origin_errors_total{" + labels(room) + ",kind=\"" +
                   model::origin_error_name(static_cast<model::OriginErrorKind>(i)) + "\"} " + std::to_string(room.totals.origin_errors[i]) +
                   "\n";
    family(out, "wr_infinite_queue_refreshes_total", "counter", "Queue pages served to visitors in the infinite queue.");
    for (const RoomMetrics& room : rooms)
        out += "wr_infinite_queue_refreshes_total{" + labels(room) + "} " + std::to_string(room.totals.infinite_queue_refreshes) + "\n";
    family(out, "wr_admission_decision_seconds", "histogram", "Time the edge takes to decide a request (route, cookie, admission).");
    uint64_t cumulative = 0;
    for (size_t i = 0; i < LatencyHistogram::k_bounds_ns.size(); ++i) {
        cumulative += decisions.counts[i];
        out += "wr_admission_decision_seconds_bucket{" + node_label + ",le=\"" + seconds(LatencyHistogram::k_bounds_ns[i]) + "\"} " +
               std::to_string(cumulative) + "\n";
    }
    out += "wr_admission_decision_seconds_bucket{" + node_label + ",le=\"+Inf\"} " + std::to_string(decisions.count) + "\n";
    out += "wr_admission_decision_seconds_sum{" + node_label + "} " + seconds(static_cast<int64_t>(decisions.sum_ns)) + "\n";
    out += "wr_admission_decision_seconds_count{" + node_label + "} " + std::to_string(decisions.count) + "\n";
    family(out, "wr_edge_requests_total", "counter",
           "Requests the edge has read since it started, by protocol (HTTP/1.x, HTTP/2 over TLS, or cleartext HTTP/2).");
    out += "wr_edge_requests_total{" + node_label + ",protocol=\"http/1.1\"} " + std::to_string(node.http1_requests) + "\n";
    out += "wr_edge_requests_total{" + node_label + ",protocol=\"h2\"} " + std::to_string(node.h2_requests) + "\n";
    out += "wr_edge_requests_total{" + node_label + ",protocol=\"h2c\"} " + std::to_string(node.h2c_requests) + "\n";
    family(out, "wr_edge_http2_connections_total", "counter",
           "HTTP/2 connections the edge has opened since it started (ALPN h2, or cleartext with prior knowledge).");
    out += "wr_edge_http2_connections_total{" + node_label + "} " + std::to_string(node.h2_connections) + "\n";
    family(out, "wr_edge_http2_calm_goaways_total", "counter",
           "HTTP/2 connections the edge ended with GOAWAY ENHANCE_YOUR_CALM: streams reset too fast, or a frame flood.");
    out += "wr_edge_http2_calm_goaways_total{" + node_label + "} " + std::to_string(node.h2_calm_goaways) + "\n";
    family(out, "wr_edge_open_tunnels", "gauge", "Upgraded connections (WebSockets and others) the edge is tunnelling now.");
    out += "wr_edge_open_tunnels{" + node_label + "} " + std::to_string(node.open_tunnels) + "\n";
    family(out, "wr_edge_tunnels_opened_total", "counter", "Upgraded connections the edge has tunnelled since it started.");
    out += "wr_edge_tunnels_opened_total{" + node_label + "} " + std::to_string(node.tunnels_opened) + "\n";
    family(out, "wr_access_log_lines_total", "counter", "Access log lines the edge has written since it started.");
    out += "wr_access_log_lines_total{" + node_label + "} " + std::to_string(node.access_log_lines) + "\n";
    family(out, "wr_access_log_lines_dropped_total", "counter",
           "Access log lines dropped because the file could not keep up (a slow disk, a full pipe): never queued without bound.");
    out += "wr_access_log_lines_dropped_total{" + node_label + "} " + std::to_string(node.access_log_dropped) + "\n";
    if (node.state) out += state_metrics_text(*node.state);
    out += origin_metrics_text(node_label, node.origins);
    return out;
}

std::string state_metrics_text(const StateMetrics& state) {
    const std::string node = "node=\"" + escape_label(state.node) + "\"";
    std::string out;
    family(out, "wr_state_connected", "gauge", "1 while this node reaches the state it shares with other nodes (always 1 in memory).");
    out += "wr_state_connected{" + node + ",backend=\"" + escape_label(state.backend) + "\"} " + (state.connected ? "1" : "0") + "\n";
    if (state.backend == "memory") return out;
    family(out, "wr_state_failure_mode", "gauge", "What admission does while the shared state cannot be reached (1 for the mode in force).");
    for (const char* mode : {"local-share", "open", "closed"})
        out += "wr_state_failure_mode{" + node + ",mode=\"" + mode + "\"} " + (state.failure_mode == mode ? "1" : "0") + "\n";
    family(out, "wr_state_degraded_rooms", "gauge", "Rooms this node admits to under the failure mode now, for want of a grant from the shared state.");
    out += "wr_state_degraded_rooms{" + node + "} " + std::to_string(state.rooms_degraded) + "\n";
    family(out, "wr_state_syncs_total", "counter", "Round trips to the shared state that succeeded.");
    out += "wr_state_syncs_total{" + node + "} " + std::to_string(state.syncs) + "\n";
    family(out, "wr_state_sync_failures_total", "counter", "Round trips to the shared state that failed.");
    out += "wr_state_sync_failures_total{" + node + "} " + std::to_string(state.sync_failures) + "\n";
    family(out, "wr_state_room_sync_failures_total", "counter",
           "Room-syncs that failed: every room of a round trip that failed, and a room that failed alone (a damaged key, a Cluster master away).");
    out += "wr_state_room_sync_failures_total{" + node + "} " + std::to_string(state.room_sync_failures) + "\n";
    family(out, "wr_state_outages_total", "counter", "Times the shared state became unreachable.");
    out += "wr_state_outages_total{" + node + "} " + std::to_string(state.outages) + "\n";
    family(out, "wr_state_sync_duration_seconds", "histogram", "Time one round trip to the shared state takes, all active rooms together.");
    uint64_t cumulative = 0;
    char bound[32];
    for (const auto& [le, count] : state.sync_buckets) {
        cumulative += count;
        std::snprintf(bound, sizeof bound, "%g", le);
        out += "wr_state_sync_duration_seconds_bucket{" + node + ",le=\"" + bound + "\"} " + std::to_string(cumulative) + "\n";
    }
    out += "wr_state_sync_duration_seconds_bucket{" + node + ",le=\"+Inf\"} " + std::to_string(state.sync_count) + "\n";
    std::snprintf(bound, sizeof bound, "%g", state.sync_sum_seconds);
    out += "wr_state_sync_duration_seconds_sum{" + node + "} " + bound + "\n";
    out += "wr_state_sync_duration_seconds_count{" + node + "} " + std::to_string(state.sync_count) + "\n";
    return out;
}

} // namespace wr::analytics
