// Analytics end to end: known traffic through the edge shows up, exactly, in the API (JSON and
// CSV), in /metrics, in the chart and the CLI, and again after a restart.
#include <doctest/doctest.h>

#include "support/browser.h"
#include "support/process.h"
#include "support/prometheus_parser.h"
#include "support/shop_paths.h"
#include "support/test_server.h"

using nlohmann::json;
using wr::test::Browser;
using wr::test::TestOrigin;
using wr::test::TestServer;
using wr::test::k_shop_path;

namespace {

// The point for 10:00 (the test clock's first minute) in a series answer.
json ten_oclock(const json& result) {
    for (const json& point : result["series"])
        if (point["time"] == "2026-11-22T10:00:00.000Z") return point;
    FAIL("no point for 10:00 in " << result.dump());
    return {};
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: known traffic appears exactly in analytics, CSV, /metrics and the chart, and survives a restart") {
    TestOrigin origin;
    wr::test::TempDir data;
    {
        TestServer wr(data.path());
        wr.create_zone("example.com", origin.url());
        wr.create_room("example.com", {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 200},
                                       {"new_users_per_minute", 200}, {"enabled_origin_commands", {"revoke"}}});
        wr.sync_edge();
        // 200 admitted, 50 queued, 3 revoked by the origin.
        std::vector<std::unique_ptr<Browser>> browsers;
        for (int i = 0; i < 250; ++i) {
            browsers.push_back(std::make_unique<Browser>(wr.edge_port(), "shop.example.com"));
            browsers.back()->get("/");
        }
        for (int i = 0; i < 3; ++i) REQUIRE(browsers[static_cast<size_t>(i)]->get("/revoke").from_origin());
        wr.clock().advance(std::chrono::seconds{5});
        wr.app().flush_analytics();

        const auto reply = wr.get(k_shop_path + "/analytics?step=1m");
        REQUIRE_MESSAGE(reply.status == 200, reply.text);
        CHECK(reply.body["result"]["step"] == "1m");
        CHECK(reply.body["result"]["series"].size() == 61); // 09:00 to 10:00 inclusive
        const json point = ten_oclock(reply.body["result"]);
        CHECK(point["newUsersPerMinute"] == 200);
        CHECK(point["requestsAdmitted"] == 203); // 200 first visits and the 3 checkout requests
        CHECK(point["requestsQueued"] == 50);
        CHECK(point["sessionsRevoked"] == 3);
        CHECK(point["totalActiveUsersMax"] == 197);
        CHECK(point["queuedUsersMax"] == 50);
        CHECK(point["totalActiveUsersLimit"] == 200);
        CHECK(point["newUsersPerMinuteLimit"] == 200);
        // Before the room has measured its admissions, the wait comes from its limits: the 197
        // slots counted in 10:00 free as 10:06 begins (a 5-minute session and a minute), about
        // 6 minutes from 10:00:05: 5 or 6 shown (whole minutes, each user's draw).
        CHECK(point["waitTimeEstimatedP50"] >= 5);
        CHECK(point["waitTimeEstimatedP50"] <= 6);

        const auto csv = wr.send("GET", k_shop_path + "/analytics?since=2026-11-22T09:59:00Z",
                                 "", {{"Authorization", "Bearer " + wr.admin_token()}, {"Accept", "text/csv"}});
        CHECK(csv.status == 200);
        CHECK(csv.headers.find("Content-Type")->second == "text/csv; charset=utf-8");
        CHECK_MESSAGE(csv.text.find("\n2026-11-22T10:00:00.000Z,197.0,197,50,200,203,50,0,0,0," +
                                    std::to_string(point["waitTimeEstimatedP50"].get<int64_t>()) + "," +
                                    std::to_string(point["waitTimeEstimatedMax"].get<int64_t>()) + ",") != std::string::npos,
                      csv.text);
        CHECK(csv.text.find("\n2026-11-22T09:59:00.000Z,0.0,0,0,0,0,0,0,0,0,") != std::string::npos);

        const auto metrics = wr.get("/metrics");
        CHECK(metrics.status == 200);
        const wr::test::Exposition parsed = wr::test::parse_prometheus(metrics.text);
        const std::map<std::string, std::string> labels{{"node", "wr"}, {"zone", "example.com"}, {"room", "shop"}};
        auto outcome = [&](const char* name) { return parsed.value("wr_requests_total", labels, "outcome", name); };
        CHECK(outcome("admitted") == 203);
        CHECK(outcome("queued") == 50);
        CHECK(outcome("rejected") == 0);
        CHECK(parsed.value("wr_sessions_revoked_total", labels) == 3);
        CHECK(parsed.value("wr_new_users_admitted_total", labels) == 200);
        CHECK(parsed.value("wr_room_active_users", labels) == 197);
        CHECK(parsed.value("wr_room_queued_users", labels) == 50);
        CHECK(parsed.value("wr_admission_decision_seconds_count", {{"node", "wr"}}) == 253);
        CHECK(wr.send("GET", "/metrics", "", {}).status == 401);

        const auto chart = wr.get(k_shop_path + "/analytics.svg");
        CHECK(chart.status == 200);
        CHECK(chart.headers.find("Content-Type")->second == "image/svg+xml");
        CHECK(chart.text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        CHECK(chart.text.find("example.com / shop") != std::string::npos);

        // A minute later the 3 freed slots go to the first who check in; the last in line is
        // still told the wait from the limits (admissions have not run two whole minutes yet).
        wr.clock().advance(std::chrono::seconds{60});
        for (size_t i = 200; i < 203; ++i) REQUIRE(browsers[i]->get("/").from_origin());
        REQUIRE_FALSE(browsers.back()->get("/").from_origin());
        // A minute more (10:02): the room is full of sessions let in at 10:00:00.000 and during
        // 10:01. The first ones' cookies run out as 10:05 begins, and their slots free then (a
        // request at a minute's first millisecond counts in the minute before), so the wait is
        // known and about 3 minutes: 3 or 4 shown (whole minutes, the user's draw).
        wr.clock().advance(std::chrono::seconds{60});
        REQUIRE_FALSE(browsers.back()->get("/").from_origin());
        wr.app().flush_analytics();
        const json later = wr.get(k_shop_path + "/analytics?step=1m").body["result"]["series"];
        CHECK(later[later.size() - 2]["time"] == "2026-11-22T10:01:00.000Z");
        CHECK(later[later.size() - 2]["waitTimeEstimatedP50"] >= 4);
        CHECK(later[later.size() - 2]["waitTimeEstimatedP50"] <= 5);
        CHECK(later[later.size() - 1]["time"] == "2026-11-22T10:02:00.000Z");
        CHECK(later[later.size() - 1]["waitTimeEstimatedP50"] >= 3);
        CHECK(later[later.size() - 1]["waitTimeEstimatedP50"] <= 4);

        const wr::test::ProcessResult cli = wr::test::run_wr(
            {"--api", wr.admin_url(), "--token", wr.admin_token(), "-o", "json", "analytics", "shop", "--since", "2026-11-22T09:58:00Z"});
        REQUIRE_MESSAGE(cli.exit_code == 0, cli.err);
        CHECK(ten_oclock(json::parse(cli.out))["requestsQueued"] == 50);
    }
    // A restart keeps the minutes that were written.
    TestServer again(data.path());
    const json point = ten_oclock(again.get(k_shop_path + "/analytics?step=1m").body["result"]);
    CHECK(point["requestsAdmitted"] == 203);
    CHECK(point["sessionsRevoked"] == 3);
    const auto hourly = again.get(k_shop_path + "/analytics?since=2026-11-22T08:00:00Z&step=1h");
    REQUIRE(hourly.body["result"]["series"].size() == 3);
    CHECK(hourly.body["result"]["series"][2]["requestsAdmitted"] == 206); // 10:00 and 10:01 together
}

TEST_CASE("integration: analytics refuses a bad range, step or format with 400") {
    TestServer wr;
    wr.create_zone();
    wr.create_room("example.com", {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 200}, {"new_users_per_minute", 200}});
    struct Case {
        const char* query;
        const char* message;
    };
    const Case cases[] = {
        {"?step=2m", "step: must be 1m, 15m or 1h"},
        {"?since=2026-11-22T11:00:00Z&until=2026-11-22T10:30:00Z", "since: must be before until"},
        {"?since=yesterday", "since: must be an ISO 8601 time (2026-11-22T10:00:00Z) or Unix seconds"},
        {"?since=2026-10-01T00:00:00Z", "since: the range may cover at most 31 days"},
        {"?since=2026-11-01T00:00:00Z&step=1m", "step: 30841 points are too many (at most 10080); use a larger step or a shorter range"},
        {"?format=xml", "format: must be json or csv"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.query);
        const auto reply = wr.get(k_shop_path + "/analytics" + c.query);
        CHECK(reply.status == 400);
        CHECK(reply.body["errors"][0]["message"] == c.message);
    }
    // Unix seconds work, and an until in the future means now.
    CHECK(wr.get(k_shop_path + "/analytics?since=1795340000&until=2000000000").status == 200);
}

} // TEST_SUITE
