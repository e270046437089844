#pragma once
// What an edge pushes to its control node every couple of seconds: a report of how it is now
// (its live figures per room and its state's health), and, when it has counted anything, a
// batch of per-minute analytics numbered within its stream so the control node merges each batch
// exactly once. Plain data and its JSON; no I/O.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analytics/collector.h"
#include "model/minute_record.h"
#include "state/counters.h"

namespace wr::fleet {

// The largest count a push may carry, in a minute record, a histogram bucket or the live
// figures: 2^40, far above what one edge counts in a minute (a billion requests) yet so far
// below 2^63 that sums of millions of pushes cannot overflow (and they saturate if they did).
inline constexpr int64_t k_max_pushed_count = int64_t{1} << 40;

// room id → minute → what was counted.
using RoomMinutes = std::map<std::string, std::map<int64_t, model::MinuteRecord>>;

// Adds `from` into `into`, minute by minute (MinuteRecord::merge).
void merge_into(RoomMinutes& into, const RoomMinutes& from);

struct AnalyticsBatch {
    std::string stream;   // the edge's outbox: random, 32 hex characters
    int64_t sequence = 0; // 1, 2, 3, … within the stream, in the order they are sent
    RoomMinutes records;
};

struct NodeReport {
    std::string node;           // --node-name
    std::string role = "edge";
    state::Health health;       // of its admission state (memory, or a shared store)
    std::vector<analytics::RoomSample> rooms; // live figures now
};

struct PushMessage {
    NodeReport report;
    std::optional<AnalyticsBatch> batch;
};

nlohmann::json minute_record_to_json(const model::MinuteRecord& record);
// nullopt when a count is missing, not an integer, or outside 0..k_max_pushed_count.
std::optional<model::MinuteRecord> minute_record_from_json(const nlohmann::json& json);

nlohmann::json room_minutes_to_json(const RoomMinutes& records);
std::optional<RoomMinutes> room_minutes_from_json(const nlohmann::json& json);

std::string push_body(const PushMessage& message);
// nullopt with `error` naming what is wrong.
std::optional<PushMessage> read_push(std::string_view body, std::string& error);
// The same, of a body already parsed (the admin API parses every body one way: Request::json_body).
std::optional<PushMessage> read_push_value(const nlohmann::json& value, std::string& error);

} // namespace wr::fleet
