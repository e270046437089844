// Reads and writes API tokens; only SHA-256 hashes of the secrets are ever stored.
#include "store/tokens_store.h"

#include "store/sql.h"

namespace wr::store {

std::vector<model::Token> list_tokens(Connection& connection) {
    SQLite::Statement query(connection, "SELECT id, name, scope, zone_id, token_hash, created_on, last_used_on "
                                        "FROM api_tokens ORDER BY created_on, rowid");
    std::vector<model::Token> tokens;
    while (query.executeStep()) {
        model::Token token;
        token.id = query.getColumn(0).getString();
        token.name = query.getColumn(1).getString();
        token.scope = enum_column(query.getColumn(2), model::TokenScope::read);
        token.zone_id = optional_text(query.getColumn(3));
        token.hash = query.getColumn(4).getString();
        token.created_on = from_ms(query.getColumn(5).getInt64());
        if (const auto used = optional_int64(query.getColumn(6))) token.last_used_on = from_ms(*used);
        tokens.push_back(std::move(token));
    }
    return tokens;
}

void insert_token(Connection& connection, const model::Token& token) {
    SQLite::Statement insert(connection, "INSERT INTO api_tokens (id, name, scope, zone_id, token_hash, created_on) "
                                         "VALUES (?, ?, ?, ?, ?, ?)");
    insert.bind(1, token.id);
    insert.bind(2, token.name);
    bind_enum(insert, 3, token.scope);
    bind_optional(insert, 4, token.zone_id);
    insert.bind(5, token.hash);
    insert.bind(6, to_ms(token.created_on));
    insert.exec();
}

bool delete_token(Connection& connection, std::string_view id) {
    SQLite::Statement remove(connection, "DELETE FROM api_tokens WHERE id = ?");
    remove.bind(1, std::string(id));
    return remove.exec() > 0;
}

void touch_token(Connection& connection, std::string_view id, util::TimePoint now) {
    SQLite::Statement update(connection, "UPDATE api_tokens SET last_used_on = ? WHERE id = ?");
    update.bind(1, to_ms(now));
    update.bind(2, std::string(id));
    update.exec();
}

} // namespace wr::store
