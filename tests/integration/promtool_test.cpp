// /metrics judged by Prometheus's own linter, `promtool check metrics` (Debian's prometheus
// package): HELP and TYPE for every family, counters ending in _total, units in the names.
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "support/browser.h"
#include "support/process.h"
#include "support/shop_room.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "util/files.h"

TEST_SUITE("integration") {

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

    wr::test::TempDir temp;
    wr::util::write_text_file(temp.path() / "metrics.txt", metrics.text);
    const std::string command = "promtool check metrics < " + (temp.path() / "metrics.txt").string() + " > " +
                                (temp.path() / "lint.txt").string() + " 2>&1";
    const int status = std::system(command.c_str());
    const std::string lint = wr::util::read_text_file(temp.path() / "lint.txt").value_or("");
    CHECK_MESSAGE(status == 0, "promtool: " << lint);
    CHECK(lint.empty());
}

} // TEST_SUITE
