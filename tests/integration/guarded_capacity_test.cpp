// The origin guard in front of wr-capacity-origin, an origin with a real capacity (two workers of
// 50 ms: 40 pages a second, each later as more wait): admitted visitors browsing all at once push
// its time to first byte past the target, and the guard lowers the room's limits; once they stop,
// the guard raises the limits back. Status, /metrics and the per-minute analytics say so, and no
// admitted visitor loses a session. The guard is stepped on the server's fake clock (5 s a step);
// the origin's latency is real.
#include <doctest/doctest.h>

#include <future>
#include <memory>

#include "support/browser.h"
#include "support/process.h"
#include "support/prometheus_parser.h"
#include "support/shop_paths.h"
#include "support/shop_room.h"
#include "support/test_server.h"

using wr::test::Browser;
using wr::test::CapacityOrigin;
using wr::test::TestServer;
using namespace std::chrono_literals;

namespace {

constexpr int64_t k_total = 300;
constexpr int64_t k_rate = 200;
constexpr int k_visitors = 40;

void guard_steps_only_when_told(wr::AppOptions& options) { options.guard_interval = std::chrono::hours{1}; }

void step_guard_after(TestServer& wr, std::chrono::seconds elapsed) {
    wr.app().flush_analytics();
    wr.clock().advance(elapsed);
    wr.app().step_guard();
}

nlohmann::json room_status(TestServer& wr) {
    const auto reply = wr.get(std::string(wr::test::k_shop_path) + "/status");
    REQUIRE(reply.status == 200);
    return reply.body["result"];
}

bool got_the_origin(Browser& visitor, const std::string& path) { return visitor.get(path).body == "ok\n"; }

// Every visitor asks for a page at the same moment; how many got the origin's page.
int browse_at_once(std::vector<std::unique_ptr<Browser>>& visitors, int round) {
    std::vector<std::future<bool>> pages;
    for (size_t i = 0; i < visitors.size(); ++i)
        pages.push_back(std::async(std::launch::async, [&visitors, i, round] {
            return got_the_origin(*visitors[i], "/page/" + std::to_string(i) + "/" + std::to_string(round));
        }));
    int served = 0;
    for (auto& page : pages) served += page.get() ? 1 : 0;
    return served;
}

double guard_state_metric(TestServer& wr, const char* state) {
    const wr::test::Exposition exposition = wr::test::parse_prometheus(wr.get("/metrics").text);
    return exposition.value("wr_room_origin_guard", {{"node", "wr"}, {"zone", "example.com"}, {"room", "shop"}, {"state", state}});
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: in front of an origin with a real capacity, the guard lowers the limits under overload and raises them back after; sessions are kept") {
    for (const bool guard_on : {true, false}) {
        CAPTURE(guard_on);
        CapacityOrigin origin(2, 50);
        TestServer wr({}, guard_steps_only_when_told);
        wr::test::set_up_shop(wr, origin.url(),
                              {{"total_active_users", k_total},
                               {"new_users_per_minute", k_rate},
                               {"session_duration", 1},
                               {"origin_guard", {{"enabled", guard_on}, {"target_ttfb_ms", 100}}}});
        step_guard_after(wr, 5s);

        std::vector<std::unique_ptr<Browser>> visitors;
        for (int i = 0; i < k_visitors; ++i) {
            visitors.push_back(std::make_unique<Browser>(wr.edge_port(), "shop.example.com"));
            REQUIRE(got_the_origin(*visitors.back(), "/first/" + std::to_string(i)));
        }
        // Overload: 40 pages at once from an origin that serves 2 at a time, 50 ms each: the last
        // waits about a second, and the p95 is several times the 100 ms target.
        for (int round = 0; round < 3; ++round) CHECK(browse_at_once(visitors, round) == k_visitors);
        step_guard_after(wr, 5s);

        nlohmann::json status = room_status(wr);
        CAPTURE(status.dump());
        Browser newcomer(wr.edge_port(), "shop.example.com");
        const bool newcomer_admitted = got_the_origin(newcomer, "/newcomer");
        if (guard_on) {
            CHECK(status["origin_guard"]["state"] == "throttling");
            CHECK(status["origin_guard"]["p95_ttfb_ms"].get<double>() > 300);
            CHECK(status["effective_new_users_per_minute"].get<int64_t>() < k_rate);
            CHECK(status["effective_total_active_users"].get<int64_t>() < k_visitors);
            CHECK(guard_state_metric(wr, "throttling") == 1);
            CHECK_FALSE(newcomer_admitted);
        } else {
            CHECK(status["origin_guard"]["state"] == "off");
            CHECK(status["effective_new_users_per_minute"] == k_rate);
            CHECK(status["effective_total_active_users"] == k_total);
            CHECK(newcomer_admitted);
        }
        // The guard only slows who comes in: everyone admitted still gets the origin's pages.
        CHECK(browse_at_once(visitors, 3) == k_visitors);

        // The crowd leaves but for one visitor browsing a page every 5 s, which the origin serves at
        // once: the sessions of the others end a minute on, and the limits come back.
        int steps_to_configured = -1;
        for (int step = 1; step <= 72 && steps_to_configured < 0; ++step) {
            CHECK(got_the_origin(*visitors[0], "/calm/" + std::to_string(step)));
            step_guard_after(wr, 5s);
            status = room_status(wr);
            if (guard_on) CHECK(status["origin_guard"]["state"] != "off");
            else CHECK(status["effective_new_users_per_minute"] == k_rate);
            if (status["effective_new_users_per_minute"] == k_rate && status["effective_total_active_users"] == k_total)
                steps_to_configured = step;
        }
        CAPTURE(status.dump());
        REQUIRE(steps_to_configured > 0);
        CHECK(steps_to_configured <= 60); // back within 5 minutes of the crowd leaving
        if (guard_on) {
            CHECK(status["origin_guard"]["state"] == "content");
            CHECK(guard_state_metric(wr, "content") == 1);
        }

        // The analytics per minute: the origin's real p95 in the minute of the overload, and the
        // effective limits below the configured ones there (guard on) and back after.
        wr.clock().advance(60s);
        wr.app().flush_analytics();
        const auto reply = wr.get(std::string(wr::test::k_shop_path) + "/analytics?step=1m");
        REQUIRE(reply.status == 200);
        const nlohmann::json& series = reply.body["result"]["series"];
        REQUIRE_FALSE(series.empty());
        int64_t lowest_rate = k_rate;
        double highest_p95 = 0;
        int64_t answers = 0;
        int minutes_of_the_room = 0;
        for (const nlohmann::json& minute : series) {
            if (minute["newUsersPerMinuteLimit"] != k_rate) continue; // the hour before the room existed
            ++minutes_of_the_room;
            if (minute["effectiveNewUsersPerMinute"].is_number())
                lowest_rate = std::min(lowest_rate, minute["effectiveNewUsersPerMinute"].get<int64_t>());
            if (minute["timeOnOriginP95"].is_number()) highest_p95 = std::max(highest_p95, minute["timeOnOriginP95"].get<double>());
            if (minute["originResponses2xx"].is_number()) answers += minute["originResponses2xx"].get<int64_t>();
        }
        CHECK(minutes_of_the_room >= 2);
        CHECK(highest_p95 > 300);
        CHECK(answers >= 4 * k_visitors);
        if (guard_on) CHECK(lowest_rate < k_rate);
        else CHECK(lowest_rate == k_rate);
        CHECK(series.back()["effectiveNewUsersPerMinute"] == k_rate);
    }
}

} // TEST_SUITE
