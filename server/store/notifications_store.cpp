// Reads and writes notification destinations and deliveries.
#include "store/notifications_store.h"

namespace wr::store {
namespace {

constexpr const char* k_destination_columns = "id, name, url, secret, kinds, wait_threshold_minutes, enabled, created_on, modified_on";
constexpr const char* k_delivery_columns =
    "id, destination_id, notification_id, kind, room_id, payload, created_on, status, attempts, next_attempt_on, last_attempt_on, "
    "last_status, last_error, delivered_on";

std::string kinds_text(const std::vector<model::NotificationKind>& kinds) {
    nlohmann::json names = nlohmann::json::array();
    for (const model::NotificationKind kind : kinds) names.push_back(model::kind_name(kind));
    return names.dump();
}

model::Destination read_destination(SQLite::Statement& query) {
    model::Destination destination;
    destination.id = query.getColumn(0).getString();
    destination.settings.name = query.getColumn(1).getString();
    destination.settings.url = query.getColumn(2).getString();
    destination.settings.secret = query.getColumn(3).getString();
    const nlohmann::json kinds = nlohmann::json::parse(query.getColumn(4).getString(), nullptr, false);
    if (kinds.is_array())
        for (const auto& name : kinds)
            if (name.is_string())
                if (const auto kind = model::parse_kind(name.get<std::string>())) destination.settings.kinds.push_back(*kind);
    destination.settings.wait_threshold_minutes = query.getColumn(5).getInt64();
    destination.settings.enabled = query.getColumn(6).getInt() != 0;
    destination.created_on = from_ms(query.getColumn(7).getInt64());
    destination.modified_on = from_ms(query.getColumn(8).getInt64());
    return destination;
}

std::optional<util::TimePoint> optional_time(const SQLite::Column& column) {
    if (column.isNull()) return std::nullopt;
    return from_ms(column.getInt64());
}

void bind_time(SQLite::Statement& statement, int index, const std::optional<util::TimePoint>& time) {
    if (time) statement.bind(index, to_ms(*time));
    else statement.bind(index);
}

model::Delivery read_delivery(SQLite::Statement& query) {
    model::Delivery delivery;
    delivery.id = query.getColumn(0).getString();
    delivery.destination_id = query.getColumn(1).getString();
    delivery.notification_id = query.getColumn(2).getString();
    delivery.kind = model::parse_kind(query.getColumn(3).getString()).value_or(model::NotificationKind::test);
    delivery.room_id = query.getColumn(4).getString();
    delivery.payload = query.getColumn(5).getString();
    delivery.created_on = from_ms(query.getColumn(6).getInt64());
    const std::string status = query.getColumn(7).getString();
    delivery.status = status == "delivered" ? model::DeliveryStatus::delivered
                      : status == "failed"  ? model::DeliveryStatus::failed
                                            : model::DeliveryStatus::pending;
    delivery.attempts = query.getColumn(8).getInt64();
    delivery.next_attempt_on = optional_time(query.getColumn(9));
    delivery.last_attempt_on = optional_time(query.getColumn(10));
    delivery.last_status = optional_int(query.getColumn(11));
    delivery.last_error = query.getColumn(12).getString();
    delivery.delivered_on = optional_time(query.getColumn(13));
    return delivery;
}

std::vector<model::Destination> destinations_where(Connection& connection, const std::string& where, std::string_view value) {
    SQLite::Statement query(connection, std::string("SELECT ") + k_destination_columns + " FROM notification_destinations" + where);
    if (where.find('?') != std::string::npos) query.bind(1, std::string(value));
    std::vector<model::Destination> destinations;
    while (query.executeStep()) destinations.push_back(read_destination(query));
    return destinations;
}

} // namespace

std::vector<model::Destination> list_destinations(Connection& connection) {
    return destinations_where(connection, " ORDER BY name", "");
}

std::optional<model::Destination> find_destination(Connection& connection, std::string_view id) {
    auto found = destinations_where(connection, " WHERE id = ?", id);
    if (found.empty()) return std::nullopt;
    return std::move(found.front());
}

std::optional<model::Destination> find_destination_by_name(Connection& connection, std::string_view name) {
    auto found = destinations_where(connection, " WHERE name = ?", name);
    if (found.empty()) return std::nullopt;
    return std::move(found.front());
}

void insert_destination(Connection& connection, const model::Destination& destination) {
    SQLite::Statement insert(connection, std::string("INSERT INTO notification_destinations (") + k_destination_columns +
                                             ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, destination.id);
    insert.bind(2, destination.settings.name);
    insert.bind(3, destination.settings.url);
    insert.bind(4, destination.settings.secret);
    insert.bind(5, kinds_text(destination.settings.kinds));
    insert.bind(6, destination.settings.wait_threshold_minutes);
    insert.bind(7, destination.settings.enabled ? 1 : 0);
    insert.bind(8, to_ms(destination.created_on));
    insert.bind(9, to_ms(destination.modified_on));
    insert.exec();
}

void update_destination(Connection& connection, const model::Destination& destination) {
    SQLite::Statement update(connection, "UPDATE notification_destinations SET name = ?, url = ?, secret = ?, kinds = ?, "
                                         "wait_threshold_minutes = ?, enabled = ?, modified_on = ? WHERE id = ?");
    update.bind(1, destination.settings.name);
    update.bind(2, destination.settings.url);
    update.bind(3, destination.settings.secret);
    update.bind(4, kinds_text(destination.settings.kinds));
    update.bind(5, destination.settings.wait_threshold_minutes);
    update.bind(6, destination.settings.enabled ? 1 : 0);
    update.bind(7, to_ms(destination.modified_on));
    update.bind(8, destination.id);
    update.exec();
}

bool delete_destination(Connection& connection, std::string_view id) {
    SQLite::Statement remove(connection, "DELETE FROM notification_destinations WHERE id = ?");
    remove.bind(1, std::string(id));
    return remove.exec() > 0;
}

void insert_delivery(Connection& connection, const model::Delivery& delivery) {
    SQLite::Statement insert(connection, std::string("INSERT INTO notification_deliveries (") + k_delivery_columns +
                                             ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, delivery.id);
    insert.bind(2, delivery.destination_id);
    insert.bind(3, delivery.notification_id);
    insert.bind(4, std::string(model::kind_name(delivery.kind)));
    insert.bind(5, delivery.room_id);
    insert.bind(6, delivery.payload);
    insert.bind(7, to_ms(delivery.created_on));
    insert.bind(8, std::string(model::status_name(delivery.status)));
    insert.bind(9, delivery.attempts);
    bind_time(insert, 10, delivery.next_attempt_on);
    bind_time(insert, 11, delivery.last_attempt_on);
    bind_optional(insert, 12, delivery.last_status);
    insert.bind(13, delivery.last_error);
    bind_time(insert, 14, delivery.delivered_on);
    insert.exec();
}

std::vector<model::Delivery> due_deliveries(Connection& connection, util::TimePoint now, int64_t limit) {
    SQLite::Statement query(connection, std::string("SELECT ") + k_delivery_columns +
                                            " FROM notification_deliveries WHERE status = 'pending' AND next_attempt_on <= ? "
                                            "ORDER BY next_attempt_on, created_on LIMIT ?");
    query.bind(1, to_ms(now));
    query.bind(2, limit);
    std::vector<model::Delivery> deliveries;
    while (query.executeStep()) deliveries.push_back(read_delivery(query));
    return deliveries;
}

std::optional<util::TimePoint> next_due(Connection& connection) {
    SQLite::Statement query(connection, "SELECT MIN(next_attempt_on) FROM notification_deliveries WHERE status = 'pending'");
    query.executeStep();
    return optional_time(query.getColumn(0));
}

void update_delivery(Connection& connection, const model::Delivery& delivery) {
    SQLite::Statement update(connection, "UPDATE notification_deliveries SET status = ?, attempts = ?, next_attempt_on = ?, "
                                         "last_attempt_on = ?, last_status = ?, last_error = ?, delivered_on = ? WHERE id = ?");
    update.bind(1, std::string(model::status_name(delivery.status)));
    update.bind(2, delivery.attempts);
    bind_time(update, 3, delivery.next_attempt_on);
    bind_time(update, 4, delivery.last_attempt_on);
    bind_optional(update, 5, delivery.last_status);
    update.bind(6, delivery.last_error);
    bind_time(update, 7, delivery.delivered_on);
    update.bind(8, delivery.id);
    update.exec();
}

std::optional<model::Delivery> find_delivery(Connection& connection, std::string_view id) {
    SQLite::Statement query(connection, std::string("SELECT ") + k_delivery_columns + " FROM notification_deliveries WHERE id = ?");
    query.bind(1, std::string(id));
    if (!query.executeStep()) return std::nullopt;
    return read_delivery(query);
}

std::vector<model::Delivery> list_deliveries(Connection& connection, std::string_view destination_id, PageWindow window) {
    SQLite::Statement query(connection, std::string("SELECT ") + k_delivery_columns +
                                            " FROM notification_deliveries WHERE destination_id = ? "
                                            "ORDER BY created_on DESC, rowid DESC LIMIT ? OFFSET ?");
    query.bind(1, std::string(destination_id));
    query.bind(2, window.limit);
    query.bind(3, window.offset);
    std::vector<model::Delivery> deliveries;
    while (query.executeStep()) deliveries.push_back(read_delivery(query));
    return deliveries;
}

int64_t count_deliveries(Connection& connection, std::string_view destination_id) {
    SQLite::Statement query(connection, "SELECT COUNT(*) FROM notification_deliveries WHERE destination_id = ?");
    query.bind(1, std::string(destination_id));
    query.executeStep();
    return query.getColumn(0).getInt64();
}

int64_t prune_deliveries(Connection& connection, util::TimePoint oldest) {
    SQLite::Statement remove(connection, "DELETE FROM notification_deliveries WHERE status != 'pending' AND created_on < ?");
    remove.bind(1, to_ms(oldest));
    return remove.exec();
}

} // namespace wr::store
