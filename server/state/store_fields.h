#pragma once
// How a room's counts are named in the shared store: one field per count, its kind in the first
// letter and its minute or ten-second slot in the digits — `a<minute>` active users, `m<minute>`
// admissions, `w<bucket ms>:<slot>` waiting users, `v<slot>` arrivals into the queue,
// `c<slot>` check-ins of waiting users, `b<slot>` milliseconds between admitted users'
// requests — and when a field no longer counts anywhere. reconcile.lua writes the same names
// and prunes by the same rule; nodes, the script and its C++ twin only meet through them. Pure.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "queue/ledger.h"

namespace wr::state {

// The field of a count change (active, waiting, admitted, arrived, checked_in, browsed);
// nullopt for the others (revocations, seeds), which travel apart.
std::optional<std::string> field_of(const queue::LedgerChange& change);
// The change that sets `field` to `value` as a count of that kind; nullopt for a name no node
// writes.
std::optional<queue::LedgerChange> change_of(std::string_view field, int64_t value);
// Whether `field` is past every ledger's retention at this minute and slot (ChangeSet::prune's
// rule): the store drops it.
bool field_expired(std::string_view field, int64_t now_minute, int64_t now_slot);

} // namespace wr::state
