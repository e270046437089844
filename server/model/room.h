#pragma once
// A waiting room: which traffic it guards and how it admits it.
#include <cstdint>
#include <string>
#include <vector>

#include "model/enums.h"
#include "util/clock.h"

namespace wr::model {

inline constexpr int64_t k_min_users = 200;
inline constexpr int64_t k_max_users = 2147483647;
inline constexpr int64_t k_max_join_limit = 1000000; // join_limit_per_ip_per_minute
inline constexpr int k_min_session_minutes = 1;
inline constexpr int k_max_session_minutes = 30;
inline constexpr int k_default_session_minutes = 5;
inline constexpr int k_default_queueing_status_code = 200;
inline constexpr size_t k_max_custom_page_bytes = 1024 * 1024;
inline constexpr size_t k_max_additional_routes = 100;
inline constexpr int k_min_target_ttfb_ms = 50;    // origin_guard.target_ttfb_ms
inline constexpr int k_max_target_ttfb_ms = 60000;

struct Route {
    std::string host;
    std::string path = "/";

    bool operator==(const Route&) const = default;
};

struct CookieAttributes {
    SameSite samesite = SameSite::automatic;
    SecureAttribute secure = SecureAttribute::automatic;

    bool operator==(const CookieAttributes&) const = default;
};

// wr's origin guard (the room field origin_guard): while the origin's p95 time to first byte or
// its error rate is over target, the room admits below its limits — never below the floor, and
// never ending an admitted session.
struct OriginGuardSettings {
    bool enabled = false;
    int target_ttfb_ms = 500;              // 50..60000
    double max_error_rate = 0.05;          // 0..1: 5xx answers and failed connections among proxied requests
    int64_t min_new_users_per_minute = 0;  // the floor; 0 means a tenth of the room's new_users_per_minute

    bool operator==(const OriginGuardSettings&) const = default;
};

// Everything a user sets on a room; defaults are the API's defaults.
struct RoomSettings {
    std::string name;
    std::string description;
    std::string host;
    std::string path = "/";
    std::vector<Route> additional_routes;
    int64_t total_active_users = 0;
    int64_t new_users_per_minute = 0;
    int session_duration = k_default_session_minutes; // minutes
    bool disable_session_renewal = false;
    bool queue_all = false;
    QueueingMethod queueing_method = QueueingMethod::fifo;
    int queueing_status_code = k_default_queueing_status_code;
    bool suspended = false;
    bool json_response_enabled = false;
    std::string cookie_suffix;
    CookieAttributes cookie_attributes;
    std::string custom_page_html;
    std::string default_template_language = "en-US";
    bool revoke_origin_command = false; // enabled_origin_commands contains "revoke"
    TurnstileMode turnstile_mode = TurnstileMode::invisible;
    TurnstileAction turnstile_action = TurnstileAction::log;
    // wr's addition: new-queue joins one client address may make per minute; 0 means no limit.
    int64_t join_limit_per_ip_per_minute = 0;
    OriginGuardSettings origin_guard;

    bool operator==(const RoomSettings&) const = default;
};

struct Room {
    std::string id;
    std::string zone_id;
    RoomSettings settings;
    util::TimePoint created_on{};
    util::TimePoint modified_on{};
};

} // namespace wr::model
