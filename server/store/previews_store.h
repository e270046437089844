#pragma once
// SQL for template previews: HTML kept for a limited time behind an unguessable id.
#include <optional>
#include <string>
#include <string_view>

#include "store/database.h"
#include "util/clock.h"

namespace wr::store {

struct Preview {
    std::string id;
    std::string zone_id;
    std::string html;
    util::TimePoint expires_on{};
};

void insert_preview(Connection& connection, const Preview& preview, util::TimePoint now);
// nullopt when unknown or expired.
std::optional<Preview> find_preview(Connection& connection, std::string_view id, util::TimePoint now);
int64_t delete_expired_previews(Connection& connection, util::TimePoint now);

} // namespace wr::store
