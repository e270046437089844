// Draws a simulation report as one SVG: the heatmap above, the line chart below.
#include "simulate/report_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analytics/svg_chart.h"
#include "util/escape.h"

namespace wr::simulate {
namespace {

// A perceptually even ramp from pale to dark (viridis-like), for counts 0..1.
std::string colour(double share) {
    static constexpr int k_stops[][3] = {{253, 231, 37}, {94, 201, 98}, {33, 145, 140}, {59, 82, 139}, {68, 1, 84}};
    if (share <= 0) return "#ffffff";
    const double scaled = std::clamp(share, 0.0, 1.0) * 4;
    const int low = std::min(3, static_cast<int>(scaled));
    const double t = scaled - low;
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", static_cast<int>(k_stops[low][0] + t * (k_stops[low + 1][0] - k_stops[low][0])),
                  static_cast<int>(k_stops[low][1] + t * (k_stops[low + 1][1] - k_stops[low][1])),
                  static_cast<int>(k_stops[low][2] + t * (k_stops[low + 1][2] - k_stops[low][2])));
    return buffer;
}

constexpr int k_bins = 30;

std::string heatmap(const Report& report, double top) {
    constexpr double left = 70, width = 720, height = 360;
    double last_arrival = 1, longest_wait = 1;
    for (const UserResult& user : report.users) {
        last_arrival = std::max(last_arrival, user.arrival_seconds / 60);
        if (user.admitted_seconds) longest_wait = std::max(longest_wait, (*user.admitted_seconds - user.joined_seconds) / 60);
    }
    // Both axes run to a round number of minutes and are marked at round steps.
    const analytics::AxisTicks arrival_axis = analytics::round_ticks(last_arrival, 6);
    const analytics::AxisTicks wait_axis = analytics::round_ticks(longest_wait, 6);
    const double arrival_minutes = arrival_axis.top;
    const double wait_minutes = wait_axis.top;
    std::vector<int> counts(k_bins * k_bins, 0);
    int most = 1;
    for (const UserResult& user : report.users) {
        if (!user.admitted_seconds) continue;
        const int x = std::min(k_bins - 1, static_cast<int>(user.arrival_seconds / 60 / arrival_minutes * k_bins));
        const int y = std::min(k_bins - 1, static_cast<int>((*user.admitted_seconds - user.joined_seconds) / 60 / wait_minutes * k_bins));
        most = std::max(most, ++counts[static_cast<size_t>(y * k_bins + x)]);
    }
    const double cell_w = width / k_bins, cell_h = height / k_bins;
    std::string svg = "<g transform=\"translate(0 " + analytics::svg_number(top) + ")\">\n";
    svg += "<text x=\"" + analytics::svg_number(left) + "\" y=\"18\" font-size=\"14\" font-weight=\"600\">Wait against arrival minute (" +
           std::to_string(report.summary.admitted) + " admitted users)</text>\n";
    for (int y = 0; y < k_bins; ++y)
        for (int x = 0; x < k_bins; ++x) {
            const int count = counts[static_cast<size_t>(y * k_bins + x)];
            if (count == 0) continue;
            svg += "<rect x=\"" + analytics::svg_number(left + x * cell_w) + "\" y=\"" + analytics::svg_number(30 + height - (y + 1) * cell_h) + "\" width=\"" +
                   analytics::svg_number(cell_w + 0.3) + "\" height=\"" + analytics::svg_number(cell_h + 0.3) + "\" fill=\"" +
                   colour(std::sqrt(static_cast<double>(count) / most)) + "\"><title>" + std::to_string(count) + " users</title></rect>\n";
        }
    svg += "<rect x=\"" + analytics::svg_number(left) + "\" y=\"30\" width=\"" + analytics::svg_number(width) + "\" height=\"" + analytics::svg_number(height) +
           "\" fill=\"none\" stroke=\"#9ca3af\"/>\n";
    for (double minutes = 0; minutes <= arrival_minutes + 1e-9; minutes += arrival_axis.step)
        svg += "<text x=\"" + analytics::svg_number(left + width * minutes / arrival_minutes) + "\" y=\"" + analytics::svg_number(30 + height + 16) +
               "\" text-anchor=\"middle\" font-size=\"11\">" + analytics::svg_number(minutes, 0) + "</text>\n";
    for (double minutes = 0; minutes <= wait_minutes + 1e-9; minutes += wait_axis.step)
        svg += "<text x=\"" + analytics::svg_number(left - 6) + "\" y=\"" + analytics::svg_number(30 + height - height * minutes / wait_minutes + 4) +
               "\" text-anchor=\"end\" font-size=\"11\">" + analytics::svg_number(minutes, 0) + "</text>\n";
    svg += "<text x=\"" + analytics::svg_number(left + width / 2) + "\" y=\"" + analytics::svg_number(30 + height + 34) +
           "\" text-anchor=\"middle\" font-size=\"12\">arrival minute</text>\n";
    svg += "<text transform=\"translate(22 " + analytics::svg_number(30 + height / 2) + ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">wait (minutes)</text>\n";
    // Colour key.
    for (int i = 0; i < 10; ++i)
        svg += "<rect x=\"" + analytics::svg_number(left + width + 20) + "\" y=\"" + analytics::svg_number(30 + height - (i + 1) * height / 10) + "\" width=\"14\" height=\"" +
               analytics::svg_number(height / 10 + 0.3) + "\" fill=\"" + colour((i + 1) / 10.0) + "\"/>\n";
    svg += "<text x=\"" + analytics::svg_number(left + width + 38) + "\" y=\"40\" font-size=\"11\">" + std::to_string(most) + "</text>\n";
    svg += "<text x=\"" + analytics::svg_number(left + width + 38) + "\" y=\"" + analytics::svg_number(30 + height) + "\" font-size=\"11\">1</text>\n";
    svg += "<text x=\"" + analytics::svg_number(left + width + 12) + "\" y=\"" + analytics::svg_number(30 + height + 34) + "\" font-size=\"11\">users per cell</text>\n";
    svg += "</g>\n";
    return svg;
}

// One line of a panel: a value per minute (NaN where there is none).
struct Series {
    std::string name;
    std::string colour;
    bool dashed = false;
    std::vector<double> values;
};

// A line chart of per-minute series, 720 wide, with round axes and a legend.
std::string line_panel(const std::string& title, const std::string& unit, const std::vector<int64_t>& minutes,
                       const std::vector<Series>& series, double top) {
    constexpr double left = 70, width = 720, height = 200;
    double highest = 1;
    for (const Series& line : series)
        for (const double value : line.values)
            if (std::isfinite(value)) highest = std::max(highest, value);
    const analytics::AxisTicks y_axis = analytics::round_ticks(highest, 5);
    const double first = minutes.empty() ? 0 : static_cast<double>(minutes.front());
    const double last = minutes.empty() ? 1 : static_cast<double>(minutes.back() + 1);
    const analytics::AxisTicks x_axis = analytics::round_ticks(std::max(1.0, last - first), 8);
    const auto x_of = [&](double minute) { return left + width * (minute - first) / x_axis.top; };
    const auto y_of = [&](double value) { return 30 + height - height * value / y_axis.top; };
    std::string svg = "<g transform=\"translate(0 " + analytics::svg_number(top) + ")\">\n";
    svg += "<text x=\"" + analytics::svg_number(left) + "\" y=\"18\" font-size=\"14\" font-weight=\"600\">" + util::escape_html(title) + "</text>\n";
    svg += "<rect x=\"" + analytics::svg_number(left) + "\" y=\"30\" width=\"" + analytics::svg_number(width) + "\" height=\"" +
           analytics::svg_number(height) + "\" fill=\"none\" stroke=\"#9ca3af\"/>\n";
    for (double value = 0; value <= y_axis.top + 1e-9; value += y_axis.step)
        svg += "<text x=\"" + analytics::svg_number(left - 6) + "\" y=\"" + analytics::svg_number(y_of(value) + 4) +
               "\" text-anchor=\"end\" font-size=\"11\">" + analytics::svg_number(value, 0) + "</text>\n";
    for (double minute = 0; minute <= x_axis.top + 1e-9; minute += x_axis.step)
        svg += "<text x=\"" + analytics::svg_number(x_of(first + minute)) + "\" y=\"" + analytics::svg_number(30 + height + 16) +
               "\" text-anchor=\"middle\" font-size=\"11\">" + analytics::svg_number(first + minute, 0) + "</text>\n";
    svg += "<text transform=\"translate(22 " + analytics::svg_number(30 + height / 2) + ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">" +
           util::escape_html(unit) + "</text>\n";
    double legend_x = left;
    for (const Series& line : series) {
        std::string points;
        for (size_t i = 0; i < line.values.size() && i < minutes.size(); ++i) {
            if (!std::isfinite(line.values[i])) continue;
            // Each minute's value is drawn at the minute's middle.
            points += analytics::svg_number(x_of(static_cast<double>(minutes[i]) + 0.5)) + "," +
                      analytics::svg_number(y_of(std::min(line.values[i], y_axis.top))) + " ";
        }
        svg += "<polyline fill=\"none\" stroke=\"" + line.colour + "\" stroke-width=\"1.6\"" +
               (line.dashed ? " stroke-dasharray=\"5 3\"" : "") + " points=\"" + points + "\"/>\n";
        svg += "<line x1=\"" + analytics::svg_number(legend_x) + "\" y1=\"" + analytics::svg_number(30 + height + 30) + "\" x2=\"" +
               analytics::svg_number(legend_x + 18) + "\" y2=\"" + analytics::svg_number(30 + height + 30) + "\" stroke=\"" + line.colour +
               "\" stroke-width=\"2\"" + (line.dashed ? " stroke-dasharray=\"5 3\"" : "") + "/>\n";
        svg += "<text x=\"" + analytics::svg_number(legend_x + 22) + "\" y=\"" + analytics::svg_number(30 + height + 34) + "\" font-size=\"11\">" +
               util::escape_html(line.name) + "</text>\n";
        legend_x += 30 + 6.2 * static_cast<double>(line.name.size());
    }
    svg += "</g>\n";
    return svg;
}

// The origin's panels: its p95 time to first byte against the target, and the guard's effective
// limits beside the configured ones and what the room did.
std::string origin_panels(const Report& report, double top) {
    std::vector<int64_t> minutes;
    Series p95{"origin p95 TTFB", "#dc2626", false, {}}, target{"target", "#6b7280", true, {}}, tolerated{"1.5 × target", "#9ca3af", true, {}};
    Series per_second{"origin answers/s", "#2563eb", false, {}};
    Series configured_rate{"configured new users/min", "#6b7280", true, {}}, effective_rate{"effective new users/min", "#059669", false, {}},
        admitted{"admitted/min", "#2563eb", false, {}};
    Series configured_total{"configured total active", "#9ca3af", true, {}}, effective_total{"effective total active", "#d97706", false, {}},
        active{"active users", "#7c3aed", false, {}};
    const double target_ms = report.summary.origin.target_ttfb_ms;
    for (const MinuteResult& minute : report.minutes) {
        minutes.push_back(minute.minute);
        p95.values.push_back(minute.origin_p95_ttfb_ms < 0 ? std::nan("") : minute.origin_p95_ttfb_ms);
        target.values.push_back(target_ms);
        tolerated.values.push_back(1.5 * target_ms);
        per_second.values.push_back(static_cast<double>(minute.origin_answers) / 60);
        configured_rate.values.push_back(static_cast<double>(minute.new_users_per_minute_limit));
        effective_rate.values.push_back(static_cast<double>(minute.effective_new_users_per_minute));
        admitted.values.push_back(static_cast<double>(minute.sessions_started));
        configured_total.values.push_back(static_cast<double>(minute.total_active_users_limit));
        effective_total.values.push_back(static_cast<double>(minute.effective_total_active_users));
        active.values.push_back(static_cast<double>(minute.sessions));
    }
    const OriginSummary& o = report.summary.origin;
    std::string svg = line_panel("The origin: p95 time to first byte per minute (" + std::to_string(o.errors) + " timeouts)", "ms", minutes,
                                 {p95, target, tolerated}, top);
    svg += line_panel("The origin: answers a second (sustains " + analytics::svg_number(o.sustainable_per_second, 0) + " within target)",
                      "answers/s", minutes, {per_second}, top + 270);
    svg += line_panel(o.guarded ? "New users per minute: the guard's effective limit and the configured one" : "New users per minute",
                      "users/min", minutes, {configured_rate, effective_rate, admitted}, top + 540);
    svg += line_panel(o.guarded ? "Active users: the guard's effective total and the configured one" : "Active users", "users", minutes,
                      {configured_total, effective_total, active}, top + 810);
    return svg;
}

} // namespace

std::string report_svg(const Report& report, const std::string& title) {
    std::vector<analytics::MinuteRecord> points;
    for (const MinuteResult& minute : report.minutes) {
        analytics::MinuteRecord record;
        record.minute = minute.minute;
        record.active_sum = minute.active_users;
        record.active_samples = 1;
        record.queued_max = minute.queued_users;
        record.new_admitted = minute.admitted;
        record.total_active_users_limit = minute.total_active_users_limit;
        record.new_users_per_minute_limit = minute.new_users_per_minute_limit;
        points.push_back(std::move(record));
    }
    std::string chart = analytics::svg_chart(points, 1, "Active and queued users per minute of the simulation");
    // The simulation's clock starts at 00:00, so the chart's times read as hours:minutes since the start.
    const Summary& s = report.summary;
    const int height = s.origin.modelled ? 820 + 1080 : 820;
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 880 " + std::to_string(height) + "\" width=\"880\" height=\"" +
                      std::to_string(height) + "\" "
                      "font-family=\"system-ui, sans-serif\" role=\"img\" aria-label=\"" + util::escape_html(title) + "\">\n"
                      "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
                      "<text x=\"20\" y=\"26\" font-size=\"17\" font-weight=\"700\">" + util::escape_html(title) + "</text>\n"
                      "<text x=\"20\" y=\"46\" font-size=\"12\" fill=\"#374151\">Kendall tau " + analytics::svg_number(s.kendall_tau, 3) +
                      " · max active " + std::to_string(s.max_active) + " / " + std::to_string(s.total_active_users) +
                      " · max admitted per minute " + std::to_string(s.max_admitted_per_minute) + " / " + std::to_string(s.new_users_per_minute) +
                      " · mean wait " + analytics::svg_number(s.mean_wait_minutes) + " min · estimate error " + analytics::svg_number(s.wait_estimate_mae_minutes) +
                      " min</text>\n";
    svg += heatmap(report, 56);
    svg += "<g transform=\"translate(10 480)\">" + chart + "</g>\n";
    if (s.origin.modelled) svg += origin_panels(report, 830);
    svg += "</svg>\n";
    return svg;
}

} // namespace wr::simulate
