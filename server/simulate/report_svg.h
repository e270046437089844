#pragma once
// The simulator's pictures, as in "Waiting Room: Random Queueing and Custom Web/Mobile Apps"
// (https://blog.cloudflare.com/waiting-room-random-queueing-and-custom-web-mobile-apps/):
// a heatmap of each admitted user's wait against
// the minute they arrived, and a line chart of active and queued users against the limits.
#include <string>

#include "simulate/simulation.h"

namespace wr::simulate {

std::string report_svg(const Report& report, const std::string& title);

} // namespace wr::simulate
