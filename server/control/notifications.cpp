// Creates, updates and deletes notification destinations, and queues deliveries.
#include "control/notifications.h"

#include "control/error.h"
#include "store/notifications_store.h"
#include "util/secure.h"

namespace wr::control {
namespace {

void check_destination(store::Connection& connection, const model::DestinationSettings& settings, std::string_view own_id) {
    if (auto errors = model::validate_destination(settings); !errors.empty()) throw Error::invalid(std::move(errors));
    if (const auto other = store::find_destination_by_name(connection, settings.name); other && other->id != own_id)
        throw Error::conflict("name", "a notification destination named " + settings.name + " already exists");
}

bool is_wait_kind(model::NotificationKind kind) {
    return kind == model::NotificationKind::wait_above_threshold || kind == model::NotificationKind::wait_below_threshold;
}

model::Delivery delivery_for(const model::Notification& notification, const std::string& destination_id) {
    model::Delivery delivery;
    delivery.id = util::new_id();
    delivery.destination_id = destination_id;
    delivery.notification_id = notification.id;
    delivery.kind = notification.kind;
    delivery.room_id = notification.room_id;
    delivery.payload = model::payload(notification).dump();
    delivery.created_on = notification.time;
    delivery.next_attempt_on = notification.time; // the first attempt is due at once
    return delivery;
}

} // namespace

model::Destination resolve_destination(store::Connection& connection, std::string_view id_or_name) {
    std::optional<model::Destination> destination;
    if (util::is_id(id_or_name)) destination = store::find_destination(connection, id_or_name);
    if (!destination) destination = store::find_destination_by_name(connection, id_or_name);
    if (!destination) throw Error::not_found("notification destination", std::string(id_or_name));
    return *destination;
}

model::Destination create_destination(store::Connection& connection, util::TimePoint now, const model::DestinationSettings& settings) {
    check_destination(connection, settings, "");
    model::Destination destination{util::new_id(), settings, now, now};
    store::insert_destination(connection, destination);
    return destination;
}

model::Destination update_destination(store::Connection& connection, util::TimePoint now, const model::Destination& existing,
                                      const model::DestinationSettings& settings) {
    if (settings == existing.settings) return existing;
    check_destination(connection, settings, existing.id);
    model::Destination destination = existing;
    destination.settings = settings;
    destination.modified_on = now;
    store::update_destination(connection, destination);
    return destination;
}

void delete_destination(store::Connection& connection, const model::Destination& destination) {
    store::delete_destination(connection, destination.id);
}

std::string new_destination_secret() { return "whsec_" + util::hex_encode(util::random_bytes(24)); }

size_t enqueue_notification(store::Connection& connection, const model::Notification& notification) {
    size_t queued = 0;
    for (const model::Destination& destination : store::list_destinations(connection)) {
        const model::DestinationSettings& settings = destination.settings;
        if (!settings.enabled || !settings.wants(notification.kind)) continue;
        if (is_wait_kind(notification.kind) && settings.wait_threshold_minutes != notification.threshold_minutes) continue;
        store::insert_delivery(connection, delivery_for(notification, destination.id));
        ++queued;
    }
    return queued;
}

model::Delivery enqueue_test(store::Connection& connection, util::TimePoint now, const model::Destination& destination) {
    model::Notification notification;
    notification.id = util::new_id();
    notification.kind = model::NotificationKind::test;
    notification.time = now;
    notification.figures = {{"destination", destination.settings.name}};
    model::Delivery delivery = delivery_for(notification, destination.id);
    store::insert_delivery(connection, delivery);
    return delivery;
}

} // namespace wr::control
