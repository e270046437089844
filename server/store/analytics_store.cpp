// Reads, merges and prunes per-minute analytics rows.
#include "store/analytics_store.h"

namespace wr::store {
namespace {

constexpr const char* k_columns =
    "minute, active_max, active_sum, active_samples, queued_max, new_admitted, requests_admitted, requests_queued, "
    "requests_rejected, requests_bypassed, requests_passthrough, sessions_revoked, turnstile_challenges, "
    "turnstile_successes, turnstile_failures, turnstile_unsolved, infinite_queue_refreshes, total_active_users_limit, "
    "new_users_per_minute_limit, estimated_wait, observed_wait, origin_time, origin";

// The origin's counts and the guard's limits, as the origin column keeps them.
nlohmann::json origin_column(const model::MinuteRecord& record) {
    return {{"answers", record.origin_answers},
            {"errors", record.origin_errors},
            {"effective", {record.effective_total_active_users, record.effective_new_users_per_minute}}};
}

// The same back; a value that is not what origin_column writes leaves the fields at zero.
void read_origin_column(const std::string& text, model::MinuteRecord& record) {
    const nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
    if (!value.is_object()) return;
    const auto fill = [](const nlohmann::json& from, auto& into) {
        if (!from.is_array() || from.size() != into.size()) return;
        for (size_t i = 0; i < into.size(); ++i)
            if (from[i].is_number_integer()) into[i] = from[i].get<int64_t>();
    };
    fill(value.value("answers", nlohmann::json()), record.origin_answers);
    fill(value.value("errors", nlohmann::json()), record.origin_errors);
    std::array<int64_t, 2> effective{};
    fill(value.value("effective", nlohmann::json()), effective);
    record.effective_total_active_users = effective[0];
    record.effective_new_users_per_minute = effective[1];
}

model::MinuteRecord read_record(SQLite::Statement& row) {
    model::MinuteRecord record;
    int column = 0;
    const auto next = [&] { return row.getColumn(column++); };
    record.minute = next().getInt64();
    record.active_max = next().getInt64();
    record.active_sum = next().getInt64();
    record.active_samples = next().getInt64();
    record.queued_max = next().getInt64();
    record.new_admitted = next().getInt64();
    for (int64_t& requests : record.requests) requests = next().getInt64();
    record.revoked = next().getInt64();
    record.turnstile_challenges = next().getInt64();
    record.turnstile_successes = next().getInt64();
    record.turnstile_failures = next().getInt64();
    record.turnstile_unsolved = next().getInt64();
    record.infinite_refreshes = next().getInt64();
    record.total_active_users_limit = next().getInt64();
    record.new_users_per_minute_limit = next().getInt64();
    record.estimated_wait = model::Histogram::from_json(nlohmann::json::parse(next().getString(), nullptr, false));
    record.observed_wait = model::Histogram::from_json(nlohmann::json::parse(next().getString(), nullptr, false));
    record.origin_time = model::Histogram::from_json(nlohmann::json::parse(next().getString(), nullptr, false));
    read_origin_column(next().getString(), record);
    return record;
}

} // namespace

void merge_analytics(Connection& connection, std::string_view room_id, const std::map<int64_t, model::MinuteRecord>& records) {
    SQLite::Statement select(connection, std::string("SELECT ") + k_columns + " FROM analytics_minutes WHERE room_id = ? AND minute = ?");
    SQLite::Statement upsert(connection, std::string("INSERT OR REPLACE INTO analytics_minutes (room_id, ") + k_columns +
                                             ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const auto& [minute, fresh] : records) {
        model::MinuteRecord merged = fresh;
        select.reset();
        select.bind(1, std::string(room_id));
        select.bind(2, minute);
        if (select.executeStep()) {
            merged = read_record(select);
            merged.merge(fresh);
        }
        merged.minute = minute;
        upsert.reset();
        int index = 1;
        upsert.bind(index++, std::string(room_id));
        for (const int64_t value : {merged.minute, merged.active_max, merged.active_sum, merged.active_samples, merged.queued_max,
                                    merged.new_admitted, merged.requests[0], merged.requests[1], merged.requests[2],
                                    merged.requests[3], merged.requests[4], merged.revoked, merged.turnstile_challenges,
                                    merged.turnstile_successes, merged.turnstile_failures, merged.turnstile_unsolved,
                                    merged.infinite_refreshes, merged.total_active_users_limit, merged.new_users_per_minute_limit})
            upsert.bind(index++, value);
        upsert.bind(index++, merged.estimated_wait.to_json().dump());
        upsert.bind(index++, merged.observed_wait.to_json().dump());
        upsert.bind(index++, merged.origin_time.to_json().dump());
        upsert.bind(index, origin_column(merged).dump());
        upsert.exec();
    }
}

std::vector<model::MinuteRecord> load_analytics(Connection& connection, std::string_view room_id, int64_t from_minute,
                                                    int64_t until_minute) {
    SQLite::Statement query(connection, std::string("SELECT ") + k_columns +
                                            " FROM analytics_minutes WHERE room_id = ? AND minute >= ? AND minute < ? ORDER BY minute");
    query.bind(1, std::string(room_id));
    query.bind(2, from_minute);
    query.bind(3, until_minute);
    std::vector<model::MinuteRecord> records;
    while (query.executeStep()) records.push_back(read_record(query));
    return records;
}

int64_t prune_analytics(Connection& connection, int64_t oldest_minute) {
    SQLite::Statement remove(connection, "DELETE FROM analytics_minutes WHERE minute < ?");
    remove.bind(1, oldest_minute);
    return remove.exec();
}

} // namespace wr::store
