#pragma once
// Admission policies for the queue's tests.
#include <cstdint>

#include "model/enums.h"
#include "queue/policy.h"

namespace wr::test {

// A room's limits (and its queueing method) as the admission algorithm takes them.
queue::Policy limits(int64_t total_active_users, int64_t new_users_per_minute, model::QueueingMethod method = model::QueueingMethod::fifo);

} // namespace wr::test
