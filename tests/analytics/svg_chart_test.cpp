// The chart's time axis: labels on round times, whatever minute the range starts at.
#include <doctest/doctest.h>
#include <regex>

#include "analytics/svg_chart.h"

using wr::analytics::MinuteRecord;

namespace {

// The chart of one point per minute from hh:mm UTC (on 2026-11-22) for `count` minutes.
std::vector<MinuteRecord> minutes_from(int hour, int minute, int count) {
    const int64_t day = 1795305600 / 60; // 2026-11-22T00:00:00Z in minutes
    std::vector<MinuteRecord> points(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) points[static_cast<size_t>(i)].minute = day + hour * 60 + minute + i;
    return points;
}

std::vector<std::string> time_labels(const std::string& svg) {
    std::vector<std::string> labels;
    const std::regex label(">([0-9]{2}:[0-9]{2})</text>");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator(); ++it) labels.push_back((*it)[1]);
    return labels;
}

} // namespace

TEST_CASE("svg chart: an hour starting at 21:41 is labelled every 10 minutes on the round ten") {
    const std::string svg = wr::analytics::svg_chart(minutes_from(21, 41, 61), 1, "z / r");
    CHECK(time_labels(svg) == std::vector<std::string>{"21:50", "22:00", "22:10", "22:20", "22:30", "22:40"});
}

TEST_CASE("svg chart: tick intervals are round and give at most seven labels") {
    CHECK(wr::analytics::time_tick_minutes(61, 1) == 10);
    CHECK(wr::analytics::time_tick_minutes(90, 1) == 15);
    CHECK(wr::analytics::time_tick_minutes(12 * 60, 1) == 120);
    CHECK(wr::analytics::time_tick_minutes(7 * 24 * 60, 15) == 1440);
    CHECK(wr::analytics::time_tick_minutes(30 * 24 * 60, 60) == 10080);
}
