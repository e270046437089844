// Reads and writes a room's ordered list of bypass rules.
#include "store/rules_store.h"

#include "store/sql.h"

namespace wr::store {

std::vector<model::Rule> list_rules(Connection& connection, std::string_view room_id) {
    SQLite::Statement query(connection, "SELECT id, action, expression, description, enabled, version, last_updated "
                                        "FROM rules WHERE room_id = ? ORDER BY position");
    query.bind(1, std::string(room_id));
    std::vector<model::Rule> rules;
    while (query.executeStep()) {
        model::Rule rule;
        rule.id = query.getColumn(0).getString();
        rule.settings.action = query.getColumn(1).getString();
        rule.settings.expression = query.getColumn(2).getString();
        rule.settings.description = query.getColumn(3).getString();
        rule.settings.enabled = query.getColumn(4).getInt() != 0;
        rule.version = query.getColumn(5).getInt64();
        rule.last_updated = from_ms(query.getColumn(6).getInt64());
        rules.push_back(std::move(rule));
    }
    return rules;
}

void write_rules(Connection& connection, std::string_view room_id, const std::vector<model::Rule>& rules) {
    SQLite::Statement remove(connection, "DELETE FROM rules WHERE room_id = ?");
    remove.bind(1, std::string(room_id));
    remove.exec();
    SQLite::Statement insert(connection, "INSERT INTO rules (id, room_id, position, action, expression, description, enabled, "
                                         "version, last_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    int position = 0;
    for (const model::Rule& rule : rules) {
        insert.reset();
        insert.bind(1, rule.id);
        insert.bind(2, std::string(room_id));
        insert.bind(3, position++);
        insert.bind(4, rule.settings.action);
        insert.bind(5, rule.settings.expression);
        insert.bind(6, rule.settings.description);
        insert.bind(7, rule.settings.enabled ? 1 : 0);
        insert.bind(8, rule.version);
        insert.bind(9, to_ms(rule.last_updated));
        insert.exec();
    }
}

} // namespace wr::store
