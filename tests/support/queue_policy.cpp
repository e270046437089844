// Admission policies for the queue's tests.
#include "support/queue_policy.h"

namespace wr::test {

queue::Policy limits(int64_t total_active_users, int64_t new_users_per_minute, model::QueueingMethod method) {
    queue::Policy policy;
    policy.total_active_users = total_active_users;
    policy.new_users_per_minute = new_users_per_minute;
    policy.method = method;
    return policy;
}

} // namespace wr::test
