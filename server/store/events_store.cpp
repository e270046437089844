// Reads and writes events; user-given times are stored both as text and as milliseconds.
#include "store/events_store.h"

namespace wr::store {
namespace {

constexpr const char* k_event_columns =
    "id, room_id, name, description, event_start_time, event_start_ms, event_end_time, event_end_ms, "
    "prequeue_start_time, prequeue_start_ms, shuffle_at_event_start, suspended, total_active_users, "
    "new_users_per_minute, session_duration, queueing_method, disable_session_renewal, custom_page_html, "
    "turnstile_mode, turnstile_action, created_on, modified_on";

model::Event read_event(SQLite::Statement& row) {
    model::Event event;
    model::EventSettings& s = event.settings;
    int column = 0;
    const auto next = [&] { return row.getColumn(column++); };
    event.id = next().getString();
    event.room_id = next().getString();
    s.name = next().getString();
    s.description = next().getString();
    s.event_start_time.text = next().getString();
    s.event_start_time.time = from_ms(next().getInt64());
    s.event_end_time.text = next().getString();
    s.event_end_time.time = from_ms(next().getInt64());
    const auto prequeue_text = optional_text(next());
    const auto prequeue_ms = optional_int64(next());
    if (prequeue_text && prequeue_ms) s.prequeue_start_time = model::Timestamp{*prequeue_text, from_ms(*prequeue_ms)};
    s.shuffle_at_event_start = next().getInt() != 0;
    s.suspended = next().getInt() != 0;
    s.total_active_users = optional_int64(next());
    s.new_users_per_minute = optional_int64(next());
    s.session_duration = optional_int(next());
    s.queueing_method = optional_enum_column<model::QueueingMethod>(next());
    s.disable_session_renewal = optional_bool(next());
    s.custom_page_html = optional_text(next());
    s.turnstile_mode = optional_enum_column<model::TurnstileMode>(next());
    s.turnstile_action = optional_enum_column<model::TurnstileAction>(next());
    event.created_on = from_ms(next().getInt64());
    event.modified_on = from_ms(next().getInt64());
    return event;
}

int bind_settings(SQLite::Statement& statement, int index, const model::EventSettings& s) {
    statement.bind(index++, s.name);
    statement.bind(index++, s.description);
    statement.bind(index++, s.event_start_time.text);
    statement.bind(index++, to_ms(s.event_start_time.time));
    statement.bind(index++, s.event_end_time.text);
    statement.bind(index++, to_ms(s.event_end_time.time));
    if (s.prequeue_start_time) {
        statement.bind(index++, s.prequeue_start_time->text);
        statement.bind(index++, to_ms(s.prequeue_start_time->time));
    } else {
        statement.bind(index++);
        statement.bind(index++);
    }
    statement.bind(index++, s.shuffle_at_event_start ? 1 : 0);
    statement.bind(index++, s.suspended ? 1 : 0);
    bind_optional(statement, index++, s.total_active_users);
    bind_optional(statement, index++, s.new_users_per_minute);
    bind_optional(statement, index++, s.session_duration);
    bind_optional_enum(statement, index++, s.queueing_method);
    bind_optional(statement, index++, s.disable_session_renewal);
    bind_optional(statement, index++, s.custom_page_html);
    bind_optional_enum(statement, index++, s.turnstile_mode);
    bind_optional_enum(statement, index++, s.turnstile_action);
    return index;
}

std::vector<model::Event> collect(SQLite::Statement& query) {
    std::vector<model::Event> events;
    while (query.executeStep()) events.push_back(read_event(query));
    return events;
}

} // namespace

std::optional<model::Event> find_event(Connection& connection, std::string_view room_id, std::string_view id) {
    SQLite::Statement query(connection, std::string("SELECT ") + k_event_columns + " FROM events WHERE room_id = ? AND id = ?");
    query.bind(1, std::string(room_id));
    query.bind(2, std::string(id));
    if (!query.executeStep()) return std::nullopt;
    return read_event(query);
}

std::vector<model::Event> list_events(Connection& connection, std::string_view room_id, PageWindow window) {
    SQLite::Statement query(connection, std::string("SELECT ") + k_event_columns +
                                            " FROM events WHERE room_id = ? ORDER BY event_start_ms, id LIMIT ? OFFSET ?");
    query.bind(1, std::string(room_id));
    query.bind(2, window.limit);
    query.bind(3, window.offset);
    return collect(query);
}

std::vector<model::Event> all_events(Connection& connection, std::string_view room_id) {
    return list_events(connection, room_id, PageWindow{0, -1});
}

int64_t count_events(Connection& connection, std::string_view room_id) {
    SQLite::Statement query(connection, "SELECT COUNT(*) FROM events WHERE room_id = ?");
    query.bind(1, std::string(room_id));
    query.executeStep();
    return query.getColumn(0).getInt64();
}

void insert_event(Connection& connection, const model::Event& event) {
    SQLite::Statement insert(connection, std::string("INSERT INTO events (") + k_event_columns +
                                             ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, event.id);
    insert.bind(2, event.room_id);
    int index = bind_settings(insert, 3, event.settings);
    insert.bind(index++, to_ms(event.created_on));
    insert.bind(index, to_ms(event.modified_on));
    insert.exec();
}

void update_event(Connection& connection, const model::Event& event) {
    SQLite::Statement update(connection,
                             "UPDATE events SET name = ?, description = ?, event_start_time = ?, event_start_ms = ?, "
                             "event_end_time = ?, event_end_ms = ?, prequeue_start_time = ?, prequeue_start_ms = ?, "
                             "shuffle_at_event_start = ?, suspended = ?, total_active_users = ?, new_users_per_minute = ?, "
                             "session_duration = ?, queueing_method = ?, disable_session_renewal = ?, custom_page_html = ?, "
                             "turnstile_mode = ?, turnstile_action = ?, modified_on = ? WHERE id = ?");
    int index = bind_settings(update, 1, event.settings);
    update.bind(index++, to_ms(event.modified_on));
    update.bind(index, event.id);
    update.exec();
}

void delete_event(Connection& connection, std::string_view id) {
    SQLite::Statement remove(connection, "DELETE FROM events WHERE id = ?");
    remove.bind(1, std::string(id));
    remove.exec();
}

} // namespace wr::store
