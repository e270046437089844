// Encodes a node run's part of a room's admission counts for the store to keep.
#include "state/contribution.h"

#include "state/count_log.h"
#include "state/store_keys.h"

namespace wr::state {

std::string encode_contribution(const ChangeSet& changes) {
    std::vector<queue::LedgerChange> admission;
    for (const queue::LedgerChange& change : changes.changes())
        if (is_admission_count(change)) admission.push_back(change);
    std::string out;
    append_record(out, admission);
    return out;
}

std::optional<ChangeSet> decode_contribution(std::string_view bytes) {
    std::vector<queue::LedgerChange> changes;
    if (!read_records(bytes, changes)) return std::nullopt;
    ChangeSet out;
    for (const queue::LedgerChange& change : changes) {
        if (!is_admission_count(change)) return std::nullopt;
        out.record(change);
    }
    return out;
}

} // namespace wr::state
