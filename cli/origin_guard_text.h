#pragma once
// A room's origin guard in words, for `wr rooms status`: what its status says (wr's
// effective_new_users_per_minute, effective_total_active_users and origin_guard fields) set
// against the limits its configuration asks for now. The console says the same in the same
// words (templates/console.js, originGuardView).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace wr::cli {

// The limits the configuration sets now: the room's, or its running event's.
struct ConfiguredLimits {
    int64_t total_active_users = 0;
    int64_t new_users_per_minute = 0;
};

// "origin slow: admitting 120 a minute of 500" (", 800 active of 1000" added when the guard
// lowered that limit too) while the guard holds admission down (state throttling or
// recovering); "" otherwise, and for a status without these fields. `guard` is the room's
// origin_guard setting, whose targets say whether the origin is slow, failing or both.
std::string origin_guard_headline(const nlohmann::json& status, const ConfiguredLimits& limits, const nlohmann::json& guard);

// "origin p95 time to first byte 900 ms (target 500 ms), errors 0.4 % (at most 5 %)", the
// targets only while the guard is enabled; "" when the status carries no origin figures.
std::string origin_figures(const nlohmann::json& status, const nlohmann::json& guard);

// 0.004 → "0.4 %", 0.05 → "5 %", 0 → "0 %", 0.0004 → "< 0.1 %".
std::string percent_text(double fraction);

} // namespace wr::cli
