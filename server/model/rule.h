#pragma once
// A bypass rule: requests matching its expression skip the waiting room.
#include <cstdint>
#include <string>

#include "util/clock.h"

namespace wr::model {

inline constexpr std::string_view k_bypass_action = "bypass_waiting_room";
inline constexpr size_t k_max_rules_per_room = 100;

struct RuleSettings {
    std::string action{k_bypass_action};
    std::string expression;
    std::string description;
    bool enabled = true;

    bool operator==(const RuleSettings&) const = default;
};

struct Rule {
    std::string id;
    RuleSettings settings;
    int64_t version = 1;             // bumped on every change
    util::TimePoint last_updated{};
};

} // namespace wr::model
