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
        "originResponses2xx", "originResponses3xx", "originResponses4xx", "originResponses5xx", "originErrorsRefused",
        "originErrorsReset", "originErrorsTimeout", "originErrorsInvalid", "originErrorsTls", "originErrorRate",
        "effectiveTotalActiveUsers", "effectiveNewUsersPerMinute", "sessionsRevoked", "turnstileChallenges", "turnstileSuccesses", "turnstileFailures", "turnstileUnsolved",
        "infiniteQueueRefreshes", "totalActiveUsersLimit", "newUsersPerMinuteLimit"};
    return k_fields;
}

namespace {

// A percentile of the origin's times, or null when it answered nothing (a dead origin has no
// time to first byte, not one of 0 ms).
nlohmann::json origin_percentile(const MinuteRecord& r, double p) {
    if (r.origin_time.empty()) return nullptr;
    return r.origin_time.percentile(p);
}

// 5xx answers and failures among everything proxied, or null when nothing was.
nlohmann::json origin_error_rate(const MinuteRecord& r) {
    int64_t answers = 0, errors = 0;
    for (const int64_t count : r.origin_answers) answers += count;
    for (const int64_t count : r.origin_errors) errors += count;
    if (answers + errors == 0) return nullptr;
    const double rate = static_cast<double>(r.origin_answers[4] + errors) / static_cast<double>(answers + errors);
    return std::round(rate * 10000) / 10000;
}

} // namespace

nlohmann::json point_to_json(const MinuteRecord& r) {
    using model::OriginErrorKind;
    const auto errors = [&r](OriginErrorKind kind) { return r.origin_errors[static_cast<size_t>(kind)]; };
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
            {"timeOnOriginP50", origin_percentile(r, 0.5)},
            {"timeOnOriginP95", origin_percentile(r, 0.95)},
            {"originResponses2xx", r.origin_answers[1]},
            {"originResponses3xx", r.origin_answers[2]},
            {"originResponses4xx", r.origin_answers[3]},
            {"originResponses5xx", r.origin_answers[4]},
            {"originErrorsRefused", errors(OriginErrorKind::refused)},
            {"originErrorsReset", errors(OriginErrorKind::reset)},
            {"originErrorsTimeout", errors(OriginErrorKind::timeout)},
            {"originErrorsInvalid", errors(OriginErrorKind::invalid)},
            {"originErrorsTls", errors(OriginErrorKind::tls)},
            {"originErrorRate", origin_error_rate(r)},
            // The limits the room admitted by: the origin guard's where it acted, else the configured ones.
            {"effectiveTotalActiveUsers", r.effective_total_active_users > 0 ? r.effective_total_active_users : r.total_active_users_limit},
            {"effectiveNewUsersPerMinute",
             r.effective_new_users_per_minute > 0 ? r.effective_new_users_per_minute : r.new_users_per_minute_limit},
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
            csv += value.is_string() ? value.get<std::string>() : value.is_null() ? "" : value.dump();
        }
        csv += '\n';
    }
    return csv;
}

} // namespace wr::analytics
