// Reads and writes zones and zone settings.
#include "store/zones_store.h"

#include <nlohmann/json.hpp>

namespace wr::store {
namespace {

constexpr const char* k_zone_columns =
    "id, name, origin, created_on, modified_on, hosts, max_origin_connections, origin_queue_timeout_seconds";

std::string hosts_text(const std::vector<std::string>& hosts) { return nlohmann::json(hosts).dump(); }

std::vector<std::string> hosts_from_text(const std::string& text) {
    const nlohmann::json hosts = nlohmann::json::parse(text, nullptr, false);
    std::vector<std::string> out;
    if (hosts.is_array())
        for (const auto& host : hosts)
            if (host.is_string()) out.push_back(host.get<std::string>());
    return out;
}

model::Zone read_zone(SQLite::Statement& row) {
    model::Zone zone;
    zone.id = row.getColumn(0).getString();
    zone.settings.name = row.getColumn(1).getString();
    zone.settings.origin = row.getColumn(2).getString();
    zone.created_on = from_ms(row.getColumn(3).getInt64());
    zone.modified_on = from_ms(row.getColumn(4).getInt64());
    zone.settings.hosts = hosts_from_text(row.getColumn(5).getString());
    zone.settings.max_origin_connections = row.getColumn(6).getInt64();
    zone.settings.origin_queue_timeout_seconds = row.getColumn(7).getInt();
    return zone;
}

std::optional<model::Zone> find_one(Connection& connection, const char* where, std::string_view value) {
    SQLite::Statement query(connection, std::string("SELECT ") + k_zone_columns + " FROM zones WHERE " + where);
    query.bind(1, std::string(value));
    if (!query.executeStep()) return std::nullopt;
    return read_zone(query);
}

} // namespace

std::optional<model::Zone> find_zone(Connection& connection, std::string_view id) { return find_one(connection, "id = ?", id); }

std::optional<model::Zone> find_zone_by_name(Connection& connection, std::string_view name) {
    return find_one(connection, "name = ?", name);
}

std::vector<model::Zone> list_zones(Connection& connection, PageWindow window) {
    SQLite::Statement query(connection, std::string("SELECT ") + k_zone_columns +
                                            " FROM zones ORDER BY created_on, rowid LIMIT ? OFFSET ?");
    query.bind(1, window.limit);
    query.bind(2, window.offset);
    std::vector<model::Zone> zones;
    while (query.executeStep()) zones.push_back(read_zone(query));
    return zones;
}

int64_t count_zones(Connection& connection) { return connection.execAndGet("SELECT COUNT(*) FROM zones").getInt64(); }

void insert_zone(Connection& connection, const model::Zone& zone) {
    SQLite::Statement insert(connection, std::string("INSERT INTO zones (") + k_zone_columns + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, zone.id);
    insert.bind(2, zone.settings.name);
    insert.bind(3, zone.settings.origin);
    insert.bind(4, to_ms(zone.created_on));
    insert.bind(5, to_ms(zone.modified_on));
    insert.bind(6, hosts_text(zone.settings.hosts));
    insert.bind(7, zone.settings.max_origin_connections);
    insert.bind(8, zone.settings.origin_queue_timeout_seconds);
    insert.exec();
    SQLite::Statement settings(connection, "INSERT INTO zone_settings (zone_id, modified_on) VALUES (?, ?)");
    settings.bind(1, zone.id);
    settings.bind(2, to_ms(zone.created_on));
    settings.exec();
}

void update_zone(Connection& connection, const model::Zone& zone) {
    SQLite::Statement update(connection, "UPDATE zones SET name = ?, origin = ?, modified_on = ?, hosts = ?, "
                                         "max_origin_connections = ?, origin_queue_timeout_seconds = ? WHERE id = ?");
    update.bind(1, zone.settings.name);
    update.bind(2, zone.settings.origin);
    update.bind(3, to_ms(zone.modified_on));
    update.bind(4, hosts_text(zone.settings.hosts));
    update.bind(5, zone.settings.max_origin_connections);
    update.bind(6, zone.settings.origin_queue_timeout_seconds);
    update.bind(7, zone.id);
    update.exec();
}

void delete_zone(Connection& connection, std::string_view id) {
    SQLite::Statement remove(connection, "DELETE FROM zones WHERE id = ?");
    remove.bind(1, std::string(id));
    remove.exec();
}

model::ZoneRoomSettings get_zone_room_settings(Connection& connection, std::string_view zone_id) {
    SQLite::Statement query(connection, "SELECT search_engine_crawler_bypass FROM zone_settings WHERE zone_id = ?");
    query.bind(1, std::string(zone_id));
    model::ZoneRoomSettings settings;
    if (query.executeStep()) settings.search_engine_crawler_bypass = query.getColumn(0).getInt() != 0;
    return settings;
}

void put_zone_room_settings(Connection& connection, std::string_view zone_id, const model::ZoneRoomSettings& settings,
                            util::TimePoint now) {
    SQLite::Statement upsert(connection,
                             "INSERT INTO zone_settings (zone_id, search_engine_crawler_bypass, modified_on) VALUES (?, ?, ?) "
                             "ON CONFLICT (zone_id) DO UPDATE SET search_engine_crawler_bypass = excluded.search_engine_crawler_bypass, "
                             "modified_on = excluded.modified_on");
    upsert.bind(1, std::string(zone_id));
    upsert.bind(2, settings.search_engine_crawler_bypass ? 1 : 0);
    upsert.bind(3, to_ms(now));
    upsert.exec();
}

} // namespace wr::store
