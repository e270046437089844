// Typed reading of request-body fields, with one message per kind of mistake.
#include "model/json_fields.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/time_format.h"

namespace wr::model {

JsonFields::JsonFields(const nlohmann::json& object, BodyMode mode, FieldErrors& errors, std::string prefix)
    : m_object(object), m_mode(mode), m_errors(errors), m_prefix(std::move(prefix)) {}

void JsonFields::error(std::string_view key, std::string message) { m_errors.push_back({field(key), std::move(message)}); }

JsonFields::Lookup JsonFields::find(std::string_view key, Presence presence) {
    const auto it = m_object.find(key);
    if (it == m_object.end()) {
        if (presence == Presence::required && m_mode != BodyMode::patch) error(key, "is required");
        return {Lookup::absent, nullptr};
    }
    if (it->is_null()) {
        if (presence == Presence::required) {
            error(key, "is required");
            return {Lookup::absent, nullptr};
        }
        return {Lookup::null, nullptr};
    }
    return {Lookup::present, &*it};
}

const nlohmann::json* JsonFields::raw(std::string_view key, bool& is_null) const {
    const auto it = m_object.find(key);
    is_null = it != m_object.end() && it->is_null();
    if (it == m_object.end() || it->is_null()) return nullptr;
    return &*it;
}

void JsonFields::string(std::string_view key, std::string& target, const std::string& default_value, Presence presence) {
    const Lookup found = find(key, presence);
    if (found.state == Lookup::absent) return;
    const nlohmann::json* value = found.value;
    if (!value) {
        target = default_value;
        return;
    }
    if (!value->is_string()) {
        error(key, "must be a string");
        return;
    }
    target = value->get<std::string>();
    if (presence == Presence::required && target.empty()) error(key, "is required");
}

template <typename T>
void JsonFields::scalar(std::string_view key, T& target, T default_value, bool (nlohmann::json::*of_type)() const noexcept,
                        const char* wrong_type) {
    const Lookup found = find(key, Presence::optional);
    if (found.state == Lookup::absent) return;
    const nlohmann::json* value = found.value;
    if (!value) {
        target = default_value;
        return;
    }
    if (!(value->*of_type)()) {
        error(key, wrong_type);
        return;
    }
    target = value->get<T>();
}

void JsonFields::boolean(std::string_view key, bool& target, bool default_value) {
    scalar(key, target, default_value, &nlohmann::json::is_boolean, "must be true or false");
}

std::optional<int64_t> integer_of(const nlohmann::json& value) {
    if (value.is_number_integer() && !value.is_number_unsigned()) return value.get<int64_t>();
    if (value.is_number_unsigned()) {
        const uint64_t unsigned_value = value.get<uint64_t>();
        if (unsigned_value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return static_cast<int64_t>(unsigned_value);
        return std::nullopt;
    }
    // JavaScript has only doubles; 1000.0 is as good an integer as 1000.
    if (value.is_number_float()) {
        const double d = value.get<double>();
        if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
    }
    return std::nullopt;
}

std::optional<int64_t> JsonFields::to_integer(std::string_view key, const nlohmann::json& value) {
    if (const auto parsed = integer_of(value)) return parsed;
    error(key, value.is_number_unsigned() ? "is out of range" : "must be an integer");
    return std::nullopt;
}

void JsonFields::integer(std::string_view key, int64_t& target, int64_t default_value, Presence presence,
                         bool zero_is_default) {
    const Lookup found = find(key, presence);
    if (found.state == Lookup::absent) return;
    const nlohmann::json* value = found.value;
    if (!value) {
        target = default_value;
        return;
    }
    if (const auto parsed = to_integer(key, *value)) target = (*parsed == 0 && zero_is_default) ? default_value : *parsed;
}

void JsonFields::integer(std::string_view key, int& target, int default_value, bool zero_is_default) {
    int64_t wide = target;
    integer(key, wide, default_value, Presence::optional, zero_is_default);
    // Out-of-int range values become an impossible value that validation names.
    target = wide > std::numeric_limits<int>::max() || wide < std::numeric_limits<int>::min() ? -1 : static_cast<int>(wide);
}

void JsonFields::number(std::string_view key, double& target, double default_value) {
    scalar(key, target, default_value, &nlohmann::json::is_number, "must be a number");
}

void JsonFields::refuse_unknown(std::initializer_list<std::string_view> known, std::string_view object_name) {
    std::string names;
    for (const std::string_view name : known) names += (names.empty() ? "" : ", ") + std::string(name);
    for (const auto& [key, value] : m_object.items())
        if (std::find(known.begin(), known.end(), key) == known.end())
            error(key, "is not a field of " + std::string(object_name) + " (its fields are " + names + ")");
}

std::optional<Timestamp> JsonFields::to_timestamp(std::string_view key, const nlohmann::json& value) {
    if (value.is_string()) {
        const std::string& text = value.get_ref<const std::string&>();
        if (const auto time = util::parse_iso8601(text)) return Timestamp{text, *time};
    }
    error(key, "must be an ISO 8601 date-time with a time zone, such as 2026-11-22T10:00:00.000Z");
    return std::nullopt;
}

void JsonFields::timestamp(std::string_view key, Timestamp& target, Presence presence) {
    const Lookup found = find(key, presence);
    if (found.state != Lookup::present) return;
    if (auto parsed = to_timestamp(key, *found.value)) target = std::move(*parsed);
}

void JsonFields::optional_string(std::string_view key, std::optional<std::string>& target) {
    const Lookup found = find(key, Presence::optional);
    if (found.state == Lookup::absent) return;
    const nlohmann::json* value = found.value;
    if (!value) {
        target.reset();
        return;
    }
    if (!value->is_string()) {
        error(key, "must be a string or null");
        return;
    }
    target = value->get<std::string>();
}

void JsonFields::optional_boolean(std::string_view key, std::optional<bool>& target) {
    const Lookup found = find(key, Presence::optional);
    if (found.state == Lookup::absent) return;
    const nlohmann::json* value = found.value;
    if (!value) {
        target.reset();
        return;
    }
    if (!value->is_boolean()) {
        error(key, "must be true, false or null");
        return;
    }
    target = value->get<bool>();
}

void JsonFields::optional_integer(std::string_view key, std::optional<int64_t>& target, bool zero_is_null) {
    const Lookup found = find(key, Presence::optional);
    if (found.state == Lookup::absent) return;
    const nlohmann::json* value = found.value;
    if (!value) {
        target.reset();
        return;
    }
    if (const auto parsed = to_integer(key, *value)) {
        if (*parsed == 0 && zero_is_null)
            target.reset();
        else
            target = *parsed;
    }
}

void JsonFields::optional_integer(std::string_view key, std::optional<int>& target, bool zero_is_null) {
    std::optional<int64_t> wide;
    if (target) wide = *target;
    optional_integer(key, wide, zero_is_null);
    if (!wide)
        target.reset();
    else
        target = *wide > std::numeric_limits<int>::max() || *wide < std::numeric_limits<int>::min() ? -1 : static_cast<int>(*wide);
}

void JsonFields::optional_timestamp(std::string_view key, std::optional<Timestamp>& target) {
    const Lookup found = find(key, Presence::optional);
    if (found.state == Lookup::absent) return;
    const nlohmann::json* value = found.value;
    if (!value) {
        target.reset();
        return;
    }
    if (auto parsed = to_timestamp(key, *value)) target = std::move(*parsed);
}

} // namespace wr::model
