// The origin guard on a running node: visitors' requests to a slow origin are measured, the
// guard's step lowers the room's limits, the Gate admits by them, and the room status says so.
// The guard's timer never fires here: the test steps it on the server's fake clock.
#include <doctest/doctest.h>

#include <future>

#include "support/browser.h"
#include "support/eventually.h"
#include "support/prometheus_parser.h"
#include "support/scripted_origin.h"
#include "support/shop_paths.h"
#include "support/shop_room.h"
#include "support/test_server.h"
#include "support/webhook_receiver.h"

using wr::test::Browser;
using wr::test::ScriptedOrigin;
using wr::test::TestServer;
using namespace std::chrono_literals;

namespace {

void never_on_its_own(wr::AppOptions& options) { options.guard_interval = std::chrono::hours{1}; }

// `count` new visitors at once, each asking the origin for a page it answers after `ms`; returns
// how many got the origin's page.
int visit_slowly(TestServer& wr, int count, int ms) {
    std::vector<std::future<bool>> visits;
    for (int i = 0; i < count; ++i)
        visits.push_back(std::async(std::launch::async, [&wr, i, ms] {
            Browser visitor(wr.edge_port(), "shop.example.com");
            const std::string id = std::to_string(i);
            return visitor.get("/slow/" + std::to_string(ms) + "/" + id).body == "you are " + id;
        }));
    int served = 0;
    for (auto& visit : visits) served += visit.get() ? 1 : 0;
    return served;
}

// One control step five seconds on, after the edge's counts reached the guard.
void guard_step(TestServer& wr) {
    wr.app().flush_analytics();
    wr.clock().advance(5s);
    wr.app().step_guard();
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: a slow origin makes the guard lower the room's limits: newcomers wait, the status says why") {
    for (const bool guard_on : {true, false}) {
        CAPTURE(guard_on);
        ScriptedOrigin origin;
        TestServer wr({}, never_on_its_own);
        wr::test::set_up_shop(wr, origin.url(),
                              {{"total_active_users", 300},
                               {"new_users_per_minute", 200},
                               {"origin_guard", {{"enabled", guard_on}, {"target_ttfb_ms", 100}}}});
        guard_step(wr);
        CHECK(visit_slowly(wr, 45, 300) == 45); // 45 admitted: the origin answers each after 300 ms
        guard_step(wr);

        const auto status = wr.get(std::string(wr::test::k_shop_path) + "/status");
        REQUIRE(status.status == 200);
        const nlohmann::json& result = status.body["result"];
        Browser newcomer(wr.edge_port(), "shop.example.com");
        const bool admitted = newcomer.get("/slow/1/new").body == "you are new";
        if (guard_on) {
            CHECK(result["origin_guard"]["state"] == "throttling");
            CHECK(result["origin_guard"]["p95_ttfb_ms"].get<double>() >= 300);
            CHECK(result["origin_guard"]["reason"].get<std::string>().find("over the 100 ms target") != std::string::npos);
            CHECK(result["effective_new_users_per_minute"].get<int64_t>() < 200);
            // The origin served 45 users' requests in 5 s at 300 ms against 100: the guard holds the
            // room under the users already on the site, so admissions stop (nobody is sent away).
            CAPTURE(result.dump());
            CHECK(result["effective_total_active_users"].get<int64_t>() < 45);
            CHECK(result["estimated_total_active_users"] == 45);
            CHECK_FALSE(admitted);
            const auto metrics = wr.get("/metrics");
            const wr::test::Exposition exposition = wr::test::parse_prometheus(metrics.text);
            const auto state = [&](const char* name) {
                return exposition.value("wr_room_origin_guard", {{"node", "wr"}, {"zone", "example.com"}, {"room", "shop"}, {"state", name}});
            };
            CHECK(state("throttling") == 1);
            CHECK(state("content") == 0);
        } else {
            CHECK(result["origin_guard"]["state"] == "off");
            CHECK(result["effective_new_users_per_minute"] == 200);
            CHECK(result["effective_total_active_users"] == 300);
            CHECK(admitted);
        }
    }
}

TEST_CASE("integration: the guard sees the wait for a connection under the zone's cap: a full cap is the origin at its capacity") {
    ScriptedOrigin origin;
    TestServer wr({}, never_on_its_own);
    wr::test::set_up_shop(wr, origin.url(),
                          {{"total_active_users", 300},
                           {"new_users_per_minute", 200},
                           {"origin_guard", {{"enabled", true}, {"target_ttfb_ms", 300}}}});
    // One connection to the origin at a time: 45 visitors' pages of 50 ms each wait their turn
    // in wr (the last about two seconds), though the origin answers each within 50 ms.
    const auto patched = wr.patch("/client/v4/zones/example.com", {{"max_origin_connections", 1}});
    REQUIRE_MESSAGE(patched.status == 200, patched.text);
    wr.sync_edge();
    guard_step(wr);
    CHECK(visit_slowly(wr, 45, 50) == 45);
    guard_step(wr);

    const auto status = wr.get(std::string(wr::test::k_shop_path) + "/status");
    REQUIRE(status.status == 200);
    const nlohmann::json& result = status.body["result"];
    CAPTURE(result.dump());
    CHECK(result["origin_guard"]["state"] == "throttling");
    CHECK(result["origin_guard"]["p95_ttfb_ms"].get<double>() > 300);
    CHECK(result["effective_new_users_per_minute"].get<int64_t>() < 200);
    // The zone's own figure is the origin's: its answers took about 50 ms once sent.
    const wr::test::Exposition exposition = wr::test::parse_prometheus(wr.get("/metrics").text);
    const double slow = exposition.value("wr_origin_ttfb_seconds_bucket", {{"node", "wr"}, {"zone", "example.com"}, {"le", "0.25"}});
    const double all = exposition.value("wr_origin_ttfb_seconds_count", {{"node", "wr"}, {"zone", "example.com"}});
    CHECK(all >= 45);
    CHECK(slow >= 0.95 * all);
}

TEST_CASE("integration: the guard's throttling and its end are announced to a receiver, each once, with the figures") {
    wr::test::WebhookReceiver receiver;
    ScriptedOrigin origin;
    TestServer wr({}, [](wr::AppOptions& options) {
        never_on_its_own(options);
        options.notification_settle = 0ms;
    });
    const nlohmann::json destination = {{"name", "ops"},
                                        {"url", receiver.url()},
                                        {"secret", wr::test::k_webhook_secret},
                                        {"kinds", {"origin_guard.throttling", "origin_guard.recovered"}}};
    REQUIRE(wr.post("/client/v4/notifications/destinations", destination).status == 200);
    wr::test::set_up_shop(wr, origin.url(),
                          {{"total_active_users", 300},
                           {"new_users_per_minute", 200},
                           {"origin_guard", {{"enabled", true}, {"target_ttfb_ms", 100}}}});
    guard_step(wr);
    CHECK(visit_slowly(wr, 45, 300) == 45);
    guard_step(wr);
    REQUIRE(wr::test::eventually([&] { return receiver.events().size() == 1; }));
    const auto throttling = receiver.events()[0];
    CHECK(throttling.kind == "origin_guard.throttling");
    CHECK(throttling.body["room"]["name"] == "shop");
    CAPTURE(throttling.body.dump());
    CHECK(throttling.body["figures"]["reason"].get<std::string>().find("over the 100 ms target") != std::string::npos);
    CHECK(throttling.body["figures"]["origin_p95_ttfb_ms"].get<double>() >= 300);
    CHECK(throttling.body["figures"]["effective_new_users_per_minute"].get<int64_t>() < 200);
    guard_step(wr); // still throttling: nothing new

    // The operator turns the guard off: the room is back at its configured limits.
    const auto patched = wr.patch(std::string(wr::test::k_shop_path), {{"origin_guard", {{"enabled", false}}}});
    REQUIRE_MESSAGE(patched.status == 200, patched.text);
    wr.sync_edge();
    guard_step(wr);
    REQUIRE(wr::test::eventually([&] { return receiver.events().size() == 2; }));
    CHECK(receiver.events()[1].kind == "origin_guard.recovered");
    CHECK(receiver.events()[1].body["figures"]["effective_new_users_per_minute"] == 200);
    guard_step(wr);
    std::this_thread::sleep_for(200ms);
    CHECK(receiver.attempts().size() == 2);
    for (const auto& attempt : receiver.attempts()) CHECK(attempt.signed_well);
}

} // TEST_SUITE
