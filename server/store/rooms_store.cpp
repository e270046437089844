// Reads and writes waiting rooms; a room's routes live in room_routes, position 0 being its
// own host and path.
#include "store/rooms_store.h"

#include "model/validate.h"
#include "util/ascii_case.h"

namespace wr::store {
namespace {

constexpr const char* k_room_columns =
    "id, zone_id, name, description, total_active_users, new_users_per_minute, session_duration, "
    "disable_session_renewal, queue_all, queueing_method, queueing_status_code, suspended, json_response_enabled, "
    "cookie_suffix, cookie_samesite, cookie_secure, custom_page_html, default_template_language, "
    "revoke_origin_command, turnstile_mode, turnstile_action, join_limit_per_ip_per_minute, origin_guard_enabled, "
    "origin_guard_target_ttfb_ms, origin_guard_max_error_rate, origin_guard_min_new_users_per_minute, created_on, modified_on";

model::Room read_room(SQLite::Statement& row) {
    model::Room room;
    model::RoomSettings& s = room.settings;
    int column = 0;
    const auto next = [&] { return row.getColumn(column++); };
    room.id = next().getString();
    room.zone_id = next().getString();
    s.name = next().getString();
    s.description = next().getString();
    s.total_active_users = next().getInt64();
    s.new_users_per_minute = next().getInt64();
    s.session_duration = next().getInt();
    s.disable_session_renewal = next().getInt() != 0;
    s.queue_all = next().getInt() != 0;
    s.queueing_method = enum_column(next(), model::QueueingMethod::fifo);
    s.queueing_status_code = next().getInt();
    s.suspended = next().getInt() != 0;
    s.json_response_enabled = next().getInt() != 0;
    s.cookie_suffix = next().getString();
    s.cookie_attributes.samesite = enum_column(next(), model::SameSite::automatic);
    s.cookie_attributes.secure = enum_column(next(), model::SecureAttribute::automatic);
    s.custom_page_html = next().getString();
    s.default_template_language = next().getString();
    s.revoke_origin_command = next().getInt() != 0;
    s.turnstile_mode = enum_column(next(), model::TurnstileMode::invisible);
    s.turnstile_action = enum_column(next(), model::TurnstileAction::log);
    s.join_limit_per_ip_per_minute = next().getInt64();
    s.origin_guard.enabled = next().getInt() != 0;
    s.origin_guard.target_ttfb_ms = next().getInt();
    s.origin_guard.max_error_rate = next().getDouble();
    s.origin_guard.min_new_users_per_minute = next().getInt64();
    room.created_on = from_ms(next().getInt64());
    room.modified_on = from_ms(next().getInt64());
    return room;
}

void load_routes(Connection& connection, model::Room& room) {
    SQLite::Statement query(connection, "SELECT host, path FROM room_routes WHERE room_id = ? ORDER BY position");
    query.bind(1, room.id);
    room.settings.additional_routes.clear();
    bool first = true;
    while (query.executeStep()) {
        model::Route route{query.getColumn(0).getString(), query.getColumn(1).getString()};
        if (first) {
            room.settings.host = route.host;
            room.settings.path = route.path;
            first = false;
        } else {
            room.settings.additional_routes.push_back(std::move(route));
        }
    }
}

void write_routes(Connection& connection, const model::Room& room) {
    SQLite::Statement remove(connection, "DELETE FROM room_routes WHERE room_id = ?");
    remove.bind(1, room.id);
    remove.exec();
    SQLite::Statement insert(connection, "INSERT INTO room_routes (room_id, position, host, host_key, path) VALUES (?, ?, ?, ?, ?)");
    const auto add = [&](int position, const model::Route& route) {
        insert.reset();
        insert.bind(1, room.id);
        insert.bind(2, position);
        insert.bind(3, route.host);
        insert.bind(4, util::lowercase(route.host));
        insert.bind(5, route.path);
        insert.exec();
    };
    add(0, model::Route{room.settings.host, room.settings.path});
    int position = 1;
    for (const model::Route& route : room.settings.additional_routes) add(position++, route);
}

// Binds every settings column in k_room_columns order, from name onward, starting at `index`.
int bind_settings(SQLite::Statement& statement, int index, const model::RoomSettings& s) {
    statement.bind(index++, s.name);
    statement.bind(index++, s.description);
    statement.bind(index++, s.total_active_users);
    statement.bind(index++, s.new_users_per_minute);
    statement.bind(index++, s.session_duration);
    statement.bind(index++, s.disable_session_renewal ? 1 : 0);
    statement.bind(index++, s.queue_all ? 1 : 0);
    bind_enum(statement, index++, s.queueing_method);
    statement.bind(index++, s.queueing_status_code);
    statement.bind(index++, s.suspended ? 1 : 0);
    statement.bind(index++, s.json_response_enabled ? 1 : 0);
    statement.bind(index++, s.cookie_suffix);
    bind_enum(statement, index++, s.cookie_attributes.samesite);
    bind_enum(statement, index++, s.cookie_attributes.secure);
    statement.bind(index++, s.custom_page_html);
    statement.bind(index++, s.default_template_language);
    statement.bind(index++, s.revoke_origin_command ? 1 : 0);
    bind_enum(statement, index++, s.turnstile_mode);
    bind_enum(statement, index++, s.turnstile_action);
    statement.bind(index++, s.join_limit_per_ip_per_minute);
    statement.bind(index++, s.origin_guard.enabled ? 1 : 0);
    statement.bind(index++, s.origin_guard.target_ttfb_ms);
    statement.bind(index++, s.origin_guard.max_error_rate);
    statement.bind(index++, s.origin_guard.min_new_users_per_minute);
    return index;
}

std::vector<model::Room> query_rooms(Connection& connection, SQLite::Statement& query) {
    std::vector<model::Room> rooms;
    while (query.executeStep()) rooms.push_back(read_room(query));
    for (model::Room& room : rooms) load_routes(connection, room);
    return rooms;
}

} // namespace

std::optional<model::Room> find_room(Connection& connection, std::string_view id) {
    SQLite::Statement query(connection, std::string("SELECT ") + k_room_columns + " FROM waiting_rooms WHERE id = ?");
    query.bind(1, std::string(id));
    auto rooms = query_rooms(connection, query);
    if (rooms.empty()) return std::nullopt;
    return std::move(rooms.front());
}

std::optional<model::Room> find_room_by_name(Connection& connection, std::string_view zone_id, std::string_view name) {
    SQLite::Statement query(connection,
                            std::string("SELECT ") + k_room_columns + " FROM waiting_rooms WHERE zone_id = ? AND name = ?");
    query.bind(1, std::string(zone_id));
    query.bind(2, std::string(name));
    auto rooms = query_rooms(connection, query);
    if (rooms.empty()) return std::nullopt;
    return std::move(rooms.front());
}

std::vector<model::Room> list_rooms(Connection& connection, std::string_view zone_id, PageWindow window) {
    SQLite::Statement query(connection, std::string("SELECT ") + k_room_columns +
                                            " FROM waiting_rooms WHERE (?1 = '' OR zone_id = ?1) "
                                            "ORDER BY created_on, rowid LIMIT ?2 OFFSET ?3");
    query.bind(1, std::string(zone_id));
    query.bind(2, window.limit);
    query.bind(3, window.offset);
    return query_rooms(connection, query);
}

int64_t count_rooms(Connection& connection, std::string_view zone_id) {
    SQLite::Statement query(connection, "SELECT COUNT(*) FROM waiting_rooms WHERE (?1 = '' OR zone_id = ?1)");
    query.bind(1, std::string(zone_id));
    query.executeStep();
    return query.getColumn(0).getInt64();
}

void insert_room(Connection& connection, const model::Room& room) {
    SQLite::Statement insert(connection, std::string("INSERT INTO waiting_rooms (") + k_room_columns +
                                             ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, room.id);
    insert.bind(2, room.zone_id);
    int index = bind_settings(insert, 3, room.settings);
    insert.bind(index++, to_ms(room.created_on));
    insert.bind(index, to_ms(room.modified_on));
    insert.exec();
    write_routes(connection, room);
}

void update_room(Connection& connection, const model::Room& room) {
    SQLite::Statement update(connection,
                             "UPDATE waiting_rooms SET name = ?, description = ?, total_active_users = ?, "
                             "new_users_per_minute = ?, session_duration = ?, disable_session_renewal = ?, queue_all = ?, "
                             "queueing_method = ?, queueing_status_code = ?, suspended = ?, json_response_enabled = ?, "
                             "cookie_suffix = ?, cookie_samesite = ?, cookie_secure = ?, custom_page_html = ?, "
                             "default_template_language = ?, revoke_origin_command = ?, turnstile_mode = ?, "
                             "turnstile_action = ?, join_limit_per_ip_per_minute = ?, origin_guard_enabled = ?, "
                             "origin_guard_target_ttfb_ms = ?, origin_guard_max_error_rate = ?, "
                             "origin_guard_min_new_users_per_minute = ?, modified_on = ? WHERE id = ?");
    int index = bind_settings(update, 1, room.settings);
    update.bind(index++, to_ms(room.modified_on));
    update.bind(index, room.id);
    update.exec();
    write_routes(connection, room);
}

void delete_room(Connection& connection, std::string_view id) {
    SQLite::Statement remove(connection, "DELETE FROM waiting_rooms WHERE id = ?");
    remove.bind(1, std::string(id));
    remove.exec();
}

std::optional<RouteOwner> find_route_owner(Connection& connection, std::string_view host, std::string_view path,
                                           std::string_view except_room_id) {
    SQLite::Statement query(connection,
                            "SELECT r.id, r.name FROM room_routes rr JOIN waiting_rooms r ON r.id = rr.room_id "
                            "WHERE rr.host_key = ? AND rr.path = ? AND rr.room_id != ?");
    query.bind(1, util::lowercase(host));
    query.bind(2, std::string(path));
    query.bind(3, std::string(except_room_id));
    if (!query.executeStep()) return std::nullopt;
    return RouteOwner{query.getColumn(0).getString(), query.getColumn(1).getString()};
}

} // namespace wr::store
