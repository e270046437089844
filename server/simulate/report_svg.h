#pragma once
// The simulator's pictures, as in reference/000: a heatmap of each admitted user's wait against
// the minute they arrived, and a line chart of active and queued users against the limits.
#include <string>

#include "simulate/simulation.h"

namespace wr::simulate {

std::string report_svg(const Report& report, const std::string& title);

} // namespace wr::simulate
