// wr-capacity-origin, the test origin with a real capacity: its latency grows once more requests
// come than its workers can serve, its limits hold, and /stats tells what it did.
#include <doctest/doctest.h>

#include <memory>
#include <vector>
#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include "support/eventually.h"
#include "support/process.h"
#include "support/raw_connection.h"

using wr::test::CapacityOrigin;
using wr::test::RawConnection;
using namespace std::chrono_literals;

namespace {

const std::string k_request = "GET /page HTTP/1.1\r\nHost: origin\r\n\r\n";

nlohmann::json stats(const CapacityOrigin& origin, bool reset = false) { return nlohmann::json::parse(origin.stats(reset)); }

// `count` connections, each sending one request at once; the status of each answer (0: none, the
// connection closed).
std::vector<int> concurrent_requests(int port, int count) {
    std::vector<std::unique_ptr<RawConnection>> connections;
    for (int i = 0; i < count; ++i) connections.push_back(std::make_unique<RawConnection>(port));
    for (auto& connection : connections) connection->send(k_request);
    std::vector<int> statuses;
    for (auto& connection : connections) {
        connection->read_until("\r\n\r\n", 10s);
        const std::string& received = connection->received();
        statuses.push_back(received.starts_with("HTTP/1.1 ") ? std::stoi(received.substr(9, 3)) : 0);
    }
    return statuses;
}

int count_of(const std::vector<int>& statuses, int status) { return static_cast<int>(std::count(statuses.begin(), statuses.end(), status)); }

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: the capacity origin answers at its service time while under capacity, and later as requests queue past it") {
    CapacityOrigin origin(2, 40);
    // One at a time: about the service time each.
    for (int i = 0; i < 10; ++i) CHECK(concurrent_requests(origin.port(), 1) == std::vector<int>{200});
    nlohmann::json calm = stats(origin, true);
    CHECK(calm["served"] == 10);
    CHECK(calm["ttfb_ms"]["p95"].get<double>() >= 39);
    CHECK(calm["ttfb_ms"]["p95"].get<double>() < 150);
    CHECK(calm["max_in_flight_seen"] == 1);

    // Forty at once to two workers: they wait their turn, twenty rounds of 40 ms.
    const std::vector<int> statuses = concurrent_requests(origin.port(), 40);
    CHECK(count_of(statuses, 200) == 40);
    const nlohmann::json busy = stats(origin);
    CHECK(busy["requests"] == 40);
    CHECK(busy["served"] == 40);
    CHECK(busy["in_flight"] == 0);
    CHECK(busy["queued"] == 0);
    CHECK(busy["max_in_flight_seen"] == 2);
    CHECK(busy["max_queue_seen"].get<int>() >= 30);
    CHECK(busy["max_connections_seen"].get<int>() >= 40);
    CHECK(busy["ttfb_ms"]["count"] == 40);
    CHECK(busy["ttfb_ms"]["p50"].get<double>() >= 300);
    CHECK(busy["ttfb_ms"]["p95"].get<double>() >= 600);
    CHECK(busy["ttfb_ms"]["p99"].get<double>() >= busy["ttfb_ms"]["p95"].get<double>());
}

TEST_CASE("integration: the capacity origin closes connections past --max-connections and counts the most it held") {
    CapacityOrigin origin(4, 1, {"--max-connections", "5"});
    {
        std::vector<int> statuses = concurrent_requests(origin.port(), 8);
        CHECK(count_of(statuses, 200) == 5);
        CHECK(count_of(statuses, 0) == 3);
    }
    // Once those have gone, /stats has a connection of its own.
    nlohmann::json figures;
    CHECK(wr::test::eventually([&] {
        figures = stats(origin);
        return figures.is_object() && figures["connections"] == 1;
    }));
    CHECK(figures["max_connections_seen"] == 5);
    CHECK(figures["refused_connections"] == 3);
}

TEST_CASE("integration: the capacity origin answers 503 past --queue-limit and to requests that waited past --queue-timeout-ms") {
    {
        CapacityOrigin origin(1, 150, {"--queue-limit", "3"});
        const std::vector<int> statuses = concurrent_requests(origin.port(), 8);
        // One served at once, three waiting, four turned away.
        CHECK(count_of(statuses, 200) == 4);
        CHECK(count_of(statuses, 503) == 4);
        CHECK(stats(origin)["rejected"] == 4);
    }
    {
        CapacityOrigin origin(1, 150, {"--queue-timeout-ms", "200"});
        const std::vector<int> statuses = concurrent_requests(origin.port(), 4);
        // The second starts after 150 ms; the third and fourth would start after 300.
        CHECK(count_of(statuses, 200) == 2);
        CHECK(count_of(statuses, 503) == 2);
        const nlohmann::json figures = stats(origin);
        CHECK(figures["timed_out"] == 2);
        CHECK(figures["served"] == 2);
    }
}

TEST_CASE("integration: the capacity origin holds a thousand connections at once on its one thread") {
    rlimit files{};
    ::getrlimit(RLIMIT_NOFILE, &files);
    files.rlim_cur = std::min<rlim_t>(files.rlim_max, 4096);
    ::setrlimit(RLIMIT_NOFILE, &files);
    REQUIRE_MESSAGE(files.rlim_cur >= 2200, "needs 2,200 open files (ulimit -n) for 1,050 connections on both ends");
    CapacityOrigin origin(64, 1);
    const std::vector<int> statuses = concurrent_requests(origin.port(), 1050);
    CHECK(count_of(statuses, 200) == 1050);
    const nlohmann::json figures = stats(origin);
    CHECK(figures["max_connections_seen"].get<int>() >= 1050);
    CHECK(figures["served"] == 1050);
}

} // TEST_SUITE
