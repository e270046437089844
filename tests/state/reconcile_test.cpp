// Nodes sharing a room through the in-process store, on virtual time: the limits hold across
// nodes, shares follow demand, order holds, and counts reconcile exactly through lost answers,
// a store that forgets everything, a failover that loses acknowledged writes and outages. Every
// count is checked against the test's own tally of the outcomes it saw, not the counters'.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <memory>

#include "state/memory_store.h"
#include "state/room_replica.h"
#include "support/queue_policy.h"
#include "util/random.h"

using namespace std::chrono_literals;
using wr::queue::Outcome;
using wr::queue::Policy;
using wr::queue::Ticket;
using wr::queue::Verdict;
using wr::state::FailureMode;
using wr::state::Footing;
using wr::state::MemoryStore;
using wr::state::RoomReplica;
using wr::util::TimePoint;
using wr::test::limits;

namespace {

const TimePoint k_clock_start{std::chrono::sys_days{std::chrono::year{2026} / 11 / 22} + 10h};
const std::string k_room_id = "0123456789abcdef0123456789abcdef";

// A store that can be made unreachable, before sending or after (the answer lost).
class FlakyStore final : public wr::state::SharedStore {
public:
    explicit FlakyStore(MemoryStore& inner) : m_inner(inner) {}
    enum class Mode { up, down, answer_lost };
    Mode mode = Mode::up;
    std::vector<wr::state::RoomReply> exchange(const std::string& node, const std::vector<wr::state::RoomPush>& pushes,
                                               const wr::state::StoreTiming& timing) override {
        if (mode == Mode::down) throw wr::state::StoreUnavailable("connection refused", false);
        auto replies = m_inner.exchange(node, pushes, timing);
        if (mode == Mode::answer_lost) throw wr::state::StoreUnavailable("connection reset", true);
        return replies;
    }
    std::string describe() const override { return "flaky"; }
    std::string backend() const override { return "memory"; }

private:
    MemoryStore& m_inner;
};

// K nodes with one replica each of the same room, on one store and one virtual clock.
struct ReplicaCluster {
    explicit ReplicaCluster(int nodes, FailureMode mode = FailureMode::local_share, wr::util::Milliseconds interval = 250ms)
        : clock(k_clock_start), store(clock), flaky(store) {
        wr::state::ReplicaSettings settings;
        settings.sync_interval = interval;
        settings.failure_mode = mode;
        timing.grant_validity_ms = wr::state::grant_validity(interval).count();
        timing.node_liveness_ms = wr::state::node_liveness(interval).count();
        for (int i = 0; i < nodes; ++i) replicas.push_back(std::make_unique<RoomReplica>(settings));
    }
    // One round trip of node `i`; false when the store failed it.
    bool sync(int i) {
        const TimePoint now = clock.now();
        const wr::state::RoomPush push = replicas[i]->begin_sync(k_room_id, now);
        try {
            const auto replies = flaky.exchange("node-" + std::to_string(i), {push}, timing);
            replicas[i]->end_sync(replies.at(0), now);
            if (replicas[i]->needs_resync()) return sync(i);
            return true;
        } catch (const wr::state::StoreUnavailable& error) {
            replicas[i]->sync_failed(error.maybe_applied(), now);
            return false;
        }
    }
    void sync_all() {
        for (size_t i = 0; i < replicas.size(); ++i) sync(static_cast<int>(i));
    }
    // Three rounds with nothing new: the room's merger gets every node's changes by the end of
    // the first, hands its digest of them to the store in the second, and every node has read
    // it by the end of the third (a node that syncs before the merger reads it a round later).
    void settle() {
        for (int round = 0; round < 3; ++round) sync_all();
    }
    // The store's counts, read as a node that serves none of the room would.
    wr::queue::RoomFigures global(const Policy& policy) {
        RoomReplica reader(wr::state::ReplicaSettings{});
        const auto replies = store.exchange("reader", {reader.begin_sync(k_room_id, clock.now(), true)}, timing);
        reader.end_sync(replies.at(0), clock.now());
        return reader.figures(policy, clock.now());
    }
    // Five seconds of equal demand on every node, each syncing every 250 ms.
    void even_demand(const Policy& policy) {
        for (int round = 0; round < 20; ++round) {
            for (size_t i = 0; i < replicas.size(); ++i) visit(static_cast<int>(i), policy);
            clock.advance(250ms);
            sync_all();
        }
    }
    Outcome visit(int i, const Policy& policy, std::optional<Ticket> ticket = std::nullopt) {
        return replicas[i]->check_in(policy, ticket, clock.now(), random, wr::queue::Arrival::join);
    }

    wr::util::FakeClock clock;
    MemoryStore store;
    FlakyStore flaky;
    wr::state::StoreTiming timing;
    std::vector<std::unique_ptr<RoomReplica>> replicas;
    wr::util::SeededRandom random{11};
};

// Which node each arrival goes to, by traffic shares.
int pick(wr::util::Random& random, const std::vector<double>& shares) {
    double draw = random.unit();
    for (size_t i = 0; i < shares.size(); ++i) {
        if (draw < shares[i]) return static_cast<int>(i);
        draw -= shares[i];
    }
    return static_cast<int>(shares.size()) - 1;
}

// Browsers that come back when their page says (the refresh interval) until they are let in;
// each request goes to the node `route` picks. The test's own tally of who got in, and when.
struct Crowd {
    struct Waiting {
        Ticket ticket;
        TimePoint due;
    };
    std::vector<Waiting> waiting;
    std::map<int64_t, int64_t> admitted_by_minute;
    std::vector<std::pair<TimePoint, int>> session_edges; // (time, +1 start / −1 end of the cookie)
    std::vector<int64_t> admitted_at_node = std::vector<int64_t>(8, 0);

    void visit(ReplicaCluster& cluster, int node, const Policy& policy, const std::optional<Ticket>& ticket) {
        const TimePoint now = cluster.clock.now();
        const Outcome outcome = cluster.visit(node, policy, ticket);
        if (outcome.newly_admitted) {
            ++admitted_by_minute[wr::queue::minute_of(now)];
            ++admitted_at_node[static_cast<size_t>(node)];
            session_edges.emplace_back(now, 1);
            session_edges.emplace_back(wr::queue::ticket_expiry(outcome.ticket, policy), -1);
        } else if (outcome.verdict == Verdict::queue) {
            waiting.push_back({outcome.ticket, outcome.ticket.last_check_in + std::chrono::seconds{outcome.ticket.refresh_interval_seconds}});
        }
    }
    // New arrivals, then every waiting browser whose page has refreshed.
    template <typename Route>
    void step(ReplicaCluster& cluster, const Policy& policy, int arrivals, Route route) {
        const TimePoint now = cluster.clock.now();
        for (int i = 0; i < arrivals; ++i) visit(cluster, route(), policy, std::nullopt);
        std::vector<Waiting> due;
        std::erase_if(waiting, [&](const Waiting& w) {
            if (w.due > now) return false;
            due.push_back(w);
            return true;
        });
        for (const Waiting& w : due) visit(cluster, route(), policy, w.ticket);
    }
    // Sessions valid at once, by their cookies.
    int64_t most_sessions() {
        std::sort(session_edges.begin(), session_edges.end()); // an end sorts before a start at the same instant
        int64_t valid = 0, most = 0;
        for (const auto& [at, change] : session_edges) most = std::max(most, valid += change);
        return most;
    }
};

} // namespace

TEST_CASE("state: three nodes together admit no more than the limits, and fill them, at even and 90/5/5 traffic") {
    for (const std::vector<double>& shares : {std::vector<double>{1.0 / 3, 1.0 / 3, 1.0 / 3}, std::vector<double>{0.9, 0.05, 0.05}}) {
        CAPTURE(shares[0]);
        ReplicaCluster cluster(3);
        // One-minute sessions: each minute frees the last one's places, so both limits bind.
        Policy policy = limits(400, 200);
        policy.session_duration = 1min;
        cluster.sync_all();
        wr::util::SeededRandom traffic(5);
        Crowd crowd;
        // Four minutes of arrivals, 5 every 100 ms, far above 200 a minute; each node syncs
        // every 250 ms, out of phase with the others.
        std::map<int64_t, int64_t> waiting_at_end;
        for (int step = 0; step < 2400; ++step) {
            crowd.step(cluster, policy, 5, [&] { return pick(traffic, shares); });
            const int64_t minute = wr::queue::minute_of(cluster.clock.now());
            cluster.clock.advance(100ms);
            if (wr::queue::minute_of(cluster.clock.now()) != minute) waiting_at_end[minute] = static_cast<int64_t>(crowd.waiting.size());
            const int64_t elapsed = (cluster.clock.now() - k_clock_start).count();
            for (int node = 0; node < 3; ++node)
                if ((elapsed + node * 83) % 250 < 100) cluster.sync(node);
        }
        REQUIRE(crowd.admitted_by_minute.size() == 4);
        for (const auto& [minute, admitted] : crowd.admitted_by_minute) {
            CAPTURE(minute);
            CHECK(admitted <= 200);
            // People waited at the end of each minute: its places were used.
            if (waiting_at_end[minute] > 0) CHECK(admitted >= 196);
        }
        CHECK(crowd.most_sessions() <= 400);
    }
}

TEST_CASE("state: a node with 90 % of the demand lets in about 90 % of a full room, and an idle node strands nothing") {
    ReplicaCluster cluster(3);
    const Policy policy = limits(1000, 200);
    cluster.sync_all();
    cluster.clock.set(wr::queue::minute_start(wr::queue::minute_of(cluster.clock.now()) + 1));
    cluster.sync_all(); // as the sync thread does just after a minute starts
    // Node 0 takes 90 % of the requests, node 1 10 %, node 2 none; demand far above 200 a minute.
    wr::util::SeededRandom traffic(3);
    Crowd crowd;
    for (int step = 0; step < 160; ++step) { // 40 seconds: waiting browsers come back twice
        crowd.step(cluster, policy, 10, [&] { return pick(traffic, {0.9, 0.1, 0.0}); });
        cluster.clock.advance(250ms);
        cluster.sync_all();
    }
    const auto& admitted = crowd.admitted_at_node;
    CHECK(admitted[0] + admitted[1] == 200); // every place of the minute used; none left on node 2
    CHECK(admitted[2] == 0);
    CHECK(static_cast<double>(admitted[0]) / 200.0 == doctest::Approx(0.9).epsilon(0.05));
}

TEST_CASE("state: grants in force never add up to more than the room has free, however the nodes' syncs interleave") {
    // Each node spends its whole allowance between syncs that alternate, before the other hears
    // of it. Only reserving grants keeps the sum within 200.
    ReplicaCluster cluster(2);
    const Policy policy = limits(1000, 200);
    cluster.clock.set(wr::queue::minute_start(wr::queue::minute_of(cluster.clock.now()) + 1));
    cluster.sync_all();
    int64_t admitted = 0;
    for (int round = 0; round < 12; ++round) {
        const int node = round % 2;
        for (int64_t i = cluster.replicas[node]->allowance(policy, cluster.clock.now()); i > 0; --i)
            admitted += cluster.visit(node, policy).newly_admitted;
        cluster.clock.advance(125ms);
        cluster.sync(node);
    }
    CHECK(admitted <= 200);
    CHECK(admitted >= 190);
}

TEST_CASE("state: what a node admits while its push is on its way stays reserved until the answer arrives") {
    // Node 0's answer comes back late; meanwhile it spends what its old grant left, and node 1
    // syncs and spends its new grant. Only reserving node 0's allowance at send time keeps the
    // two within the limit.
    ReplicaCluster cluster(2);
    const Policy policy = limits(1000, 200);
    cluster.clock.set(wr::queue::minute_start(wr::queue::minute_of(cluster.clock.now()) + 1));
    cluster.sync_all();
    int64_t admitted = 0;
    const auto spend = [&](int node) {
        for (int64_t i = cluster.replicas[node]->allowance(policy, cluster.clock.now()); i > 0; --i)
            admitted += cluster.visit(node, policy).newly_admitted;
    };
    for (int round = 0; round < 10; ++round) {
        const wr::state::RoomPush push = cluster.replicas[0]->begin_sync(k_room_id, cluster.clock.now());
        const auto replies = cluster.store.exchange("node-0", {push}, cluster.timing);
        spend(0); // before the answer arrives
        cluster.sync(1);
        spend(1);
        cluster.replicas[0]->end_sync(replies.at(0), cluster.clock.now());
        cluster.clock.advance(100ms);
    }
    CHECK(admitted <= 200);
    CHECK(admitted >= 190);
}

TEST_CASE("state: a push whose answer was lost is counted once when it is sent again") {
    ReplicaCluster cluster(2);
    const Policy policy = limits(1000, 1000);
    cluster.sync_all();
    int admitted = 0;
    for (int i = 0; i < 5; ++i) admitted += cluster.visit(0, policy).newly_admitted;
    cluster.flaky.mode = FlakyStore::Mode::answer_lost; // applied by the store, the answer never arrives
    CHECK_FALSE(cluster.sync(0));
    cluster.flaky.mode = FlakyStore::Mode::up;
    for (int i = 0; i < 3; ++i) admitted += cluster.visit(0, policy).newly_admitted;
    CHECK(cluster.sync(0));
    CHECK(cluster.sync(0));
    REQUIRE(admitted == 8);
    CHECK(cluster.global(policy).active_users == 8);
    cluster.sync(1);
    CHECK(cluster.replicas[1]->figures(policy, cluster.clock.now()).active_users == 8);
}

TEST_CASE("state: a node back in a room after more than an hour away, while others kept it alive, is not told its batches were lost") {
    ReplicaCluster cluster(2);
    const Policy policy = limits(1000, 1000);
    cluster.sync_all();
    for (int i = 0; i < 3; ++i) cluster.visit(0, policy);
    cluster.sync_all();
    // Node 0 serves no one for 61 minutes; node 1 keeps the room going, syncing every minute,
    // and the store forgets node 0's entry after an hour.
    for (int minute = 0; minute < 61; ++minute) {
        cluster.clock.advance(1min);
        cluster.visit(1, policy);
        REQUIRE(cluster.sync(1));
    }
    cluster.visit(0, policy);
    const TimePoint now = cluster.clock.now();
    const auto reply = cluster.store.exchange("node-0", {cluster.replicas[0]->begin_sync(k_room_id, now)}, cluster.timing).at(0);
    // Everything it had acknowledged stopped counting half an hour ago: nothing to recover.
    CHECK(reply.status == wr::state::RoomReply::Status::ok);
    cluster.replicas[0]->end_sync(reply, now);
    CHECK(cluster.replicas[0]->recovered_batches() == 0);
}

TEST_CASE("state: a store that lost everything gets every node's counts again, each once") {
    ReplicaCluster cluster(3);
    const Policy policy = limits(1000, 1000);
    cluster.sync_all();
    int admitted = 0;
    for (int i = 0; i < 12; ++i) admitted += cluster.visit(i % 3, policy).newly_admitted;
    for (int i = 0; i < 4; ++i) cluster.visit(i % 2, limits(200, 200)); // admitted too, more of them
    cluster.sync_all();
    cluster.settle();
    const int64_t before = cluster.global(policy).active_users;
    CHECK(before == admitted + 4);
    cluster.store.lose_everything(); // a restart without persistence
    CHECK(cluster.global(policy).active_users == 0);
    cluster.clock.advance(250ms);
    cluster.sync_all();
    cluster.sync_all();
    cluster.settle();
    CHECK(cluster.global(policy).active_users == before);
    for (auto& replica : cluster.replicas) CHECK(replica->figures(policy, cluster.clock.now()).active_users == before);
}

TEST_CASE("state: writes a failover lost after acknowledging them are sent again, and only those") {
    using Kind = wr::queue::LedgerChange::Kind;
    ReplicaCluster cluster(2);
    const Policy policy = limits(2, 1000);
    const auto stored = [&](Kind kind) {
        RoomReplica reader(wr::state::ReplicaSettings{});
        const auto replies = cluster.store.exchange("reader", {reader.begin_sync(k_room_id, cluster.clock.now(), true)}, cluster.timing);
        int64_t total = 0;
        for (const auto& change : replies.at(0).changes)
            if (change.kind == kind) total += change.delta;
        return total;
    };
    cluster.sync_all();
    // Three batches acknowledged, each with an arrival into the queue; the replica copied the first.
    CHECK(cluster.visit(0, policy).newly_admitted);
    CHECK(cluster.visit(0, policy).newly_admitted);
    CHECK(cluster.visit(0, policy).verdict == Verdict::queue);
    CHECK(cluster.sync(0));
    CHECK(cluster.sync(0)); // and digested (node 0 is the room's merger)
    const MemoryStore::Snapshot replica = cluster.store.snapshot_for_test();
    for (int batch = 0; batch < 2; ++batch) {
        cluster.clock.advance(250ms);
        CHECK(cluster.visit(0, policy).verdict == Verdict::queue);
        CHECK(cluster.sync(0)); // acknowledged by the master…
    }
    CHECK(cluster.sync(0));
    REQUIRE(stored(Kind::arrived) == 3);
    cluster.store.restore_for_test(replica); // …which dies; the replica never had the last two
    CHECK(stored(Kind::arrived) == 1);
    cluster.clock.advance(250ms);
    cluster.sync(0); // finds them missing, and sends them again
    cluster.sync(0);
    cluster.sync(0);
    CHECK(cluster.replicas[0]->recovered_batches() == 2);
    CHECK(cluster.replicas[0]->lost_batches() == 0);
    // The two, not the one the replica had as well.
    CHECK(stored(Kind::arrived) == 3);
    CHECK(stored(Kind::admitted) == 2);
    CHECK(cluster.global(policy).active_users == 2);
}

TEST_CASE("state: after a failover the store grants nothing until every node live before it has synced, or ten livenesses passed") {
    const Policy policy = limits(1000, 1000);
    const auto liveness = std::chrono::milliseconds{ReplicaCluster(1).timing.node_liveness_ms};
    for (const bool node_2_died : {false, true}) {
        CAPTURE(node_2_died);
        ReplicaCluster cluster(3);
        cluster.even_demand(policy);
        for (auto& replica : cluster.replicas) REQUIRE(replica->grant().total > 0);
        cluster.store.restore_for_test(cluster.store.snapshot_for_test()); // another server, with everything
        cluster.clock.advance(100ms);
        cluster.sync(0);
        CHECK(cluster.replicas[0]->grant().total == 0);
        cluster.clock.advance(liveness);
        cluster.sync(0);
        cluster.sync(1);
        CHECK(cluster.replicas[1]->grant().total == 0); // node 2 may still have changes to send again
        if (!node_2_died) {
            cluster.sync(2);
            CHECK(cluster.replicas[2]->grant().total > 0);
            cluster.sync(0);
            CHECK(cluster.replicas[0]->grant().total > 0);
            continue;
        }
        cluster.clock.advance(8 * liveness);
        cluster.sync(0);
        CHECK(cluster.replicas[0]->grant().total == 0);
        cluster.clock.advance(liveness);
        cluster.sync(0);
        CHECK(cluster.replicas[0]->grant().total > 0); // not waited for any longer
    }
    // A store that lost everything: each node pushes all it counts, and grants wait a liveness.
    ReplicaCluster cluster(2);
    cluster.even_demand(policy);
    cluster.store.lose_everything();
    cluster.clock.advance(100ms);
    cluster.sync_all();
    CHECK(cluster.replicas[0]->grant().total == 0);
    CHECK(cluster.replicas[1]->grant().total == 0);
    cluster.clock.advance(liveness);
    cluster.sync_all();
    CHECK(cluster.replicas[0]->grant().total > 0);
}

TEST_CASE("state: order holds across nodes: a new arrival anywhere waits behind those already waiting elsewhere") {
    ReplicaCluster cluster(2);
    const Policy full = limits(200, 200);
    cluster.sync_all();
    // Fill the room through node 0, as far as its grant goes each time, then three arrivals
    // queue at node 1.
    int admitted = 0;
    for (int round = 0; round < 20 && admitted < 200; ++round) {
        for (int64_t i = cluster.replicas[0]->allowance(full, cluster.clock.now()); i > 0; --i)
            admitted += cluster.visit(0, full).newly_admitted;
        cluster.clock.advance(250ms);
        cluster.sync_all();
    }
    REQUIRE(admitted == 200);
    std::vector<Ticket> waiting;
    for (int i = 0; i < 3; ++i) {
        const Outcome outcome = cluster.visit(1, full);
        REQUIRE(outcome.verdict == Verdict::queue);
        waiting.push_back(outcome.ticket);
    }
    // The next minute: those three are the oldest bucket, and keep their places by checking in.
    cluster.clock.advance(30s);
    for (Ticket& ticket : waiting) ticket = cluster.visit(1, full, ticket).ticket;
    cluster.clock.advance(30s);
    cluster.sync_all();
    cluster.settle();
    // Two more slots open (the limit rises to 202): a new arrival at node 0 is not let in ahead.
    const Policy two_more = limits(202, 200);
    cluster.visit(0, two_more);
    cluster.sync_all();
    CHECK(cluster.visit(0, two_more).verdict == Verdict::queue);
    // The waiting ones, checking in at node 0, are.
    cluster.clock.advance(2s);
    cluster.sync_all();
    int let_in = 0;
    for (const Ticket& ticket : waiting) let_in += cluster.visit(0, two_more, ticket).verdict == Verdict::admit;
    CHECK(let_in == 2);
}

TEST_CASE("state: a session revoked on one node is refused on the others after their next sync") {
    ReplicaCluster cluster(2);
    const Policy policy = limits(1000, 1000);
    cluster.sync_all();
    const Outcome admitted = cluster.visit(0, policy);
    REQUIRE(admitted.newly_admitted);
    cluster.sync_all();
    CHECK(cluster.visit(1, policy, admitted.ticket).verdict == Verdict::admit); // renewed on node 1
    CHECK(cluster.replicas[0]->revoke(policy, admitted.ticket, cluster.clock.now()));
    cluster.sync(0);
    cluster.sync(1);
    const Outcome replayed = cluster.visit(1, policy, admitted.ticket);
    CHECK(replayed.new_user); // the cookie no longer admits: a new visitor
    cluster.sync(1);
    CHECK(cluster.global(policy).active_users == 1); // the replayer, new; the revoked one gone
}

TEST_CASE("state: the per-address join limit holds across nodes within a sync per node") {
    ReplicaCluster cluster(3);
    cluster.sync_all();
    const wr::queue::ClientAddress client{10, 0, 0, 7};
    int allowed = 0;
    for (int attempt = 0; attempt < 10; ++attempt)
        for (int node = 0; node < 3; ++node) {
            allowed += cluster.replicas[node]->try_join(client, 5, cluster.clock.now());
            cluster.sync(node);
        }
    CHECK(allowed >= 5);
    CHECK(allowed <= 5 + 2); // each other node may take one more before its sync tells it
    // A new minute opens a new window everywhere.
    cluster.clock.advance(1min);
    CHECK(cluster.replicas[2]->try_join(client, 5, cluster.clock.now()));
}

TEST_CASE("state: the random queue's release seed of a minute is the first one any node pushed") {
    using Kind = wr::queue::LedgerChange::Kind;
    ReplicaCluster cluster(2);
    cluster.sync_all();
    const int64_t minute = wr::queue::minute_of(cluster.clock.now());
    const auto push_seed = [&](int node, int64_t seed) {
        wr::state::RoomPush push = cluster.replicas[node]->begin_sync(k_room_id, cluster.clock.now());
        push.batches.push_back({1000, {{Kind::release_seed, minute, seed, 0}}, {}});
        const auto replies = cluster.store.exchange("node-" + std::to_string(node), {push}, cluster.timing);
        for (const auto& [at, seed] : replies.at(0).seeds)
            if (at == minute) return seed;
        return int64_t{0};
    };
    CHECK(push_seed(0, 111) == 111);
    CHECK(push_seed(1, 222) == 111); // node 1 drew its own, and learns node 0's
}

TEST_CASE("state: when the store is away, local-share admits this node's share of each limit, minute by minute") {
    ReplicaCluster cluster(2);
    const Policy policy = limits(1000, 200);
    // Equal demand on both nodes, then the store goes away.
    cluster.even_demand(policy);
    const double share = cluster.replicas[0]->share();
    REQUIRE(share == doctest::Approx(0.5).epsilon(0.1));
    const auto expected = static_cast<int>(std::floor(share * 200 + 1e-9)); // its share of new_users_per_minute
    cluster.settle();
    const int64_t before = cluster.global(policy).active_users;
    cluster.flaky.mode = FlakyStore::Mode::down;
    cluster.clock.set(wr::queue::minute_start(wr::queue::minute_of(cluster.clock.now()) + 1) + 1s); // a fresh minute
    CHECK_FALSE(cluster.sync(0));
    CHECK(cluster.replicas[0]->footing(cluster.clock.now()) == Footing::degraded);
    std::vector<Ticket> waiting;
    int admitted = 0;
    for (int i = 0; i < 150; ++i) {
        const Outcome outcome = cluster.visit(0, policy);
        admitted += outcome.newly_admitted;
        if (outcome.verdict == Verdict::queue) waiting.push_back(outcome.ticket);
    }
    CHECK(admitted == expected);
    // The next minute frees this node's share again: those waiting first, then newcomers.
    cluster.clock.advance(1min);
    int next_minute = 0;
    for (const Ticket& ticket : waiting) next_minute += cluster.visit(0, policy, ticket).newly_admitted;
    CHECK(next_minute == static_cast<int>(waiting.size()));
    for (int i = 0; i < 100; ++i) next_minute += cluster.visit(0, policy).newly_admitted;
    CHECK(next_minute == expected);
    // The store returns: the counts made meanwhile reconcile, once.
    cluster.flaky.mode = FlakyStore::Mode::up;
    CHECK(cluster.sync(0));
    CHECK(cluster.sync(0));
    CHECK(cluster.global(policy).active_users == before + admitted + next_minute);
}

TEST_CASE("state: when the store is away, open admits everyone and closed admits no one new") {
    for (const FailureMode mode : {FailureMode::open, FailureMode::closed}) {
        CAPTURE(wr::state::to_string(mode));
        ReplicaCluster cluster(1, mode);
        const Policy policy = limits(200, 200);
        cluster.sync_all();
        const Outcome admitted = cluster.visit(0, policy);
        REQUIRE(admitted.newly_admitted);
        for (int i = 0; i < 250; ++i) cluster.visit(0, policy);
        cluster.flaky.mode = FlakyStore::Mode::down;
        cluster.clock.advance(2s);
        CHECK_FALSE(cluster.sync(0));
        int let_in = 0;
        for (int i = 0; i < 50; ++i) let_in += cluster.visit(0, policy).verdict == Verdict::admit;
        CHECK(let_in == (mode == FailureMode::open ? 50 : 0));
        // An admitted visitor keeps the session either way.
        CHECK(cluster.visit(0, policy, admitted.ticket).verdict == Verdict::admit);
    }
}

TEST_CASE("state: a room new on a node admits one visitor before its first sync, then waits for the grant") {
    ReplicaCluster cluster(1);
    const Policy policy = limits(200, 200);
    CHECK(cluster.replicas[0]->footing(cluster.clock.now()) == Footing::cold);
    CHECK(cluster.visit(0, policy).verdict == Verdict::admit);
    CHECK(cluster.visit(0, policy).verdict == Verdict::queue);
    cluster.sync(0);
    CHECK(cluster.replicas[0]->footing(cluster.clock.now()) == Footing::granted);
    CHECK(cluster.visit(0, policy).verdict == Verdict::admit);
}

TEST_CASE("state: the per-minute grant does not carry into the next minute") {
    ReplicaCluster cluster(1);
    const Policy policy = limits(1000, 200);
    cluster.clock.set(wr::queue::minute_start(wr::queue::minute_of(cluster.clock.now()) + 1) - 200ms);
    cluster.sync(0);
    CHECK(cluster.visit(0, policy).newly_admitted);
    cluster.clock.advance(210ms); // a new minute, its sync not yet done: last minute's grant is not this one's
    REQUIRE(cluster.replicas[0]->footing(cluster.clock.now()) == Footing::granted);
    CHECK(cluster.visit(0, policy).verdict == Verdict::queue);
    cluster.sync(0);
    CHECK(cluster.visit(0, policy).newly_admitted);
}

TEST_CASE("state: a visitor who waits only for this node's next grant comes back in seconds; one who waits for the room, or while the store is away, after the usual interval") {
    ReplicaCluster cluster(1);
    const Policy policy = limits(200, 200);
    cluster.sync(0);
    // A lone node is granted part of the room at a time; the visitor after its grant waits,
    // though the room has places.
    std::optional<Outcome> short_of_grant;
    int admitted = 0;
    for (int i = 0; i < 200 && !short_of_grant; ++i) {
        const Outcome outcome = cluster.visit(0, policy);
        if (outcome.verdict == Verdict::queue) short_of_grant = outcome;
        admitted += outcome.newly_admitted;
    }
    REQUIRE(short_of_grant);
    REQUIRE(admitted < 200);
    CHECK(short_of_grant->ticket.refresh_interval_seconds == 2); // two syncs of 250 ms, and at least 2 s
    // Back after that short refresh, with the next grant in: let in.
    cluster.clock.advance(2s);
    cluster.sync(0);
    CHECK(cluster.visit(0, policy, short_of_grant->ticket).newly_admitted);

    // The room full (the waiting come back as their pages make them): the usual interval.
    std::vector<Ticket> waiting;
    for (int round = 0; round < 20 && cluster.global(policy).active_users < 200; ++round) {
        std::vector<Ticket> still;
        for (const Ticket& ticket : waiting)
            if (const Outcome again = cluster.visit(0, policy, ticket); again.verdict == Verdict::queue) still.push_back(again.ticket);
        for (int i = 0; i < 50; ++i)
            if (const Outcome outcome = cluster.visit(0, policy); outcome.verdict == Verdict::queue) still.push_back(outcome.ticket);
        waiting = std::move(still);
        cluster.clock.advance(2s);
        cluster.sync(0);
    }
    const Outcome full = cluster.visit(0, policy);
    REQUIRE(full.verdict == Verdict::queue);
    REQUIRE(cluster.global(policy).active_users == 200);
    CHECK(full.ticket.refresh_interval_seconds == wr::queue::k_refresh_interval_seconds);
}

TEST_CASE("state: while the store is away, a visitor past this node's local share waits the usual interval") {
    ReplicaCluster cluster(2);
    const Policy policy = limits(1000, 200);
    cluster.even_demand(policy);
    cluster.flaky.mode = FlakyStore::Mode::down;
    cluster.clock.advance(2s);
    CHECK_FALSE(cluster.sync(0));
    REQUIRE(cluster.replicas[0]->footing(cluster.clock.now()) == Footing::degraded);
    std::optional<Outcome> queued;
    for (int i = 0; i < 200 && !queued; ++i) {
        const Outcome outcome = cluster.visit(0, policy);
        if (outcome.verdict == Verdict::queue) queued = outcome;
    }
    REQUIRE(queued);
    CHECK(queued->ticket.refresh_interval_seconds == wr::queue::k_refresh_interval_seconds);
}

TEST_CASE("state: the refresh of a visitor short of a grant is two sync intervals, between 2 s and the usual interval") {
    using wr::state::grant_retry_seconds;
    CHECK(grant_retry_seconds(10ms) == 2);
    CHECK(grant_retry_seconds(250ms) == 2);
    CHECK(grant_retry_seconds(1s) == 2);
    CHECK(grant_retry_seconds(1500ms) == 3);
    CHECK(grant_retry_seconds(3s) == 6);
    CHECK(grant_retry_seconds(10s) == wr::queue::k_refresh_interval_seconds);
    // And a node that syncs every 3 s gives its visitors 6 s.
    ReplicaCluster cluster(1, FailureMode::local_share, 3s);
    const Policy policy = limits(200, 200);
    cluster.visit(0, policy); // the one admission a room new on a node makes before its first sync
    const Outcome waiting = cluster.visit(0, policy);
    REQUIRE(waiting.verdict == Verdict::queue);
    CHECK(waiting.ticket.refresh_interval_seconds == 6);
}

TEST_CASE("state: a node's change reaches the other nodes through the merger within three syncs, and its own view at once") {
    ReplicaCluster cluster(3);
    const Policy policy = limits(1000, 1000);
    cluster.sync_all(); // node 0 synced first: the room's merger
    // Node 2 admits; its own view counts the visitors at once and keeps them through its push.
    for (int i = 0; i < 4; ++i) REQUIRE(cluster.visit(2, policy).newly_admitted);
    CHECK(cluster.replicas[2]->figures(policy, cluster.clock.now()).active_users == 4);
    cluster.sync(2); // into the raw log
    CHECK(cluster.replicas[2]->figures(policy, cluster.clock.now()).active_users == 4);
    CHECK(cluster.replicas[1]->figures(policy, cluster.clock.now()).active_users == 0);
    cluster.sync(0); // the merger gets node 2's record…
    cluster.sync(1);
    CHECK(cluster.replicas[1]->figures(policy, cluster.clock.now()).active_users == 0);
    cluster.sync(0); // …and hands its digest over
    cluster.sync(1);
    cluster.sync(2);
    for (auto& replica : cluster.replicas) CHECK(replica->figures(policy, cluster.clock.now()).active_users == 4);
}

TEST_CASE("state: a merger that stops syncing is replaced within a liveness, one back later digests nothing twice, and no count is lost") {
    ReplicaCluster cluster(3);
    const Policy policy = limits(100000, 100000);
    const auto liveness = std::chrono::milliseconds{cluster.timing.node_liveness_ms};
    int admitted = 0;
    const auto round = [&](std::initializer_list<int> nodes) {
        for (const int node : nodes) admitted += cluster.visit(node, policy).newly_admitted;
        cluster.clock.advance(250ms);
        for (const int node : nodes) cluster.sync(node);
    };
    for (int i = 0; i < 8; ++i) round({0, 1, 2});
    // Node 0, the merger, stops syncing (its last push in the raw log, not digested yet): for a
    // liveness no one digests, then node 1 or 2 takes over from where node 0's digests ended.
    admitted += cluster.visit(0, policy).newly_admitted;
    cluster.sync(0);
    for (auto at = cluster.clock.now() + liveness + 500ms; cluster.clock.now() < at;) round({1, 2});
    for (int i = 0; i < 4; ++i) round({1, 2});
    for (int i = 0; i < 3; ++i) { // settled, without node 0
        cluster.sync(1);
        cluster.sync(2);
    }
    CHECK(cluster.global(policy).active_users == admitted);
    for (int node : {1, 2}) CHECK(cluster.replicas[node]->figures(policy, cluster.clock.now()).active_users == admitted);
    // Node 0 comes back with the digest it owed: the room has another merger now, and its
    // digest is refused rather than counted again.
    for (int i = 0; i < 4; ++i) round({0, 1, 2});
    cluster.settle();
    CHECK(cluster.global(policy).active_users == admitted);
    for (int node = 0; node < 3; ++node) {
        CAPTURE(node);
        CHECK(cluster.replicas[node]->figures(policy, cluster.clock.now()).active_users == admitted);
    }
}

TEST_CASE("state: once digests pile up the merger sends a snapshot, and a node new to the room reads it and the digests after it") {
    ReplicaCluster cluster(2);
    const Policy policy = limits(100000, 100000);
    wr::util::SeededRandom traffic(5);
    std::vector<Ticket> waiting;
    int snapshots = 0;
    // Ten minutes of traffic at 250 ms: about 2,400 digests, sixty times what calls for a snapshot.
    for (int step = 0; step < 2400; ++step) {
        for (int node = 0; node < 2; ++node) {
            const Outcome outcome = cluster.visit(node, traffic.chance(0.5) ? limits(0, 0) : policy);
            if (outcome.verdict == Verdict::queue && waiting.size() < 50) waiting.push_back(outcome.ticket);
        }
        if (!waiting.empty()) {
            Ticket& ticket = waiting[traffic.next() % waiting.size()];
            ticket = cluster.visit(static_cast<int>(traffic.next() % 2), limits(0, 0), ticket).ticket; // a check-in
        }
        cluster.clock.advance(250ms);
        for (int node = 0; node < 2; ++node) {
            const wr::state::RoomPush push = cluster.replicas[node]->begin_sync(k_room_id, cluster.clock.now());
            snapshots += push.snapshot.has_value();
            const auto replies = cluster.store.exchange("node-" + std::to_string(node), {push}, cluster.timing);
            cluster.replicas[node]->end_sync(replies.at(0), cluster.clock.now());
        }
    }
    CHECK(snapshots >= 40);
    cluster.settle();
    // A node new to the room counts what those who were there all along count.
    RoomReplica newcomer(wr::state::ReplicaSettings{});
    const auto now = cluster.clock.now();
    const auto reply = cluster.store.exchange("newcomer", {newcomer.begin_sync(k_room_id, now, true)}, cluster.timing).at(0);
    CHECK(reply.whole);
    newcomer.end_sync(reply, now);
    const auto seen = newcomer.figures(policy, now);
    const auto there = cluster.replicas[0]->figures(policy, now);
    CHECK(seen.active_users == there.active_users);
    CHECK(seen.queued_users == there.queued_users);
    CHECK(seen.queued_users > 0);
    CHECK(seen.max_estimated_minutes == there.max_estimated_minutes);
    CHECK(seen.admitted_last_minute == there.admitted_last_minute);
}
