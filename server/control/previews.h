#pragma once
// Template previews: a custom page stored for 24 hours behind an unguessable URL.
#include <string>
#include <string_view>

#include "store/database.h"
#include "util/clock.h"

namespace wr::control {

inline constexpr auto k_preview_lifetime = std::chrono::hours{24};

// Validates the template (it must parse) and stores it; returns the preview's id.
std::string create_preview(store::Connection& connection, util::TimePoint now, std::string_view zone_id,
                           const std::string& html);

} // namespace wr::control
