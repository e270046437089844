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

// An axis from 0 with round marks: `step` is 1, 2 or 5 times a power of ten (at least 1), chosen so
// that about `ticks` marks cover `maximum`; `top` is the first multiple of `step` at or above it.
struct AxisTicks {
    double step = 1;
    double top = 1;
};
AxisTicks round_ticks(double maximum, int ticks);

// A coordinate or label for SVG: fixed-point with `digits` decimals ("12.5").
std::string svg_number(double value, int digits = 1);

} // namespace wr::analytics
