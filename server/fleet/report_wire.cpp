// The JSON of an edge's pushes: its report and its analytics batch.
#include "fleet/report_wire.h"

#include <array>

namespace wr::fleet {
namespace {

using nlohmann::json;

// The counters of a record, in one table so writing and reading cannot disagree.
struct CountField {
    const char* name;
    int64_t model::MinuteRecord::*member;
};
constexpr std::array<CountField, 13> k_counts{{
    {"active_max", &model::MinuteRecord::active_max},
    {"active_sum", &model::MinuteRecord::active_sum},
    {"active_samples", &model::MinuteRecord::active_samples},
    {"queued_max", &model::MinuteRecord::queued_max},
    {"new_admitted", &model::MinuteRecord::new_admitted},
    {"revoked", &model::MinuteRecord::revoked},
    {"turnstile_challenges", &model::MinuteRecord::turnstile_challenges},
    {"turnstile_successes", &model::MinuteRecord::turnstile_successes},
    {"turnstile_failures", &model::MinuteRecord::turnstile_failures},
    {"turnstile_unsolved", &model::MinuteRecord::turnstile_unsolved},
    {"infinite_refreshes", &model::MinuteRecord::infinite_refreshes},
    {"total_active_users_limit", &model::MinuteRecord::total_active_users_limit},
    {"new_users_per_minute_limit", &model::MinuteRecord::new_users_per_minute_limit},
}};

// A count within 0..k_max_pushed_count; nullopt for anything else (a float, a negative or
// larger number, one beyond 64 bits).
std::optional<int64_t> count(const json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer()) return std::nullopt;
    if (it->is_number_unsigned() ? it->get<uint64_t>() > static_cast<uint64_t>(k_max_pushed_count)
                                 : it->get<int64_t>() < 0 || it->get<int64_t>() > k_max_pushed_count)
        return std::nullopt;
    return it->get<int64_t>();
}

// A histogram as Histogram::to_json writes it: {"bucket": count}, buckets in range.
std::optional<model::Histogram> histogram(const json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_object()) return std::nullopt;
    for (const auto& [bucket, value] : it->items()) {
        if (bucket.empty() || bucket.size() > 3 || bucket.find_first_not_of("0123456789") != std::string::npos ||
            std::stoul(bucket) >= model::k_histogram_buckets || !value.is_number_unsigned() ||
            value.get<uint64_t>() > static_cast<uint64_t>(k_max_pushed_count))
            return std::nullopt;
    }
    return model::Histogram::from_json(*it);
}

json health_to_json(const state::Health& health) {
    return {{"backend", health.backend},
            {"connected", health.connected},
            {"failure_mode", health.failure_mode},
            {"since", health.since.time_since_epoch().count()},
            {"detail", health.detail}};
}

bool read_health(const json& value, state::Health& health) {
    if (!value.is_object()) return false;
    const auto backend = value.find("backend");
    const auto connected = value.find("connected");
    const auto failure_mode = value.find("failure_mode");
    const auto since = value.find("since");
    const auto detail = value.find("detail");
    if (backend == value.end() || !backend->is_string() || connected == value.end() || !connected->is_boolean() ||
        failure_mode == value.end() || !failure_mode->is_string() || since == value.end() || !since->is_number_integer() ||
        detail == value.end() || !detail->is_string())
        return false;
    health.backend = backend->get<std::string>();
    health.connected = connected->get<bool>();
    health.failure_mode = failure_mode->get<std::string>();
    health.since = util::TimePoint{util::Milliseconds{since->get<int64_t>()}};
    health.detail = detail->get<std::string>();
    return true;
}

json sample_to_json(const analytics::RoomSample& sample) {
    return {{"room_id", sample.room_id},
            {"active_users", sample.active_users},
            {"queued_users", sample.queued_users},
            {"total_active_users_limit", sample.total_active_users_limit},
            {"new_users_per_minute_limit", sample.new_users_per_minute_limit},
            {"max_estimated_minutes", sample.max_estimated_minutes},
            {"admitted_last_minute", sample.admitted_last_minute},
            {"browsing_users", sample.browsing_users}};
}

std::optional<analytics::RoomSample> read_sample(const json& value) {
    if (!value.is_object()) return std::nullopt;
    const auto room_id = value.find("room_id");
    if (room_id == value.end() || !room_id->is_string()) return std::nullopt;
    analytics::RoomSample sample;
    sample.room_id = room_id->get<std::string>();
    const auto active = count(value, "active_users");
    const auto queued = count(value, "queued_users");
    const auto total = count(value, "total_active_users_limit");
    const auto per_minute = count(value, "new_users_per_minute_limit");
    if (!active || !queued || !total || !per_minute) return std::nullopt;
    sample.active_users = *active;
    sample.queued_users = *queued;
    sample.total_active_users_limit = *total;
    sample.new_users_per_minute_limit = *per_minute;
    // Optional: an edge that does not know the estimate leaves it out.
    if (value.contains("max_estimated_minutes")) {
        const auto estimate = count(value, "max_estimated_minutes");
        if (!estimate) return std::nullopt;
        sample.max_estimated_minutes = *estimate;
    }
    // Optional too: what the origin guard reads of the room's load (an older edge sends neither).
    if (value.contains("admitted_last_minute")) {
        const auto admitted = count(value, "admitted_last_minute");
        if (!admitted) return std::nullopt;
        sample.admitted_last_minute = *admitted;
    }
    if (value.contains("browsing_users")) {
        const auto browsing = value["browsing_users"] == -1 ? std::optional<int64_t>(-1) : count(value, "browsing_users");
        if (!browsing) return std::nullopt;
        sample.browsing_users = *browsing;
    }
    return sample;
}

// What an outbox names its streams: 32 lowercase hex characters (util::new_id).
bool is_stream_name(const std::string& text) {
    return text.size() == 32 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool is_name(const std::string& text, size_t max) {
    if (text.empty() || text.size() > max) return false;
    for (const char c : text)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
    return true;
}

} // namespace

void merge_into(RoomMinutes& into, const RoomMinutes& from) {
    for (const auto& [room_id, minutes] : from) {
        auto& room = into[room_id];
        for (const auto& [minute, record] : minutes) {
            auto [it, inserted] = room.try_emplace(minute, record);
            if (!inserted) it->second.merge(record);
            it->second.minute = minute;
        }
    }
}

json minute_record_to_json(const model::MinuteRecord& record) {
    json out = {{"minute", record.minute}};
    for (const CountField& field : k_counts) out[field.name] = record.*field.member;
    json requests = json::object();
    for (size_t i = 0; i < model::k_outcomes; ++i) requests[model::outcome_name(static_cast<model::Outcome>(i))] = record.requests[i];
    out["requests"] = std::move(requests);
    out["estimated_wait"] = record.estimated_wait.to_json();
    out["observed_wait"] = record.observed_wait.to_json();
    out["origin_time"] = record.origin_time.to_json();
    json answers = json::object();
    for (size_t i = 0; i < model::k_status_classes; ++i) answers[std::to_string(i + 1) + "xx"] = record.origin_answers[i];
    out["origin_answers"] = std::move(answers);
    json errors = json::object();
    for (size_t i = 0; i < model::k_origin_error_kinds; ++i)
        errors[model::origin_error_name(static_cast<model::OriginErrorKind>(i))] = record.origin_errors[i];
    out["origin_errors"] = std::move(errors);
    out["effective_total_active_users"] = record.effective_total_active_users;
    out["effective_new_users_per_minute"] = record.effective_new_users_per_minute;
    return out;
}

std::optional<model::MinuteRecord> minute_record_from_json(const json& value) {
    if (!value.is_object()) return std::nullopt;
    model::MinuteRecord record;
    const auto minute = count(value, "minute");
    if (!minute) return std::nullopt;
    record.minute = *minute;
    for (const CountField& field : k_counts) {
        const auto found = count(value, field.name);
        if (!found) return std::nullopt;
        record.*field.member = *found;
    }
    const auto requests = value.find("requests");
    if (requests == value.end() || !requests->is_object()) return std::nullopt;
    for (size_t i = 0; i < model::k_outcomes; ++i) {
        const auto found = count(*requests, model::outcome_name(static_cast<model::Outcome>(i)));
        if (!found) return std::nullopt;
        record.requests[i] = *found;
    }
    const auto estimated = histogram(value, "estimated_wait");
    const auto observed = histogram(value, "observed_wait");
    const auto origin = histogram(value, "origin_time");
    if (!estimated || !observed || !origin) return std::nullopt;
    record.estimated_wait = *estimated;
    record.observed_wait = *observed;
    record.origin_time = *origin;
    // The origin's figures came later: an edge of an older version sends none (zeros), but what is
    // sent must be counts.
    if (const auto answers = value.find("origin_answers"); answers != value.end()) {
        if (!answers->is_object()) return std::nullopt;
        for (size_t i = 0; i < model::k_status_classes; ++i)
            if (const std::string name = std::to_string(i + 1) + "xx"; answers->contains(name)) {
                const auto found = count(*answers, name.c_str());
                if (!found) return std::nullopt;
                record.origin_answers[i] = *found;
            }
    }
    if (const auto errors = value.find("origin_errors"); errors != value.end()) {
        if (!errors->is_object()) return std::nullopt;
        for (size_t i = 0; i < model::k_origin_error_kinds; ++i) {
            const char* name = model::origin_error_name(static_cast<model::OriginErrorKind>(i));
            if (errors->contains(name)) {
                const auto found = count(*errors, name);
                if (!found) return std::nullopt;
                record.origin_errors[i] = *found;
            }
        }
    }
    for (const auto& [name, member] : {std::pair{"effective_total_active_users", &model::MinuteRecord::effective_total_active_users},
                                       std::pair{"effective_new_users_per_minute", &model::MinuteRecord::effective_new_users_per_minute}})
        if (value.contains(name)) {
            const auto found = count(value, name);
            if (!found) return std::nullopt;
            record.*member = *found;
        }
    return record;
}

json room_minutes_to_json(const RoomMinutes& records) {
    json rooms = json::object();
    for (const auto& [room_id, minutes] : records) {
        json list = json::array();
        for (const auto& [minute, record] : minutes) list.push_back(minute_record_to_json(record));
        rooms[room_id] = std::move(list);
    }
    return rooms;
}

std::optional<RoomMinutes> room_minutes_from_json(const json& value) {
    if (!value.is_object()) return std::nullopt;
    RoomMinutes records;
    for (const auto& [room_id, list] : value.items()) {
        if (!list.is_array()) return std::nullopt;
        auto& minutes = records[room_id];
        for (const json& entry : list) {
            const auto record = minute_record_from_json(entry);
            if (!record) return std::nullopt;
            auto [it, inserted] = minutes.try_emplace(record->minute, *record);
            if (!inserted) it->second.merge(*record);
        }
    }
    return records;
}

std::string push_body(const PushMessage& message) {
    json rooms = json::array();
    for (const analytics::RoomSample& sample : message.report.rooms) rooms.push_back(sample_to_json(sample));
    json out = {{"node", message.report.node},
                {"role", message.report.role},
                {"state", health_to_json(message.report.health)},
                {"rooms", std::move(rooms)},
                {"batch", nullptr}};
    if (message.batch)
        out["batch"] = {{"stream", message.batch->stream},
                        {"sequence", message.batch->sequence},
                        {"records", room_minutes_to_json(message.batch->records)}};
    return out.dump();
}

std::optional<PushMessage> read_push(std::string_view body, std::string& error) {
    return read_push_value(json::parse(body, nullptr, false), error);
}

std::optional<PushMessage> read_push_value(const json& value, std::string& error) {
    if (value.is_discarded() || !value.is_object()) {
        error = "the body must be a JSON object";
        return std::nullopt;
    }
    PushMessage message;
    const auto node = value.find("node");
    if (node == value.end() || !node->is_string() || !is_name(node->get<std::string>(), 64)) {
        error = "node: must be the node's name (1 to 64 letters, digits, '-', '_', '.')";
        return std::nullopt;
    }
    message.report.node = node->get<std::string>();
    const auto role = value.find("role");
    if (role == value.end() || !role->is_string() || (*role != "edge" && *role != "all")) {
        error = "role: must be edge or all";
        return std::nullopt;
    }
    message.report.role = role->get<std::string>();
    const auto state = value.find("state");
    if (state == value.end() || !read_health(*state, message.report.health)) {
        error = "state: must be {backend, connected, failure_mode, since, detail}";
        return std::nullopt;
    }
    const auto rooms = value.find("rooms");
    if (rooms == value.end() || !rooms->is_array()) {
        error = "rooms: must be an array of live figures";
        return std::nullopt;
    }
    for (const json& entry : *rooms) {
        const auto sample = read_sample(entry);
        if (!sample) {
            error = "rooms: each must be {room_id, active_users, queued_users, total_active_users_limit, new_users_per_minute_limit} "
                    "with counts from 0 to " + std::to_string(k_max_pushed_count);
            return std::nullopt;
        }
        message.report.rooms.push_back(*sample);
    }
    const auto batch = value.find("batch");
    if (batch == value.end() || batch->is_null()) return message;
    const auto stream = batch->is_object() ? batch->find("stream") : batch->end();
    const auto sequence = batch->is_object() ? batch->find("sequence") : batch->end();
    const auto records = batch->is_object() ? batch->find("records") : batch->end();
    if (stream == batch->end() || !stream->is_string() || !is_stream_name(stream->get<std::string>()) || sequence == batch->end() ||
        !sequence->is_number_integer() || sequence->get<int64_t>() < 1 || records == batch->end()) {
        error = "batch: must be {stream (32 hex characters), sequence (1 or more), records}";
        return std::nullopt;
    }
    auto read_records = room_minutes_from_json(*records);
    if (!read_records) {
        error = "batch.records: must map room ids to lists of minute records whose counts are integers from 0 to " +
                std::to_string(k_max_pushed_count);
        return std::nullopt;
    }
    message.batch = AnalyticsBatch{stream->get<std::string>(), sequence->get<int64_t>(), std::move(*read_records)};
    return message;
}

} // namespace wr::fleet
