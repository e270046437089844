// A Sentinel failover under three real `wr serve` edges, with the replica holding everything,
// nothing, or all but the last syncs (its replication held back by a relay): after the new
// master takes over, the room still fills to exactly its limits. Judged by the browsers and the
// counting origin, never by wr's own counters.
#include <doctest/doctest.h>

#include <atomic>
#include <optional>
#include <thread>

#include "support/eventually.h"
#include "support/redis_server.h"
#include "support/shared_state_nodes.h"
#include "support/spread_browser.h"
#include "support/tcp_relay.h"

using namespace std::chrono_literals;

namespace {

// What the replica has of the room when its master dies.
enum class ReplicaHolds { everything, nothing, all_but_the_last_syncs };

// A master, a replica that copies it through a relay (so the test decides how far it lags), and
// a Sentinel watching them, quick to fail over.
struct WatchedMaster {
    WatchedMaster() {
        // Sentinel learns of the replica from the master, so the replica is linked first.
        const bool linked = wr::test::eventually([&] {
            return master.cli({"INFO", "replication"}).find("connected_slaves:1") != std::string::npos &&
                   replica.cli({"INFO", "replication"}).find("master_link_status:up") != std::string::npos;
        }, 10s);
        REQUIRE_MESSAGE(linked, "the replica did not link to its master");
        // A long failover timeout: Sentinel would otherwise point the replica straight at the
        // master (it replicates from the relay's address) after it.
        sentinel.emplace(master.port(), "shop-state", 60s);
    }
    std::string url() const { return "redis-sentinel://127.0.0.1:" + std::to_string(sentinel->port()) + "/shop-state"; }
    bool promoted() const {
        return sentinel->cli({"SENTINEL", "get-master-addr-by-name", "shop-state"}).find(std::to_string(replica.port())) != std::string::npos;
    }

    wr::test::RedisServer master{{"--repl-diskless-sync-delay", "0"}}; // the replica's first copy at once, not in 5 s
    wr::test::TcpRelay link{master.port()};
    wr::test::RedisServer replica{{"--replicaof", "127.0.0.1", std::to_string(link.port())}};
    std::optional<wr::test::RedisSentinel> sentinel;
};

// 100 visitors let in before the master dies, 150 newcomers after the edges reached the new
// master: a 200/200 room lets in exactly 100 of them, whatever the replica had.
void fills_to_its_limits_after_a_failover(ReplicaHolds holds) {
    WatchedMaster redis;
    wr::test::CountingOrigin origin;
    nlohmann::json room = wr::test::shop_room();
    room["session_duration"] = 5; // no session ends during the test, whatever minute it spans
    wr::test::ThreeEdges edges(redis.url(), origin.url(), {}, {room});
    std::vector<wr::test::SpreadBrowser> browsers;
    for (int i = 0; i < 260; ++i) browsers.emplace_back(i);
    std::atomic<int> server_errors{0};

    if (holds == ReplicaHolds::nothing) redis.link.hold(); // it copied the empty start, nothing of the room
    wr::test::warm_up(edges, browsers, server_errors);
    // Browsers [from, to) let in: a burst lands unevenly on the edges' grants, so those left
    // waiting ask again until they are in.
    const auto let_in = [&](size_t from, size_t to) {
        wr::test::visit_spread(edges, browsers, from, to, server_errors);
        wr::test::waiting_ask_again(edges, browsers, to, to, server_errors);
    };
    if (holds == ReplicaHolds::all_but_the_last_syncs) {
        let_in(3, 60);
        std::this_thread::sleep_for(300ms); // pushed, and copied to the replica
        redis.link.hold();
        let_in(60, 100);
        // The replica's link stays silent a while longer (as a broken link does until a
        // replication timeout) while the edges go on syncing: longer than a node keeps
        // acknowledged batches, so only the store's copy of each contribution can tell.
        std::this_thread::sleep_for(11s);
    } else {
        let_in(3, 100);
    }
    REQUIRE(wr::test::admitted_count(browsers) == 100);
    std::this_thread::sleep_for(300ms); // every edge pushed its admissions, and the master acknowledged them
    redis.master.kill();
    REQUIRE_MESSAGE(wr::test::eventually([&] { return redis.promoted(); }, 20s), "Sentinel did not fail over");
    REQUIRE_MESSAGE(wr::test::eventually([&] { return edges.all_connected("redis-sentinel"); }, 10s),
                    "the edges did not reach the new master");

    // The newcomers, and those of them waiting asking again as their pages make them.
    wr::test::visit_spread(edges, browsers, 100, 250, server_errors);
    wr::test::waiting_ask_again(edges, browsers, 250, 200, server_errors);
    // Once more, after the edges have synced: none of the waiting gets a place that is not there.
    std::this_thread::sleep_for(300ms);
    for (size_t i = 100; i < 250; ++i)
        if (!browsers[i].admitted && browsers[i].get(edges.edge(i)).first >= 500) ++server_errors;
    CHECK(server_errors == 0);
    CHECK(wr::test::admitted_count(browsers) == 200);
    CHECK(origin.served() == wr::test::admitted_count(browsers));
    wr::test::wait_until_every_edge_reports(edges, 200);
    for (const auto& node : edges.nodes) CHECK(node->status()["estimated_total_active_users"] == 200);
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("state failover: a replica that copied everything: every admission counts once and the room fills to its limits") {
    fills_to_its_limits_after_a_failover(ReplicaHolds::everything);
}

TEST_CASE("state failover: an empty new master: every edge pushes what it counts and the room fills to its limits") {
    fills_to_its_limits_after_a_failover(ReplicaHolds::nothing);
}

TEST_CASE("state failover: a replica that lagged by the last syncs, for longer than a node keeps batches: what it missed is "
          "sent again, once, and the room fills to its limits") {
    fills_to_its_limits_after_a_failover(ReplicaHolds::all_but_the_last_syncs);
}

} // TEST_SUITE
