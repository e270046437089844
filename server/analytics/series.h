#pragma once
// Analytics series for a time range: stored minutes rolled up into steps (1, 15 or 60 minutes)
// — exact, because every figure either adds, takes a maximum or merges histograms — and written
// as JSON or CSV.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analytics/room_stats.h"

namespace wr::analytics {

struct SeriesRange {
    int64_t from_minute = 0;  // inclusive, a multiple of step_minutes
    int64_t until_minute = 0; // exclusive
    int64_t step_minutes = 1;
};

// One record per step of the range, in order; steps without data are empty records.
std::vector<MinuteRecord> roll_up(const std::vector<MinuteRecord>& minutes, const SeriesRange& range);

// The flat fields of one step, named like Cloudflare's analytics where it has a name.
nlohmann::json point_to_json(const MinuteRecord& record);
// The names of those fields, in column order (CSV header).
const std::vector<std::string>& point_fields();
std::string series_csv(const std::vector<MinuteRecord>& points);

} // namespace wr::analytics
