// Names of a room's keys and admission fields in the shared store.
#include "state/store_keys.h"

namespace wr::state {

std::string room_key_prefix(std::string_view room_id) {
    std::string out = "wr:{";
    out += room_id;
    out += "}:";
    return out;
}

bool is_admission_count(const queue::LedgerChange& change) {
    return change.kind == queue::LedgerChange::Kind::active || change.kind == queue::LedgerChange::Kind::admitted;
}

std::string admission_field(const queue::LedgerChange& change) {
    return (change.kind == queue::LedgerChange::Kind::active ? "a" : "m") + std::to_string(change.key);
}

} // namespace wr::state
