#pragma once
// Reads the fields of a JSON request body into a settings struct, the way Cloudflare's API
// treats them: unknown fields are ignored, a wrong type is an error naming the field, an
// explicit null unsets the field, and what a PATCH leaves out stays as it was.
#include <nlohmann/json.hpp>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "model/enums.h"
#include "model/field_error.h"
#include "model/timestamp.h"

namespace wr::model {

// create: a new record from defaults; replace: PUT, omitted fields return to defaults;
// patch: PATCH, omitted fields keep their stored value. For create and replace the caller
// passes a default-constructed struct, so "omitted" needs no work here.
enum class BodyMode { create, replace, patch };

enum class Presence { optional, required };

// The integer a JSON number stands for: 1000 or 1000.0 (JavaScript has only doubles), never 1.5;
// nullopt when it is none, or lies outside int64_t.
std::optional<int64_t> integer_of(const nlohmann::json& value);

class JsonFields {
public:
    // prefix names nested objects in messages: "cookie_attributes." or "additional_routes[2]."
    JsonFields(const nlohmann::json& object, BodyMode mode, FieldErrors& errors, std::string prefix = "");

    void string(std::string_view key, std::string& target, const std::string& default_value,
                Presence presence = Presence::optional);
    void boolean(std::string_view key, bool& target, bool default_value);
    // zero_is_default: 0 stands for the default (old SDKs send zero values for unset fields).
    void integer(std::string_view key, int64_t& target, int64_t default_value, Presence presence = Presence::optional,
                 bool zero_is_default = false);
    void integer(std::string_view key, int& target, int default_value, bool zero_is_default = false);
    // Any JSON number (0.05, 1, 1e-3); ranges are validation's.
    void number(std::string_view key, double& target, double default_value);
    void timestamp(std::string_view key, Timestamp& target, Presence presence);

    // Nullable overrides (events): null means "inherit", so it clears the optional.
    void optional_string(std::string_view key, std::optional<std::string>& target);
    void optional_boolean(std::string_view key, std::optional<bool>& target);
    void optional_integer(std::string_view key, std::optional<int64_t>& target, bool zero_is_null = false);
    void optional_integer(std::string_view key, std::optional<int>& target, bool zero_is_null = false);
    void optional_timestamp(std::string_view key, std::optional<Timestamp>& target);

    template <typename Enum> void enumeration(std::string_view key, Enum& target, Enum default_value) {
        const Lookup found = find(key, Presence::optional);
        if (found.state == Lookup::absent) return;
        if (found.state == Lookup::null) {
            target = default_value;
            return;
        }
        if (const auto parsed = parse_enum_value<Enum>(key, *found.value)) target = *parsed;
    }

    template <typename Enum> void optional_enumeration(std::string_view key, std::optional<Enum>& target) {
        const Lookup found = find(key, Presence::optional);
        if (found.state == Lookup::absent) return;
        if (found.state == Lookup::null) {
            target.reset();
            return;
        }
        if (const auto parsed = parse_enum_value<Enum>(key, *found.value)) target = *parsed;
    }

    // An error for every key of the object that is not one of `known` ("is not a field of …").
    void refuse_unknown(std::initializer_list<std::string_view> known, std::string_view object_name);

    // The raw value of a field that needs its own reading (arrays, nested objects), or
    // nullptr when it is absent or null; `is_null` tells which.
    const nlohmann::json* raw(std::string_view key, bool& is_null) const;

    void error(std::string_view key, std::string message);
    BodyMode mode() const { return m_mode; }
    std::string field(std::string_view key) const { return m_prefix + std::string(key); }

private:
    struct Lookup {
        enum State { absent, null, present } state;
        const nlohmann::json* value; // set when present
    };

    // Reports "is required" for a required field that is absent (unless patching) or null;
    // such a field then counts as absent.
    Lookup find(std::string_view key, Presence presence);
    // A value read as it is: absent keeps `target`, null restores the default, a value that is not
    // `of_type` is the error `wrong_type`.
    template <typename T>
    void scalar(std::string_view key, T& target, T default_value, bool (nlohmann::json::*of_type)() const noexcept,
                const char* wrong_type);
    std::optional<int64_t> to_integer(std::string_view key, const nlohmann::json& value);
    std::optional<Timestamp> to_timestamp(std::string_view key, const nlohmann::json& value);

    template <typename Enum> std::optional<Enum> parse_enum_value(std::string_view key, const nlohmann::json& value) {
        if (value.is_string())
            if (auto parsed = parse_enum<Enum>(value.get_ref<const std::string&>())) return parsed;
        error(key, "must be one of " + enum_choices<Enum>());
        return std::nullopt;
    }

    const nlohmann::json& m_object;
    BodyMode m_mode;
    FieldErrors& m_errors;
    std::string m_prefix;
};

} // namespace wr::model
