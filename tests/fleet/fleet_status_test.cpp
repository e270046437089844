// The whole room from what each node reports: in-memory nodes add up, nodes on a shared store
// count once, a node that stopped reporting is listed and left out, a degraded one explained.
#include <doctest/doctest.h>

#include "fleet/fleet_status.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using wr::fleet::NodeView;

namespace {

wr::analytics::RoomSample room(int64_t active, int64_t queued, int64_t estimate = 0) {
    return {"r1", active, queued, 1000, 300, estimate};
}

NodeView memory_node(const std::string& name, int64_t active, int64_t queued) {
    NodeView view;
    view.node = name;
    view.role = "edge";
    view.taken = wr::test::k_test_start;
    view.room = room(active, queued);
    return view;
}

NodeView shared_node(const std::string& name, int64_t active, int64_t queued, wr::util::TimePoint taken) {
    NodeView view = memory_node(name, active, queued);
    view.health.backend = "redis";
    view.taken = taken;
    return view;
}

wr::fleet::NodeReport report(const std::string& node, int64_t active, int64_t queued) {
    wr::fleet::NodeReport report;
    report.node = node;
    report.rooms.push_back(room(active, queued, 4));
    return report;
}

} // namespace

TEST_CASE("fleet::combine adds up nodes that count in memory: each holds its own slice of the room") {
    const wr::fleet::Combined combined =
        wr::fleet::combine({memory_node("edge-1", 120, 7), memory_node("edge-2", 60, 0), memory_node("edge-3", 20, 3)});
    CHECK(combined.figures.active_users == 200);
    CHECK(combined.figures.queued_users == 10);
    CHECK(combined.figures.total_active_users_limit == 1000);
    CHECK(combined.figures.new_users_per_minute_limit == 300);
    REQUIRE(combined.nodes.size() == 3);
    for (const auto& node : combined.nodes) {
        CHECK(node.condition == "ok");
        CHECK(node.message.empty());
    }
    CHECK(combined.nodes[1].active_users == 60);
}

TEST_CASE("fleet::combine counts the room once when the nodes share a store: the latest view wins") {
    const auto start = wr::test::k_test_start;
    const wr::fleet::Combined combined = wr::fleet::combine(
        {shared_node("edge-1", 195, 10, start), shared_node("edge-2", 201, 12, start + 1s), shared_node("edge-3", 190, 9, start - 1s)});
    CHECK(combined.figures.active_users == 201);
    CHECK(combined.figures.queued_users == 12);
}

TEST_CASE("fleet::combine leaves a stale node out of the figures and says so") {
    NodeView stale = memory_node("edge-3", 500, 50);
    stale.fresh = false;
    const wr::fleet::Combined combined = wr::fleet::combine({memory_node("edge-1", 10, 1), stale});
    CHECK(combined.figures.active_users == 10);
    CHECK(combined.figures.queued_users == 1);
    REQUIRE(combined.nodes.size() == 2);
    CHECK(combined.nodes[1].condition == "stale");
    CHECK(combined.nodes[1].message == "edge-3: no report since 2026-11-22T10:00:00.000Z; its users are not counted");
}

TEST_CASE("fleet::combine explains a node whose shared state is unreachable") {
    NodeView degraded = shared_node("edge-2", 40, 2, wr::test::k_test_start);
    degraded.health.connected = false;
    degraded.health.failure_mode = "local-share";
    degraded.health.since = wr::test::k_test_start - 90s;
    degraded.health.detail = "connection refused";
    const wr::fleet::Combined combined = wr::fleet::combine({degraded});
    REQUIRE(combined.nodes.size() == 1);
    CHECK(combined.nodes[0].condition == "degraded");
    CHECK(combined.nodes[0].message ==
          "state: redis unreachable on edge-2 since 2026-11-22T09:58:30.000Z, admitting from local share (connection refused)");
    // Its figures still count: it still admits.
    CHECK(combined.figures.active_users == 40);
}

TEST_CASE("fleet::FleetStatus: reports go stale after k_report_fresh_for and are forgotten after k_report_listed_for") {
    wr::fleet::FleetStatus fleet;
    const auto start = wr::test::k_test_start;
    fleet.record(report("edge-1", 30, 2), start);
    fleet.record(report("edge-2", 50, 1), start + 5s);
    CHECK(fleet.figures("r1", start + 6s).active_users == 80);
    CHECK(fleet.figures("r1", start + 6s).max_estimated_minutes == 4);
    // edge-1's report is 11 s old: not counted, still listed.
    CHECK(fleet.figures("r1", start + 11s).active_users == 50);
    const auto nodes = fleet.nodes("r1", start + 11s);
    REQUIRE(nodes.size() == 2);
    CHECK(nodes[0].node == "edge-1");
    CHECK(nodes[0].condition == "stale");
    CHECK(nodes[1].condition == "ok");
    // A new report from edge-1 replaces the old one.
    fleet.record(report("edge-1", 31, 0), start + 12s);
    CHECK(fleet.figures("r1", start + 13s).active_users == 81);
    // An hour later, nobody has reported: nobody is counted, and nobody is listed after that.
    CHECK(fleet.figures("r1", start + 1h).active_users == 0);
    CHECK(fleet.nodes("r1", start + 1h + 13s).empty());
    // A room no node reported has zero figures and every node listed with zeros.
    CHECK(fleet.figures("other", start + 13s).active_users == 0);
    CHECK(fleet.nodes("other", start + 13s).size() == 2);
}

TEST_CASE("fleet::FleetStatus samples every room a fresh node reports, combined, for the analytics collector") {
    wr::fleet::FleetStatus fleet;
    const auto start = wr::test::k_test_start;
    wr::fleet::NodeReport first = report("edge-1", 30, 2);
    first.rooms.push_back({"r2", 5, 0, 400, 200, 0});
    fleet.record(first, start);
    fleet.record(report("edge-2", 50, 1), start);
    const auto samples = fleet.sample(start + 2s);
    REQUIRE(samples.size() == 2);
    CHECK(samples[0].room_id == "r1");
    CHECK(samples[0].active_users == 80);
    CHECK(samples[0].queued_users == 3);
    CHECK(samples[1].room_id == "r2");
    CHECK(samples[1].active_users == 5);
    CHECK(samples[1].total_active_users_limit == 400);
}

namespace {

// A node whose origin guard holds room r1 at 100 active users and 60 a minute, of 1000 and 300.
struct GuardedLocalNode final : wr::model::LiveStatus, wr::analytics::Sampler {
    wr::model::LiveFigures figures(const std::string&, wr::util::TimePoint) const override {
        wr::model::LiveFigures live;
        live.active_users = 90;
        live.total_active_users_limit = 100;
        live.new_users_per_minute_limit = 60;
        return live;
    }
    std::vector<wr::model::NodeStatus> nodes(const std::string&, wr::util::TimePoint) const override { return {}; }
    std::vector<wr::analytics::RoomSample> sample(wr::util::TimePoint) override {
        wr::analytics::RoomSample sample{"r1", 90, 0};
        sample.set_limits(1000, 300, 100, 60);
        return {sample};
    }
};

} // namespace

TEST_CASE("fleet::FleetStatus samples the configured limits and, apart, those the origin guard holds the room to") {
    GuardedLocalNode node;
    wr::fleet::FleetStatus fleet(wr::fleet::LocalNode{"control", "control", &node, &node, nullptr});
    const auto samples = fleet.sample(wr::test::k_test_start);
    REQUIRE(samples.size() == 1);
    CHECK(samples[0].total_active_users_limit == 1000);
    CHECK(samples[0].new_users_per_minute_limit == 300);
    CHECK(samples[0].effective_total_active_users == 100);
    CHECK(samples[0].effective_new_users_per_minute == 60);
}

TEST_CASE("analytics::RoomSample keeps effective limits only where the guard holds them below the configured ones") {
    wr::analytics::RoomSample sample{"r1", 0, 0};
    sample.set_limits(1000, 300, 1000, 300);
    CHECK(sample.effective_total_active_users == 0);
    CHECK(sample.effective_new_users_per_minute == 0);
    sample.set_limits(1000, 300, 1000, 120);
    CHECK(sample.total_active_users_limit == 1000);
    CHECK(sample.effective_total_active_users == 1000);
    CHECK(sample.effective_new_users_per_minute == 120);
}
