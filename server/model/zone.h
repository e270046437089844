#pragma once
// A zone: a domain that wr fronts, and the origin its traffic goes to.
#include <string>

#include "util/clock.h"

namespace wr::model {

struct ZoneSettings {
    std::string name;   // "example.com"
    std::string origin; // "http://127.0.0.1:3000"

    bool operator==(const ZoneSettings&) const = default;
};

struct Zone {
    std::string id;
    ZoneSettings settings;
    util::TimePoint created_on{};
    util::TimePoint modified_on{};
};

// The zone-wide waiting room settings.
struct ZoneRoomSettings {
    bool search_engine_crawler_bypass = false;

    bool operator==(const ZoneRoomSettings&) const = default;
};

} // namespace wr::model
