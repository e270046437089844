// What the Gate admits by: the configured limits, each lowered to the guard's where it set one,
// and never raised.
#include <doctest/doctest.h>

#include "origin/registry.h"

namespace {

wr::queue::Policy configured_policy() {
    wr::queue::Policy policy;
    policy.total_active_users = 1000;
    policy.new_users_per_minute = 300;
    return policy;
}

} // namespace

TEST_CASE("origin::guarded lowers each limit the guard set, leaves the others, never raises one, and paces a room it holds back") {
    const wr::queue::Policy policy = configured_policy();
    CHECK(wr::origin::guarded(policy, nullptr).total_active_users == 1000);

    wr::origin::RoomGuard guard;
    CHECK(wr::origin::guarded(policy, &guard).total_active_users == 1000); // 0: nothing set
    CHECK(wr::origin::guarded(policy, &guard).new_users_per_minute == 300);

    guard.set(100, 0, 2); // the total alone
    CHECK(wr::origin::guarded(policy, &guard).total_active_users == 100);
    CHECK(wr::origin::guarded(policy, &guard).new_users_per_minute == 300);

    guard.set(0, 50, 2); // the rate alone
    CHECK(wr::origin::guarded(policy, &guard).total_active_users == 1000);
    CHECK(wr::origin::guarded(policy, &guard).new_users_per_minute == 50);

    CHECK(wr::origin::guarded(policy, &guard).paced); // held back: the minute is paced

    guard.set(5000, 900, 3); // above the configured limits: they stand
    CHECK(wr::origin::guarded(policy, &guard).total_active_users == 1000);
    CHECK(wr::origin::guarded(policy, &guard).new_users_per_minute == 300);
    CHECK_FALSE(wr::origin::guarded(policy, &guard).paced);

    guard.clear();
    CHECK(wr::origin::guarded(policy, &guard).total_active_users == 1000);
    CHECK(wr::origin::guarded(policy, &guard).new_users_per_minute == 300);
}
