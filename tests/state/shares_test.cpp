// Grants of free slots, demand weights and the --state URL: plain arithmetic and parsing.
#include <doctest/doctest.h>

#include <stdexcept>

#include "state/change_set.h"
#include "state/shares.h"
#include "state/state_url.h"
#include "util/random.h"

using wr::state::compute_grant;
using wr::state::Grant;
using wr::state::GrantRequest;

namespace {

// A request from a node with demand `own` (requests per second; its weight in thousandths), the
// other live nodes' demand summed, and what their grants hold.
GrantRequest request(int64_t free_total, int64_t free_minute, double own, double others, int64_t others_live, int64_t reserved_total = 0,
                     int64_t reserved_minute = 0) {
    return {free_total, free_minute, reserved_total, reserved_minute, std::llround(own * 1000), std::llround(own * 1000), std::llround(others * 1000),
            others_live};
}

} // namespace

TEST_CASE("state: a node's grant is its share of the free slots, never more than other nodes' grants leave") {
    struct Case {
        const char* name;
        GrantRequest request;
        Grant grant;
    };
    const Case cases[] = {
        {"alone, but perhaps not for long: half now", request(200, 150, 5, 0, 0), {100, 75, 7}},
        {"alone with the demand to use it: everything", request(200, 150, 500, 0, 0), {200, 150, 7}},
        {"90 % of the demand", request(200, 200, 90, 10, 2), {180, 180, 7}},
        {"5 % of the demand: room for a few at once while the room has plenty", request(200, 30, 5, 95, 2), {15, 8, 7}},
        {"seats rounded up (1.2 of 3 is 2), and the need caps a large share", request(1000, 3, 40, 60, 2), {250, 2, 7}},
        {"equal demand: each rounds up (1.5 of 3 is 2), the first to sync takes it…", request(1000, 3, 50, 50, 1), {334, 2, 7}},
        {"… and the other what that leaves", request(1000, 3, 50, 50, 1, 334, 2), {334, 1, 7}},
        {"others reserved most of it", request(200, 200, 50, 50, 1, 190, 195), {10, 5, 7}},
        {"no demand anywhere: a share among one node more", request(90, 92, 0, 0, 2), {23, 23, 7}},
        {"a quiet node keeps room for a few while two per node are free", request(6, 100, 0, 10, 2), {2, 5, 7}},
        {"… but not when fewer are free", request(5, 100, 0, 10, 2), {0, 5, 7}},
        {"over the limit: nothing", request(-3, 0, 10, 0, 0), {0, 0, 7}},
        {"reservations above the free slots: nothing", request(10, 10, 1, 1, 1, 12, 10), {0, 0, 7}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        CHECK(compute_grant(c.request, 7) == c.grant);
    }
}

TEST_CASE("state: the seats of the nodes cover the free slots, by fewer than one a node over them, and a node with no demand has none") {
    wr::util::SeededRandom random(9);
    for (int round = 0; round < 200; ++round) {
        const int64_t free = static_cast<int64_t>(random.below(500));
        std::vector<int64_t> weights;
        const int count = 1 + static_cast<int>(random.below(6));
        for (int i = 0; i < count; ++i) weights.push_back(random.chance(0.2) ? 0 : static_cast<int64_t>(random.below(100000)));
        int64_t total = 0;
        for (const int64_t weight : weights) total += weight;
        int64_t seats = 0;
        for (int i = 0; i < count; ++i) {
            const GrantRequest one{free, free, 0, 0, weights[i], 0, total - weights[i], count - 1};
            const int64_t mine = wr::state::apportioned_seats(one, free);
            if (total > 0 && weights[i] == 0) CHECK(mine == 0);
            seats += mine;
        }
        CAPTURE(free);
        CHECK(seats >= free);
        CHECK(seats < free + count);
    }
}

TEST_CASE("state: grants handed out one node after another never add up to more than the room has free") {
    // Three nodes syncing in turn, each reserving its grant: whatever the shares, the sum of
    // the grants in force stays within the free slots.
    const double demand[3] = {90, 5, 5};
    int64_t reserved[3] = {0, 0, 0};
    for (int round = 0; round < 12; ++round) {
        for (int node = 0; node < 3; ++node) {
            double others = 0;
            int64_t held = 0;
            for (int other = 0; other < 3; ++other)
                if (other != node) {
                    others += demand[other];
                    held += reserved[other];
                }
            reserved[node] = compute_grant(request(200, 200, demand[node], others, 2, held, held), 0).total;
            CHECK(reserved[0] + reserved[1] + reserved[2] <= 200);
        }
    }
    CHECK(reserved[0] == 180); // the busy node holds its share; the quiet ones what is left
}

TEST_CASE("state: a node's demand weight rises with a surge at once and falls by halves when it goes quiet") {
    constexpr std::chrono::milliseconds interval{250};
    double weight = wr::state::next_demand_weight(0, 25, interval, interval);
    CHECK(weight == doctest::Approx(100)); // 25 per 250 ms: 100 a second, at once
    weight = wr::state::next_demand_weight(weight, 0, interval, interval);
    CHECK(weight == doctest::Approx(50));
    for (int i = 0; i < 3; ++i) weight = wr::state::next_demand_weight(weight, 0, interval, interval);
    CHECK(weight < 7);
    // A sync right after another: one request is not a flood.
    CHECK(wr::state::next_demand_weight(0, 1, std::chrono::milliseconds{1}, interval) == doctest::Approx(4));
}

TEST_CASE("state: the local share rounds down and counts what was used") {
    CHECK(wr::state::local_share_allowance(0.5, 200, 0) == 100);
    CHECK(wr::state::local_share_allowance(0.33, 200, 60) == 6);
    CHECK(wr::state::local_share_allowance(0.05, 10, 0) == 0);
    CHECK(wr::state::local_share_allowance(1.0, -5, 0) == 0);
}

TEST_CASE("state: --state takes memory, redis://, redis-sentinel:// and redis-cluster:// URLs") {
    using wr::state::parse_state_url;
    using Kind = wr::state::StateUrl::Kind;
    CHECK(parse_state_url("memory").kind == Kind::memory);

    const auto redis = parse_state_url("redis://:s3cr%40t@10.0.0.5:6380/2");
    CHECK(redis.kind == Kind::redis);
    CHECK(redis.endpoints == std::vector<wr::state::RedisEndpoint>{{"10.0.0.5", 6380}});
    CHECK(redis.password == "s3cr@t");
    CHECK(redis.database == 2);
    CHECK(redis.describe() == "redis 10.0.0.5:6380/2"); // never the password
    CHECK(parse_state_url("redis://cache.internal").endpoints.front().port == 6379);
    CHECK(parse_state_url("redis://app:pw@[::1]:7000/0").username == "app");
    CHECK(parse_state_url("redis://app:pw@[::1]:7000/0").endpoints.front().host == "::1");

    const auto sentinel = parse_state_url("redis-sentinel://10.0.0.1:26379,10.0.0.2,10.0.0.3:26380/shop-state");
    CHECK(sentinel.kind == Kind::sentinel);
    CHECK(sentinel.endpoints.size() == 3);
    CHECK(sentinel.endpoints[1].port == 26379);
    CHECK(sentinel.master_name == "shop-state");
    CHECK(sentinel.describe() == "redis-sentinel master 'shop-state' via 10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26380");

    const auto cluster = parse_state_url("redis-cluster://app:pw%21@10.0.1.1:7000,10.0.1.2,[::1]:7002");
    CHECK(cluster.kind == Kind::cluster);
    CHECK(cluster.endpoints == std::vector<wr::state::RedisEndpoint>{{"10.0.1.1", 7000}, {"10.0.1.2", 6379}, {"::1", 7002}});
    CHECK(cluster.username == "app");
    CHECK(cluster.password == "pw!");
    CHECK(cluster.database == 0);
    CHECK(cluster.backend() == "redis-cluster");
    CHECK(cluster.describe() == "redis-cluster via 10.0.1.1:7000,10.0.1.2:6379,[::1]:7002"); // never the password

    struct Bad {
        const char* url;
        const char* message;
    };
    const Bad bad[] = {
        {"redis", "expected memory, redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], redis-sentinel://[[USER]:PASSWORD@]HOST[:PORT][,HOST[:PORT]…]/MASTER[/DB] or redis-cluster://[[USER]:PASSWORD@]HOST[:PORT][,HOST[:PORT]…], not 'redis'"},
        {"http://10.0.0.5:6379", "expected memory, redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], redis-sentinel://[[USER]:PASSWORD@]HOST[:PORT][,HOST[:PORT]…]/MASTER[/DB] or redis-cluster://[[USER]:PASSWORD@]HOST[:PORT][,HOST[:PORT]…], not 'http://10.0.0.5:6379'"},
        {"redis://10.0.0.5:notaport/0", "'notaport' is not a port (1 to 65535)"},
        {"redis://10.0.0.5:70000", "'70000' is not a port (1 to 65535)"},
        {"redis://10.0.0.5:", "'10.0.0.5:': no port after ':'"},
        {"redis://10.0.0.5:6379/x", "'x' is not a database number"},
        {"redis://", "no host in 'redis://'"},
        {"redis://a:6379,b:6379/0", "redis:// takes one server; list Sentinels with redis-sentinel://HOST:PORT,HOST:PORT/MASTER"},
        {"redis-sentinel://10.0.0.1:26379", "no master name: redis-sentinel://HOST:PORT[,HOST:PORT…]/MASTER"},
        {"redis-sentinel://10.0.0.1:26379,,10.0.0.2/m", "an empty Sentinel address in '10.0.0.1:26379,,10.0.0.2'"},
        {"redis-sentinel://10.0.0.1/my master", "'my master' is not a master name (letters, digits, '-', '_', '.')"},
        {"redis://:@10.0.0.5", "an empty password before '@'"},
        {"redis://:50%@10.0.0.5", "a '%' in the password must start an escape such as %40"},
        {"redis://bad host:1", "'bad host' is not a host name or address"},
        {"redis-cluster://10.0.1.1:7000/0", "redis-cluster:// takes no /DB or other path (a Redis Cluster has database 0 only), not '/0'"},
        {"redis-cluster://10.0.1.1:7000/", "redis-cluster:// takes no /DB or other path (a Redis Cluster has database 0 only), not '/'"},
        {"redis-cluster://10.0.1.1:7000,,10.0.1.2", "an empty Cluster node address in '10.0.1.1:7000,,10.0.1.2'"},
        {"redis-cluster://", "no host in 'redis-cluster://'"},
        {"redis-cluster://10.0.1.1:0", "'0' is not a port (1 to 65535)"},
        {"redis-cluster://:@10.0.1.1", "an empty password before '@'"},
        {"redis://::1", "'::1': an IPv6 address goes in brackets ([::1]:6379), and a host has one port"},
        {"redis-cluster://fe80::1", "'fe80::1': an IPv6 address goes in brackets ([::1]:6379), and a host has one port"},
        {"redis://h:6379:6380", "'h:6379:6380': an IPv6 address goes in brackets ([::1]:6379), and a host has one port"},
    };
    for (const Bad& b : bad) {
        CAPTURE(b.url);
        CHECK_THROWS_WITH_AS(parse_state_url(b.url), b.message, std::invalid_argument);
    }
}

TEST_CASE("state: a change set sums counts per key, keeps the last revocation and seed, and prunes what no longer counts") {
    using Kind = wr::queue::LedgerChange::Kind;
    const wr::util::TimePoint now{std::chrono::minutes{29'000'000}};
    const int64_t minute = wr::queue::minute_of(now);
    wr::state::ChangeSet changes;
    changes.record({Kind::active, minute, 0, 1});
    changes.record({Kind::active, minute, 0, 1});
    changes.record({Kind::active, minute - 1, 0, -1});
    changes.record({Kind::active, minute - 1, 0, 1}); // sums to zero: gone
    changes.record({Kind::admitted, minute, 0, 1});
    changes.record({Kind::waiting, 1000, minute - 3, 1}); // too old once pruned
    changes.record({Kind::revoked, 42, now.time_since_epoch().count() + 5000, 0});
    changes.record({Kind::revoked, 43, now.time_since_epoch().count() - 1, 0});
    changes.record({Kind::release_seed, minute, 7, 0});
    changes.record({Kind::release_seed, minute, 8, 0});
    const int64_t slot = wr::queue::check_in_slot_of(now);
    changes.record({Kind::browsed, slot, 0, 20000});
    changes.record({Kind::browsed, slot, 0, 15000});
    changes.record({Kind::browsed, slot - 200, 0, 20000}); // older than half an hour: pruned
    changes.add_join(minute, wr::queue::ClientAddress{1}, 1);
    changes.add_join(minute - 1, wr::queue::ClientAddress{2}, 1);
    CHECK(changes.active_users(now, std::chrono::minutes{5}) == 2);
    CHECK(changes.admitted(minute) == 1);
    CHECK(changes.admitted_total() == 1);
    CHECK(changes.joins_of(minute, wr::queue::ClientAddress{1}) == 1);
    changes.prune(now);
    const std::vector<wr::queue::LedgerChange> expected = {{Kind::active, minute, 0, 2},
                                                            {Kind::admitted, minute, 0, 1},
                                                            {Kind::browsed, slot, 0, 35000},
                                                            {Kind::revoked, 42, now.time_since_epoch().count() + 5000, 0},
                                                            {Kind::release_seed, minute, 8, 0}};
    CHECK(changes.changes() == expected);
    CHECK(changes.joins() == std::vector<wr::state::JoinChange>{{minute, wr::queue::ClientAddress{1}, 1}});
}
