#pragma once
// A room's analytics as a self-contained SVG chart.
#include <string>
#include <string_view>
#include <vector>

#include "analytics/room_stats.h"

namespace wr::analytics {

// Active users (average), queued users (max) and new users per minute against the limits in
// force, one point per step.
std::string svg_chart(const std::vector<MinuteRecord>& points, int64_t step_minutes, std::string_view title);

// The interval between time-axis labels for a chart covering span_minutes: a round one (10 or 15
// minutes, an hour, a day, …) that is a multiple of the step and gives at most seven labels.
int64_t time_tick_minutes(int64_t span_minutes, int64_t step_minutes);

// A coordinate or label for SVG: fixed-point with `digits` decimals ("12.5").
std::string svg_number(double value, int digits = 1);

} // namespace wr::analytics
