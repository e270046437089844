#pragma once
// How a room's count changes travel and rest in the shared store: as records, each the count
// changes of one batch (or, for a snapshot, every count there is), packed in a few bytes a
// change. The store appends each applied batch's record to the room's log and hands every node
// the bytes written since it last read, which the node adds to its copy of the counts; the store
// never reads a record, so a change costs it no more than its bytes. Records concatenate: a log,
// or a snapshot followed by the log after it, reads as one run of records. Pure.
//
// A record: a format byte (1), the number of changes (varint), then per change its kind (a byte:
// queue::LedgerChange::Kind), its key and, for waiting users, its check-in slot, each as the
// zigzag varint of its difference from the same kind's previous change in the record (so
// neighbouring minutes and slots cost a byte), and its delta (zigzag varint).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "queue/ledger.h"

namespace wr::state {

// Whether `change` is a count (active, waiting, admitted, arrived, checked_in, browsed): the kinds
// a record holds. Revocations and seeds travel apart.
bool is_count(const queue::LedgerChange& change);

// Appends a record of the counts among `changes` (the others left out) to `out`; nothing when
// there are none.
void append_record(std::string& out, const std::vector<queue::LedgerChange>& changes);

// The changes of every record in `bytes`, in order, appended to `out`; false (and `out` as far as
// it got) when the bytes are not records.
bool read_records(std::string_view bytes, std::vector<queue::LedgerChange>& out);

} // namespace wr::state
