// Validates zones, rooms, events and rules against the limits and relationships of the admin
// API (docs/api.md).
// Every problem is collected, so a user fixes a request in one round trip.
#include "model/validate.h"

#include <algorithm>
#include <cctype>

#include "expr/parser.h"
#include "model/origin_url.h"
#include "model/template_syntax.h"
#include "util/ascii_case.h"
#include "util/secure.h"
#include "util/time_format.h"
#include "util/utf8.h"

namespace wr::model {
namespace {

constexpr size_t k_max_name_length = 255;
constexpr size_t k_max_path_length = 2048;

void check_name(FieldErrors& errors, const std::string& field, std::string_view name) {
    if (name.empty())
        errors.push_back({field, "is required"});
    else if (util::utf8_length(name) > k_max_name_length)
        errors.push_back({field, "must be at most 255 characters"});
    else if (!is_valid_name(name))
        errors.push_back({field, "may contain only letters, digits, '_' and '-'"});
    else if (util::is_id(name))
        errors.push_back({field, k_id_shaped_name});
}

void check_users(FieldErrors& errors, const char* field, int64_t value) {
    if (value < k_min_users)
        errors.push_back({field, "must be at least " + std::to_string(k_min_users)});
    else if (value > k_max_users)
        errors.push_back({field, "must be at most " + std::to_string(k_max_users)});
}

void check_session_duration(FieldErrors& errors, int minutes) {
    if (minutes < k_min_session_minutes || minutes > k_max_session_minutes)
        errors.push_back({"session_duration", "must be between 1 and 30 minutes"});
}

void check_template(FieldErrors& errors, const char* field, std::string_view html) {
    if (html.size() > k_max_custom_page_bytes) {
        errors.push_back({field, "must be at most 1048576 bytes"});
        return;
    }
    if (const auto problem = template_syntax_error(html)) errors.push_back({field, "is not a valid template: " + *problem});
}

void check_host(FieldErrors& errors, const std::string& field, std::string_view host, std::string_view zone_name) {
    if (host.empty())
        errors.push_back({field, "is required"});
    else if (host.find("://") != std::string_view::npos)
        errors.push_back({field, "must not include a scheme (write shop.example.com, not https://shop.example.com)"});
    else if (host.find('*') != std::string_view::npos)
        errors.push_back({field, "must not contain a wildcard"});
    else if (host.find('/') != std::string_view::npos)
        errors.push_back({field, "must not include a path (use the path field)"});
    else if (host.find(':') != std::string_view::npos)
        errors.push_back({field, "must not include a port"});
    else if (!is_valid_hostname(host))
        errors.push_back({field, "is not a valid host name"});
    else if (!host_in_zone(host, zone_name))
        errors.push_back({field, "must lie inside the zone " + std::string(zone_name)});
}

void check_path(FieldErrors& errors, const std::string& field, std::string_view path) {
    if (path.empty() || path[0] != '/')
        errors.push_back({field, "must start with '/'"});
    else if (util::utf8_length(path) > k_max_path_length)
        errors.push_back({field, "must be at most 2048 characters"});
    else if (path.find('?') != std::string_view::npos || path.find('#') != std::string_view::npos)
        errors.push_back({field, "must not include a query or fragment"});
    else if (path.find('*') != std::string_view::npos)
        errors.push_back({field, "must not contain a wildcard (a path already covers everything below it)"});
    else if (std::any_of(path.begin(), path.end(), [](unsigned char c) { return c <= ' ' || c == 0x7f; }))
        errors.push_back({field, "must not contain spaces or control characters"});
}

// The guard's floor may not exceed the limit it is a floor of; 0 stands for a tenth of it.
void check_origin_guard(FieldErrors& errors, const OriginGuardSettings& guard, int64_t new_users_per_minute) {
    if (guard.target_ttfb_ms < k_min_target_ttfb_ms || guard.target_ttfb_ms > k_max_target_ttfb_ms)
        errors.push_back({"origin_guard.target_ttfb_ms", "must be between " + std::to_string(k_min_target_ttfb_ms) + " and " +
                                                             std::to_string(k_max_target_ttfb_ms)});
    // Written so that NaN (never from JSON, but from a hand-edited database) fails too.
    if (!(guard.max_error_rate >= 0.0 && guard.max_error_rate <= 1.0))
        errors.push_back({"origin_guard.max_error_rate", "must be between 0 and 1 (0.05 is 5 %)"});
    if (guard.min_new_users_per_minute < 0)
        errors.push_back({"origin_guard.min_new_users_per_minute", "must be at least 0 (0: a tenth of new_users_per_minute)"});
    else if (guard.min_new_users_per_minute > new_users_per_minute && new_users_per_minute >= k_min_users)
        errors.push_back({"origin_guard.min_new_users_per_minute",
                          "must not exceed new_users_per_minute (" + std::to_string(new_users_per_minute) + ")"});
}

bool same_route(const Route& a, const Route& b) { return a.path == b.path && util::lowercase(a.host) == util::lowercase(b.host); }

} // namespace


bool is_valid_name(std::string_view name) {
    return !name.empty() && name.size() <= k_max_name_length &&
           std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; });
}

bool is_valid_hostname(std::string_view host) {
    if (host.empty() || host.size() > 253) return false;
    size_t label_start = 0;
    while (true) {
        const size_t dot = host.find('.', label_start);
        const std::string_view label = host.substr(label_start, dot == std::string_view::npos ? host.npos : dot - label_start);
        if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
        if (!std::all_of(label.begin(), label.end(), [](unsigned char c) { return std::isalnum(c) || c == '-'; }))
            return false;
        if (dot == std::string_view::npos) return true;
        label_start = dot + 1;
    }
}

bool host_in_zone(std::string_view host, std::string_view zone_name) {
    const std::string h = util::lowercase(host);
    const std::string zone = util::lowercase(zone_name);
    return h == zone || (h.size() > zone.size() && h.ends_with(zone) && h[h.size() - zone.size() - 1] == '.');
}

FieldErrors validate_zone(const ZoneSettings& zone) {
    FieldErrors errors;
    if (zone.name.empty())
        errors.push_back({"name", "is required"});
    else if (zone.name != util::lowercase(zone.name) || !is_valid_hostname(zone.name))
        errors.push_back({"name", "must be a lowercase domain name such as example.com"});
    else if (util::is_id(zone.name))
        errors.push_back({"name", k_id_shaped_name});
    if (zone.origin.empty())
        errors.push_back({"origin", "is required"});
    else if (!parse_origin_url(zone.origin))
        errors.push_back({"origin", "must be an http:// or https:// URL with a host, an optional port and path, and "
                                    "no query (for example http://127.0.0.1:3000)"});
    for (size_t i = 0; i < zone.hosts.size(); ++i) {
        const std::string field = "hosts[" + std::to_string(i) + "]";
        const std::string& host = zone.hosts[i];
        const std::string_view name = std::string_view(host).starts_with("*.") ? std::string_view(host).substr(2) : std::string_view(host);
        if (host != util::lowercase(host) || !is_valid_hostname(name))
            errors.push_back({field, "must be a lowercase host name such as www.example.com, or *.example.com for every name under it"});
        else if (!zone.name.empty() && !host_in_zone(name, zone.name))
            errors.push_back({field, host + " is not inside the zone " + zone.name});
    }
    if (zone.max_origin_connections < 0 || zone.max_origin_connections > k_max_origin_connections)
        errors.push_back({"max_origin_connections", "must be between 0 (no limit) and " + std::to_string(k_max_origin_connections)});
    if (zone.origin_queue_timeout_seconds < k_min_origin_queue_timeout_seconds ||
        zone.origin_queue_timeout_seconds > k_max_origin_queue_timeout_seconds)
        errors.push_back({"origin_queue_timeout_seconds", "must be between " + std::to_string(k_min_origin_queue_timeout_seconds) +
                                                              " and " + std::to_string(k_max_origin_queue_timeout_seconds) + " seconds"});
    return errors;
}

FieldErrors validate_room(const RoomSettings& room, std::string_view zone_name) {
    FieldErrors errors;
    check_name(errors, "name", room.name);
    // Paths take a room's name where its id goes; these two are literal segments of the API.
    if (room.name == "settings" || room.name == "preview")
        errors.push_back({"name", room.name + " is reserved: /zones/{zone_id}/waiting_rooms/" + room.name + " is an API path"});
    check_host(errors, "host", room.host, zone_name);
    check_path(errors, "path", room.path);

    if (room.additional_routes.size() > k_max_additional_routes)
        errors.push_back({"additional_routes", "may hold at most 100 routes"});
    for (size_t i = 0; i < room.additional_routes.size(); ++i) {
        const Route& route = room.additional_routes[i];
        const std::string prefix = "additional_routes[" + std::to_string(i) + "]";
        check_host(errors, prefix + ".host", route.host, zone_name);
        check_path(errors, prefix + ".path", route.path);
        if (same_route(route, Route{room.host, room.path}))
            errors.push_back({prefix, "repeats the room's own host and path"});
        for (size_t j = 0; j < i; ++j)
            if (same_route(route, room.additional_routes[j]))
                errors.push_back({prefix, "repeats additional_routes[" + std::to_string(j) + "]"});
    }

    check_users(errors, "total_active_users", room.total_active_users);
    check_users(errors, "new_users_per_minute", room.new_users_per_minute);
    if (room.new_users_per_minute > room.total_active_users && room.total_active_users >= k_min_users)
        errors.push_back({"new_users_per_minute", "must not exceed total_active_users (" +
                                                      std::to_string(room.total_active_users) + ")"});
    check_session_duration(errors, room.session_duration);
    if (room.join_limit_per_ip_per_minute < 0 || room.join_limit_per_ip_per_minute > k_max_join_limit)
        errors.push_back({"join_limit_per_ip_per_minute",
                          "must be between 0 (no limit) and " + std::to_string(k_max_join_limit)});
    if (room.queueing_status_code != 200 && room.queueing_status_code != 202 && room.queueing_status_code != 429)
        errors.push_back({"queueing_status_code", "must be 200, 202 or 429"});
    check_origin_guard(errors, room.origin_guard, room.new_users_per_minute);

    if (!room.cookie_suffix.empty() && !is_valid_name(room.cookie_suffix))
        errors.push_back({"cookie_suffix", "may contain only letters, digits, '_' and '-' (at most 255)"});
    if (!room.additional_routes.empty() && room.cookie_suffix.empty())
        errors.push_back({"cookie_suffix", "is required when additional_routes are set, so that rooms sharing a "
                                           "host keep separate cookies"});
    if (room.cookie_attributes.samesite == SameSite::none && room.cookie_attributes.secure == SecureAttribute::never)
        errors.push_back({"cookie_attributes.samesite", "none requires cookie_attributes.secure to be auto or always "
                                                        "(browsers drop SameSite=None cookies that are not Secure)"});
    check_template(errors, "custom_page_html", room.custom_page_html);
    if (std::find(k_template_languages.begin(), k_template_languages.end(), room.default_template_language) ==
        k_template_languages.end())
        errors.push_back({"default_template_language", "must be one of the 39 supported languages (en-US, de-DE, …)"});
    return errors;
}

FieldErrors validate_event(const EventSettings& event) {
    FieldErrors errors;
    check_name(errors, "name", event.name);
    if (event.event_start_time.text.empty()) errors.push_back({"event_start_time", "is required"});
    if (event.event_end_time.text.empty()) errors.push_back({"event_end_time", "is required"});
    if (!event.event_start_time.text.empty() && !event.event_end_time.text.empty() &&
        event.event_end_time.time - event.event_start_time.time < std::chrono::minutes{1})
        errors.push_back({"event_start_time", "must be at least 1 minute before event_end_time"});
    if (event.prequeue_start_time && !event.event_start_time.text.empty() &&
        event.event_start_time.time - event.prequeue_start_time->time < std::chrono::minutes{5})
        errors.push_back({"prequeue_start_time", "must be at least 5 minutes before event_start_time"});
    if (event.shuffle_at_event_start && !event.prequeue_start_time)
        errors.push_back({"shuffle_at_event_start", "requires prequeue_start_time (only prequeued users are shuffled)"});

    if (event.total_active_users.has_value() != event.new_users_per_minute.has_value())
        errors.push_back({event.total_active_users ? "new_users_per_minute" : "total_active_users",
                          "must be set together with " +
                              std::string(event.total_active_users ? "total_active_users" : "new_users_per_minute") +
                              " (an event overrides both limits or neither)"});
    if (event.total_active_users) check_users(errors, "total_active_users", *event.total_active_users);
    if (event.new_users_per_minute) check_users(errors, "new_users_per_minute", *event.new_users_per_minute);
    if (event.total_active_users && event.new_users_per_minute && *event.total_active_users >= k_min_users &&
        *event.new_users_per_minute > *event.total_active_users)
        errors.push_back({"new_users_per_minute", "must not exceed total_active_users (" +
                                                      std::to_string(*event.total_active_users) + ")"});
    if (event.session_duration) check_session_duration(errors, *event.session_duration);
    if (event.custom_page_html) check_template(errors, "custom_page_html", *event.custom_page_html);
    return errors;
}

FieldErrors check_event_not_over(const EventSettings& event, util::TimePoint now) {
    if (!event.event_end_time.text.empty() && event.event_end_time.time <= now)
        return {{"event_end_time", "must be in the future"}};
    return {};
}

FieldErrors validate_rule(const RuleSettings& rule) {
    FieldErrors errors;
    if (rule.action != k_bypass_action) errors.push_back({"action", "must be bypass_waiting_room"});
    if (rule.expression.empty()) {
        errors.push_back({"expression", "is required"});
    } else {
        const expr::ParseResult parsed = expr::parse(rule.expression);
        if (parsed.error) errors.push_back({"expression", parsed.error->text()});
    }
    return errors;
}

bool events_overlap(const EventSettings& a, const EventSettings& b) {
    return a.occupied_from() < b.occupied_until() && b.occupied_from() < a.occupied_until();
}

} // namespace wr::model
