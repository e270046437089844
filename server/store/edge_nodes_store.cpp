// Records and checks which edge token a node name belongs to.
#include "store/edge_nodes_store.h"

#include "store/sql.h"

namespace wr::store {

bool claim_edge_node(Connection& connection, std::string_view node, std::string_view token_id, util::TimePoint now) {
    SQLite::Statement owner(connection, "SELECT token_id FROM edge_nodes WHERE node = ?");
    owner.bind(1, std::string(node));
    if (owner.executeStep()) return owner.getColumn(0).getString() == token_id;
    SQLite::Statement claim(connection, "INSERT INTO edge_nodes (node, token_id, first_push_on) VALUES (?, ?, ?)");
    claim.bind(1, std::string(node));
    claim.bind(2, std::string(token_id));
    claim.bind(3, to_ms(now));
    claim.exec();
    return true;
}

} // namespace wr::store
