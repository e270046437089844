// An edge's outbox: batches are numbered in order, a batch is sent again unchanged until it is
// acknowledged, counts gathered meanwhile wait in one open batch (so an outage costs two batches,
// not one per interval), and what is left survives a restart through its JSON.
#include <doctest/doctest.h>

#include "fleet/outbox.h"

using wr::fleet::Outbox;
using wr::fleet::RoomMinutes;

namespace {

RoomMinutes requests(const std::string& room, int64_t minute, int64_t admitted, int64_t estimate = -1) {
    wr::model::MinuteRecord record;
    record.minute = minute;
    record.requests[0] = admitted;
    record.new_admitted = admitted;
    if (estimate >= 0) record.estimated_wait.add(estimate);
    return {{room, {{minute, record}}}};
}

// The admitted requests of every minute of every room in a batch.
int64_t admitted(const wr::fleet::AnalyticsBatch& batch) {
    int64_t total = 0;
    for (const auto& [room, minutes] : batch.records)
        for (const auto& [minute, record] : minutes) total += record.requests[0];
    return total;
}

} // namespace

TEST_CASE("fleet::Outbox numbers batches in order and resends one until it is acknowledged") {
    Outbox outbox("s1", 1);
    CHECK(outbox.next() == nullptr); // nothing counted, nothing to send
    outbox.add(requests("r1", 100, 3));
    const wr::fleet::AnalyticsBatch* first = outbox.next();
    REQUIRE(first);
    CHECK(first->stream == "s1");
    CHECK(first->sequence == 1);
    CHECK(admitted(*first) == 3);

    // Counted while batch 1 is in flight: it does not change batch 1.
    outbox.add(requests("r1", 100, 2));
    outbox.add(requests("r1", 101, 4));
    const wr::fleet::AnalyticsBatch* again = outbox.next();
    REQUIRE(again);
    CHECK(again->sequence == 1);
    CHECK(admitted(*again) == 3);

    outbox.acknowledge(7); // not the batch in flight: ignored
    CHECK(outbox.next()->sequence == 1);
    outbox.acknowledge(1);
    const wr::fleet::AnalyticsBatch* second = outbox.next();
    REQUIRE(second);
    CHECK(second->sequence == 2);
    CHECK(admitted(*second) == 6);
    CHECK(second->records.at("r1").size() == 2);
    outbox.acknowledge(2);
    CHECK(outbox.empty());
    CHECK(outbox.next() == nullptr);
    CHECK(outbox.next_sequence() == 3);
}

TEST_CASE("fleet::Outbox holds at most two batches however long the control node is away") {
    Outbox outbox("s1", 1);
    outbox.add(requests("r1", 100, 1));
    REQUIRE(outbox.next()->sequence == 1); // sent, never answered
    for (int64_t minute = 100; minute < 160; ++minute) {
        outbox.add(requests("r1", minute, 2, minute % 7));
        CHECK(outbox.next()->sequence == 1);
    }
    outbox.acknowledge(1);
    const wr::fleet::AnalyticsBatch* backlog = outbox.next();
    REQUIRE(backlog);
    CHECK(backlog->sequence == 2);
    CHECK(admitted(*backlog) == 120);
    CHECK(backlog->records.at("r1").size() == 60);
    CHECK(backlog->records.at("r1").at(100).estimated_wait.count() == 1);
}

TEST_CASE("fleet::Outbox keeps its stream, numbers and counts through its JSON") {
    Outbox outbox("s1", 1);
    outbox.add(requests("r1", 100, 3, 5));
    REQUIRE(outbox.next()->sequence == 1);
    outbox.add(requests("r2", 101, 4));
    const auto restored = Outbox::from_json(nlohmann::json::parse(outbox.to_json().dump()));
    REQUIRE(restored);
    Outbox copy = *restored;
    CHECK(copy.stream() == "s1");
    CHECK(copy.next_sequence() == 2);
    // The batch in flight keeps its number, so the control node can tell a resend.
    const wr::fleet::AnalyticsBatch* first = copy.next();
    REQUIRE(first);
    CHECK(first->sequence == 1);
    CHECK(admitted(*first) == 3);
    CHECK(first->records.at("r1").at(100).estimated_wait.count() == 1);
    copy.acknowledge(1);
    const wr::fleet::AnalyticsBatch* second = copy.next();
    REQUIRE(second);
    CHECK(second->sequence == 2);
    CHECK(admitted(*second) == 4);

    CHECK_FALSE(Outbox::from_json(nlohmann::json::array()));
    nlohmann::json bad = outbox.to_json();
    bad["in_flight"]["sequence"] = 2; // not below next_sequence
    CHECK_FALSE(Outbox::from_json(bad));
    bad = outbox.to_json();
    bad["open"]["r2"][0]["requests"]["admitted"] = -1;
    CHECK_FALSE(Outbox::from_json(bad));
}

TEST_CASE("fleet::Outbox: a fresh one has a new random stream") {
    const Outbox a;
    const Outbox b;
    CHECK(a.stream().size() == 32);
    CHECK(a.stream() != b.stream());
    CHECK(a.next_sequence() == 1);
}

TEST_CASE("fleet::Outbox sends a large backlog in batches of at most k_max_minutes_per_batch room-minutes, oldest first") {
    Outbox outbox("s1", 1);
    // Three rooms, 500 minutes each: 1500 room-minutes after a long outage.
    for (int64_t minute = 1000; minute < 1500; ++minute)
        for (const char* room : {"a", "b", "c"}) outbox.add(requests(room, minute, 1));
    int64_t sent = 0;
    int64_t last_oldest = 0;
    std::vector<size_t> sizes;
    while (const wr::fleet::AnalyticsBatch* batch = outbox.next()) {
        size_t minutes = 0;
        int64_t oldest = std::numeric_limits<int64_t>::max();
        for (const auto& [room, records] : batch->records) {
            minutes += records.size();
            oldest = std::min(oldest, records.begin()->first);
        }
        CHECK(oldest >= last_oldest);
        last_oldest = oldest;
        sizes.push_back(minutes);
        sent += admitted(*batch);
        outbox.acknowledge(batch->sequence);
    }
    CHECK(sizes == std::vector<size_t>{wr::fleet::k_max_minutes_per_batch, 1500 - wr::fleet::k_max_minutes_per_batch});
    CHECK(sent == 1500); // nothing lost, nothing twice
    CHECK(outbox.empty());
}
