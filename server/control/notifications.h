#pragma once
// Notification destinations as the control plane manages them (validated, unique by name), and
// the queue of deliveries: a notification becomes one delivery per destination that wants it,
// stored in the same transaction, and sent later by the notification service.
#include <string_view>

#include "model/notification.h"
#include "store/database.h"

namespace wr::control {

// A destination by id or by name; throws not_found.
model::Destination resolve_destination(store::Connection& connection, std::string_view id_or_name);
model::Destination create_destination(store::Connection& connection, util::TimePoint now, const model::DestinationSettings& settings);
// Returns `existing` untouched when nothing changes.
model::Destination update_destination(store::Connection& connection, util::TimePoint now, const model::Destination& existing,
                                      const model::DestinationSettings& settings);
void delete_destination(store::Connection& connection, const model::Destination& destination);

// A fresh random secret for a destination created without one (shown once, like a token).
std::string new_destination_secret();

// Queues `notification` (its id set) for every enabled destination that wants its kind; wait
// kinds go only to destinations whose threshold is the notification's. Returns how many.
size_t enqueue_notification(store::Connection& connection, const model::Notification& notification);
// Queues a test notification for this destination alone (enabled or not); returns its delivery.
model::Delivery enqueue_test(store::Connection& connection, util::TimePoint now, const model::Destination& destination);

} // namespace wr::control
