// Names of a room's count fields in the shared store.
#include "state/store_fields.h"

#include "util/parse_number.h"

namespace wr::state {
namespace {

using Kind = queue::LedgerChange::Kind;

} // namespace

std::optional<std::string> field_of(const queue::LedgerChange& change) {
    switch (change.kind) {
    case Kind::active: return "a" + std::to_string(change.key);
    case Kind::admitted: return "m" + std::to_string(change.key);
    case Kind::waiting: return "w" + std::to_string(change.key) + ":" + std::to_string(change.minute);
    case Kind::arrived: return "v" + std::to_string(change.key);
    case Kind::checked_in: return "c" + std::to_string(change.key);
    case Kind::browsed: return "b" + std::to_string(change.key);
    case Kind::revoked:
    case Kind::release_seed: break;
    }
    return std::nullopt;
}

std::optional<queue::LedgerChange> change_of(std::string_view field, int64_t value) {
    if (field.size() < 2) return std::nullopt;
    const std::string_view rest = field.substr(1);
    if (field[0] == 'w') {
        const size_t colon = rest.find(':');
        if (colon == std::string_view::npos) return std::nullopt;
        const auto bucket = util::parse_number<int64_t>(rest.substr(0, colon));
        const auto slot = util::parse_number<int64_t>(rest.substr(colon + 1));
        if (!bucket || !slot) return std::nullopt;
        return queue::LedgerChange{Kind::waiting, *bucket, *slot, value};
    }
    const auto key = util::parse_number<int64_t>(rest);
    if (!key) return std::nullopt;
    switch (field[0]) {
    case 'a': return queue::LedgerChange{Kind::active, *key, 0, value};
    case 'm': return queue::LedgerChange{Kind::admitted, *key, 0, value};
    case 'v': return queue::LedgerChange{Kind::arrived, *key, 0, value};
    case 'c': return queue::LedgerChange{Kind::checked_in, *key, 0, value};
    case 'b': return queue::LedgerChange{Kind::browsed, *key, 0, value};
    default: break;
    }
    return std::nullopt;
}

bool field_expired(std::string_view field, int64_t now_minute, int64_t now_slot) {
    const auto change = change_of(field, 0);
    if (!change) return true; // nothing a node wrote: nothing to keep
    switch (change->kind) {
    case Kind::active: return change->key < now_minute - queue::k_active_retention_minutes;
    case Kind::admitted: return change->key < now_minute - queue::k_rate_window_minutes - 1;
    case Kind::waiting: return change->minute < now_slot - queue::k_check_in_retention_slots;
    case Kind::arrived: return change->key < now_slot - queue::k_arrival_retention_slots - 1;
    case Kind::checked_in: return change->key < now_slot - queue::k_check_in_retention_slots;
    case Kind::browsed: return change->key < now_slot - queue::k_arrival_retention_slots - 1;
    default: break;
    }
    return true;
}

} // namespace wr::state
