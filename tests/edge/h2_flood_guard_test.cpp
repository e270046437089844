// The bounds on a client's HTTP/2 control frames per second, on virtual time.
#include <doctest/doctest.h>

#include "edge/h2_flood_guard.h"

using namespace std::chrono_literals;
using wr::edge::H2ControlFrame;
using wr::edge::H2FloodGuard;

namespace {

const H2FloodGuard::TimePoint k_start{std::chrono::hours{1}};

// How many frames of `kind`, sent `spacing` apart from k_start, are admitted before the first
// refusal (or all `count` of them).
int admitted_before_refusal(H2FloodGuard& guard, H2ControlFrame kind, int count, std::chrono::microseconds spacing) {
    for (int i = 0; i < count; ++i)
        if (!guard.admit(kind, k_start + i * spacing)) return i;
    return count;
}

} // namespace

TEST_CASE("h2 flood guard: each kind of control frame passes its bound in one second, and only then") {
    for (const auto& [kind, bound] : {std::pair{H2ControlFrame::reset, 200}, std::pair{H2ControlFrame::settings, 100},
                                      std::pair{H2ControlFrame::ping, 100}, std::pair{H2ControlFrame::priority, 1000}}) {
        CAPTURE(static_cast<int>(kind));
        CHECK(H2FloodGuard::bound(kind) == bound);
        H2FloodGuard guard;
        // All within one second: the bound passes, the next is refused and marked as the moment.
        CHECK(admitted_before_refusal(guard, kind, bound + 10, 100us) == bound);
        CHECK(guard.just_passed(kind));
        CHECK_FALSE(guard.admit(kind, k_start + 500ms));
        CHECK_FALSE(guard.just_passed(kind)); // only the first refusal is the moment
    }
}

TEST_CASE("h2 flood guard: a steady client under the bound is never refused, and kinds count apart") {
    H2FloodGuard guard;
    // 99 PINGs a second for a minute: never more than the bound in any one second.
    CHECK(admitted_before_refusal(guard, H2ControlFrame::ping, 99 * 60, std::chrono::microseconds{1'000'000 / 99 + 1}) == 99 * 60);
    // A burst of 150 resets and of 100 SETTINGS in the same second: each under its own bound.
    H2FloodGuard other;
    for (int i = 0; i < 150; ++i) CHECK(other.admit(H2ControlFrame::reset, k_start + i * 1ms));
    for (int i = 0; i < 100; ++i) CHECK(other.admit(H2ControlFrame::settings, k_start + i * 1ms));
    CHECK_FALSE(other.admit(H2ControlFrame::settings, k_start + 200ms));
    CHECK(other.admit(H2ControlFrame::reset, k_start + 200ms));
}

TEST_CASE("h2 flood guard: a new second starts afresh") {
    H2FloodGuard guard;
    for (int i = 0; i < 100; ++i) CHECK(guard.admit(H2ControlFrame::ping, k_start + i * 5ms));
    // The second began at k_start: 999 ms later it still holds, a second later a new one starts.
    CHECK_FALSE(guard.admit(H2ControlFrame::ping, k_start + 999ms));
    CHECK(guard.admit(H2ControlFrame::ping, k_start + 1999ms));
    CHECK_FALSE(guard.just_passed(H2ControlFrame::ping));
}
