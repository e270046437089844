// Reads and records the last batch merged per analytics stream.
#include "store/analytics_streams_store.h"

#include "store/sql.h"

namespace wr::store {

bool claim_batch(Connection& connection, std::string_view node, std::string_view stream, int64_t sequence, util::TimePoint now) {
    SQLite::Statement last(connection, "SELECT last_sequence FROM analytics_streams WHERE node = ? AND stream = ?");
    last.bind(1, std::string(node));
    last.bind(2, std::string(stream));
    if (last.executeStep() && last.getColumn(0).getInt64() >= sequence) return false;
    SQLite::Statement record(connection, "INSERT INTO analytics_streams (node, stream, last_sequence, last_push_on) VALUES (?, ?, ?, ?) "
                                         "ON CONFLICT (node, stream) DO UPDATE SET last_sequence = excluded.last_sequence, "
                                         "last_push_on = excluded.last_push_on");
    record.bind(1, std::string(node));
    record.bind(2, std::string(stream));
    record.bind(3, sequence);
    record.bind(4, to_ms(now));
    record.exec();
    SQLite::Statement forget(connection, "DELETE FROM analytics_streams WHERE node = ?1 AND stream NOT IN (SELECT stream FROM "
                                         "analytics_streams WHERE node = ?1 ORDER BY last_push_on DESC, stream = ?2 DESC LIMIT ?3)");
    forget.bind(1, std::string(node));
    forget.bind(2, std::string(stream));
    forget.bind(3, k_max_streams_per_node);
    forget.exec();
    return true;
}

int64_t prune_analytics_streams(Connection& connection, util::TimePoint oldest) {
    SQLite::Statement remove(connection, "DELETE FROM analytics_streams WHERE last_push_on < ?");
    remove.bind(1, to_ms(oldest));
    return remove.exec();
}

} // namespace wr::store
