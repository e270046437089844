#pragma once
// A zone: a domain that wr fronts, and the origin its traffic goes to.
#include <cstdint>
#include <string>
#include <vector>

#include "util/clock.h"

namespace wr::model {

inline constexpr int64_t k_max_origin_connections = 1000000;
inline constexpr int k_min_origin_queue_timeout_seconds = 1;
inline constexpr int k_max_origin_queue_timeout_seconds = 120;

struct ZoneSettings {
    ZoneSettings() = default;
    // Name and origin alone are the common case (and what older callers pass).
    ZoneSettings(std::string zone_name, std::string origin_url, std::vector<std::string> more_hosts = {})
        : name(std::move(zone_name)), origin(std::move(origin_url)), hosts(std::move(more_hosts)) {}

    std::string name;   // "example.com"
    std::string origin; // "http://127.0.0.1:3000"
    // Further hosts the edge proxies for this zone, besides its own name and its rooms' hosts and
    // routes: "www.example.com", or "*.example.com" for every name under example.com. Any other
    // host gets 421, so no name the operator did not list can reach the origin round a room.
    std::vector<std::string> hosts;
    // Origin protection: at most this many connections to the origin at once, counted over the
    // node's edge threads (0: no limit); requests beyond wait in wr, in arrival order, for up to
    // origin_queue_timeout_seconds, then get a 503 page with Retry-After.
    int64_t max_origin_connections = 0;
    int origin_queue_timeout_seconds = 10;

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
