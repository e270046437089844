// Per-minute counting, roll-ups into steps, and the series' JSON and CSV.
#include <doctest/doctest.h>

#include "analytics/room_stats.h"
#include "analytics/series.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using wr::analytics::MinuteRecord;

namespace {

int64_t minute_of(wr::util::TimePoint time) { return std::chrono::floor<std::chrono::minutes>(time.time_since_epoch()).count(); }

} // namespace

TEST_CASE("analytics: room stats count each minute apart and drain once") {
    wr::analytics::RoomStats stats;
    const auto start = wr::test::k_test_start;
    for (int i = 0; i < 3; ++i) stats.record_request(start + 10s, wr::analytics::Outcome::admitted);
    stats.record_request(start + 20s, wr::analytics::Outcome::queued);
    stats.record_estimate(start + 20s, 4);
    stats.record_admission(start + 30s, start);
    stats.record_origin_answer(start + 30s, 200, 12ms);
    stats.record_origin_answer(start + 31s, 503, 40ms);
    stats.record_origin_error(start + 32s, wr::model::OriginErrorKind::refused);
    stats.record_origin_error(start + 33s, wr::model::OriginErrorKind::timeout);
    stats.record_request(start + 70s, wr::analytics::Outcome::queued);
    stats.record_revocation(start + 70s);

    std::map<int64_t, MinuteRecord> drained;
    stats.drain(drained);
    REQUIRE(drained.size() == 2);
    const MinuteRecord& first = drained.at(minute_of(start));
    CHECK(first.requests[static_cast<size_t>(wr::analytics::Outcome::admitted)] == 3);
    CHECK(first.requests[static_cast<size_t>(wr::analytics::Outcome::queued)] == 1);
    CHECK(first.new_admitted == 1);
    CHECK(first.observed_wait.percentile(0.5) == 30);
    CHECK(first.estimated_wait.percentile(0.5) == 4);
    CHECK(first.origin_time.percentile(0.5) == 12);
    CHECK(first.origin_time.percentile(1) == 40);
    CHECK(first.origin_answers == std::array<int64_t, 5>{0, 1, 0, 0, 1});
    CHECK(first.origin_errors == std::array<int64_t, 5>{1, 0, 1, 0, 0});
    const MinuteRecord& second = drained.at(minute_of(start) + 1);
    CHECK(second.requests[static_cast<size_t>(wr::analytics::Outcome::queued)] == 1);
    CHECK(second.revoked == 1);

    std::map<int64_t, MinuteRecord> again;
    stats.drain(again);
    CHECK(again.empty());
    const wr::analytics::Totals totals = stats.totals();
    CHECK(totals.requests[static_cast<size_t>(wr::analytics::Outcome::admitted)] == 3);
    CHECK(totals.requests[static_cast<size_t>(wr::analytics::Outcome::queued)] == 2);
    CHECK(totals.new_admitted == 1);
    CHECK(totals.revoked == 1);
    CHECK(totals.origin_answers[4] == 1);
    CHECK(totals.origin_errors[static_cast<size_t>(wr::model::OriginErrorKind::timeout)] == 1);
}

TEST_CASE("analytics: a roll-up into steps equals merging the minutes") {
    std::vector<MinuteRecord> minutes;
    for (int64_t m = 0; m < 30; ++m) {
        MinuteRecord record;
        record.minute = 1000 + m;
        record.active_max = m;
        record.active_sum = 2 * m;
        record.active_samples = 2;
        record.queued_max = 30 - m;
        record.new_admitted = 10;
        record.requests[0] = m;
        record.total_active_users_limit = 200;
        record.new_users_per_minute_limit = m < 20 ? 200 : 300;
        record.observed_wait.add(m);
        minutes.push_back(record);
    }
    const auto points = wr::analytics::roll_up(minutes, {990, 1035, 15});
    REQUIRE(points.size() == 3);
    CHECK(points[0].minute == 990);
    CHECK(points[0].new_admitted == 50); // minutes 1000..1004
    CHECK(points[1].new_admitted == 150);
    CHECK(points[2].new_admitted == 100); // 1020..1029 and nothing after
    MinuteRecord expected;
    for (size_t i = 5; i < 20; ++i) expected.merge(minutes[i]);
    expected.minute = 1005;
    CHECK(points[1] == expected);
    CHECK(points[1].active_max == 19);
    CHECK(points[1].queued_max == 25);
    CHECK(points[2].new_users_per_minute_limit == 300);
    CHECK(points[1].observed_wait.percentile(0.5) == 12);

    // Steps without data are empty, so a chart's time axis has no holes.
    const auto sparse = wr::analytics::roll_up({minutes[0]}, {995, 1010, 1});
    CHECK(sparse.size() == 15);
    CHECK(sparse[5].new_admitted == 10);
    CHECK(sparse[6].new_admitted == 0);
}

TEST_CASE("analytics: a point's JSON and CSV carry every field") {
    MinuteRecord record;
    record.minute = minute_of(wr::test::k_test_start);
    record.active_sum = 250;
    record.active_samples = 2;
    record.active_max = 130;
    record.queued_max = 40;
    record.new_admitted = 7;
    record.requests = {7, 80, 1, 2, 3};
    record.revoked = 4;
    record.estimated_wait.add(6);
    record.observed_wait.add(30);
    record.observed_wait.add(40);
    record.origin_time.add(15);
    record.total_active_users_limit = 200;
    record.new_users_per_minute_limit = 100;
    record.origin_answers = {0, 9, 0, 0, 1};
    record.origin_errors = {0, 0, 0, 0, 0};
    record.origin_errors[static_cast<size_t>(wr::model::OriginErrorKind::refused)] = 2;
    record.effective_new_users_per_minute = 60;
    const nlohmann::json point = wr::analytics::point_to_json(record);
    CHECK(point["time"] == "2026-11-22T10:00:00.000Z");
    CHECK(point["totalActiveUsersAvg"] == 125.0);
    CHECK(point["totalActiveUsersMax"] == 130);
    CHECK(point["queuedUsersMax"] == 40);
    CHECK(point["newUsersPerMinute"] == 7);
    CHECK(point["requestsQueued"] == 80);
    CHECK(point["requestsPassthrough"] == 3);
    CHECK(point["waitTimeEstimatedP50"] == 6);
    CHECK(point["totalTimeWaitedP50"] == 30);
    CHECK(point["totalTimeWaitedP90"] == 40);
    CHECK(point["timeOnOriginP95"] == 15);
    CHECK(point["sessionsRevoked"] == 4);
    CHECK(point["newUsersPerMinuteLimit"] == 100);
    CHECK(point["originResponses2xx"] == 9);
    CHECK(point["originResponses5xx"] == 1);
    CHECK(point["originErrorsRefused"] == 2);
    CHECK(point["originErrorRate"] == 0.25); // (one 5xx + two refused) of twelve
    CHECK(point["effectiveNewUsersPerMinute"] == 60);
    CHECK(point["effectiveTotalActiveUsers"] == 200); // the guard did not lower it: the configured limit
    CHECK(point.size() == wr::analytics::point_fields().size());
    const std::string csv = wr::analytics::series_csv({record});
    CHECK(csv.starts_with("time,totalActiveUsersAvg,totalActiveUsersMax,queuedUsersMax,newUsersPerMinute,"));
    CHECK(csv.find("\n2026-11-22T10:00:00.000Z,125.0,130,40,7,7,80,1,2,3,6,6,30,40,15,15,9,0,0,1,2,0,0,0,0,0.25,200,60,4,0,0,0,0,0,200,"
                   "100\n") != std::string::npos);
}

TEST_CASE("analytics: a minute in which the origin answered nothing has no origin time, not one of 0 ms") {
    MinuteRecord record;
    record.minute = minute_of(wr::test::k_test_start);
    record.origin_errors[static_cast<size_t>(wr::model::OriginErrorKind::refused)] = 5;
    const nlohmann::json point = wr::analytics::point_to_json(record);
    CHECK(point["timeOnOriginP95"].is_null());
    CHECK(point["timeOnOriginP50"].is_null());
    CHECK(point["originErrorRate"] == 1.0);
    const std::string csv = wr::analytics::series_csv({record});
    CHECK(csv.find(",,") != std::string::npos); // empty cells, not "null"
    CHECK(csv.find("null") == std::string::npos);
}
