// The /metrics text, read back by a strict parser.
#include <doctest/doctest.h>

#include "analytics/prometheus.h"
#include "support/prometheus_parser.h"

TEST_CASE("analytics: the Prometheus text parses, with escaped labels and a consistent histogram") {
    wr::analytics::RoomMetrics room;
    room.zone = "example.com";
    room.room = "say \"hi\"\\now";
    room.active_users = 12;
    room.queued_users = 3;
    room.total_active_users_limit = 200;
    room.new_users_per_minute_limit = 100;
    room.totals.requests = {5, 6, 0, 1, 2};
    room.totals.new_admitted = 5;
    room.totals.revoked = 1;
    room.totals.turnstile_challenges = 7;
    room.totals.turnstile_failures = 2;
    room.totals.infinite_queue_refreshes = 9;
    wr::analytics::LatencyHistogram decisions;
    decisions.observe(std::chrono::nanoseconds{300});
    decisions.observe(std::chrono::nanoseconds{800});
    decisions.observe(std::chrono::nanoseconds{2'000'000'000});
    wr::analytics::NodeMetrics node;
    node.name = "edge-1";
    node.role = "edge";
    wr::analytics::StateMetrics state;
    state.node = "edge-1";
    state.backend = "redis";
    state.connected = false;
    state.failure_mode = "local-share";
    node.state = state;
    node.control_reachable = true;
    const std::string text = wr::analytics::prometheus_text({room}, decisions.snapshot(), node);
    const wr::test::Exposition metrics = wr::test::parse_prometheus(text);
    const std::map<std::string, std::string> labels{{"node", "edge-1"}, {"zone", "example.com"}, {"room", "say \"hi\"\\now"}};
    const std::map<std::string, std::string> node_only{{"node", "edge-1"}};
    CHECK(metrics.types.at("wr_room_active_users") == "gauge");
    CHECK(metrics.types.at("wr_requests_total") == "counter");
    CHECK(metrics.types.at("wr_admission_decision_seconds") == "histogram");
    CHECK(metrics.value("wr_room_active_users", labels) == 12);
    CHECK(metrics.value("wr_room_queued_users", labels) == 3);
    CHECK(metrics.value("wr_requests_total", labels, "outcome", "queued") == 6);
    CHECK(metrics.value("wr_sessions_revoked_total", labels) == 1);
    CHECK(metrics.value("wr_turnstile_total", labels, "outcome", "challenge") == 7);
    CHECK(metrics.value("wr_turnstile_total", labels, "outcome", "success") == 0);
    CHECK(metrics.value("wr_turnstile_total", labels, "outcome", "failure") == 2);
    CHECK(metrics.value("wr_infinite_queue_refreshes_total", labels) == 9);
    CHECK(metrics.value("wr_admission_decision_seconds_count", node_only) == 3);
    CHECK(metrics.value("wr_admission_decision_seconds_bucket", {{"node", "edge-1"}, {"le", "1e-06"}}) == 2);
    CHECK(metrics.value("wr_admission_decision_seconds_bucket", {{"node", "edge-1"}, {"le", "2.5e-07"}}) == 0);
    CHECK(metrics.value("wr_admission_decision_seconds_sum", node_only) == doctest::Approx(2.0000011));
    // The node itself: its role and its links.
    CHECK(metrics.value("wr_node_info", {{"node", "edge-1"}, {"role", "edge"}, {"state_backend", "memory"}}) == 1);
    CHECK(metrics.value("wr_state_connected", {{"node", "edge-1"}, {"backend", "redis"}}) == 0);
    CHECK(metrics.value("wr_state_failure_mode", node_only, "mode", "local-share") == 1);
    CHECK(metrics.value("wr_control_reachable", node_only) == 1);
    // A node that is not an edge has no control node to reach.
    CHECK(wr::analytics::prometheus_text({room}, decisions.snapshot()).find("wr_control_reachable") == std::string::npos);
}

TEST_CASE("analytics: the edge's tunnels are a gauge of open ones and a counter of opened ones") {
    wr::analytics::NodeMetrics node;
    node.name = "edge-2";
    node.open_tunnels = 2;
    node.tunnels_opened = 5;
    const std::string text = wr::analytics::prometheus_text({}, {}, node);
    const wr::test::Exposition metrics = wr::test::parse_prometheus(text);
    CHECK(metrics.types.at("wr_edge_open_tunnels") == "gauge");
    CHECK(metrics.types.at("wr_edge_tunnels_opened_total") == "counter");
    CHECK(metrics.value("wr_edge_open_tunnels", {{"node", "edge-2"}}) == 2);
    CHECK(metrics.value("wr_edge_tunnels_opened_total", {{"node", "edge-2"}}) == 5);
}

TEST_CASE("analytics: the edge's requests are counted by protocol, and its HTTP/2 connections and calm GOAWAYs") {
    wr::analytics::NodeMetrics node;
    node.name = "edge-2";
    node.http1_requests = 7;
    node.h2_requests = 11;
    node.h2c_requests = 13;
    node.h2_connections = 3;
    node.h2_calm_goaways = 1;
    const wr::test::Exposition metrics = wr::test::parse_prometheus(wr::analytics::prometheus_text({}, {}, node));
    CHECK(metrics.types.at("wr_edge_requests_total") == "counter");
    CHECK(metrics.value("wr_edge_requests_total", {{"node", "edge-2"}, {"protocol", "http/1.1"}}) == 7);
    CHECK(metrics.value("wr_edge_requests_total", {{"node", "edge-2"}, {"protocol", "h2"}}) == 11);
    CHECK(metrics.value("wr_edge_requests_total", {{"node", "edge-2"}, {"protocol", "h2c"}}) == 13);
    CHECK(metrics.value("wr_edge_http2_connections_total", {{"node", "edge-2"}}) == 3);
    CHECK(metrics.value("wr_edge_http2_calm_goaways_total", {{"node", "edge-2"}}) == 1);
}

TEST_CASE("analytics: the strict parser refuses what Prometheus refuses") {
    CHECK_THROWS_WITH(wr::test::parse_prometheus("a 1\n"), "line 1: no TYPE for a");
    CHECK_THROWS_WITH(wr::test::parse_prometheus("# TYPE a gauge\na{b=\"x} 1\n"), "line 2: unterminated label value");
    CHECK_THROWS_WITH(wr::test::parse_prometheus("# TYPE a gauge\na one\n"), "line 2: not a number: one");
    CHECK_THROWS_WITH(wr::test::parse_prometheus("# TYPE a gauge\na 1\na 2\n"), "line 3: the same series twice: a");
    CHECK_THROWS_WITH(wr::test::parse_prometheus("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n"),
                      "line 0: h buckets are not cumulative");
}
