// Reads request bodies into settings and writes records as the API returns them.
#include "model/json_codec.h"

#include <algorithm>

#include "util/time_format.h"

namespace wr::model {
namespace {

using nlohmann::json;

bool require_object(const json& body, FieldErrors& errors) {
    if (body.is_object()) return true;
    errors.push_back({"", "the request body must be a JSON object"});
    return false;
}

json optional_value(const auto& value) {
    if (!value) return nullptr;
    return *value;
}

template <typename Enum> json optional_enum(const std::optional<Enum>& value) {
    if (!value) return nullptr;
    return std::string(to_string(*value));
}

json optional_time(const std::optional<Timestamp>& value) {
    if (!value) return nullptr;
    return value->text;
}

void read_routes(JsonFields& fields, RoomSettings& settings, FieldErrors& errors) {
    bool is_null = false;
    const json* value = fields.raw("additional_routes", is_null);
    if (is_null) settings.additional_routes.clear();
    if (!value) return;
    if (!value->is_array()) {
        fields.error("additional_routes", "must be an array of {host, path} objects");
        return;
    }
    // More than a room may have are refused before any is read (validate_room says the same).
    if (value->size() > k_max_additional_routes) {
        fields.error("additional_routes", "may hold at most " + std::to_string(k_max_additional_routes) + " routes");
        return;
    }
    settings.additional_routes.clear();
    for (size_t i = 0; i < value->size(); ++i) {
        const json& item = (*value)[i];
        const std::string prefix = "additional_routes[" + std::to_string(i) + "]";
        if (!item.is_object()) {
            fields.error(prefix, "must be an object with host and path");
            continue;
        }
        Route route;
        JsonFields route_fields(item, BodyMode::create, errors, prefix + ".");
        route_fields.string("host", route.host, "", Presence::required);
        route_fields.string("path", route.path, "/");
        if (route.path.empty()) route.path = "/";
        settings.additional_routes.push_back(std::move(route));
    }
}

void read_cookie_attributes(JsonFields& fields, RoomSettings& settings, FieldErrors& errors) {
    bool is_null = false;
    const json* value = fields.raw("cookie_attributes", is_null);
    if (is_null) settings.cookie_attributes = {};
    if (!value) return;
    if (!value->is_object()) {
        fields.error("cookie_attributes", "must be an object with samesite and secure");
        return;
    }
    // Inside the object, an omitted attribute keeps its value on PATCH and defaults otherwise.
    if (fields.mode() != BodyMode::patch) settings.cookie_attributes = {};
    JsonFields attributes(*value, BodyMode::patch, errors, "cookie_attributes.");
    attributes.enumeration("samesite", settings.cookie_attributes.samesite, SameSite::automatic);
    attributes.enumeration("secure", settings.cookie_attributes.secure, SecureAttribute::automatic);
}

void read_origin_commands(JsonFields& fields, RoomSettings& settings) {
    bool is_null = false;
    const json* value = fields.raw("enabled_origin_commands", is_null);
    if (is_null) settings.revoke_origin_command = false;
    if (!value) return;
    if (!value->is_array()) {
        fields.error("enabled_origin_commands", "must be an array (the only command is \"revoke\")");
        return;
    }
    bool revoke = false;
    for (size_t i = 0; i < value->size(); ++i) {
        const json& item = (*value)[i];
        if (item.is_string() && item.get_ref<const std::string&>() == "revoke")
            revoke = true;
        else
            fields.error("enabled_origin_commands[" + std::to_string(i) + "]", "must be \"revoke\", the only origin command");
    }
    settings.revoke_origin_command = revoke;
}

// wr's origin guard. Like cookie_attributes, an omitted field inside the object keeps its value
// on PATCH and defaults otherwise; unlike the room's own fields, an unknown one is refused, since
// a misspelt field of a safety mechanism would otherwise be silently off. (The control node's
// document to its edges is read here too: a new field inside origin_guard needs
// k_config_document_format bumped, or older edges refuse the document.)
void read_origin_guard(JsonFields& fields, RoomSettings& settings, FieldErrors& errors) {
    const OriginGuardSettings defaults;
    bool is_null = false;
    const json* value = fields.raw("origin_guard", is_null);
    if (is_null) settings.origin_guard = defaults;
    if (!value) return;
    if (!value->is_object()) {
        fields.error("origin_guard", "must be an object with enabled, target_ttfb_ms, max_error_rate and min_new_users_per_minute");
        return;
    }
    if (fields.mode() != BodyMode::patch) settings.origin_guard = defaults;
    OriginGuardSettings& guard = settings.origin_guard;
    JsonFields guard_fields(*value, BodyMode::patch, errors, "origin_guard.");
    guard_fields.refuse_unknown({"enabled", "target_ttfb_ms", "max_error_rate", "min_new_users_per_minute"}, "origin_guard");
    guard_fields.boolean("enabled", guard.enabled, defaults.enabled);
    guard_fields.integer("target_ttfb_ms", guard.target_ttfb_ms, defaults.target_ttfb_ms);
    guard_fields.number("max_error_rate", guard.max_error_rate, defaults.max_error_rate);
    guard_fields.integer("min_new_users_per_minute", guard.min_new_users_per_minute, defaults.min_new_users_per_minute);
}

json origin_guard_to_json(const OriginGuardSettings& guard) {
    return {{"enabled", guard.enabled},
            {"target_ttfb_ms", guard.target_ttfb_ms},
            {"max_error_rate", guard.max_error_rate},
            {"min_new_users_per_minute", guard.min_new_users_per_minute}};
}

// The writable room fields; shared by the API object and the export document.
void write_room_settings(json& out, const RoomSettings& s) {
    json routes = json::array();
    for (const Route& route : s.additional_routes) routes.push_back({{"host", route.host}, {"path", route.path}});
    out["name"] = s.name;
    out["description"] = s.description;
    out["host"] = s.host;
    out["path"] = s.path;
    out["additional_routes"] = std::move(routes);
    out["total_active_users"] = s.total_active_users;
    out["new_users_per_minute"] = s.new_users_per_minute;
    out["session_duration"] = s.session_duration;
    out["disable_session_renewal"] = s.disable_session_renewal;
    out["queue_all"] = s.queue_all;
    out["queueing_method"] = to_string(s.queueing_method);
    out["queueing_status_code"] = s.queueing_status_code;
    out["suspended"] = s.suspended;
    out["json_response_enabled"] = s.json_response_enabled;
    out["cookie_suffix"] = s.cookie_suffix;
    out["cookie_attributes"] = {{"samesite", to_string(s.cookie_attributes.samesite)},
                                {"secure", to_string(s.cookie_attributes.secure)}};
    out["custom_page_html"] = s.custom_page_html;
    out["default_template_language"] = s.default_template_language;
    out["enabled_origin_commands"] = s.revoke_origin_command ? json::array({"revoke"}) : json::array();
    out["turnstile_mode"] = to_string(s.turnstile_mode);
    out["turnstile_action"] = to_string(s.turnstile_action);
    out["join_limit_per_ip_per_minute"] = s.join_limit_per_ip_per_minute;
    out["origin_guard"] = origin_guard_to_json(s.origin_guard);
}

void write_event_settings(json& out, const EventSettings& s) {
    out["name"] = s.name;
    out["description"] = s.description;
    out["event_start_time"] = s.event_start_time.text;
    out["event_end_time"] = s.event_end_time.text;
    out["prequeue_start_time"] = optional_time(s.prequeue_start_time);
    out["shuffle_at_event_start"] = s.shuffle_at_event_start;
    out["suspended"] = s.suspended;
    out["total_active_users"] = optional_value(s.total_active_users);
    out["new_users_per_minute"] = optional_value(s.new_users_per_minute);
    out["session_duration"] = optional_value(s.session_duration);
    out["queueing_method"] = optional_enum(s.queueing_method);
    out["disable_session_renewal"] = optional_value(s.disable_session_renewal);
    out["custom_page_html"] = optional_value(s.custom_page_html);
    out["turnstile_mode"] = optional_enum(s.turnstile_mode);
    out["turnstile_action"] = optional_enum(s.turnstile_action);
}

void write_rule_settings(json& out, const RuleSettings& s) {
    out["action"] = s.action;
    out["expression"] = s.expression;
    out["description"] = s.description;
    out["enabled"] = s.enabled;
}

} // namespace

FieldErrors read_zone_settings(const json& body, BodyMode mode, ZoneSettings& settings) {
    FieldErrors errors;
    if (!require_object(body, errors)) return errors;
    JsonFields fields(body, mode, errors);
    fields.string("name", settings.name, "", Presence::required);
    fields.string("origin", settings.origin, "", Presence::required);
    bool is_null = false;
    const json* hosts = fields.raw("hosts", is_null);
    if (is_null || (!hosts && mode != BodyMode::patch)) settings.hosts.clear();
    if (hosts) {
        if (!hosts->is_array() || !std::all_of(hosts->begin(), hosts->end(), [](const json& host) { return host.is_string(); })) {
            fields.error("hosts", "must be an array of host names");
        } else {
            settings.hosts.clear();
            for (const json& host : *hosts) settings.hosts.push_back(host.get<std::string>());
        }
    }
    const ZoneSettings defaults;
    fields.integer("max_origin_connections", settings.max_origin_connections, defaults.max_origin_connections);
    fields.integer("origin_queue_timeout_seconds", settings.origin_queue_timeout_seconds, defaults.origin_queue_timeout_seconds);
    return errors;
}

FieldErrors read_room_settings(const json& body, BodyMode mode, RoomSettings& settings) {
    FieldErrors errors;
    if (!require_object(body, errors)) return errors;
    const RoomSettings defaults;
    JsonFields fields(body, mode, errors);
    fields.string("name", settings.name, "", Presence::required);
    fields.string("description", settings.description, defaults.description);
    fields.string("host", settings.host, "", Presence::required);
    fields.string("path", settings.path, defaults.path);
    if (settings.path.empty()) settings.path = defaults.path;
    read_routes(fields, settings, errors);
    fields.integer("total_active_users", settings.total_active_users, 0, Presence::required);
    fields.integer("new_users_per_minute", settings.new_users_per_minute, 0, Presence::required);
    fields.integer("session_duration", settings.session_duration, defaults.session_duration, true);
    fields.boolean("disable_session_renewal", settings.disable_session_renewal, defaults.disable_session_renewal);
    fields.boolean("queue_all", settings.queue_all, defaults.queue_all);
    fields.enumeration("queueing_method", settings.queueing_method, defaults.queueing_method);
    fields.integer("queueing_status_code", settings.queueing_status_code, defaults.queueing_status_code, true);
    fields.boolean("suspended", settings.suspended, defaults.suspended);
    fields.boolean("json_response_enabled", settings.json_response_enabled, defaults.json_response_enabled);
    fields.string("cookie_suffix", settings.cookie_suffix, defaults.cookie_suffix);
    read_cookie_attributes(fields, settings, errors);
    fields.string("custom_page_html", settings.custom_page_html, defaults.custom_page_html);
    fields.string("default_template_language", settings.default_template_language, defaults.default_template_language);
    read_origin_commands(fields, settings);
    fields.enumeration("turnstile_mode", settings.turnstile_mode, defaults.turnstile_mode);
    fields.enumeration("turnstile_action", settings.turnstile_action, defaults.turnstile_action);
    fields.integer("join_limit_per_ip_per_minute", settings.join_limit_per_ip_per_minute,
                   defaults.join_limit_per_ip_per_minute);
    read_origin_guard(fields, settings, errors);
    return errors;
}

FieldErrors read_event_settings(const json& body, BodyMode mode, EventSettings& settings) {
    FieldErrors errors;
    if (!require_object(body, errors)) return errors;
    JsonFields fields(body, mode, errors);
    fields.string("name", settings.name, "", Presence::required);
    fields.string("description", settings.description, "");
    fields.timestamp("event_start_time", settings.event_start_time, Presence::required);
    fields.timestamp("event_end_time", settings.event_end_time, Presence::required);
    fields.optional_timestamp("prequeue_start_time", settings.prequeue_start_time);
    fields.boolean("shuffle_at_event_start", settings.shuffle_at_event_start, false);
    fields.boolean("suspended", settings.suspended, false);
    fields.optional_integer("total_active_users", settings.total_active_users);
    fields.optional_integer("new_users_per_minute", settings.new_users_per_minute);
    fields.optional_integer("session_duration", settings.session_duration, true);
    fields.optional_enumeration("queueing_method", settings.queueing_method);
    fields.optional_boolean("disable_session_renewal", settings.disable_session_renewal);
    fields.optional_string("custom_page_html", settings.custom_page_html);
    fields.optional_enumeration("turnstile_mode", settings.turnstile_mode);
    fields.optional_enumeration("turnstile_action", settings.turnstile_action);
    return errors;
}

FieldErrors read_rule_settings(const json& body, BodyMode mode, RuleSettings& settings) {
    FieldErrors errors;
    if (!require_object(body, errors)) return errors;
    JsonFields fields(body, mode, errors);
    fields.string("action", settings.action, std::string(k_bypass_action));
    fields.string("expression", settings.expression, "", Presence::required);
    fields.string("description", settings.description, "");
    fields.boolean("enabled", settings.enabled, true);
    return errors;
}

FieldErrors read_zone_room_settings(const json& body, BodyMode mode, ZoneRoomSettings& settings) {
    FieldErrors errors;
    if (!require_object(body, errors)) return errors;
    JsonFields fields(body, mode, errors);
    fields.boolean("search_engine_crawler_bypass", settings.search_engine_crawler_bypass, false);
    return errors;
}

json to_json(const Zone& zone) {
    json out = settings_to_json(zone.settings);
    out["id"] = zone.id;
    out["status"] = "active";
    out["created_on"] = util::format_iso8601(zone.created_on);
    out["modified_on"] = util::format_iso8601(zone.modified_on);
    return out;
}

json to_json(const Room& room, const NextEvent& next_event) {
    json out = {{"id", room.id},
                {"created_on", util::format_iso8601(room.created_on)},
                {"modified_on", util::format_iso8601(room.modified_on)},
                {"next_event_prequeue_start_time", optional_value(next_event.prequeue_start_time)},
                {"next_event_start_time", optional_value(next_event.start_time)}};
    write_room_settings(out, room.settings);
    return out;
}

json to_json(const Event& event) {
    json out = {{"id", event.id},
                {"created_on", util::format_iso8601(event.created_on)},
                {"modified_on", util::format_iso8601(event.modified_on)}};
    write_event_settings(out, event.settings);
    return out;
}

json to_json(const Rule& rule) {
    json out = {{"id", rule.id},
                {"version", std::to_string(rule.version)},
                {"last_updated", util::format_iso8601(rule.last_updated)}};
    write_rule_settings(out, rule.settings);
    return out;
}

json to_json(const ZoneRoomSettings& settings) {
    return {{"search_engine_crawler_bypass", settings.search_engine_crawler_bypass}};
}

json to_json(const Token& token) {
    return {{"id", token.id},
            {"name", token.name},
            {"scope", to_string(token.scope)},
            {"zone_id", optional_value(token.zone_id)},
            {"created_on", util::format_iso8601(token.created_on)},
            {"last_used_on", token.last_used_on ? json(util::format_iso8601(*token.last_used_on)) : json(nullptr)}};
}

json settings_to_json(const ZoneSettings& settings) {
    return {{"name", settings.name},
            {"origin", settings.origin},
            {"hosts", settings.hosts},
            {"max_origin_connections", settings.max_origin_connections},
            {"origin_queue_timeout_seconds", settings.origin_queue_timeout_seconds}};
}

json settings_to_json(const RoomSettings& settings) {
    json out = json::object();
    write_room_settings(out, settings);
    return out;
}

json settings_to_json(const EventSettings& settings) {
    json out = json::object();
    write_event_settings(out, settings);
    return out;
}

json settings_to_json(const RuleSettings& settings) {
    json out = json::object();
    write_rule_settings(out, settings);
    return out;
}

json event_details_to_json(const Event& event, const RoomSettings& room) {
    json out = to_json(event);
    const EventSettings& s = event.settings;
    out["total_active_users"] = s.total_active_users.value_or(room.total_active_users);
    out["new_users_per_minute"] = s.new_users_per_minute.value_or(room.new_users_per_minute);
    out["session_duration"] = s.session_duration.value_or(room.session_duration);
    out["queueing_method"] = to_string(s.queueing_method.value_or(room.queueing_method));
    out["disable_session_renewal"] = s.disable_session_renewal.value_or(room.disable_session_renewal);
    out["custom_page_html"] = s.custom_page_html.value_or(room.custom_page_html);
    out["turnstile_mode"] = to_string(s.turnstile_mode.value_or(room.turnstile_mode));
    out["turnstile_action"] = to_string(s.turnstile_action.value_or(room.turnstile_action));
    return out;
}

} // namespace wr::model
