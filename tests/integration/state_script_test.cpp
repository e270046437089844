// The sync script (server/state/reconcile.lua) on a real redis-server, beside its C++ twin
// (MemoryStore): the two give the same answers; rooms far larger than usual sync whole; every key
// gets its time to live from the sync that makes it; damaged values fail nothing; and after a
// failover to a copy that lagged, or a state lost and made anew, every node reads what it must.
// A failover is played on Redis by putting back a copy of the room's keys taken earlier (DUMP,
// RESTORE), as written by another server — what a promoted replica that lagged holds.
//
// Count changes reach readers through the room's merger: a node's push lands in the raw log, the
// merger gets it at its next sync and sends its digest at the one after, and readers read digests.
#include <doctest/doctest.h>

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>

#include "state/memory_store.h"
#include "state/redis_store.h"
#include "state/room_replica.h"
#include "state/store_keys.h"
#include "support/redis_server.h"
#include "util/random.h"

using wr::test::RedisServer;

// The Lua/C++ twin test shows the counts that differ.
namespace doctest {
template <> struct StringMaker<std::vector<wr::queue::LedgerChange>> {
    static String convert(const std::vector<wr::queue::LedgerChange>& changes) {
        std::string out = "{";
        for (const auto& change : changes)
            out += " " + std::to_string(static_cast<int>(change.kind)) + ":" + std::to_string(change.key) + ":" + std::to_string(change.minute) +
                   "=" + std::to_string(change.delta);
        return (out + " }").c_str();
    }
};
} // namespace doctest

namespace {

const std::string k_script_room = "00112233445566778899aabbccddeeff";

std::string room_key(const std::string& name) { return "wr:{" + k_script_room + "}:" + name; }

// The part of the room's header few pushes change (`_c`, packed doubles, reconcile.lua's COLD)
// and its values; the third is the server that wrote the room last.
constexpr size_t k_header_server = 2;
std::vector<double> header_values(const std::string& packed) {
    std::vector<double> values(packed.size() / 8);
    std::memcpy(values.data(), packed.data(), values.size() * 8);
    return values;
}
std::string packed_header(const std::vector<double>& values) {
    std::string packed(values.size() * 8, '\0');
    std::memcpy(packed.data(), values.data(), packed.size());
    return packed;
}

// The room's keys as they are now, put back later as another server's: a failover to a replica
// that had copied everything up to now and nothing after.
class RedisRoomCopy {
public:
    explicit RedisRoomCopy(int port) : m_context(redisConnect("127.0.0.1", port), redisFree) { REQUIRE(m_context); }
    void take() {
        m_dumps.clear();
        for (const char* name : k_names) {
            auto* reply = static_cast<redisReply*>(redisCommand(m_context.get(), "DUMP %s", room_key(name).c_str()));
            REQUIRE(reply);
            if (reply->type == REDIS_REPLY_STRING) m_dumps[name] = std::string(reply->str, reply->len);
            freeReplyObject(reply);
        }
    }
    void put_back() {
        for (const char* name : k_names) {
            command({"DEL", room_key(name)});
            if (const auto it = m_dumps.find(name); it != m_dumps.end()) command({"RESTORE", room_key(name), "0", it->second});
        }
        // Written by another server.
        auto* reply = static_cast<redisReply*>(redisCommand(m_context.get(), "HGET %s _c", room_key("counts").c_str()));
        REQUIRE(reply);
        REQUIRE(reply->type == REDIS_REPLY_STRING);
        std::vector<double> header = header_values(std::string(reply->str, reply->len));
        freeReplyObject(reply);
        REQUIRE(header.size() > k_header_server);
        header[k_header_server] += 1;
        command({"HSET", room_key("counts"), "_c", packed_header(header)});
    }

private:
    static constexpr const char* k_names[] = {"counts", "members", "revoked"};
    void command(const std::vector<std::string>& words) {
        std::vector<const char*> argv;
        std::vector<size_t> lengths;
        for (const std::string& word : words) {
            argv.push_back(word.data());
            lengths.push_back(word.size());
        }
        auto* reply = static_cast<redisReply*>(redisCommandArgv(m_context.get(), static_cast<int>(argv.size()), argv.data(), lengths.data()));
        REQUIRE(reply);
        CHECK_MESSAGE(reply->type != REDIS_REPLY_ERROR, std::string(reply->str ? reply->str : ""));
        freeReplyObject(reply);
    }
    std::unique_ptr<redisContext, decltype(&redisFree)> m_context;
    std::map<std::string, std::string> m_dumps;
};

// One store with what a test does to it: a real Redis (the script) or the C++ twin.
struct ScriptStore {
    std::string name;
    wr::state::SharedStore& store;
    std::function<void()> take_copy;   // what a replica holds now
    std::function<void()> fail_over;   // the replica that holds it takes over
    std::function<void()> lose_everything;
};

// The two stores a test runs the same steps against.
struct BothStores {
    BothStores() : redis_store(options(redis)), copy(redis.port()), twin(clock) {}
    static wr::state::RedisStoreOptions options(const RedisServer& server) {
        wr::state::RedisStoreOptions options;
        options.url = wr::state::parse_state_url(server.url());
        return options;
    }
    std::vector<ScriptStore> each() {
        return {{"redis", redis_store, [this] { copy.take(); }, [this] { copy.put_back(); }, [this] { redis.cli({"FLUSHALL"}); }},
                {"twin", twin, [this] { snapshot = twin.snapshot_for_test(); }, [this] { twin.restore_for_test(*snapshot); },
                 [this] { twin.lose_everything(); }}};
    }
    RedisServer redis;
    wr::state::RedisStore redis_store;
    RedisRoomCopy copy;
    wr::util::SystemClock clock;
    wr::state::MemoryStore twin;
    std::optional<wr::state::MemoryStore::Snapshot> snapshot;
};

wr::queue::Policy roomy_policy() {
    wr::queue::Policy policy;
    policy.total_active_users = 1000;
    policy.new_users_per_minute = 1000;
    return policy;
}

wr::state::RoomReply sync_with(wr::state::SharedStore& store, const std::string& node, wr::state::RoomReplica& replica, wr::util::TimePoint at,
                               bool read_only = false) {
    wr::state::StoreTiming timing;
    const auto reply = store.exchange(node, {replica.begin_sync(k_script_room, at, read_only)}, timing).at(0);
    replica.end_sync(reply, at);
    return reply;
}

// A node's first push to the room, of one batch of `changes`, at `now`, straight to the store.
wr::state::RoomReply first_push(wr::state::SharedStore& store, const std::string& node, wr::util::TimePoint now,
                                std::vector<wr::queue::LedgerChange> changes) {
    wr::state::RoomPush push;
    push.room_id = k_script_room;
    push.now_ms = now.time_since_epoch().count();
    push.total_active_users = push.new_users_per_minute = 1000;
    push.session_minutes = 5;
    wr::state::PushedBatch batch;
    batch.sequence = 1;
    batch.changes = std::move(changes);
    push.batches.push_back(std::move(batch));
    return store.exchange(node, {push}, wr::state::StoreTiming{}).at(0);
}

// The room's counts as a node new to it reads them.
wr::state::RoomReply read_as_newcomer(wr::state::SharedStore& store, wr::util::TimePoint now) {
    wr::state::RoomReplica reader(wr::state::ReplicaSettings{});
    return store.exchange("reader", {reader.begin_sync(k_script_room, now, true)}, wr::state::StoreTiming{}).at(0);
}

// One node serving the room through the script on a real Redis.
struct OneNodeOnRedis {
    explicit OneNodeOnRedis(uint64_t seed) : store(BothStores::options(redis)), random(seed), at(clock.now()) {}
    wr::state::RoomReply sync() { return sync_with(store, "node-1", node, at); }
    wr::queue::Outcome visit() { return node.check_in(policy, std::nullopt, at, random, wr::queue::Arrival::join); }
    RedisServer redis;
    wr::state::RedisStore store;
    wr::util::SystemClock clock;
    wr::util::SeededRandom random;
    const wr::queue::Policy policy = roomy_policy();
    wr::state::RoomReplica node{wr::state::ReplicaSettings{}};
    wr::util::TimePoint at;
};

} // namespace

TEST_SUITE("integration") {

TEST_CASE("state script: a push of thousands of counts, and a read of all of them, go through whole") {
    BothStores stores;
    for (ScriptStore& side : stores.each()) {
        CAPTURE(side.name);
        const auto now = stores.clock.now();
        const int64_t slot = wr::queue::check_in_slot_of(now);
        // 9,000 waiting counts in one batch: what a node that was cut off for a while in a large
        // shuffled room sends.
        std::vector<wr::queue::LedgerChange> changes;
        for (int64_t bucket = 0; bucket < 9000; ++bucket)
            changes.push_back({wr::queue::LedgerChange::Kind::waiting, bucket * 1000, slot - bucket % 3, 1 + bucket % 5});
        const auto pushed = first_push(side.store, "big", now, changes);
        REQUIRE(pushed.error == "");
        CHECK(pushed.status == wr::state::RoomReply::Status::ok);
        // The room's first node is its merger: it gets its own record back, whole, and sends it
        // as the digest.
        REQUIRE(pushed.merger);
        CHECK(pushed.raw_records == 1);
        CHECK(pushed.raw == changes);
        wr::state::RoomPush digest;
        digest.room_id = k_script_room;
        digest.now_ms = now.time_since_epoch().count();
        digest.epoch = pushed.epoch;
        digest.version = pushed.version;
        digest.generation = pushed.generation;
        digest.acknowledged_sequence = 1;
        digest.digest_from = pushed.digested;
        digest.digest_to = pushed.digested + pushed.raw_records;
        digest.digest = pushed.raw;
        REQUIRE(side.store.exchange("big", {digest}, wr::state::StoreTiming{}).at(0).status == wr::state::RoomReply::Status::ok);
        // A reader new to the room reads every one.
        const auto read = read_as_newcomer(side.store, now);
        REQUIRE(read.error == "");
        CHECK(read.whole);
        int64_t users = 0, counts = 0;
        for (const auto& change : read.changes)
            if (change.kind == wr::queue::LedgerChange::Kind::waiting) {
                users += change.delta;
                ++counts;
            }
        CHECK(counts == 9000);
        int64_t expected = 0;
        for (int64_t bucket = 0; bucket < 9000; ++bucket) expected += 1 + bucket % 5;
        CHECK(users == expected);
    }
}

TEST_CASE("state script: an admission count for a minute no ledger keeps any more, pushed in the sync that prunes, is not kept") {
    OneNodeOnRedis one(9);
    const auto now = one.at;
    const int64_t minute = wr::queue::minute_of(now);
    // A node cut off for a while sends the active users of a minute long past beside this
    // minute's, in the room's first sync (which prunes: the minute's first).
    const auto pushed = first_push(one.store, "late", now,
                                   {{wr::queue::LedgerChange::Kind::active, minute - 40, 0, 3},
                                    {wr::queue::LedgerChange::Kind::active, minute, 0, 2}});
    REQUIRE(pushed.error == "");
    REQUIRE(pushed.status == wr::state::RoomReply::Status::ok);
    CHECK(one.redis.cli({"HEXISTS", room_key("counts"), "a" + std::to_string(minute - 40)}) == "0");
    CHECK(one.redis.cli({"HEXISTS", room_key("counts"), "a" + std::to_string(minute)}) == "1");
}

TEST_CASE("state script: every key of a room gets its time to live from the sync that makes it") {
    OneNodeOnRedis one(3);
    auto& redis = one.redis;
    one.sync();
    const auto admitted = one.visit();
    REQUIRE(admitted.newly_admitted);
    REQUIRE(one.node.revoke(one.policy, admitted.ticket, one.at));
    REQUIRE(one.sync().status == wr::state::RoomReply::Status::ok);
    for (const char* name : {"counts", "members", "revoked"}) {
        CAPTURE(name);
        const int ttl = std::stoi(redis.cli({"TTL", room_key(name)}));
        CHECK(ttl > 0); // -1: kept for ever; -2: not made at all
        CHECK(ttl <= wr::state::k_room_ttl_seconds);
    }
    // A key emptied and made again later in the minute (the prune took its last member) gets one too.
    redis.cli({"DEL", room_key("revoked")});
    REQUIRE(one.node.revoke(one.policy, one.visit().ticket, one.at));
    REQUIRE(one.sync().status == wr::state::RoomReply::Status::ok);
    CHECK(std::stoi(redis.cli({"TTL", room_key("revoked")})) > 0);
}

TEST_CASE("state script: damaged node entries and revocations are dropped by the minute's prune, not a room that fails on every sync") {
    OneNodeOnRedis one(5);
    auto& redis = one.redis;
    one.sync();
    // A member without an entry, a member whose entry is too short to be one, a revocation
    // without its end, and a field no node writes.
    redis.cli({"SADD", room_key("members"), "ghost", "short"});
    redis.cli({"HSET", room_key("counts"), "nshort", "zz", "wjunk", "x"});
    redis.cli({"RPUSH", room_key("revoked"), "no-end"});
    one.at += std::chrono::minutes{1}; // the next minute: its first sync prunes
    one.visit();
    const auto reply = one.sync();
    CHECK(reply.error == "");
    CHECK(reply.status == wr::state::RoomReply::Status::ok);
    CHECK(redis.cli({"SISMEMBER", room_key("members"), "ghost"}) == "0");
    CHECK(redis.cli({"SISMEMBER", room_key("members"), "short"}) == "0");
    CHECK(redis.cli({"HEXISTS", room_key("counts"), "nshort"}) == "0");
    CHECK(redis.cli({"LLEN", room_key("revoked")}) == "0");
    CHECK(one.sync().status == wr::state::RoomReply::Status::ok);
}

TEST_CASE("state script: a digest gone from the room's hash makes the node read everything, not count less") {
    BothStores stores;
    std::vector<ScriptStore> sides = stores.each();
    ScriptStore& side = sides.front(); // the script: the twin cannot lose one field
    const auto policy = roomy_policy();
    wr::util::SeededRandom random(17);
    wr::state::RoomReplica node(wr::state::ReplicaSettings{}), watcher(wr::state::ReplicaSettings{});
    auto at = stores.clock.now();
    for (int i = 0; i < 5; ++i) {
        node.check_in(policy, std::nullopt, at, random, wr::queue::Arrival::join);
        sync_with(side.store, "node", node, at);
    }
    sync_with(side.store, "node", node, at);
    sync_with(side.store, "watcher", watcher, at, true);
    REQUIRE(watcher.figures(policy, at).active_users == 5);
    for (int i = 0; i < 3; ++i) {
        node.check_in(policy, std::nullopt, at, random, wr::queue::Arrival::join);
        sync_with(side.store, "node", node, at);
    }
    sync_with(side.store, "node", node, at);
    // The watcher's next digest is damaged away.
    std::string field = "d";
    const auto next = static_cast<uint32_t>(watcher.begin_sync(k_script_room, at, true).version);
    for (int i = 0; i < 4; ++i) field += static_cast<char>((next >> (8 * i)) & 0xff);
    watcher.sync_failed(false, at);
    {
        std::unique_ptr<redisContext, decltype(&redisFree)> context(redisConnect("127.0.0.1", stores.redis.port()), redisFree);
        const std::string key = room_key("counts");
        const char* argv[] = {"HDEL", key.c_str(), field.data()};
        const size_t lengths[] = {4, key.size(), field.size()};
        auto* deleted = static_cast<redisReply*>(redisCommandArgv(context.get(), 3, argv, lengths));
        REQUIRE(deleted);
        CHECK(deleted->integer == 1);
        freeReplyObject(deleted);
    }
    const auto reply = sync_with(side.store, "watcher", watcher, at, true);
    CHECK(reply.whole);
    // Whole means the snapshot and every digest kept: all but the one lost.
    CHECK(watcher.figures(policy, at).active_users >= 5);
    CHECK(watcher.figures(policy, at).active_users <= 8);
}

TEST_CASE("state script: after a failover to a copy that lagged, a node reads the revocations pushed since, wherever they land in the list") {
    BothStores stores;
    for (ScriptStore& side : stores.each()) {
        CAPTURE(side.name);
        const auto policy = roomy_policy();
        wr::util::SeededRandom random(11);
        // A reads; D and E admit and revoke. E dies with the master.
        wr::state::RoomReplica a(wr::state::ReplicaSettings{}), d(wr::state::ReplicaSettings{}), e(wr::state::ReplicaSettings{});
        auto at = stores.clock.now();
        sync_with(side.store, "a", a, at);
        sync_with(side.store, "d", d, at);
        sync_with(side.store, "e", e, at);
        std::vector<wr::queue::Ticket> from_d, from_e;
        for (int i = 0; i < 10; ++i) {
            from_d.push_back(d.check_in(policy, std::nullopt, at, random, wr::queue::Arrival::join).ticket);
            from_e.push_back(e.check_in(policy, std::nullopt, at, random, wr::queue::Arrival::join).ticket);
        }
        sync_with(side.store, "d", d, at);
        sync_with(side.store, "e", e, at);
        for (int i = 0; i < 5; ++i) REQUIRE(d.revoke(policy, from_d[i], at));
        sync_with(side.store, "d", d, at);
        side.take_copy(); // the replica has D's five revocations
        for (int i = 0; i < 5; ++i) REQUIRE(e.revoke(policy, from_e[i], at));
        sync_with(side.store, "e", e, at);
        sync_with(side.store, "a", a, at); // A has read all ten
        side.fail_over();                  // the copy holds five; E is gone for good
        at += std::chrono::milliseconds{300};
        for (int i = 5; i < 10; ++i) REQUIRE(d.revoke(policy, from_d[i], at));
        REQUIRE(sync_with(side.store, "d", d, at).status == wr::state::RoomReply::Status::ok);
        sync_with(side.store, "a", a, at);
        // D's later revocations took the places A had read up to: A reads them all the same.
        for (int i = 5; i < 10; ++i) {
            CAPTURE(i);
            CHECK(a.check_in(policy, from_d[i], at, random, wr::queue::Arrival::join).new_user);
        }
    }
}

TEST_CASE("state script: a node that read a state since lost reads the new one whole, however far its versions went") {
    BothStores stores;
    for (ScriptStore& side : stores.each()) {
        CAPTURE(side.name);
        const auto policy = roomy_policy();
        wr::util::SeededRandom random(13);
        wr::state::RoomReplica node(wr::state::ReplicaSettings{}), watcher(wr::state::ReplicaSettings{});
        auto at = stores.clock.now();
        sync_with(side.store, "node", node, at);
        for (int i = 0; i < 30; ++i) {
            node.check_in(policy, std::nullopt, at, random, wr::queue::Arrival::join);
            sync_with(side.store, "node", node, at);
        }
        sync_with(side.store, "node", node, at); // the merger's digest of its last changes
        const auto first = sync_with(side.store, "watcher", watcher, at, true);
        CHECK(watcher.figures(policy, at).active_users == 30);
        // The store restarts empty; the node pushes what it counts again, then admits more, so
        // the new state's version passes the one the watcher read.
        side.lose_everything();
        for (int i = 0; i < 40; ++i) {
            node.check_in(policy, std::nullopt, at, random, wr::queue::Arrival::join);
            sync_with(side.store, "node", node, at);
        }
        sync_with(side.store, "node", node, at);
        const auto second = sync_with(side.store, "watcher", watcher, at, true);
        REQUIRE(second.version > first.version); // read as changes, the new state's would start past the old
        CHECK(second.whole);
        CHECK(watcher.figures(policy, at).active_users == node.figures(policy, at).active_users);
        CHECK(watcher.figures(policy, at).queued_users == node.figures(policy, at).queued_users);
    }
}

TEST_CASE("state script: the Lua script and its C++ twin give the same answers") {
    RedisServer redis;
    wr::util::SystemClock clock;
    wr::state::MemoryStore twin(clock);
    wr::state::RedisStoreOptions options;
    options.url = wr::state::parse_state_url(redis.url());
    wr::state::RedisStore store(options);
    wr::state::StoreTiming timing;
    timing.grant_validity_ms = 60000; // long: the two run a moment apart
    timing.node_liveness_ms = 60000;
    const std::string room = "00112233445566778899aabbccddeeff";
    wr::queue::Policy policy;
    policy.total_active_users = 300;
    policy.new_users_per_minute = 200;

    // Three nodes, each a replica against each store, doing the same things in the same order.
    struct Pair {
        std::unique_ptr<wr::state::RoomReplica> redis_side, twin_side;
    };
    std::vector<Pair> nodes;
    for (int i = 0; i < 3; ++i)
        nodes.push_back({std::make_unique<wr::state::RoomReplica>(wr::state::ReplicaSettings{}),
                         std::make_unique<wr::state::RoomReplica>(wr::state::ReplicaSettings{})});
    const auto now = clock.now();
    wr::util::SeededRandom random_a(4), random_b(4);
    // Generations are each store's own time when they move: the two must move together.
    std::vector<std::pair<int64_t, int64_t>> generations(3);
    const auto sync = [&](int i, wr::util::TimePoint at) {
        auto push_a = nodes[i].redis_side->begin_sync(room, at);
        auto push_b = nodes[i].twin_side->begin_sync(room, at);
        const auto a = store.exchange("node-" + std::to_string(i), {push_a}, timing).at(0);
        const auto b = twin.exchange("node-" + std::to_string(i), {push_b}, timing).at(0);
        CHECK(a.error == b.error);
        CHECK(a.status == b.status);
        CHECK(a.stored_sequence_before == b.stored_sequence_before);
        CHECK(a.whole == b.whole);
        CHECK(a.changes == b.changes);
        CHECK(a.version == b.version);
        CHECK(a.merger == b.merger);
        CHECK(a.raw_records == b.raw_records);
        CHECK(a.raw == b.raw);
        CHECK(a.digested == b.digested);
        CHECK(a.own_last_record == b.own_last_record);
        CHECK(a.snapshot_wanted == b.snapshot_wanted);
        CHECK(a.seeds == b.seeds);
        CHECK((a.generation != generations[i].first) == (b.generation != generations[i].second));
        generations[i] = {a.generation, b.generation};
        CHECK(a.revocations == b.revocations);
        CHECK(a.revocation_cursor == b.revocation_cursor);
        CHECK(a.joins == b.joins);
        CHECK(a.grant.total == b.grant.total);
        CHECK(a.grant.this_minute == b.grant.this_minute);
        CHECK(a.grant.minute == b.grant.minute);
        CHECK(a.share == doctest::Approx(b.share));
        CHECK(a.live_nodes == b.live_nodes);
        nodes[i].redis_side->end_sync(a, at);
        nodes[i].twin_side->end_sync(b, at);
    };
    for (int i = 0; i < 3; ++i) sync(i, now); // first contact
    std::vector<std::pair<wr::queue::Ticket, wr::queue::Ticket>> admitted; // (Redis side, twin side), not revoked
    // A round a minute, over the whole session window (five minutes): the last rounds' grants
    // count the users let in during the first, and the room is nearly full by then, so every
    // minute of active users counts in what is free.
    wr::util::TimePoint at = now;
    for (int round = 0; round < 6; ++round) {
        at = now + std::chrono::minutes{round};
        for (int i = 0; i < 3; ++i) sync(i, at); // a grant in force for the round
        for (int i = 0; i < 3; ++i) {
            for (int visit = 0; visit < 20 * (i + 1); ++visit) {
                const auto a = nodes[i].redis_side->check_in(policy, std::nullopt, at, random_a, wr::queue::Arrival::join);
                const auto b = nodes[i].twin_side->check_in(policy, std::nullopt, at, random_b, wr::queue::Arrival::join);
                REQUIRE(a.verdict == b.verdict);
                if (a.newly_admitted && visit % 7 == 0) {
                    nodes[i].redis_side->revoke(policy, a.ticket, at);
                    nodes[i].twin_side->revoke(policy, b.ticket, at);
                } else if (a.newly_admitted && round >= 1) { // still in session twenty seconds after the last round
                    admitted.emplace_back(a.ticket, b.ticket);
                }
            }
            const wr::queue::ClientAddress client{192, 0, 2, static_cast<uint8_t>(round)};
            nodes[i].redis_side->try_join(client, 3, at);
            nodes[i].twin_side->try_join(client, 3, at);
            if (round == 2) {
                // An answer lost on the way back: applied by both stores, sent again next time, applied by neither again.
                const auto push_a = nodes[i].redis_side->begin_sync(room, at);
                const auto push_b = nodes[i].twin_side->begin_sync(room, at);
                store.exchange("node-" + std::to_string(i), {push_a}, timing);
                twin.exchange("node-" + std::to_string(i), {push_b}, timing);
                nodes[i].redis_side->sync_failed(true, at);
                nodes[i].twin_side->sync_failed(true, at);
            }
            sync(i, at);
        }
    }
    // Twenty seconds on, those let in after the first round come back: their sessions renewed, and the time
    // between their requests counted.
    const auto later = at + std::chrono::seconds{20};
    for (size_t k = 0; k < admitted.size(); ++k) {
        const size_t i = k % nodes.size();
        const auto a = nodes[i].redis_side->check_in(policy, admitted[k].first, later, random_a, wr::queue::Arrival::join);
        const auto b = nodes[i].twin_side->check_in(policy, admitted[k].second, later, random_b, wr::queue::Arrival::join);
        REQUIRE(a.verdict == wr::queue::Verdict::admit);
        REQUIRE(b.verdict == wr::queue::Verdict::admit);
    }
    for (int i = 0; i < 3; ++i) sync(i, later);
    for (int i = 0; i < 3; ++i) sync(i, later); // everyone's renewals with the merger, which digests them
    for (int i = 0; i < 3; ++i) sync(i, later); // at its next sync
    REQUIRE(!admitted.empty());
    int64_t browsed_ms = 0;
    // The store's counts whole, as a node new to the room reads them.
    wr::state::RoomReplica reader(wr::state::ReplicaSettings{});
    const auto whole = store.exchange("reader", {reader.begin_sync(room, later, true)}, timing).at(0);
    for (const auto& count : whole.changes)
        if (count.kind == wr::queue::LedgerChange::Kind::browsed) browsed_ms += count.delta;
    int64_t since_admission_ms = 0;
    for (const auto& [ticket, twin_ticket] : admitted) since_admission_ms += (later - ticket.last_check_in).count();
    CHECK(browsed_ms == since_admission_ms);
}

TEST_CASE("state script: a copy of the room without this node's entry (its first sync lost in a failover) answers 'lost', not a failed room") {
    RedisServer redis;
    wr::state::RedisStoreOptions options;
    options.url = wr::state::parse_state_url(redis.url());
    wr::state::RedisStore store(options);
    wr::state::StoreTiming timing;
    const std::string room = "00112233445566778899aabbccddeeff";
    wr::queue::Policy policy;
    policy.total_active_users = 300;
    policy.new_users_per_minute = 200;
    wr::state::RoomReplica node(wr::state::ReplicaSettings{});
    wr::util::SystemClock clock;
    wr::util::SeededRandom random(7);
    const auto sync = [&](wr::util::TimePoint at) {
        const auto reply = store.exchange("node-1", {node.begin_sync(room, at)}, timing).at(0);
        node.end_sync(reply, at);
        return reply;
    };
    auto at = clock.now();
    sync(at);
    for (int visit = 0; visit < 3; ++visit) node.check_in(policy, std::nullopt, at, random, wr::queue::Arrival::join);
    REQUIRE(sync(at).status == wr::state::RoomReply::Status::ok); // acknowledged: the node holds a batch number the store has

    // The copy a failover promoted has the room (another node made it) but never had this node.
    CHECK(redis.cli({"HDEL", "wr:{" + room + "}:counts", "nnode-1"}) == "1");
    at += std::chrono::seconds{1};
    const auto lost = sync(at);
    CHECK(lost.error == "");
    CHECK(lost.status == wr::state::RoomReply::Status::lost);
    CHECK(lost.stored_contribution.empty());
    // The node sends everything again, and the room goes on.
    at += std::chrono::seconds{1};
    CHECK(sync(at).status == wr::state::RoomReply::Status::ok);
}

} // TEST_SUITE

TEST_SUITE("integration") {

TEST_CASE("state script: digests and raw records do not pile up: the room's hash stays small over a long run, and a newcomer reads it whole") {
    OneNodeOnRedis one(21);
    wr::state::RoomReplica second(wr::state::ReplicaSettings{});
    int snapshots = 0;
    size_t largest = 0;
    // Six minutes of two nodes syncing every 250 ms, changes every time: about 1,400 digests, a
    // snapshot asked for every 40 (wr::state::k_snapshot_digests).
    for (int step = 0; step < 1440; ++step) {
        one.visit();
        second.check_in(one.policy, std::nullopt, one.at, one.random, wr::queue::Arrival::join);
        const auto push = one.node.begin_sync(k_script_room, one.at);
        snapshots += push.snapshot.has_value();
        one.node.end_sync(one.store.exchange("node-1", {push}, wr::state::StoreTiming{}).at(0), one.at);
        sync_with(one.store, "node-2", second, one.at);
        if (step % 60 == 0) largest = std::max<size_t>(largest, std::stoul(one.redis.cli({"HLEN", room_key("counts")})));
        one.at += std::chrono::milliseconds{250};
    }
    CHECK(snapshots >= 20);
    // Two snapshots' worth of digests at most, the raw records not deleted yet, and the
    // admission counts of half an hour.
    CHECK(largest < 2 * wr::state::k_snapshot_digests + 64 + 2 * 32 + 16);
    for (int i = 0; i < 3; ++i) {
        one.sync();
        sync_with(one.store, "node-2", second, one.at);
    }
    wr::state::RoomReplica newcomer(wr::state::ReplicaSettings{});
    const auto reply = sync_with(one.store, "newcomer", newcomer, one.at, true);
    CHECK(reply.whole);
    CHECK(newcomer.figures(one.policy, one.at).active_users == one.node.figures(one.policy, one.at).active_users);
    CHECK(newcomer.figures(one.policy, one.at).active_users > 0);
}

TEST_CASE("state script: edges of the release before, still syncing a room in the earlier format, are reported to this release's nodes") {
    OneNodeOnRedis one(23);
    one.sync();
    // The earlier format's node entry: packed 64-bit integers, its last sync second.
    const int64_t now_ms = one.at.time_since_epoch().count();
    std::string entry;
    for (const int64_t value : {int64_t{3}, now_ms})
        for (int i = 0; i < 8; ++i) entry += static_cast<char>((static_cast<uint64_t>(value) >> (8 * i)) & 0xff);
    std::unique_ptr<redisContext, decltype(&redisFree)> context(redisConnect("127.0.0.1", one.redis.port()), redisFree);
    const std::string key = room_key("nodes");
    const char* argv[] = {"HSET", key.c_str(), "edge-old-1", entry.data()};
    const size_t lengths[] = {4, key.size(), 10, entry.size()};
    freeReplyObject(redisCommandArgv(context.get(), 4, argv, lengths));
    CHECK_FALSE(one.sync().earlier_release); // looked for once a minute
    one.at += std::chrono::minutes{1};
    CHECK(one.sync().earlier_release);
    CHECK(one.sync().earlier_release); // for two minutes of the store's time after the sighting
}

} // TEST_SUITE
