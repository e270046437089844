// Stores template previews and forgets them when they expire.
#include "store/previews_store.h"

#include "store/sql.h"

namespace wr::store {

void insert_preview(Connection& connection, const Preview& preview, util::TimePoint now) {
    SQLite::Statement insert(connection, "INSERT INTO previews (id, zone_id, html, created_on, expires_on) VALUES (?, ?, ?, ?, ?)");
    insert.bind(1, preview.id);
    insert.bind(2, preview.zone_id);
    insert.bind(3, preview.html);
    insert.bind(4, to_ms(now));
    insert.bind(5, to_ms(preview.expires_on));
    insert.exec();
}

std::optional<Preview> find_preview(Connection& connection, std::string_view id, util::TimePoint now) {
    SQLite::Statement query(connection, "SELECT id, zone_id, html, expires_on FROM previews WHERE id = ? AND expires_on > ?");
    query.bind(1, std::string(id));
    query.bind(2, to_ms(now));
    if (!query.executeStep()) return std::nullopt;
    return Preview{query.getColumn(0).getString(), query.getColumn(1).getString(), query.getColumn(2).getString(),
                   from_ms(query.getColumn(3).getInt64())};
}

int64_t delete_expired_previews(Connection& connection, util::TimePoint now) {
    SQLite::Statement remove(connection, "DELETE FROM previews WHERE expires_on <= ?");
    remove.bind(1, to_ms(now));
    return remove.exec();
}

} // namespace wr::store
