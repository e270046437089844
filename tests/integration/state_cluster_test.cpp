// Three real `wr serve` edges (and a control node) sharing rooms through a real six-node Redis
// Cluster: rooms on different shards hold their limits, a master dies and its replica takes
// over, a room's slot moves to another master mid-run. Judged by the browsers and the counting
// origin, never by wr's own counters.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "state/cluster_slots.h"
#include "state/redis_cluster_store.h"
#include "state/room_replica.h"
#include "support/eventually.h"
#include "support/fake_redis.h"
#include "support/prometheus_parser.h"
#include "support/redis_cluster.h"
#include "support/shared_state_nodes.h"
#include "support/spread_browser.h"
#include "support/temp_dir.h"

using namespace std::chrono_literals;
using wr::test::SpreadBrowser;
using wr::test::admitted_count;

namespace {

nlohmann::json news_room() {
    nlohmann::json room = wr::test::shop_room();
    room["name"] = "news";
    room["host"] = "news.example.com";
    return room;
}

int slot_of(const wr::test::ThreeEdges& edges, const std::string& room) {
    const std::string id = edges.nodes[0]->api("GET", "/client/v4/zones/example.com/waiting_rooms/" + room)["result"]["id"];
    return wr::state::key_slot(id);
}

// Browsers of `host` let in up to `to`: a burst lands unevenly on the edges' grants, so those
// left waiting ask again.
void let_in(const wr::test::ThreeEdges& edges, std::vector<SpreadBrowser>& browsers, size_t from, size_t to, std::atomic<int>& errors) {
    wr::test::visit_spread(edges, browsers, from, to, errors);
    wr::test::waiting_ask_again(edges, browsers, to, to, errors);
}

// 300 browsers of the shop, the first 90 of them let in (spread over the edges).
std::vector<SpreadBrowser> ninety_let_in(const wr::test::ThreeEdges& edges, std::atomic<int>& server_errors) {
    std::vector<SpreadBrowser> browsers;
    for (int i = 0; i < 300; ++i) browsers.emplace_back(i);
    wr::test::warm_up(edges, browsers, server_errors);
    let_in(edges, browsers, 3, 90, server_errors);
    REQUIRE(admitted_count(browsers) == 90);
    return browsers;
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("state cluster: rooms on different shards hold their limits, and every node (a control node too) reads each from its shard") {
    wr::test::RedisCluster cluster;
    wr::test::CountingOrigin origin;
    wr::test::ThreeEdges edges(cluster.url(), origin.url(), {}, {wr::test::shop_room(), news_room()});
    // The rooms' ids are random: the news moves to another master if it shares the shop's.
    const int shop_slot = slot_of(edges, "shop"), news_slot = slot_of(edges, "news");
    const int shop_master = cluster.master_of_slot(shop_slot);
    if (cluster.master_of_slot(news_slot) == shop_master) {
        const std::vector<int> masters = cluster.masters();
        const int other = masters[0] == shop_master ? masters[1] : masters[0];
        cluster.move_slot(news_slot, other);
        REQUIRE(wr::test::eventually([&] { return cluster.settled(news_slot, other); }, 5s));
    }
    REQUIRE(cluster.master_of_slot(news_slot) != shop_master);

    std::vector<SpreadBrowser> shop, readers;
    for (int i = 0; i < 260; ++i) {
        shop.emplace_back(i);
        readers.emplace_back(i, "news.example.com");
    }
    std::atomic<int> server_errors{0};
    wr::test::warm_up(edges, shop, server_errors);
    wr::test::warm_up(edges, readers, server_errors);
    // 240 arrivals at each room, spread over three edges: 200 places each between them.
    std::thread news_crowd([&] { wr::test::visit_spread(edges, readers, 3, 240, server_errors); });
    wr::test::visit_spread(edges, shop, 3, 240, server_errors);
    news_crowd.join();
    wr::test::waiting_ask_again(edges, shop, 240, 200, server_errors);
    wr::test::waiting_ask_again(edges, readers, 240, 200, server_errors);
    CHECK(server_errors == 0);
    for (const auto* browsers : {&shop, &readers}) {
        CHECK(admitted_count(*browsers) <= 200);
        CHECK(admitted_count(*browsers) >= 196);
    }
    CHECK(origin.served("shop.example.com") == admitted_count(shop));
    CHECK(origin.served("news.example.com") == admitted_count(readers));
    wr::test::wait_until_every_edge_reports(edges, admitted_count(shop));
    wr::test::wait_until_every_edge_reports(edges, admitted_count(readers), "news");
    for (const auto& node : edges.nodes) {
        CHECK(node->status()["estimated_total_active_users"] == admitted_count(shop));
        CHECK(node->status("news")["estimated_total_active_users"] == admitted_count(readers));
        CHECK(node->connected("edge-" + std::to_string(&node - &edges.nodes[0] + 1), "redis-cluster") == 1);
    }
    // A node that serves neither room (as a control node) reads both, each from its master.
    wr::test::TempDir quiet_dir;
    const auto quiet = edges.copy_of_first(quiet_dir.path(), cluster.url(), "control");
    CHECK(quiet->status()["estimated_total_active_users"] == admitted_count(shop));
    CHECK(quiet->status("news")["estimated_total_active_users"] == admitted_count(readers));
    CHECK(quiet->status("news")["estimated_queued_users"] == 240 - admitted_count(readers));
}

TEST_CASE("state cluster: a master killed mid-run: no 5xx, its rooms go on by --state-failure, and counts are whole after its replica "
          "takes over") {
    wr::test::RedisCluster cluster;
    wr::test::CountingOrigin origin;
    nlohmann::json room = wr::test::shop_room();
    room["session_duration"] = 5; // no session ends during the test, whatever minute it spans
    wr::test::ThreeEdges edges(cluster.url(), origin.url(), {}, {room});
    const int slot = slot_of(edges, "shop");
    const int master = cluster.master_of_slot(slot);
    const int replica = cluster.replica_of(master);
    REQUIRE(replica != 0);
    std::atomic<int> server_errors{0};
    std::vector<SpreadBrowser> browsers = ninety_let_in(edges, server_errors);
    // Every edge has heard of every admission, and the replica has copied them.
    REQUIRE(wr::test::eventually([&] { return cluster.node(replica).cli({"INFO", "replication"}).find("master_link_status:up") != std::string::npos; }));
    std::this_thread::sleep_for(300ms);
    cluster.node(master).kill();
    const auto killed = std::chrono::steady_clock::now();

    // Meanwhile the shop admits by local-share, without a 5xx.
    wr::test::visit_spread(edges, browsers, 90, 120, server_errors);
    CHECK(server_errors == 0);
    CHECK(origin.served() == admitted_count(browsers));

    // The replica takes over (the cluster notices within its node timeout, 1 s); the edges
    // follow and push what they counted meanwhile.
    REQUIRE(wr::test::eventually([&] { return cluster.settled(slot, replica); }, 15s));
    const auto promoted = std::chrono::steady_clock::now();
    wr::test::wait_until_every_edge_reports(edges, admitted_count(browsers));
    const auto whole = std::chrono::steady_clock::now();
    for (const auto& node : edges.nodes) CHECK(node->status()["estimated_total_active_users"] == admitted_count(browsers));
    MESSAGE("promoted " << std::chrono::duration_cast<std::chrono::milliseconds>(promoted - killed).count() << " ms after the kill; counts whole "
                        << std::chrono::duration_cast<std::chrono::milliseconds>(whole - promoted).count() << " ms after");
    CHECK(whole - promoted < 10s);
    // And the room fills to exactly its limits, not past them.
    let_in(edges, browsers, 120, 300, server_errors);
    CHECK(server_errors == 0);
    CHECK(admitted_count(browsers) <= 200);
    CHECK(admitted_count(browsers) >= 196);
    CHECK(origin.served() == admitted_count(browsers));
}

TEST_CASE("state cluster: a room's slot moved to another master mid-run: MOVED and ASK followed, no count lost") {
    wr::test::RedisCluster cluster;
    wr::test::CountingOrigin origin;
    nlohmann::json room = wr::test::shop_room();
    room["session_duration"] = 5;
    wr::test::ThreeEdges edges(cluster.url(), origin.url(), {}, {room});
    const int slot = slot_of(edges, "shop");
    const int from = cluster.master_of_slot(slot);
    const std::vector<int> masters = cluster.masters();
    const int to = masters[0] == from ? masters[1] : masters[0];
    std::atomic<int> server_errors{0};
    std::vector<SpreadBrowser> browsers = ninety_let_in(edges, server_errors);
    // Visitors keep coming while the slot moves, key by key, as redis-cli --cluster reshard moves it.
    std::thread crowd([&] { wr::test::visit_spread(edges, browsers, 90, 150, server_errors); });
    cluster.move_slot(slot, to);
    crowd.join();
    REQUIRE(wr::test::eventually([&] { return cluster.settled(slot, to); }, 5s));
    CHECK(cluster.node(to).cli({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}) != "0");
    CHECK(cluster.node(from).cli({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}) == "0");

    wr::test::wait_until_every_edge_reports(edges, admitted_count(browsers));
    for (const auto& node : edges.nodes) CHECK(node->status()["estimated_total_active_users"] == admitted_count(browsers));
    let_in(edges, browsers, 150, 300, server_errors);
    CHECK(server_errors == 0);
    CHECK(admitted_count(browsers) <= 200);
    CHECK(admitted_count(browsers) >= 196);
    CHECK(origin.served() == admitted_count(browsers));
    for (const auto& node : edges.nodes) CHECK(node->status()["estimated_total_active_users"] == admitted_count(browsers));
}

TEST_CASE("state cluster: a master that stops answering costs the other masters' rooms one short wait, and its rooms fail alone") {
    wr::test::RedisCluster cluster;
    // Two rooms whose slots two different masters serve.
    std::vector<std::string> rooms;
    std::vector<int> masters;
    for (int n = 0; rooms.size() < 2; ++n) {
        char id[33];
        std::snprintf(id, sizeof id, "%032x", n);
        const int master = cluster.master_of_slot(wr::state::key_slot(id));
        if (std::find(masters.begin(), masters.end(), master) != masters.end()) continue;
        rooms.push_back(id);
        masters.push_back(master);
    }
    wr::state::RedisClusterStoreOptions options;
    options.url = wr::state::parse_state_url(cluster.url());
    wr::state::RedisClusterStore store(options); // 1 s for answers, as at the default 250 ms interval
    wr::state::RoomReplica healthy(wr::state::ReplicaSettings{}), stalled(wr::state::ReplicaSettings{});
    wr::util::SystemClock clock;
    wr::state::StoreTiming timing;
    const auto sync = [&] {
        const auto at = clock.now();
        const auto started = std::chrono::steady_clock::now();
        auto replies = store.exchange("node-1", {healthy.begin_sync(rooms[0], at), stalled.begin_sync(rooms[1], at)}, timing);
        const auto took = std::chrono::steady_clock::now() - started;
        healthy.end_sync(replies.at(0), clock.now());
        stalled.end_sync(replies.at(1), clock.now());
        return std::make_pair(replies, took);
    };
    REQUIRE(sync().first.at(1).status == wr::state::RoomReply::Status::ok);

    // The second room's master hangs: connections open, nothing answered (a host cut off without a reset).
    cluster.node(masters[1]).pause();
    // Six syncs at the default interval, 3 s: the first finds the master gone, the next ones leave
    // it alone for a second, then try it again briefly. Once the cluster itself sees the master
    // fail (its node timeout, 1 s here) every master answers CLUSTERDOWN until the replica takes
    // over: the other room fails then too, by the cluster's word, not for a wait. The replica may
    // take over within the six (failure seen after 1 s, an election after it): the room then
    // syncs on it, and the rounds end.
    int granted_rounds = 0;
    for (int round = 0; round < 6; ++round) {
        CAPTURE(round);
        const auto [replies, took] = sync();
        MESSAGE("round " << round << ": " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms; " << replies.at(0).error);
        if (replies.at(1).status != wr::state::RoomReply::Status::failed) {
            // The replica took over and answers: `ok`, or `epoch`/`lost` when the master stopped
            // before it had copied the room's last writes (the node then pushes again at once; the
            // check after the rounds wants `ok`). Not before the cluster itself saw the master
            // fail: the paused one answers nothing.
            CHECK(round >= 2);
            break;
        }
        // At most half the answers' timeout beyond the others' answers, not the whole of it for
        // each master in turn, or for each reconnection: the grant (1 s from the push) still holds.
        CHECK(took < 700ms);
        if (replies.at(0).status == wr::state::RoomReply::Status::ok) {
            CHECK(healthy.footing(clock.now()) == wr::state::Footing::granted);
            ++granted_rounds;
        } else {
            CHECK(replies.at(0).error.find("CLUSTERDOWN") != std::string::npos);
        }
        std::this_thread::sleep_for(250ms); // the sync interval
    }
    CHECK(granted_rounds >= 2);
    cluster.node(masters[1]).resume();
    // Back: its rooms sync again once it has rested.
    CHECK(wr::test::eventually([&] { return sync().first.at(1).status == wr::state::RoomReply::Status::ok; }, 5s));
}

TEST_CASE("state cluster: a master cut off from the other nodes, that this node still reaches, is not taken at its word for the slot map") {
    using wr::test::FakeRedis;
    // Two stand-in nodes, the cut-off master named first in the URL: each is a master to itself
    // and names itself for every slot. The cut-off one says the cluster is down, as a master in
    // the minority of a split does once its node timeout passes, and answers every script
    // CLUSTERDOWN; the other holds the cluster (its replica was promoted there).
    const auto node = [](const std::string& state, const std::string& script_answer, const std::atomic<int>& port) {
        return [state, script_answer, &port](const std::vector<std::string>& command) -> std::string {
            const std::string verb = command.empty() ? "" : command[0];
            const std::string sub = command.size() > 1 ? command[1] : "";
            if (verb == "CLUSTER" && sub == "INFO") return FakeRedis::bulk("cluster_state:" + state + "\r\ncluster_slots_assigned:16384\r\n");
            if (verb == "CLUSTER" && sub == "SLOTS") return FakeRedis::all_slots_at(port);
            if (verb == "ROLE") return "*3\r\n" + FakeRedis::bulk("master") + ":0\r\n*0\r\n";
            if (verb == "INFO") return FakeRedis::bulk("run_id:" + std::to_string(port.load()) + "\r\n");
            if (verb == "SCRIPT") return FakeRedis::bulk("0123456789012345678901234567890123456789");
            if (verb == "EVALSHA") return FakeRedis::error(script_answer);
            return FakeRedis::error("ERR unknown command");
        };
    };
    std::atomic<int> cut_off_port{0}, holding_port{0};
    FakeRedis cut_off(node("fail", "CLUSTERDOWN The cluster is down", cut_off_port));
    FakeRedis holding(node("ok", "ERR run by the master that holds the cluster", holding_port));
    cut_off_port = cut_off.port();
    holding_port = holding.port();

    wr::state::RedisClusterStoreOptions options;
    options.url = wr::state::parse_state_url("redis-cluster://127.0.0.1:" + std::to_string(cut_off.port()) + ",127.0.0.1:" +
                                             std::to_string(holding.port()));
    wr::state::RedisClusterStore store(options);
    wr::state::RoomReplica room(wr::state::ReplicaSettings{});
    wr::util::SystemClock clock;
    wr::state::StoreTiming timing;
    for (int round = 0; round < 3; ++round) {
        CAPTURE(round);
        const auto replies = store.exchange("node-1", {room.begin_sync("00112233445566778899aabbccddeeff", clock.now())}, timing);
        room.end_sync(replies.at(0), clock.now());
        CHECK(replies.at(0).error.find("run by the master that holds the cluster") != std::string::npos);
        CHECK(replies.at(0).error.find("CLUSTERDOWN") == std::string::npos);
    }
    // With only the cut-off node to ask, its map is the one there is: its rooms fail by its word.
    wr::state::RedisClusterStoreOptions alone;
    alone.url = wr::state::parse_state_url("redis-cluster://127.0.0.1:" + std::to_string(cut_off.port()));
    wr::state::RedisClusterStore lonely(alone);
    wr::state::RoomReplica other(wr::state::ReplicaSettings{});
    const auto reply = lonely.exchange("node-1", {other.begin_sync("00112233445566778899aabbccddeeff", clock.now())}, timing).at(0);
    CHECK(reply.error.find("CLUSTERDOWN") != std::string::npos);
}

TEST_CASE("state cluster: an unreachable cluster at start is a logged degraded mode, not a crash") {
    const int closed = wr::test::free_port();
    wr::test::CountingOrigin origin;
    wr::test::TempDir dir;
    wr::test::SharedStateNode node(dir.path(), "redis-cluster://127.0.0.1:" + std::to_string(closed), "edge-1");
    node.api("POST", "/client/v4/zones", {{"name", "example.com"}, {"origin", origin.url()}});
    node.api("POST", "/client/v4/zones/example.com/waiting_rooms", wr::test::shop_room());
    CHECK(wr::test::first_visitors_served_alone(node) == 5); // local-share, no share known yet
    CHECK(node.connected("edge-1", "redis-cluster") == 0);
    node.process.send_signal(SIGTERM);
    REQUIRE(node.process.wait_exit(10s) == 0);
    const std::string log = node.process.output() + node.process.rest_of_output();
    CHECK(log.find("cannot reach redis-cluster via 127.0.0.1:" + std::to_string(closed) + ": no Redis Cluster node answered CLUSTER SLOTS") !=
          std::string::npos);
}

} // TEST_SUITE
