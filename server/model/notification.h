#pragma once
// Notifications: the kinds of event wr announces, the destinations (webhooks) that receive them,
// and the interface any part of wr calls to raise one. Plain data and pure validation.
#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/field_error.h"
#include "model/json_fields.h"
#include "util/clock.h"

namespace wr::model {

enum class NotificationKind {
    queueing_started,     // a room began queueing visitors
    queueing_stopped,
    wait_above_threshold, // the longest estimated wait rose past a destination's threshold
    wait_below_threshold,
    event_started,        // a room's event became active (its prequeue, or its start)
    event_ended,
    origin_guard_throttling, // the origin guard admits below the limits to spare the origin
    origin_guard_recovered,
    node_state_lost,      // a node cannot reach the shared state (Redis)
    node_state_restored,
    node_stopped_reporting, // a node's reports stopped reaching the control node
    node_reporting_again,
    test,                 // sent on request, to check a destination
};

inline constexpr std::array<NotificationKind, 13> k_notification_kinds{
    NotificationKind::queueing_started,     NotificationKind::queueing_stopped,        NotificationKind::wait_above_threshold,
    NotificationKind::wait_below_threshold, NotificationKind::event_started,           NotificationKind::event_ended,
    NotificationKind::origin_guard_throttling, NotificationKind::origin_guard_recovered, NotificationKind::node_state_lost,
    NotificationKind::node_state_restored,  NotificationKind::node_stopped_reporting,  NotificationKind::node_reporting_again,
    NotificationKind::test};

// "room.queueing_started", "origin_guard.throttling", …: the names in payloads and in the API.
std::string_view kind_name(NotificationKind kind);
std::optional<NotificationKind> parse_kind(std::string_view name);

// Where notifications go: one URL, signed with its secret, for the kinds it asks for.
struct DestinationSettings {
    std::string name;
    std::string url;
    std::string secret;                      // signs each delivery; never shown after it is set
    std::vector<NotificationKind> kinds;     // empty: every kind
    int64_t wait_threshold_minutes = 30;     // for wait_above/below_threshold
    bool enabled = true;

    bool wants(NotificationKind kind) const;
    bool operator==(const DestinationSettings&) const = default;
};

struct Destination {
    std::string id;
    DestinationSettings settings;
    util::TimePoint created_on{};
    util::TimePoint modified_on{};
};

inline constexpr size_t k_min_secret_length = 16;

// Reads a request body onto `settings` (see JsonFields for the modes); "secret" is read too.
FieldErrors read_destination_settings(const nlohmann::json& body, BodyMode mode, DestinationSettings& settings);
// Every problem of a destination, by field; the secret must be set (at least 16 characters).
FieldErrors validate_destination(const DestinationSettings& settings);

// The API's view: every field but the secret.
nlohmann::json to_json(const Destination& destination);
// The export's view: no id, no times, no secret.
nlohmann::json settings_to_json(const DestinationSettings& settings);

// One announced event, as every destination receives it.
struct Notification {
    std::string id;                 // unique; a receiver drops a second delivery of the same id
    NotificationKind kind = NotificationKind::test;
    util::TimePoint time{};
    std::string zone_id, zone_name; // "" for node events
    std::string room_id, room_name;
    std::string node;               // the node of node events
    int64_t threshold_minutes = 0;  // the threshold of wait events
    nlohmann::json figures = nlohmann::json::object();
};

// The POSTed body: {"id","kind","time","zone","room","node","figures"}.
nlohmann::json payload(const Notification& notification);

// One notification on its way to one destination, and what became of its attempts.
enum class DeliveryStatus { pending, delivered, failed };
std::string_view status_name(DeliveryStatus status);

struct Delivery {
    std::string id;
    std::string destination_id;
    std::string notification_id;
    NotificationKind kind = NotificationKind::test;
    std::string room_id;
    std::string payload;              // the JSON body, the same bytes at every attempt
    util::TimePoint created_on{};
    DeliveryStatus status = DeliveryStatus::pending;
    int64_t attempts = 0;
    std::optional<util::TimePoint> next_attempt_on; // while pending
    std::optional<util::TimePoint> last_attempt_on;
    std::optional<int> last_status;   // the receiver's HTTP status; none when it could not be reached
    std::string last_error;
    std::optional<util::TimePoint> delivered_on;
};

// The API's view of a delivery (the payload included, which holds no secret).
nlohmann::json to_json(const Delivery& delivery);

// Raises a notification from anywhere in wr (the origin guard, …): `figures` are the numbers
// that explain it. Never blocks and never throws; where no store keeps notifications (an edge
// node), the call is dropped.
class Notifier {
public:
    virtual ~Notifier() = default;
    virtual void notify(NotificationKind kind, const std::string& room_id, nlohmann::json figures) = 0;
};

} // namespace wr::model
