#pragma once
// SQL for notification destinations and their deliveries.
#include <optional>
#include <string_view>
#include <vector>

#include "model/notification.h"
#include "store/database.h"
#include "store/sql.h"

namespace wr::store {

std::vector<model::Destination> list_destinations(Connection& connection);
std::optional<model::Destination> find_destination(Connection& connection, std::string_view id);
std::optional<model::Destination> find_destination_by_name(Connection& connection, std::string_view name);
void insert_destination(Connection& connection, const model::Destination& destination);
void update_destination(Connection& connection, const model::Destination& destination);
bool delete_destination(Connection& connection, std::string_view id); // its deliveries go with it

void insert_delivery(Connection& connection, const model::Delivery& delivery);
// Pending deliveries due at `now`, oldest first, at most `limit`.
std::vector<model::Delivery> due_deliveries(Connection& connection, util::TimePoint now, int64_t limit);
// When the next pending delivery is due, if any is.
std::optional<util::TimePoint> next_due(Connection& connection);
// Writes an attempt's outcome: status, attempts, times, last status and error.
void update_delivery(Connection& connection, const model::Delivery& delivery);
std::optional<model::Delivery> find_delivery(Connection& connection, std::string_view id);
// A destination's deliveries, newest first.
std::vector<model::Delivery> list_deliveries(Connection& connection, std::string_view destination_id, PageWindow window);
int64_t count_deliveries(Connection& connection, std::string_view destination_id);
// Deletes finished (delivered or failed) deliveries created before `oldest`.
int64_t prune_deliveries(Connection& connection, util::TimePoint oldest);

} // namespace wr::store
