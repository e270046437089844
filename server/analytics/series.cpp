// Rolls minutes up into steps and writes them out.
#include "analytics/series.h"

#include <algorithm>
#include <cmath>

#include "util/time_format.h"

namespace wr::analytics {
namespace {

util::TimePoint minute_time(int64_t minute) {
    return util::TimePoint{std::chrono::duration_cast<util::Milliseconds>(std::chrono::minutes{minute})};
}

double average_active(const MinuteRecord& record) {
    return record.active_samples == 0 ? 0.0 : static_cast<double>(record.active_sum) / static_cast<double>(record.active_samples);
}

} // namespace

std::vector<MinuteRecord> roll_up(const std::vector<MinuteRecord>& minutes, const SeriesRange& range) {
    std::vector<MinuteRecord> points;
    if (range.step_minutes <= 0 || range.until_minute <= range.from_minute) return points;
    for (int64_t start = range.from_minute; start < range.until_minute; start += range.step_minutes) {
        MinuteRecord point;
        point.minute = start;
        points.push_back(std::move(point));
    }
    for (const MinuteRecord& record : minutes) {
        if (record.minute < range.from_minute || record.minute >= range.until_minute) continue;
        MinuteRecord& point = points[static_cast<size_t>((record.minute - range.from_minute) / range.step_minutes)];
        const int64_t start = point.minute;
        point.merge(record);
        point.minute = start;
    }
    return points;
}

const std::vector<std::string>& point_fields() {
    static const std::vector<std::string> k_fields = {
        "time", "totalActiveUsersAvg", "totalActiveUsersMax", "queuedUsersMax", "newUsersPerMinute", "requestsAdmitted",
        "requestsQueued", "requestsRejected", "requestsBypassed", "requestsPassthrough", "waitTimeEstimatedP50",
        "waitTimeEstimatedMax", "totalTimeWaitedP50", "totalTimeWaitedP90", "timeOnOriginP50", "timeOnOriginP95",
        "sessionsRevoked", "turnstileChallenges", "turnstileSuccesses", "turnstileFailures", "turnstileUnsolved",
        "infiniteQueueRefreshes", "totalActiveUsersLimit", "newUsersPerMinuteLimit"};
    return k_fields;
}

nlohmann::json point_to_json(const MinuteRecord& r) {
    // Units: waits shown to users in minutes, waits experienced in seconds, origin time in ms.
    return {{"time", util::format_iso8601(minute_time(r.minute))},
            {"totalActiveUsersAvg", std::round(average_active(r) * 10) / 10},
            {"totalActiveUsersMax", r.active_max},
            {"queuedUsersMax", r.queued_max},
            {"newUsersPerMinute", r.new_admitted},
            {"requestsAdmitted", r.requests[static_cast<size_t>(Outcome::admitted)]},
            {"requestsQueued", r.requests[static_cast<size_t>(Outcome::queued)]},
            {"requestsRejected", r.requests[static_cast<size_t>(Outcome::rejected)]},
            {"requestsBypassed", r.requests[static_cast<size_t>(Outcome::bypassed)]},
            {"requestsPassthrough", r.requests[static_cast<size_t>(Outcome::passthrough)]},
            {"waitTimeEstimatedP50", r.estimated_wait.percentile(0.5)},
            {"waitTimeEstimatedMax", r.estimated_wait.max()},
            {"totalTimeWaitedP50", r.observed_wait.percentile(0.5)},
            {"totalTimeWaitedP90", r.observed_wait.percentile(0.9)},
            {"timeOnOriginP50", r.origin_time.percentile(0.5)},
            {"timeOnOriginP95", r.origin_time.percentile(0.95)},
            {"sessionsRevoked", r.revoked},
            {"turnstileChallenges", r.turnstile_challenges},
            {"turnstileSuccesses", r.turnstile_successes},
            {"turnstileFailures", r.turnstile_failures},
            // Challenges sent that came back neither solved nor failed: likely bots that run no script.
            {"turnstileUnsolved", std::max<int64_t>(0, r.turnstile_challenges - r.turnstile_successes - r.turnstile_failures)},
            {"infiniteQueueRefreshes", r.infinite_refreshes},
            {"totalActiveUsersLimit", r.total_active_users_limit},
            {"newUsersPerMinuteLimit", r.new_users_per_minute_limit}};
}

std::string series_csv(const std::vector<MinuteRecord>& points) {
    std::string csv;
    for (const std::string& field : point_fields()) csv += (csv.empty() ? "" : ",") + field;
    csv += '\n';
    for (const MinuteRecord& point : points) {
        const nlohmann::json row = point_to_json(point);
        bool first = true;
        for (const std::string& field : point_fields()) {
            if (!first) csv += ',';
            first = false;
            const nlohmann::json& value = row[field];
            csv += value.is_string() ? value.get<std::string>() : value.dump();
        }
        csv += '\n';
    }
    return csv;
}

} // namespace wr::analytics
