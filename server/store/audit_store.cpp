// Reads and writes the audit log.
#include "store/audit_store.h"

namespace wr::store {
namespace {

// The WHERE clause of a filter, and its binding (the same order in both).
std::string where_clause(const AuditFilter& filter) {
    std::string where = " WHERE 1";
    if (filter.since) where += " AND at >= ?";
    if (filter.until) where += " AND at < ?";
    if (!filter.object.empty()) where += " AND ? IN (object_id, object_name, zone_id, zone_name, room_id, room_name)";
    if (!filter.type.empty()) where += " AND object_type = ?";
    if (!filter.zone_id.empty()) where += " AND zone_id = ?";
    return where;
}

int bind_filter(SQLite::Statement& statement, const AuditFilter& filter) {
    int index = 1;
    if (filter.since) statement.bind(index++, to_ms(*filter.since));
    if (filter.until) statement.bind(index++, to_ms(*filter.until));
    if (!filter.object.empty())
        statement.bind(index++, filter.object);
    if (!filter.type.empty()) statement.bind(index++, filter.type);
    if (!filter.zone_id.empty()) statement.bind(index++, filter.zone_id);
    return index;
}

} // namespace

void insert_audit_entry(Connection& connection, const model::AuditEntry& entry) {
    SQLite::Statement insert(connection,
                             "INSERT INTO audit_log (id, at, token_id, token_name, address, via, action, object_type, object_id, "
                             "object_name, zone_id, zone_name, room_id, room_name, changes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, entry.id);
    insert.bind(2, to_ms(entry.actor.when));
    insert.bind(3, entry.actor.token_id);
    insert.bind(4, entry.actor.token_name);
    insert.bind(5, entry.actor.address);
    insert.bind(6, entry.actor.via);
    insert.bind(7, entry.action);
    insert.bind(8, entry.object.type);
    insert.bind(9, entry.object.id);
    insert.bind(10, entry.object.name);
    insert.bind(11, entry.object.zone_id);
    insert.bind(12, entry.object.zone_name);
    insert.bind(13, entry.object.room_id);
    insert.bind(14, entry.object.room_name);
    insert.bind(15, model::changes_to_json(entry.changes).dump());
    insert.exec();
}

std::vector<model::AuditEntry> list_audit_entries(Connection& connection, const AuditFilter& filter, PageWindow window) {
    SQLite::Statement query(connection,
                            "SELECT id, at, token_id, token_name, address, via, action, object_type, object_id, object_name, zone_id, "
                            "zone_name, room_id, room_name, changes FROM audit_log" + where_clause(filter) + " ORDER BY at DESC, seq DESC LIMIT ? OFFSET ?");
    const int next = bind_filter(query, filter);
    query.bind(next, window.limit);
    query.bind(next + 1, window.offset);
    std::vector<model::AuditEntry> entries;
    while (query.executeStep()) {
        model::AuditEntry entry;
        entry.id = query.getColumn(0).getString();
        entry.actor.when = from_ms(query.getColumn(1).getInt64());
        entry.actor.token_id = query.getColumn(2).getString();
        entry.actor.token_name = query.getColumn(3).getString();
        entry.actor.address = query.getColumn(4).getString();
        entry.actor.via = query.getColumn(5).getString();
        entry.action = query.getColumn(6).getString();
        entry.object.type = query.getColumn(7).getString();
        entry.object.id = query.getColumn(8).getString();
        entry.object.name = query.getColumn(9).getString();
        entry.object.zone_id = query.getColumn(10).getString();
        entry.object.zone_name = query.getColumn(11).getString();
        entry.object.room_id = query.getColumn(12).getString();
        entry.object.room_name = query.getColumn(13).getString();
        entry.changes = model::changes_from_json(nlohmann::json::parse(query.getColumn(14).getString(), nullptr, false));
        entries.push_back(std::move(entry));
    }
    return entries;
}

int64_t count_audit_entries(Connection& connection, const AuditFilter& filter) {
    SQLite::Statement query(connection, "SELECT COUNT(*) FROM audit_log" + where_clause(filter));
    bind_filter(query, filter);
    query.executeStep();
    return query.getColumn(0).getInt64();
}

int64_t prune_audit_log(Connection& connection, util::TimePoint oldest) {
    SQLite::Statement remove(connection, "DELETE FROM audit_log WHERE at < ?");
    remove.bind(1, to_ms(oldest));
    return remove.exec();
}

} // namespace wr::store
