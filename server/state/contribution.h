#pragma once
// One node run's part of a room's admission counts — its active users and admissions by minute,
// everything it pushed and the store applied — in the form the store keeps beside the counts
// themselves. The store writes it in the same atomic step as the batches it sums up, so a
// replica that copied one copied the other: after a failover the node compares the replica's
// copy with what it knows it contributed and sends exactly the difference. The store never reads
// it; only nodes do. Pure.
#include <optional>
#include <string>
#include <string_view>

#include "state/change_set.h"

namespace wr::state {

// The active and admitted counts of `changes` (the others are left out) as one record of
// count_log.h: a byte or three a minute, about a hundred bytes for a room busy for half an hour.
std::string encode_contribution(const ChangeSet& changes);
// nullopt when `bytes` is not what encode_contribution writes; "" is an empty contribution.
std::optional<ChangeSet> decode_contribution(std::string_view bytes);

} // namespace wr::state
