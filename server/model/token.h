#pragma once
// An API token as stored: never the token itself, only its SHA-256.
#include <optional>
#include <string>

#include "model/enums.h"
#include "util/clock.h"

namespace wr::model {

struct Token {
    std::string id;
    std::string name;
    TokenScope scope = TokenScope::read;
    std::optional<std::string> zone_id; // bound to one zone, or to all
    std::string hash;                   // sha256 hex of the secret
    util::TimePoint created_on{};
    std::optional<util::TimePoint> last_used_on;
};

} // namespace wr::model
