// The Cluster's key slots, the slot map read from CLUSTER SLOTS, and what a redirection asks.
#include <doctest/doctest.h>
#include <hiredis/hiredis.h>

#include <memory>
#include <string>

#include "state/cluster_slots.h"

namespace {

using wr::state::Redirection;
using wr::state::RedisEndpoint;

struct ReplyDeleter {
    void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

// A reply as hiredis reads it off the wire (RESP text), with no server.
Reply reply_of(const std::string& resp) {
    redisReader* reader = redisReaderCreate();
    REQUIRE(redisReaderFeed(reader, resp.data(), resp.size()) == REDIS_OK);
    void* raw = nullptr;
    REQUIRE(redisReaderGetReply(reader, &raw) == REDIS_OK);
    redisReaderFree(reader);
    REQUIRE(raw != nullptr);
    return Reply(static_cast<redisReply*>(raw));
}

std::string bulk(const std::string& text) { return "$" + std::to_string(text.size()) + "\r\n" + text + "\r\n"; }
std::string integer(int64_t value) { return ":" + std::to_string(value) + "\r\n"; }
std::string node(const std::string& host, int port, const std::string& id) {
    return "*3\r\n" + bulk(host) + integer(port) + bulk(id);
}

} // namespace

TEST_CASE("cluster: a key's slot is the CRC16 (XMODEM) of its hash tag, as the Cluster specification computes it") {
    CHECK(wr::state::crc16_xmodem("123456789") == 0x31C3); // the specification's check value
    CHECK(wr::state::crc16_xmodem("") == 0);
    // The slots redis-server 7.0 answers to CLUSTER KEYSLOT for the same keys.
    CHECK(wr::state::key_slot("foo") == 12182);
    CHECK(wr::state::key_slot("bar") == 5061);
    CHECK(wr::state::key_slot("hello") == 866);
    CHECK(wr::state::key_slot("{user1000}.following") == 3443);
    CHECK(wr::state::key_slot("foo{}{bar}") == 8363);    // an empty first tag: the whole key
    CHECK(wr::state::key_slot("foo{{bar}}zap") == 4015); // the tag is "{bar"
    CHECK(wr::state::key_slot("foo{bar}{zap}") == 5061); // the first tag only: "bar"
    CHECK(wr::state::key_slot("wr:{shop}:counts") == 3808);
    // Every key of a room is under the room id as tag: one slot holds the room.
    CHECK(wr::state::key_slot("wr:{shop}:joined:123") == wr::state::key_slot("wr:{shop}:counts"));
    CHECK(wr::state::key_slot("wr:{shop}:members") == wr::state::key_slot("shop"));
}

TEST_CASE("cluster: the slot map names each slot's master from CLUSTER SLOTS, replicas aside") {
    const Reply reply = reply_of("*3\r\n"
                                 "*4\r\n" + integer(0) + integer(5460) + node("127.0.0.1", 7000, "a") + node("127.0.0.1", 7003, "d") +
                                 "*4\r\n" + integer(5461) + integer(10922) + node("", 7001, "b") + node("127.0.0.1", 7004, "e") +
                                 "*3\r\n" + integer(10923) + integer(16383) + node("10.0.0.3", 7002, "c"));
    const auto map = wr::state::SlotMap::from_cluster_slots(reply.get(), "10.0.0.9");
    CHECK(map.master_of(0) == RedisEndpoint{"127.0.0.1", 7000});
    CHECK(map.master_of(5460) == RedisEndpoint{"127.0.0.1", 7000});
    CHECK(map.master_of(5461) == RedisEndpoint{"10.0.0.9", 7001}); // no host: the node that answered
    CHECK(map.master_of(16383) == RedisEndpoint{"10.0.0.3", 7002});
    CHECK(map.masters().size() == 3);
    CHECK_FALSE(map.master_of(16384));
    CHECK_FALSE(map.master_of(-1));

    // A slot no range covers has no master (the cluster is incomplete).
    const Reply partial = reply_of("*1\r\n*3\r\n" + integer(0) + integer(99) + node("127.0.0.1", 7000, "a"));
    auto some = wr::state::SlotMap::from_cluster_slots(partial.get(), "127.0.0.1");
    CHECK(some.master_of(99));
    CHECK_FALSE(some.master_of(100));
    // MOVED: that slot alone changes owner.
    some.move(100, {"127.0.0.1", 7005});
    CHECK(some.master_of(100) == RedisEndpoint{"127.0.0.1", 7005});
    CHECK(some.master_of(99) == RedisEndpoint{"127.0.0.1", 7000});
    CHECK(some.masters().size() == 2);
    some.move(99, {"127.0.0.1", 7005}); // a known master is not listed twice
    CHECK(some.masters().size() == 2);

    CHECK(wr::state::SlotMap::from_cluster_slots(reply_of("*0\r\n").get(), "h").empty());
    CHECK_THROWS_WITH_AS(wr::state::SlotMap::from_cluster_slots(reply_of("-ERR This instance has cluster support disabled\r\n").get(), "h"),
                         "CLUSTER SLOTS did not answer a list of slot ranges", std::invalid_argument);
    CHECK_THROWS_WITH_AS(wr::state::SlotMap::from_cluster_slots(reply_of("*1\r\n*3\r\n" + integer(10) + integer(5) + node("h", 1, "a")).get(), "h"),
                         "CLUSTER SLOTS range 0 has no slots 0 to 16383", std::invalid_argument);
    CHECK_THROWS_WITH_AS(wr::state::SlotMap::from_cluster_slots(reply_of("*1\r\n*3\r\n" + integer(0) + integer(16384) + node("h", 1, "a")).get(), "h"),
                         "CLUSTER SLOTS range 0 has no slots 0 to 16383", std::invalid_argument);
    CHECK_THROWS_WITH_AS(wr::state::SlotMap::from_cluster_slots(reply_of("*1\r\n*3\r\n" + integer(0) + integer(1) + node("h", 0, "a")).get(), "h"),
                         "CLUSTER SLOTS range 0 has no master address", std::invalid_argument);
    // A master whose address the answering node does not know yet ("?"): its range alone has no master.
    const auto unknown = wr::state::SlotMap::from_cluster_slots(
        reply_of("*2\r\n*3\r\n" + integer(0) + integer(1) + node("?", 7000, "a") + "*3\r\n" + integer(2) + integer(3) + node("h", 7001, "b")).get(),
        "h");
    CHECK_FALSE(unknown.master_of(0));
    CHECK_FALSE(unknown.master_of(1));
    CHECK(unknown.master_of(2) == RedisEndpoint{"h", 7001});
    CHECK_THROWS_WITH_AS(wr::state::SlotMap::from_cluster_slots(reply_of("*1\r\n*2\r\n" + integer(0) + integer(1)).get(), "h"),
                         "CLUSTER SLOTS range 0 is not [first, last, master, …]", std::invalid_argument);
}

TEST_CASE("cluster: MOVED updates the map and goes there, ASK goes there once, CLUSTERDOWN and TRYAGAIN wait for a new map") {
    const auto moved = wr::state::redirection_of("MOVED 3999 127.0.0.1:6381", "10.0.0.1");
    CHECK(moved.kind == Redirection::Kind::moved);
    CHECK(moved.slot == 3999);
    CHECK(moved.target == RedisEndpoint{"127.0.0.1", 6381});

    const auto ask = wr::state::redirection_of("ASK 3999 [::1]:6382", "10.0.0.1");
    CHECK(ask.kind == Redirection::Kind::ask);
    CHECK(ask.target == RedisEndpoint{"::1", 6382});
    CHECK(wr::state::redirection_of("MOVED 12 :7001", "10.0.0.1").target == RedisEndpoint{"10.0.0.1", 7001});

    CHECK(wr::state::redirection_of("CLUSTERDOWN The cluster is down", "h").kind == Redirection::Kind::refresh);
    CHECK(wr::state::redirection_of("TRYAGAIN Multiple keys request during rehashing of slot", "h").kind == Redirection::Kind::refresh);
    CHECK(wr::state::redirection_of("MOVED 3999 ?:6381", "h").kind == Redirection::Kind::refresh); // no address known yet: no map entry for "?"
    for (const char* other : {"READONLY You can't write against a read only replica.", "NOSCRIPT No matching script",
                              "MOVED 16384 127.0.0.1:6381", "MOVED x 127.0.0.1:6381", "MOVED 12 127.0.0.1", "ASK 12",
                              "MOVEDX 12 h:1", "ERR Error running script"}) {
        CAPTURE(other);
        CHECK(wr::state::redirection_of(other, "h").kind == Redirection::Kind::none);
    }

    // A bounded chase: after k_max_redirections a call waits for the next sync.
    using wr::state::NextStep;
    CHECK(wr::state::next_step(moved, 0) == NextStep::follow);
    CHECK(wr::state::next_step(ask, wr::state::k_max_redirections - 1) == NextStep::follow);
    CHECK(wr::state::next_step(moved, wr::state::k_max_redirections) == NextStep::give_up);
    CHECK(wr::state::next_step(wr::state::redirection_of("TRYAGAIN", "h"), 0) == NextStep::give_up);
    CHECK(wr::state::next_step(wr::state::redirection_of("ERR no", "h"), 0) == NextStep::done);
}
