// Chart axes are marked at round values (0, 50, 100 … rather than 49.3, 98.7), in the room's
// analytics chart and in the simulator's heatmap alike.
#include <doctest/doctest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "analytics/svg_chart.h"
#include "simulate/report_svg.h"

namespace {

using wr::analytics::AxisTicks;
using wr::analytics::round_ticks;

// Whether a step is 1, 2 or 5 times a power of ten.
bool is_round(double step) {
    const double magnitude = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const double factor = step / magnitude;
    return std::fabs(factor - 1) < 1e-9 || std::fabs(factor - 2) < 1e-9 || std::fabs(factor - 5) < 1e-9;
}

// The numbers printed by <text …>N</text> elements whose attributes contain `marker`.
std::vector<std::string> labels(const std::string& svg, const std::string& marker) {
    std::vector<std::string> found;
    const std::regex text("<text ([^>]*)>([^<]*)</text>");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it)
        if ((*it)[1].str().find(marker) != std::string::npos) found.push_back((*it)[2].str());
    return found;
}

} // namespace

TEST_CASE("svg: round_ticks picks 1, 2 or 5 times a power of ten and a top that is a multiple of it") {
    const AxisTicks wait = round_ticks(296, 6); // the FIFO simulation's longest wait
    CHECK(wait.step == 50);
    CHECK(wait.top == 300);
    const AxisTicks arrival = round_ticks(30, 6);
    CHECK(arrival.step == 5);
    CHECK(arrival.top == 30);
    const AxisTicks users = round_ticks(210, 5);
    CHECK(users.step == 50);
    CHECK(users.top == 250);
    CHECK(round_ticks(0, 5).top == 1); // an empty chart still has an axis
    for (double maximum = 0.5; maximum < 2e6; maximum *= 1.37) {
        CAPTURE(maximum);
        const AxisTicks ticks = round_ticks(maximum, 6);
        CHECK(is_round(ticks.step));
        CHECK(ticks.top >= maximum);
        CHECK(std::fabs(std::round(ticks.top / ticks.step) - ticks.top / ticks.step) < 1e-9);
        CHECK(ticks.top / ticks.step <= 7); // about six marks, never dozens
    }
}

TEST_CASE("svg: the analytics chart labels its value axis with round numbers") {
    std::vector<wr::analytics::MinuteRecord> points;
    for (int64_t i = 0; i < 90; ++i) {
        wr::analytics::MinuteRecord point;
        point.minute = 29'000'000 + i;
        point.active_sum = 17 * i;
        point.active_samples = 1;
        point.queued_max = 1083;
        point.total_active_users_limit = 1000;
        point.new_users_per_minute_limit = 300;
        points.push_back(point);
    }
    const std::string svg = wr::analytics::svg_chart(points, 1, "chart");
    const std::vector<std::string> values = labels(svg, "text-anchor=\"end\"");
    REQUIRE(values.size() >= 3);
    CHECK(values.front() == "0");
    const double step = std::stod(values[1]);
    CHECK(is_round(step));
    for (size_t i = 0; i < values.size(); ++i) CHECK(std::stod(values[i]) == doctest::Approx(step * static_cast<double>(i)));
    // Time labels fall on round minutes: 90 minutes are marked every 15.
    std::vector<std::string> times;
    for (const std::string& label : labels(svg, "text-anchor=\"middle\" fill"))
        if (std::regex_match(label, std::regex("[0-9]{2}:[0-9]{2}"))) times.push_back(label);
    REQUIRE(times.size() >= 3);
    for (const std::string& time : times) {
        CAPTURE(time);
        CHECK(std::stoi(time.substr(3, 2)) % 15 == 0);
    }
}

TEST_CASE("svg: the simulator's heatmap marks arrival and wait minutes at round values") {
    wr::simulate::Report report;
    for (int i = 0; i < 400; ++i) {
        wr::simulate::UserResult user;
        user.arrival_seconds = 29.3 * 60 * i / 400; // arrivals over 29.3 minutes
        user.joined_seconds = user.arrival_seconds;
        user.admitted_seconds = user.joined_seconds + 295.4 * 60 * i / 400; // waits up to 295.4 minutes
        report.users.push_back(user);
    }
    report.summary.admitted = 400;
    const std::string svg = wr::simulate::report_svg(report, "heatmap");
    const std::vector<std::string> arrival = labels(svg, "y=\"406.0\" text-anchor=\"middle\" font-size=\"11\"");
    const std::vector<std::string> wait = labels(svg, "text-anchor=\"end\" font-size=\"11\"");
    CHECK(arrival == std::vector<std::string>{"0", "5", "10", "15", "20", "25", "30"});
    CHECK(wait == std::vector<std::string>{"0", "50", "100", "150", "200", "250", "300"});
}

namespace {

// The chart of one point per minute from hh:mm UTC (on 2026-11-22) for `count` minutes.
std::vector<wr::analytics::MinuteRecord> minutes_from(int hour, int minute, int count) {
    const int64_t day = 1795305600 / 60; // 2026-11-22T00:00:00Z in minutes
    std::vector<wr::analytics::MinuteRecord> points(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) points[static_cast<size_t>(i)].minute = day + hour * 60 + minute + i;
    return points;
}

std::vector<std::string> time_labels(const std::string& svg) {
    std::vector<std::string> found;
    const std::regex label(">([0-9]{2}:[0-9]{2})</text>");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator(); ++it) found.push_back((*it)[1]);
    return found;
}

} // namespace

TEST_CASE("svg chart: an hour starting at 21:41 is labelled every 10 minutes on the round ten") {
    const std::string svg = wr::analytics::svg_chart(minutes_from(21, 41, 61), 1, "z / r");
    CHECK(time_labels(svg) == std::vector<std::string>{"21:50", "22:00", "22:10", "22:20", "22:30", "22:40"});
}

TEST_CASE("svg chart: equal limits draw both lines, their dashes alternating, so neither hides the other") {
    std::vector<wr::analytics::MinuteRecord> points(30);
    for (size_t i = 0; i < points.size(); ++i) {
        points[i].minute = 29'000'000 + static_cast<int64_t>(i);
        points[i].total_active_users_limit = 200;
        points[i].new_users_per_minute_limit = 200;
    }
    const std::string svg = wr::analytics::svg_chart(points, 1, "chart");
    // The path of each limit: the same points, the same dash pattern, the second shifted by one dash.
    const std::regex limit("<path d=\"([^\"]*)\"[^>]*stroke=\"(#[0-9a-f]+)\"[^>]*stroke-dasharray=\"([0-9 ]+)\"([^>]*)><title>([^<]*) limit</title>");
    std::vector<std::smatch> found;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), limit); it != std::sregex_iterator(); ++it) found.push_back(*it);
    REQUIRE(found.size() == 2);
    CHECK(found[0][1].str() == found[1][1].str()); // drawn over each other
    CHECK(found[0][2].str() != found[1][2].str()); // in two colours
    const std::string dashes = found[0][3].str();
    CHECK(dashes == found[1][3].str());
    const double dash = std::stod(dashes.substr(0, dashes.find(' ')));
    const double gap = std::stod(dashes.substr(dashes.find(' ') + 1));
    CHECK(dash == gap); // the second line's dashes fill the first one's gaps exactly
    CHECK(found[0][4].str().find("stroke-dashoffset") == std::string::npos);
    CHECK(found[1][4].str().find("stroke-dashoffset=\"" + dashes.substr(0, dashes.find(' ')) + "\"") != std::string::npos);
}
