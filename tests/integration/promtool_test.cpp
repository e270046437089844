// /metrics judged by Prometheus's own linter, `promtool check metrics` (Debian's prometheus
// package): HELP and TYPE for every family, counters ending in _total, units in the names.
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "support/browser.h"
#include "support/process.h"
#include "support/prometheus_parser.h"
#include "support/redis_server.h"
#include "support/shop_room.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "util/files.h"

TEST_SUITE("integration") {

namespace {

void check_with_promtool(const std::string& text) {
    wr::test::TempDir temp;
    wr::util::write_text_file(temp.path() / "metrics.txt", text);
    const std::string command = "promtool check metrics < " + (temp.path() / "metrics.txt").string() + " > " +
                                (temp.path() / "lint.txt").string() + " 2>&1";
    const int status = std::system(command.c_str());
    const std::string lint = wr::util::read_text_file(temp.path() / "lint.txt").value_or("");
    CHECK_MESSAGE(status == 0, "promtool: " << lint);
    CHECK(lint.empty());
}

} // namespace

TEST_CASE("metrics: /metrics with live rooms passes promtool check metrics") {
    REQUIRE_MESSAGE(std::system("command -v promtool >/dev/null") == 0, "promtool is missing: scripts/install-deps.sh test installs it");
    wr::test::TestOrigin origin;
    wr::test::TestServer wr;
    wr::test::set_up_shop(wr, origin);
    std::vector<std::unique_ptr<wr::test::Browser>> browsers;
    for (int i = 0; i < 3; ++i) {
        browsers.push_back(std::make_unique<wr::test::Browser>(wr.edge_port(), "shop.example.com"));
        browsers.back()->get("/");
    }
    wr.clock().advance(std::chrono::seconds{5});
    wr.app().flush_analytics();
    const auto metrics = wr.get("/metrics");
    REQUIRE(metrics.status == 200);
    // The families with labels are there, so the linter sees real series, not only headers.
    REQUIRE(metrics.text.find("wr_room_active_users{node=\"wr\",zone=\"example.com\",room=\"shop\"} 3") != std::string::npos);

    CHECK(metrics.text.find("wr_state_connected{node=\"wr\",backend=\"memory\"} 1") != std::string::npos);
    check_with_promtool(metrics.text);
}

TEST_CASE("metrics: the shared state's families pass promtool check metrics, during an outage too") {
    REQUIRE_MESSAGE(std::system("command -v promtool >/dev/null") == 0, "promtool is missing: scripts/install-deps.sh test installs it");
    wr::test::RedisServer redis;
    wr::test::TestOrigin origin;
    wr::test::TestServer wr({}, [&](wr::AppOptions& options) {
        options.state = redis.url();
        options.state_sync_interval = std::chrono::milliseconds{20};
        options.node_name = "edge-7";
    });
    wr::test::set_up_shop(wr, origin);
    wr::test::Browser browser(wr.edge_port(), "shop.example.com");
    REQUIRE(browser.get("/").from_origin());
    std::this_thread::sleep_for(std::chrono::milliseconds{200});
    const auto connected = wr.get("/metrics");
    REQUIRE(connected.status == 200);
    const auto parsed = wr::test::parse_prometheus(connected.text);
    CHECK(parsed.value("wr_state_connected", {{"node", "edge-7"}, {"backend", "redis"}}) == 1);
    CHECK(parsed.value("wr_state_failure_mode", {{"node", "edge-7"}, {"mode", "local-share"}}) == 1);
    CHECK(parsed.value("wr_state_syncs_total", {{"node", "edge-7"}}) >= 1);
    check_with_promtool(connected.text);

    redis.kill();
    wr.clock().advance(std::chrono::seconds{2}); // the room's last grant lapses
    std::this_thread::sleep_for(std::chrono::milliseconds{300});
    const auto outage = wr.get("/metrics");
    const auto during = wr::test::parse_prometheus(outage.text);
    CHECK(during.value("wr_state_connected", {{"node", "edge-7"}, {"backend", "redis"}}) == 0);
    CHECK(during.value("wr_state_outages_total", {{"node", "edge-7"}}) == 1);
    CHECK(during.value("wr_state_sync_failures_total", {{"node", "edge-7"}}) >= 1);
    CHECK(during.value("wr_state_degraded_rooms", {{"node", "edge-7"}}) == 1);
    check_with_promtool(outage.text);
}

} // TEST_SUITE
