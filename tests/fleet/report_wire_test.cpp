// The pushes of an edge read back exactly, and anything malformed is refused with a reason.
#include <doctest/doctest.h>

#include <limits>

#include "fleet/report_wire.h"
#include "support/test_server.h"

using namespace std::chrono_literals;

namespace {

wr::fleet::PushMessage sample_message() {
    wr::fleet::PushMessage message;
    message.report.node = "edge-1";
    message.report.health.backend = "redis";
    message.report.health.connected = false;
    message.report.health.failure_mode = "local-share";
    message.report.health.since = wr::test::k_test_start - 30s;
    message.report.health.detail = "connection refused";
    message.report.rooms.push_back({"r1", 120, 7, 1000, 300, 12});
    wr::model::MinuteRecord record;
    record.minute = 29'000'000;
    record.requests = {5, 6, 1, 2, 3};
    record.new_admitted = 5;
    record.revoked = 1;
    record.turnstile_challenges = 4;
    record.turnstile_successes = 3;
    record.turnstile_failures = 1;
    record.turnstile_unsolved = 2;
    record.infinite_refreshes = 9;
    record.estimated_wait.add(3, 2);
    record.observed_wait.add(700);
    record.origin_time.add(45, 5);
    record.origin_answers = {0, 40, 2, 3, 1};
    record.origin_errors = {2, 1, 0, 4, 0};
    record.effective_total_active_users = 600;
    record.effective_new_users_per_minute = 120;
    message.batch = wr::fleet::AnalyticsBatch{"0123456789abcdef0123456789abcdef", 42, {{"r1", {{record.minute, record}}}}};
    return message;
}

} // namespace

TEST_CASE("fleet::push: a report and its batch read back exactly") {
    const wr::fleet::PushMessage original = sample_message();
    std::string error;
    const auto read = wr::fleet::read_push(wr::fleet::push_body(original), error);
    REQUIRE_MESSAGE(read, error);
    CHECK(read->report.node == "edge-1");
    CHECK(read->report.role == "edge");
    CHECK(read->report.health.backend == "redis");
    CHECK_FALSE(read->report.health.connected);
    CHECK(read->report.health.failure_mode == "local-share");
    CHECK(read->report.health.since == original.report.health.since);
    CHECK(read->report.health.detail == "connection refused");
    REQUIRE(read->report.rooms.size() == 1);
    CHECK(read->report.rooms[0].active_users == 120);
    CHECK(read->report.rooms[0].max_estimated_minutes == 12);
    REQUIRE(read->batch);
    CHECK(read->batch->stream == "0123456789abcdef0123456789abcdef");
    CHECK(read->batch->sequence == 42);
    CHECK(read->batch->records == original.batch->records);
}

TEST_CASE("fleet::push: a batch from an edge that counts nothing of its origin (an older version) reads with zeros") {
    nlohmann::json body = nlohmann::json::parse(wr::fleet::push_body(sample_message()));
    for (auto& [room, minutes] : body["batch"]["records"].items())
        for (auto& minute : minutes)
            for (const char* field : {"origin_answers", "origin_errors", "effective_total_active_users", "effective_new_users_per_minute"})
                minute.erase(field);
    std::string error;
    const auto read = wr::fleet::read_push(body.dump(), error);
    REQUIRE_MESSAGE(read, error);
    const wr::model::MinuteRecord& record = read->batch->records.at("r1").begin()->second;
    CHECK(record.origin_answers == std::array<int64_t, 5>{});
    CHECK(record.effective_total_active_users == 0);
    CHECK(record.new_admitted == 5);
}

TEST_CASE("fleet::push: a malformed push is refused, naming what is wrong") {
    const nlohmann::json good = nlohmann::json::parse(wr::fleet::push_body(sample_message()));
    struct Case {
        const char* name;
        nlohmann::json body;
        std::string error;
    };
    const auto with = [&](const nlohmann::json::json_pointer& at, nlohmann::json value) {
        nlohmann::json body = good;
        body[at] = std::move(value);
        return body;
    };
    using pointer = nlohmann::json::json_pointer;
    const std::string k_bad_room = "rooms: each must be {room_id, active_users, queued_users, total_active_users_limit, "
                                   "new_users_per_minute_limit} with counts from 0 to 1099511627776";
    const std::string k_bad_batch = "batch: must be {stream (32 hex characters), sequence (1 or more), records}";
    const std::string k_bad_records = "batch.records: must map room ids to lists of minute records whose counts are integers from 0 to "
                                      "1099511627776";
    const Case cases[] = {
        {"no node", with(pointer("/node"), ""), "node: must be the node's name (1 to 64 letters, digits, '-', '_', '.')"},
        {"a node name with a space", with(pointer("/node"), "edge 1"), "node: must be the node's name (1 to 64 letters, digits, '-', '_', '.')"},
        {"an unknown role", with(pointer("/role"), "control"), "role: must be edge or all"},
        {"state without detail", with(pointer("/state"), {{"backend", "memory"}}), "state: must be {backend, connected, failure_mode, since, detail}"},
        {"a negative count of users", with(pointer("/rooms/0/active_users"), -1),
         k_bad_room},
        {"more users than any room holds", with(pointer("/rooms/0/queued_users"), (int64_t{1} << 40) + 1), k_bad_room},
        {"sequence 0", with(pointer("/batch/sequence"), 0), k_bad_batch},
        {"a stream an outbox never names", with(pointer("/batch/stream"), "stream-1"), k_bad_batch},
        {"a stream in capitals", with(pointer("/batch/stream"), "0123456789ABCDEF0123456789ABCDEF"), k_bad_batch},
        {"a negative count", with(pointer("/batch/records/r1/0/requests/queued"), -6),
         k_bad_records},
        {"a count as text", with(pointer("/batch/records/r1/0/revoked"), "1"),
         k_bad_records},
        {"a histogram bucket out of range", with(pointer("/batch/records/r1/0/origin_time"), {{"999", 1}}),
         k_bad_records},
        {"a count past 2^40", with(pointer("/batch/records/r1/0/active_sum"), (int64_t{1} << 40) + 1), k_bad_records},
        {"a count past 2^63", with(pointer("/batch/records/r1/0/new_admitted"), std::numeric_limits<uint64_t>::max()), k_bad_records},
        {"a histogram count past 2^40", with(pointer("/batch/records/r1/0/origin_time"), {{"12", (uint64_t{1} << 40) + 1}}), k_bad_records},
        {"not JSON", nullptr, "the body must be a JSON object"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        std::string error;
        CHECK_FALSE(wr::fleet::read_push(c.body.is_null() ? "{oops" : c.body.dump(), error));
        CHECK(error == c.error);
    }
    // Without a batch: a report alone (a heartbeat) is fine.
    std::string error;
    const auto heartbeat = wr::fleet::read_push(with(pointer("/batch"), nullptr).dump(), error);
    REQUIRE_MESSAGE(heartbeat, error);
    CHECK_FALSE(heartbeat->batch);
}
