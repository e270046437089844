// Draws a room's analytics as an SVG line chart: active and queued users, new users per minute,
// and the configured limits as dashed lines. Plain SVG, no script, no external resources.
#include "analytics/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util/escape.h"
#include "util/time_format.h"

namespace wr::analytics {
namespace {

constexpr double k_width = 860;
constexpr double k_height = 320;
constexpr double k_left = 64;
constexpr double k_right = 20;
constexpr double k_top = 54;
constexpr double k_bottom = 48;

// A round interval in minutes (10 or 15 minutes, hours, days), a multiple of the step, giving at
// most seven labels across `span_minutes`: the last hour is labelled every 10 minutes.
int64_t round_time_interval(int64_t span_minutes, int64_t step_minutes) {
    const int64_t step = std::max<int64_t>(1, step_minutes);
    for (const int64_t minutes : {1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080})
        if (minutes % step == 0 && span_minutes / minutes <= 7) return minutes;
    return std::max<int64_t>(step, (span_minutes / 7 + step - 1) / step * step);
}

struct Series {
    const char* label;
    const char* color;
    bool dashed;
    std::vector<double> values;
    // The two limits are dashed alike, the second shifted by a dash: where they are equal (a room
    // at 200 active and 200 a minute) their dashes alternate, and neither hides the other.
    bool shifted = false;
};

constexpr const char* k_limit_dashes = " stroke-dasharray=\"6 6\"";
constexpr const char* k_limit_shift = " stroke-dashoffset=\"6\"";

} // namespace

std::string svg_chart(const std::vector<MinuteRecord>& points, int64_t step_minutes, std::string_view title) {
    std::vector<Series> series = {
        {"active users (avg)", "#2563eb", false, {}},
        {"queued users (max)", "#ea580c", false, {}},
        {"new users / min", "#16a34a", false, {}},
        {"active limit", "#2563eb", true, {}},
        {"new users / min limit", "#16a34a", true, {}, true},
    };
    for (const MinuteRecord& point : points) {
        const double steps = static_cast<double>(std::max<int64_t>(1, step_minutes));
        series[0].values.push_back(point.active_samples ? static_cast<double>(point.active_sum) / static_cast<double>(point.active_samples) : 0);
        series[1].values.push_back(static_cast<double>(point.queued_max));
        series[2].values.push_back(static_cast<double>(point.new_admitted) / steps);
        series[3].values.push_back(static_cast<double>(point.total_active_users_limit));
        series[4].values.push_back(static_cast<double>(point.new_users_per_minute_limit));
    }
    double maximum = 10;
    for (const Series& s : series)
        for (const double v : s.values) maximum = std::max(maximum, v);
    const AxisTicks y_axis = round_ticks(maximum * 1.05, 5);
    const double y_step = y_axis.step;
    const double y_max = y_axis.top;
    const double plot_width = k_width - k_left - k_right;
    const double plot_height = k_height - k_top - k_bottom;
    const size_t count = points.size();
    const auto x_of = [&](size_t i) { return k_left + (count <= 1 ? plot_width / 2 : plot_width * static_cast<double>(i) / static_cast<double>(count - 1)); };
    const auto y_of = [&](double v) { return k_top + plot_height - plot_height * v / y_max; };

    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + svg_number(k_width) + " " + svg_number(k_height) +
                      "\" width=\"" + svg_number(k_width) + "\" height=\"" + svg_number(k_height) +
                      "\" role=\"img\" aria-label=\"" + util::escape_html(title) + "\" font-family=\"system-ui, sans-serif\" font-size=\"12\">\n";
    svg += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    svg += "<text x=\"" + svg_number(k_left) + "\" y=\"20\" font-size=\"15\" font-weight=\"600\" fill=\"#111827\">" + util::escape_html(title) + "</text>\n";

    // Value axis with grid lines.
    for (double v = 0; v <= y_max + 0.5; v += y_step) {
        const std::string y = svg_number(y_of(v));
        svg += "<line x1=\"" + svg_number(k_left) + "\" x2=\"" + svg_number(k_width - k_right) + "\" y1=\"" + y + "\" y2=\"" + y +
               "\" stroke=\"#e5e7eb\"/>\n";
        svg += "<text x=\"" + svg_number(k_left - 8) + "\" y=\"" + svg_number(y_of(v) + 4) + "\" text-anchor=\"end\" fill=\"#4b5563\">" +
               std::to_string(static_cast<int64_t>(v)) + "</text>\n";
    }
    svg += "<text transform=\"translate(14 " + svg_number(k_top + plot_height / 2) +
           ") rotate(-90)\" text-anchor=\"middle\" fill=\"#4b5563\">users</text>\n";

    // Time axis: about six labels, in UTC, at round times (every 10 minutes, every hour, …).
    const int64_t label_minutes = round_time_interval(static_cast<int64_t>(count) * std::max<int64_t>(1, step_minutes), step_minutes);
    std::vector<size_t> labelled;
    for (size_t i = 0; i < count; ++i)
        if (points[i].minute % label_minutes == 0) labelled.push_back(i);
    if (labelled.empty()) // points not aligned to any round time: every few points instead
        for (size_t i = 0; i < count; i += std::max<size_t>(1, (count + 5) / 6)) labelled.push_back(i);
    for (const size_t i : labelled) {
        const std::string iso = util::format_iso8601(util::TimePoint{std::chrono::duration_cast<util::Milliseconds>(std::chrono::minutes{points[i].minute})});
        const std::string label = step_minutes >= 60 * 24 ? iso.substr(5, 5) : iso.substr(11, 5);
        svg += "<line x1=\"" + svg_number(x_of(i)) + "\" x2=\"" + svg_number(x_of(i)) + "\" y1=\"" + svg_number(k_top + plot_height) + "\" y2=\"" +
               svg_number(k_top + plot_height + 5) + "\" stroke=\"#9ca3af\"/>\n";
        svg += "<text x=\"" + svg_number(x_of(i)) + "\" y=\"" + svg_number(k_top + plot_height + 18) +
               "\" text-anchor=\"middle\" fill=\"#4b5563\">" + label + "</text>\n";
    }
    svg += "<text x=\"" + svg_number(k_left + plot_width / 2) + "\" y=\"" + svg_number(k_height - 8) +
           "\" text-anchor=\"middle\" fill=\"#4b5563\">time (UTC), one point per " + std::to_string(step_minutes) +
           (step_minutes == 1 ? " minute" : " minutes") + "</text>\n";
    svg += "<line x1=\"" + svg_number(k_left) + "\" x2=\"" + svg_number(k_left) + "\" y1=\"" + svg_number(k_top) + "\" y2=\"" +
           svg_number(k_top + plot_height) + "\" stroke=\"#9ca3af\"/>\n";
    svg += "<line x1=\"" + svg_number(k_left) + "\" x2=\"" + svg_number(k_width - k_right) + "\" y1=\"" + svg_number(k_top + plot_height) +
           "\" y2=\"" + svg_number(k_top + plot_height) + "\" stroke=\"#9ca3af\"/>\n";

    // The lines, then the legend.
    for (const Series& s : series) {
        if (s.values.empty()) continue;
        std::string path;
        for (size_t i = 0; i < s.values.size(); ++i) path += (i == 0 ? "M" : " L") + svg_number(x_of(i)) + " " + svg_number(y_of(s.values[i]));
        svg += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + s.color + "\" stroke-width=\"" + (s.dashed ? "1.5" : "2") + "\"" +
               (s.dashed ? k_limit_dashes : "") + (s.shifted ? k_limit_shift : "") + "><title>" + s.label + "</title></path>\n";
    }
    double legend_x = k_left;
    for (const Series& s : series) {
        svg += "<line x1=\"" + svg_number(legend_x) + "\" x2=\"" + svg_number(legend_x + 18) + "\" y1=\"36\" y2=\"36\" stroke=\"" + s.color +
               "\" stroke-width=\"2\"" + (s.dashed ? " stroke-dasharray=\"4 3\"" : "") + (s.shifted ? " stroke-dashoffset=\"4\"" : "") + "/>\n";
        svg += "<text x=\"" + svg_number(legend_x + 22) + "\" y=\"40\" fill=\"#374151\" font-size=\"11\">" + s.label + "</text>\n";
        legend_x += 22 + 6.0 * static_cast<double>(std::string_view(s.label).size()) + 16;
    }
    if (count == 0) svg += "<text x=\"" + svg_number(k_width / 2) + "\" y=\"" + svg_number(k_height / 2) + "\" text-anchor=\"middle\" fill=\"#6b7280\">no data</text>\n";
    svg += "</svg>\n";
    return svg;
}

AxisTicks round_ticks(double maximum, int ticks) {
    const double raw = std::max(1.0, maximum / std::max(1, ticks));
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * magnitude;
    for (const double factor : {1.0, 2.0, 5.0})
        if (raw <= factor * magnitude * (1 + 1e-9)) {
            step = factor * magnitude;
            break;
        }
    return {step, std::max(step, std::ceil(maximum / step - 1e-9) * step)};
}

std::string svg_number(double value, int digits) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

} // namespace wr::analytics
