// Issue 11 as one product: a control node (`--role control`), three edges (`--role edge`) sharing
// their counts through a real redis-server, and browsers spread over the edges. Judged by the
// browsers' own cookies and by an origin that counts whom it served, never by wr's counters:
// the limits hold, no one waits while the room has room, no newcomer passes those waiting;
// Redis killed and restarted under them; the control node killed, an edge restarted meanwhile.
#include <doctest/doctest.h>

#include <atomic>
#include <csignal>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/eventually.h"
#include "support/fleet_nodes.h"
#include "support/prometheus_parser.h"
#include "support/redis_server.h"
#include "support/shop_paths.h"
#include "support/spread_browser.h"
#include "support/temp_dir.h"

using namespace std::chrono_literals;
using nlohmann::json;
using wr::test::ControlNode;
using wr::test::CountingOrigin;
using wr::test::EdgeNode;
using wr::test::RedisServer;
using wr::test::SpreadBrowser;
using wr::test::admitted_count;
using wr::test::k_shop_path;
using wr::test::visit_spread;
using wr::test::waiting_ask_again;

namespace {

// The control node's flags: its view of the shared state synced every 50 ms, then `extra`.
std::vector<std::string> control_flags(const std::vector<std::string>& extra) {
    std::vector<std::string> flags{"--state-sync-interval", "50ms"};
    flags.insert(flags.end(), extra.begin(), extra.end());
    return flags;
}

// An edge's flags: two threads, the room's counts shared through `state`, synced every 50 ms.
std::vector<std::string> edge_flags(const std::string& state) {
    return {"--edge-threads", "2", "--state", state, "--state-sync-interval", "50ms"};
}

// The shop's status as the control node reports it.
json shop_status(const ControlNode& control) { return control.api("GET", k_shop_path + "/status"); }

// A control node, its shop (limits `limit`, sessions of a minute) and three edges on one Redis.
struct Cluster {
    Cluster(const RedisServer& redis, const CountingOrigin& origin, int64_t limit, const std::vector<std::string>& control_extra) {
        control = std::make_unique<ControlNode>(dir.path() / "control", 0, control_flags(control_extra));
        control_url = control->url();
        control->api("POST", "/client/v4/zones", {{"name", "example.com"}, {"origin", origin.url()}});
        control->api("POST", "/client/v4/zones/example.com/waiting_rooms",
                     {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", limit}, {"new_users_per_minute", limit},
                      {"session_duration", 1}});
        edge_token = control->api("POST", "/client/v4/tokens", {{"name", "edges"}, {"scope", "edge"}})["token"];
        for (int i = 0; i < 3; ++i) edges.push_back(start_edge(i, redis));
    }
    std::unique_ptr<EdgeNode> start_edge(int i, const RedisServer& redis) const {
        const std::string name = "edge-" + std::to_string(i + 1);
        return std::make_unique<EdgeNode>(dir.path() / name, name, control_url, edge_token, edge_flags(redis.url()));
    }
    int edge(size_t i) const { return edges[i % edges.size()]->edge_port; }
    void set_limit(int64_t limit) const {
        control->api("PATCH", k_shop_path, {{"total_active_users", limit}, {"new_users_per_minute", limit}});
        std::this_thread::sleep_for(1500ms); // every edge's configuration poll (once a second)
    }

    wr::test::TempDir dir;
    std::unique_ptr<ControlNode> control;
    std::string control_url; // kept: the edges keep it while the control node is away
    std::string edge_token;
    std::vector<std::unique_ptr<EdgeNode>> edges;
};

// Browsers 0, 1 and 2 each go to their edge until it lets them in: an edge is ready when its
// admin listener is, but has the room only once its first pull from the control node is
// compiled. (A room new to a node admits one before its first sync; then a moment for that sync.)
void wait_until_every_edge_serves(const Cluster& cluster, std::vector<SpreadBrowser>& browsers) {
    for (size_t e = 0; e < 3; ++e) {
        for (int i = 0; i < 100 && !browsers[e].get(cluster.edge(e)).second; ++i) std::this_thread::sleep_for(50ms);
        REQUIRE_MESSAGE(browsers[e].admitted, "edge-" << e + 1 << " never served the room");
    }
    std::this_thread::sleep_for(200ms);
}


std::vector<SpreadBrowser> crowd(int size) {
    std::vector<SpreadBrowser> browsers;
    for (int i = 0; i < size; ++i) browsers.emplace_back(i);
    return browsers;
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("multi-node: a control node and three edges on one Redis hold the limits, queue no one early, and keep order") {
    RedisServer redis;
    CountingOrigin origin;
    Cluster cluster(redis, origin, 200, {"--state", redis.url()});
    std::vector<SpreadBrowser> browsers = crowd(250);
    std::atomic<int> server_errors{0};

    // A first visitor on each edge, then 237 more at once over the three edges: 200 places between them, not 600.
    wait_until_every_edge_serves(cluster, browsers);
    visit_spread(cluster, browsers, 3, 240, server_errors);
    CHECK(admitted_count(browsers) <= 200);
    waiting_ask_again(cluster, browsers, 240, 200, server_errors);
    CHECK(server_errors == 0);
    const size_t full = admitted_count(browsers);
    CHECK(origin.served() == full);
    CHECK(full <= 200);
    // No one keeps waiting while the room is under 98 % of its limits (issue 11's measure).
    CHECK(full >= 196);
    for (const auto& edge : cluster.edges) // the warning about in-memory state is not given with Redis
        CHECK(edge->process.output().find("waiting room of its own") == std::string::npos);

    // The control node reads the whole room from Redis: every browser the origin served, and
    // those it did not, waiting. Its figures may be one read old (a read stays fresh for three
    // sync intervals and 250 ms), and the edges' last pushes a sync or two behind on a busy
    // machine, so it is asked until they agree, for up to 5 s.
    json status;
    wr::test::eventually([&] {
        status = shop_status(*cluster.control);
        return status["estimated_total_active_users"] == full && status["estimated_queued_users"] <= 240 - full &&
               status["estimated_queued_users"] >= 240 - full - 1;
    });
    CHECK(status["estimated_total_active_users"] == full);
    CHECK(status["estimated_queued_users"] <= 240 - full);
    CHECK(status["estimated_queued_users"] >= 240 - full - 1); // a visitor queued before its edge's first sync may lag one
    REQUIRE(status["nodes"].size() >= 1);
    CHECK(status["nodes"][0]["name"] == "control");
    CHECK(status["nodes"][0]["state"]["backend"] == "redis");

    // Ten more places: those waiting (on any edge) come first, so a newcomer on each edge still
    // waits, and the waiting, asking again, never take more than the ten (FIFO releases them
    // over the minute, so not necessarily all at once).
    cluster.set_limit(static_cast<int64_t>(full) + 10);
    for (size_t i = 240; i < 246; ++i) CHECK_FALSE(browsers[i].get(cluster.edge(i)).second);
    for (size_t i = 0; i < 240; ++i)
        if (!browsers[i].admitted && browsers[i].get(cluster.edge(i + 1)).first >= 500) ++server_errors;
    CHECK(admitted_count(browsers, 240, 246) == 0);
    CHECK(origin.served() == admitted_count(browsers));
    CHECK(origin.served() <= full + 10);
    CHECK(server_errors == 0);
}

TEST_CASE("multi-node: Redis killed mid-run, then the control node: the edges admit from their shares, reconcile, serve on, and "
          "an edge restarted meanwhile serves from its cached configuration") {
    RedisServer redis;
    CountingOrigin origin;
    // This control node has no --state: its status is what the edges report, each seeing the
    // whole room through Redis, so the room counts once (not three times).
    Cluster cluster(redis, origin, 200, {});
    std::vector<SpreadBrowser> browsers = crowd(320);
    std::atomic<int> server_errors{0};
    wait_until_every_edge_serves(cluster, browsers);
    visit_spread(cluster, browsers, 3, 60, server_errors);
    // Right after the burst an edge may have spent its share while another holds some (a slow,
    // sanitized run saw 59): those waiting ask again, as their queue page would.
    waiting_ask_again(cluster, browsers, 60, 60, server_errors);
    const size_t before_outage = admitted_count(browsers);
    REQUIRE(before_outage == 60);
    std::this_thread::sleep_for(300ms); // every edge has heard of every admission

    // Redis dies: no 5xx, and each edge admits from its last known share of the free places.
    redis.kill();
    std::this_thread::sleep_for(300ms);
    visit_spread(cluster, browsers, 60, 150, server_errors);
    CHECK(server_errors == 0);
    const size_t during = admitted_count(browsers) - before_outage;
    MESSAGE(during << " of 90 newcomers let in while Redis was away (about 140 places free, a third each)");
    CHECK(during >= 80);
    CHECK(origin.served() == admitted_count(browsers));
    for (size_t i = 0; i < 3; ++i) {
        const std::string name = "edge-" + std::to_string(i + 1);
        httplib::Client client("127.0.0.1", cluster.edges[i]->admin_port);
        const auto metrics = client.Get("/metrics", {{"Authorization", "Bearer " + cluster.control->token}});
        REQUIRE(metrics);
        const auto parsed = wr::test::parse_prometheus(metrics->body);
        CHECK(parsed.value("wr_state_connected", {{"node", name}, {"backend", "redis"}}) == 0);
        CHECK(parsed.value("wr_state_failure_mode", {{"node", name}}, "mode", "local-share") == 1);
    }

    // Back, empty: the edges push what they count; their reports reach the control node, which
    // counts the room once.
    redis.restart();
    bool reconciled = false;
    for (int i = 0; i < 50 && !reconciled; ++i) { // a sync, then a push (every 2 s)
        reconciled = shop_status(*cluster.control)["estimated_total_active_users"] == admitted_count(browsers);
        if (!reconciled) std::this_thread::sleep_for(100ms);
    }
    CHECK(reconciled);
    CHECK(shop_status(*cluster.control)["nodes"].size() == 3);

    // The control node dies. The edges go on admitting, and still hold the room's limit together.
    cluster.control->process.send_signal(SIGKILL);
    cluster.control->process.wait_exit(5s);
    visit_spread(cluster, browsers, 150, 300, server_errors);
    CHECK(server_errors == 0);
    CHECK(admitted_count(browsers) <= 200);
    CHECK(origin.served() == admitted_count(browsers));

    // edge-2 restarts meanwhile: it starts from its cached copy, lets in those admitted before,
    // and knows how full the room is — its counts come from Redis, not from zero.
    cluster.edges[1]->process.send_signal(SIGTERM);
    REQUIRE(cluster.edges[1]->process.wait_exit(10s) == std::optional<int>{0});
    cluster.edges[1] = cluster.start_edge(1, redis);
    CHECK(cluster.edges[1]->process.output().find("serving the cached configuration") != std::string::npos);
    std::this_thread::sleep_for(200ms);
    for (size_t i = 0; i < 300; i += 7)
        if (browsers[i].admitted) CHECK(browsers[i].get(cluster.edge(1)).second);
    for (size_t i = 300; i < 306; ++i) browsers[i].get(cluster.edge(1));
    CHECK(origin.served() == admitted_count(browsers));
    CHECK(admitted_count(browsers) <= 200);
}

TEST_CASE("multi-node: an edge with in-memory state warns that it is a waiting room of its own") {
    wr::test::TempDir dir;
    ControlNode control(dir.path() / "control", 0, control_flags({}));
    const std::string token = control.api("POST", "/client/v4/tokens", {{"name", "e"}, {"scope", "edge"}})["token"];
    EdgeNode edge(dir.path() / "edge", "edge-1", control.url(), token, edge_flags("memory"));
    CHECK(edge.process.output().find("warn state: this edge keeps its admission counts in its own memory (--state memory): it is a "
                                     "waiting room of its own") != std::string::npos);
}

} // TEST_SUITE
