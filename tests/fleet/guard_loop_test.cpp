// The guard loop on virtual time: it steps each room's controller from the configured limits in
// force, the room's live load and what its origin did, and publishes the effective limits — to
// this node's rooms (origin::Registry, which the Gate reads) and, as JSON, to edge nodes.
#include <doctest/doctest.h>

#include "edge/config_source.h"
#include "fleet/guard_loop.h"
#include "origin/registry.h"

using wr::origin::GuardState;
using namespace std::chrono_literals;

namespace {

const wr::util::TimePoint k_loop_start{std::chrono::sys_days{std::chrono::year{2026} / 3 / 1}};

// The figures an edge would report: 400 users on the site, 380 of them browsing.
class GuardLoopLive final : public wr::model::LiveStatus {
public:
    wr::model::LiveFigures figures(const std::string&, wr::util::TimePoint) const override {
        return {.queued_users = 50, .active_users = 400, .admitted_last_minute = 120, .browsing_users = 380};
    }
    std::vector<wr::model::NodeStatus> nodes(const std::string&, wr::util::TimePoint) const override { return {}; }
};

// Zone example.com with two rooms of 1000 active and 300 a minute: "guarded" with the guard on
// (target 200 ms), "plain" with it off.
std::shared_ptr<const wr::edge::EdgeConfig> guard_loop_rooms(wr::origin::Registry& origins) {
    wr::model::ConfigDocument document;
    wr::model::ZoneDocument& zone = document.zones.emplace_back();
    zone.zone.id = "z1";
    zone.zone.settings = {"example.com", "http://127.0.0.1:3000"};
    for (const bool guarded : {true, false}) {
        wr::model::RoomDocument& room = zone.rooms.emplace_back();
        room.room.id = guarded ? "guarded" : "plain";
        room.room.settings.name = room.room.id;
        room.room.settings.host = "example.com";
        room.room.settings.path = guarded ? "/shop" : "/blog";
        room.room.settings.cookie_suffix = room.room.id;
        room.room.settings.total_active_users = 1000;
        room.room.settings.new_users_per_minute = 300;
        room.room.settings.origin_guard.enabled = guarded;
        room.room.settings.origin_guard.target_ttfb_ms = 200;
    }
    return wr::edge::build_edge_config(document, nullptr, &origins);
}

// What one node counted of a room's origin: `answers` 2xx answers taking `ttfb_ms`.
wr::model::MinuteRecord guard_loop_answered(int64_t answers, int64_t ttfb_ms) {
    wr::model::MinuteRecord record;
    record.origin_answers[1] = answers;
    record.origin_time.add(ttfb_ms, static_cast<uint64_t>(answers));
    return record;
}

struct GuardLoopFixture {
    wr::util::FakeClock clock{k_loop_start};
    wr::origin::Registry origins;
    wr::edge::ConfigSource config;
    GuardLoopLive live;
    std::vector<std::pair<std::string, GuardState>> changes;
    wr::fleet::GuardLoop loop{config, live, origins, clock,
                              [this](const std::string& room, GuardState, const wr::origin::GuardDecision& decision) {
                                  changes.emplace_back(room, decision.state);
                              }};
    GuardLoopFixture() { config.publish(guard_loop_rooms(origins), nullptr); }
    void step() {
        clock.advance(wr::origin::k_guard_interval);
        loop.step();
    }
};

} // namespace

TEST_CASE("guard loop: a slow origin lowers the guarded room's limits where the Gate reads them, and says so once") {
    GuardLoopFixture f;
    f.step();
    CHECK(f.loop.view("guarded")->state == GuardState::content);
    CHECK(f.origins.room("guarded")->new_users_per_minute.load() == 0); // 0: the configured limits apply
    f.loop.add("guarded", "edge", guard_loop_answered(80, 1500));
    f.loop.add("plain", "edge", guard_loop_answered(80, 1500));
    f.step();

    const auto view = f.loop.view("guarded");
    REQUIRE(view.has_value());
    CHECK(view->state == GuardState::throttling);
    CHECK(view->effective.new_users_per_minute < 300);
    CHECK(view->p95_ttfb_ms >= 1000);
    CHECK(view->reason.find("over the 200 ms target") != std::string::npos);
    const auto& guard = *f.origins.room("guarded");
    CHECK(guard.new_users_per_minute.load() == view->effective.new_users_per_minute);
    CHECK(guard.total_active_users.load() == view->effective.total_active_users);
    CHECK(guard.state.load() == static_cast<int>(GuardState::throttling));
    // The Gate's policy: the lower limits, never the higher.
    wr::queue::Policy policy;
    policy.total_active_users = 1000;
    policy.new_users_per_minute = 300;
    CHECK(wr::origin::guarded(policy, &guard).new_users_per_minute == view->effective.new_users_per_minute);

    // The room without a guard keeps its limits, however slow its origin.
    CHECK(f.loop.view("plain")->state == GuardState::off);
    CHECK(f.origins.room("plain")->new_users_per_minute.load() == 0);
    // Each change of state or limits is told once, and nothing else: the oracle is the views.
    CHECK(f.changes == std::vector<std::pair<std::string, GuardState>>{{"guarded", GuardState::throttling}});
    size_t expected_changes = 1;
    auto before = *f.loop.view("guarded");
    for (int i = 0; i < 6; ++i) {
        f.loop.add("guarded", "edge", guard_loop_answered(i < 3 ? 80 : 0, 1500));
        f.step();
        const auto now = *f.loop.view("guarded");
        if (now.state != before.state || !(now.effective == before.effective)) ++expected_changes;
        before = now;
    }
    CHECK(f.changes.size() == expected_changes);
    for (const auto& [room, state] : f.changes) CHECK(room == "guarded");

    // What edge nodes get: the rooms held down, nothing else.
    const nlohmann::json published = f.loop.json();
    CHECK(published.size() == 1);
    CHECK(published["guarded"]["state"] == "throttling");
    CHECK(published["guarded"]["new_users_per_minute"] == f.loop.view("guarded")->effective.new_users_per_minute);
}

TEST_CASE("guard loop: an edge applies what the control node published, and an empty word puts its configured limits back") {
    GuardLoopFixture control;
    control.step();
    control.loop.add("guarded", "edge", guard_loop_answered(80, 1500));
    control.step();
    const nlohmann::json published = control.loop.json();
    REQUIRE(published.contains("guarded"));

    wr::origin::Registry edge_origins;
    wr::edge::ConfigSource edge_config;
    edge_config.publish(guard_loop_rooms(edge_origins), nullptr);
    wr::fleet::apply_published_guard(published, edge_config, edge_origins);
    CHECK(edge_origins.room("guarded")->new_users_per_minute.load() == published["guarded"]["new_users_per_minute"].get<int64_t>());
    CHECK(edge_origins.room("guarded")->total_active_users.load() == published["guarded"]["total_active_users"].get<int64_t>());
    CHECK(edge_origins.room("plain")->new_users_per_minute.load() == 0);

    // A malformed word changes nothing it cannot read: negative limits are no limits.
    wr::fleet::apply_published_guard({{"guarded", {{"total_active_users", -5}, {"new_users_per_minute", "many"}}}}, edge_config,
                                     edge_origins);
    CHECK(edge_origins.room("guarded")->new_users_per_minute.load() == 0);
    CHECK(edge_origins.room("guarded")->total_active_users.load() == 0);

    wr::fleet::apply_published_guard(published, edge_config, edge_origins);
    wr::fleet::apply_published_guard(nlohmann::json::object(), edge_config, edge_origins);
    CHECK(edge_origins.room("guarded")->new_users_per_minute.load() == 0);
    CHECK(edge_origins.room("guarded")->state.load() == 0);
}

TEST_CASE("guard loop: a room held down, and let go, is announced once each; changes within either are not") {
    using wr::fleet::guard_announcement;
    using wr::model::NotificationKind;
    CHECK(guard_announcement(GuardState::content, GuardState::throttling) == NotificationKind::origin_guard_throttling);
    CHECK(guard_announcement(GuardState::off, GuardState::throttling) == NotificationKind::origin_guard_throttling);
    CHECK(guard_announcement(GuardState::throttling, GuardState::recovering) == std::nullopt);
    CHECK(guard_announcement(GuardState::recovering, GuardState::throttling) == std::nullopt);
    CHECK(guard_announcement(GuardState::recovering, GuardState::content) == NotificationKind::origin_guard_recovered);
    CHECK(guard_announcement(GuardState::throttling, GuardState::off) == NotificationKind::origin_guard_recovered);
    CHECK(guard_announcement(GuardState::content, GuardState::off) == std::nullopt);

    wr::origin::GuardDecision decision;
    decision.effective = {40, 20};
    decision.reason = "origin p95 1,500 ms over the 200 ms target";
    decision.readings.p95_ttfb_ms = 1499.6;
    decision.readings.error_rate = 0.01;
    const nlohmann::json figures = wr::fleet::guard_announcement_figures(decision);
    CHECK(figures["effective_total_active_users"] == 40);
    CHECK(figures["effective_new_users_per_minute"] == 20);
    CHECK(figures["origin_p95_ttfb_ms"] == 1500);
    CHECK(figures["reason"] == decision.reason);
}

TEST_CASE("guard loop: steps at the analytics rounds, so each sample covers whole drains: a saturated origin's throughput is read as it is") {
    GuardLoopFixture f;
    // An origin that serves 40 answers a second, each after 1.5 s (over the 200 ms target); the
    // collector drains 80 of them every 2 s and then ends its round.
    for (int round = 0; round < 30; ++round) {
        f.clock.advance(2s);
        f.loop.add("guarded", "edge", guard_loop_answered(80, 1500));
        f.loop.round(f.clock.now());
    }
    const auto decision = f.loop.decision("guarded");
    REQUIRE(decision.has_value());
    CHECK(decision->state == GuardState::throttling);
    // The capacity is learned from the windows over target: each must hold as many seconds of
    // answers as it says, or the lower readings (two drains in a window of 5 s: 32 a second)
    // are taken for the origin's limit.
    CHECK(decision->readings.capacity_per_second == doctest::Approx(40).epsilon(0.01));
}
