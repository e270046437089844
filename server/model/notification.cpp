// Notification kinds, destinations' validation and JSON, and the payload every receiver gets.
#include "model/notification.h"

#include <algorithm>

#include "model/origin_url.h"
#include "model/validate.h"
#include "util/secure.h"
#include "util/time_format.h"
#include "util/utf8.h"

namespace wr::model {
namespace {

using nlohmann::json;

constexpr int64_t k_max_threshold_minutes = 7 * 24 * 60;
constexpr size_t k_max_secret_length = 1024;
constexpr size_t k_max_url_length = 2048;

std::string every_kind() {
    std::string names;
    for (const NotificationKind kind : k_notification_kinds)
        if (kind != NotificationKind::test) names += (names.empty() ? "" : ", ") + std::string(kind_name(kind));
    return names;
}

json kind_names(const std::vector<NotificationKind>& kinds) {
    json names = json::array();
    for (const NotificationKind kind : kinds) names.push_back(kind_name(kind));
    return names;
}

json reference(const std::string& id, const std::string& name) {
    if (id.empty()) return nullptr;
    return {{"id", id}, {"name", name}};
}

} // namespace

std::string_view kind_name(NotificationKind kind) {
    switch (kind) {
    case NotificationKind::queueing_started: return "room.queueing_started";
    case NotificationKind::queueing_stopped: return "room.queueing_stopped";
    case NotificationKind::wait_above_threshold: return "room.wait_above_threshold";
    case NotificationKind::wait_below_threshold: return "room.wait_below_threshold";
    case NotificationKind::event_started: return "event.started";
    case NotificationKind::event_ended: return "event.ended";
    case NotificationKind::origin_guard_throttling: return "origin_guard.throttling";
    case NotificationKind::origin_guard_recovered: return "origin_guard.recovered";
    case NotificationKind::node_state_lost: return "node.state_lost";
    case NotificationKind::node_state_restored: return "node.state_restored";
    case NotificationKind::node_stopped_reporting: return "node.stopped_reporting";
    case NotificationKind::node_reporting_again: return "node.reporting_again";
    case NotificationKind::test: return "test";
    }
    return "test";
}

std::optional<NotificationKind> parse_kind(std::string_view name) {
    for (const NotificationKind kind : k_notification_kinds)
        if (kind_name(kind) == name) return kind;
    return std::nullopt;
}

bool DestinationSettings::wants(NotificationKind kind) const {
    // A test goes wherever it is asked to; an empty list asks for everything.
    return kind == NotificationKind::test || kinds.empty() || std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

FieldErrors read_destination_settings(const json& body, BodyMode mode, DestinationSettings& settings) {
    FieldErrors errors;
    if (!body.is_object()) return {{"", "the request body must be a JSON object"}};
    JsonFields fields(body, mode, errors);
    fields.string("name", settings.name, "", Presence::required);
    fields.string("url", settings.url, "", Presence::required);
    fields.string("secret", settings.secret, "");
    fields.integer("wait_threshold_minutes", settings.wait_threshold_minutes, 30);
    fields.boolean("enabled", settings.enabled, true);
    // Create and replace start from a default (every kind); a patch keeps what it leaves out.
    bool is_null = false;
    const json* kinds = fields.raw("kinds", is_null);
    if (is_null) settings.kinds.clear();
    if (kinds) {
        settings.kinds.clear();
        if (!kinds->is_array()) {
            errors.push_back({"kinds", "must be an array of kinds (" + every_kind() + ")"});
        } else {
            for (size_t i = 0; i < kinds->size(); ++i) {
                const json& item = (*kinds)[i];
                const auto kind = item.is_string() ? parse_kind(item.get<std::string>()) : std::nullopt;
                if (!kind || *kind == NotificationKind::test)
                    errors.push_back({"kinds[" + std::to_string(i) + "]", "must be one of " + every_kind()});
                else if (std::find(settings.kinds.begin(), settings.kinds.end(), *kind) == settings.kinds.end())
                    settings.kinds.push_back(*kind);
            }
        }
    }
    return errors;
}

FieldErrors validate_destination(const DestinationSettings& settings) {
    FieldErrors errors;
    if (settings.name.empty())
        errors.push_back({"name", "is required"});
    else if (settings.name.size() > 255 || !is_valid_name(settings.name))
        errors.push_back({"name", "may contain only letters, digits, '_' and '-' (at most 255)"});
    else if (util::is_id(settings.name))
        errors.push_back({"name", k_id_shaped_name});
    if (settings.url.empty())
        errors.push_back({"url", "is required"});
    else if (settings.url.size() > k_max_url_length || !parse_origin_url(settings.url))
        errors.push_back({"url", "must be an http:// or https:// URL (host, optional port and path; no query or user info)"});
    if (util::utf8_length(settings.secret) < k_min_secret_length)
        errors.push_back({"secret", "must be at least " + std::to_string(k_min_secret_length) + " characters (the receiver checks signatures with it)"});
    else if (util::utf8_length(settings.secret) > k_max_secret_length)
        errors.push_back({"secret", "must be at most " + std::to_string(k_max_secret_length) + " characters"});
    if (settings.wait_threshold_minutes < 1 || settings.wait_threshold_minutes > k_max_threshold_minutes)
        errors.push_back({"wait_threshold_minutes", "must be between 1 and " + std::to_string(k_max_threshold_minutes)});
    return errors;
}

json settings_to_json(const DestinationSettings& settings) {
    return {{"name", settings.name},
            {"url", settings.url},
            {"kinds", kind_names(settings.kinds)},
            {"wait_threshold_minutes", settings.wait_threshold_minutes},
            {"enabled", settings.enabled}};
}

json to_json(const Destination& destination) {
    json out = settings_to_json(destination.settings);
    out["id"] = destination.id;
    out["created_on"] = util::format_iso8601(destination.created_on);
    out["modified_on"] = util::format_iso8601(destination.modified_on);
    return out;
}

json payload(const Notification& notification) {
    json figures = notification.figures.is_object() ? notification.figures : json::object();
    if (notification.threshold_minutes > 0) figures["threshold_minutes"] = notification.threshold_minutes;
    return {{"id", notification.id},
            {"kind", kind_name(notification.kind)},
            {"time", util::format_iso8601(notification.time)},
            {"zone", reference(notification.zone_id, notification.zone_name)},
            {"room", reference(notification.room_id, notification.room_name)},
            {"node", notification.node.empty() ? json(nullptr) : json(notification.node)},
            {"figures", std::move(figures)}};
}

std::string_view status_name(DeliveryStatus status) {
    switch (status) {
    case DeliveryStatus::pending: return "pending";
    case DeliveryStatus::delivered: return "delivered";
    case DeliveryStatus::failed: return "failed";
    }
    return "pending";
}

json to_json(const Delivery& delivery) {
    const auto time = [](const std::optional<util::TimePoint>& value) { return value ? json(util::format_iso8601(*value)) : json(nullptr); };
    return {{"id", delivery.id},
            {"notification_id", delivery.notification_id},
            {"kind", kind_name(delivery.kind)},
            {"room_id", delivery.room_id.empty() ? json(nullptr) : json(delivery.room_id)},
            {"created_on", util::format_iso8601(delivery.created_on)},
            {"status", status_name(delivery.status)},
            {"attempts", delivery.attempts},
            {"last_attempt_on", time(delivery.last_attempt_on)},
            {"last_status", delivery.last_status ? json(*delivery.last_status) : json(nullptr)},
            {"last_error", delivery.last_error},
            {"next_attempt_on", time(delivery.next_attempt_on)},
            {"delivered_on", time(delivery.delivered_on)},
            {"payload", json::parse(delivery.payload, nullptr, false)}};
}

} // namespace wr::model
