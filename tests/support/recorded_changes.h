#pragma once
// Every change a ledger journals, in order, as a shared room's node would push them.
#include <vector>

#include "queue/ledger.h"

namespace wr::test {

struct RecordedChanges final : queue::LedgerJournal {
    std::vector<queue::LedgerChange> changes;
    void record(const queue::LedgerChange& change) override { changes.push_back(change); }
};

} // namespace wr::test
