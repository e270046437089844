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
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 880 820\" width=\"880\" height=\"820\" "
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
    svg += "</svg>\n";
    return svg;
}

} // namespace wr::simulate
