#pragma once
// ISO 8601 timestamps as the API speaks them: "2026-11-22T10:00:00.000Z".
#include <optional>
#include <string>
#include <string_view>

#include "util/clock.h"

namespace wr::util {

// Always UTC with milliseconds.
std::string format_iso8601(TimePoint time);

// Accepts a date-time with seconds, optional fraction and a "Z" or ±HH:MM offset
// ("2026-11-22T10:00:00Z", "2026-11-22T11:00:00.5+01:00"), or nullopt when malformed.
std::optional<TimePoint> parse_iso8601(std::string_view text);

// "2 hours 5 minutes", "45 seconds": for logs and the CLI.
std::string format_duration(Milliseconds duration);

} // namespace wr::util
