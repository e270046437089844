#pragma once
// One reason why a piece of configuration was refused, naming the field it concerns.
#include <string>
#include <vector>

namespace wr::model {

struct FieldError {
    std::string field;   // "total_active_users", "cookie_attributes.samesite", "additional_routes[1].host"
    std::string message; // "must be at least 200"

    std::string text() const { return field.empty() ? message : field + ": " + message; }
    bool operator==(const FieldError&) const = default;
};

using FieldErrors = std::vector<FieldError>;

} // namespace wr::model
