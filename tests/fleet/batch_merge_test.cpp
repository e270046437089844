// Pushed batches reach the store exactly once: a retry after a lost answer adds nothing, a late
// minute merges into the minute it belongs to, two edges' counts add up, and a deleted room's
// minutes are dropped.
#include <doctest/doctest.h>

#include "control/rooms.h"
#include "control/zones.h"
#include "analytics/collector.h"
#include "fleet/batch_merge.h"
#include "store/analytics_store.h"
#include "store/migrate.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

using namespace std::chrono_literals;

namespace {

struct ShopStore {
    wr::test::TempDir dir;
    wr::store::Database database{dir.path()};
    std::string room_id;

    ShopStore() {
        wr::store::migrate(database);
        database.write([&](wr::store::Connection& c) {
            const wr::model::Zone zone = wr::control::create_zone(c, wr::test::k_test_start, {"example.com", "http://127.0.0.1:3000"});
            wr::model::RoomSettings room;
            room.name = "shop";
            room.host = "shop.example.com";
            room.total_active_users = 1000;
            room.new_users_per_minute = 300;
            room_id = wr::control::create_room(c, wr::test::k_test_start, zone, room).id;
        });
    }

    // What is stored for the room, minute by minute: admitted requests.
    std::map<int64_t, int64_t> admitted() {
        std::map<int64_t, int64_t> out;
        database.read([&](wr::store::Connection& c) {
            for (const auto& record : wr::store::load_analytics(c, room_id, 0, std::numeric_limits<int64_t>::max()))
                out[record.minute] = record.requests[0];
        });
        return out;
    }
};

// An outbox's stream name: 32 hex characters.
std::string stream(int n) { return std::string(31, 'a') + static_cast<char>('0' + n); }

wr::fleet::AnalyticsBatch batch(const std::string& stream, int64_t sequence, const std::string& room, std::map<int64_t, int64_t> admitted) {
    wr::fleet::AnalyticsBatch out{stream, sequence, {}};
    for (const auto& [minute, count] : admitted) {
        wr::model::MinuteRecord record;
        record.minute = minute;
        record.requests[0] = count;
        out.records[room][minute] = record;
    }
    return out;
}

// Minute n of a run that ended a little before the test clock's start: within what is stored.
int64_t minute(int64_t n) {
    return std::chrono::duration_cast<std::chrono::minutes>(wr::test::k_test_start.time_since_epoch()).count() - 200 + n;
}

} // namespace

TEST_CASE("fleet::merge_batch merges a batch once, whatever the retries") {
    ShopStore store;
    const auto now = wr::test::k_test_start;
    const auto first = batch(stream(1), 1, store.room_id, {{minute(100), 3}, {minute(101), 4}});
    CHECK(wr::fleet::merge_batch(store.database, "edge-1", first, now).at(store.room_id).size() == 2);
    CHECK(store.admitted() == std::map<int64_t, int64_t>{{minute(100), 3}, {minute(101), 4}});
    // The answer was lost; the edge sends the same batch again.
    CHECK(wr::fleet::merge_batch(store.database, "edge-1", first, now + 2s).empty());
    CHECK(store.admitted() == std::map<int64_t, int64_t>{{minute(100), 3}, {minute(101), 4}});
    // The next batch, with a late count for minute 100.
    wr::fleet::merge_batch(store.database, "edge-1", batch(stream(1), 2, store.room_id, {{minute(100), 1}, {minute(102), 5}}), now + 4s);
    CHECK(store.admitted() == std::map<int64_t, int64_t>{{minute(100), 4}, {minute(101), 4}, {minute(102), 5}});
    // A retry of an older batch arriving after a newer one is not counted either.
    CHECK(wr::fleet::merge_batch(store.database, "edge-1", first, now + 6s).empty());
    CHECK(store.admitted() == std::map<int64_t, int64_t>{{minute(100), 4}, {minute(101), 4}, {minute(102), 5}});
}

TEST_CASE("fleet::merge_batch keeps streams apart: other edges, and a restarted edge's new stream") {
    ShopStore store;
    const auto now = wr::test::k_test_start;
    wr::fleet::merge_batch(store.database, "edge-1", batch(stream(1), 1, store.room_id, {{minute(100), 3}}), now);
    wr::fleet::merge_batch(store.database, "edge-2", batch(stream(1), 1, store.room_id, {{minute(100), 10}}), now);
    wr::fleet::merge_batch(store.database, "edge-1", batch(stream(2), 1, store.room_id, {{minute(100), 100}}), now);
    CHECK(store.admitted() == std::map<int64_t, int64_t>{{minute(100), 113}});
}

TEST_CASE("fleet::merge_batch drops the minutes of a room that no longer exists") {
    ShopStore store;
    auto pushed = batch(stream(1), 1, store.room_id, {{minute(100), 3}});
    pushed.records["gone"][minute(100)] = pushed.records[store.room_id][minute(100)];
    const wr::fleet::RoomMinutes merged = wr::fleet::merge_batch(store.database, "edge-1", pushed, wr::test::k_test_start);
    CHECK(merged.size() == 1);
    CHECK(merged.contains(store.room_id));
    CHECK(store.admitted() == std::map<int64_t, int64_t>{{minute(100), 3}});
}

TEST_CASE("fleet::merge_batch stores no minute more than 10 minutes ahead of now, or older than analytics keep") {
    ShopStore store;
    const auto now = wr::test::k_test_start;
    const int64_t current = std::chrono::duration_cast<std::chrono::minutes>(now.time_since_epoch()).count();
    const int64_t oldest = current - std::chrono::duration_cast<std::chrono::minutes>(wr::analytics::k_retention).count();
    const auto pushed = batch(stream(1), 1, store.room_id,
                              {{oldest - 1, 1}, {oldest, 2}, {current, 3}, {current + 10, 4}, {current + 11, 5}, {int64_t{1} << 40, 6}});
    const wr::fleet::RoomMinutes merged = wr::fleet::merge_batch(store.database, "edge-1", pushed, now);
    CHECK(merged.at(store.room_id).size() == 3);
    CHECK(store.admitted() == std::map<int64_t, int64_t>{{oldest, 2}, {current, 3}, {current + 10, 4}});
}

TEST_CASE("store: a minute's origin counts and the guard's limits are kept and merge as the rest") {
    ShopStore store;
    wr::model::MinuteRecord first;
    first.minute = 29'000'000;
    first.origin_answers = {0, 10, 0, 1, 2};
    first.origin_errors = {1, 0, 3, 0, 0};
    first.effective_new_users_per_minute = 200;
    wr::model::MinuteRecord second = first;
    second.effective_new_users_per_minute = 150;
    second.effective_total_active_users = 700;
    store.database.write([&](wr::store::Connection& c) {
        wr::store::merge_analytics(c, store.room_id, {{first.minute, first}});
        wr::store::merge_analytics(c, store.room_id, {{second.minute, second}});
    });
    store.database.read([&](wr::store::Connection& c) {
        const auto records = wr::store::load_analytics(c, store.room_id, 0, std::numeric_limits<int64_t>::max());
        REQUIRE(records.size() == 1);
        CHECK(records[0].origin_answers == std::array<int64_t, 5>{0, 20, 0, 2, 4});
        CHECK(records[0].origin_errors == std::array<int64_t, 5>{2, 0, 6, 0, 0});
        CHECK(records[0].effective_new_users_per_minute == 150); // the lowest in force during the minute
        CHECK(records[0].effective_total_active_users == 700);
    });
}
