// Grants and shares of a room's free slots. server/state/reconcile.lua computes the grant the
// same way, step for step; keep the two in step.
#include "state/shares.h"

#include <algorithm>
#include <cmath>

namespace wr::state {

const char* to_string(FailureMode mode) {
    switch (mode) {
    case FailureMode::open: return "open";
    case FailureMode::closed: return "closed";
    case FailureMode::local_share: break;
    }
    return "local-share";
}

double demand_share(const GrantRequest& request) {
    const int64_t total = request.own_weight + request.others_weight;
    const int64_t millionths = total > 0 ? std::clamp<int64_t>(request.own_weight * 1000000 / total, 0, 1000000)
                                         : 1000000 / (request.others_live + 1);
    return static_cast<double>(millionths) / 1e6;
}

int64_t apportioned_seats(const GrantRequest& request, int64_t free) {
    if (free <= 0) return 0;
    const int64_t total = request.own_weight + request.others_weight;
    // Integers all the way (weights in thousandths times places stay far below 2^53, so the
    // script's doubles compute the same).
    if (total > 0) return (request.own_weight * free + total - 1) / total;
    const int64_t live = request.others_live + 1;
    return (free + live - 1) / live;
}

namespace {

constexpr int64_t k_quiet_headroom = 4;

int64_t granted(const GrantRequest& request, int64_t free, int64_t reserved) {
    if (free <= 0) return 0;
    const int64_t live = request.others_live + 1;
    // Twice what its demand takes while the grant lasts, rounded up: integers, as in the script.
    const int64_t need = (2 * request.own_rate_milli * request.validity_ms + 999999) / 1000000 + 1;
    const auto even = static_cast<int64_t>(std::ceil(static_cast<double>(free) / static_cast<double>(live + 1)));
    // While the room has plenty, a node whose share is small still gets room for a few arrivals
    // at once (the more the room has free, the less a few seats matter to anyone else).
    const int64_t quiet_floor = free >= 2 * live ? std::min(even, need + k_quiet_headroom) : 0;
    const int64_t want = std::min(std::max(apportioned_seats(request, free), quiet_floor), std::max(need, even));
    return std::max<int64_t>(0, std::min(want, free - reserved));
}

} // namespace

Grant compute_grant(const GrantRequest& request, int64_t minute) {
    return {granted(request, request.free_total, request.reserved_total), granted(request, request.free_minute, request.reserved_minute),
            minute};
}

double next_demand_weight(double previous, int64_t demand, util::Milliseconds elapsed, util::Milliseconds sync_interval) {
    const double seconds = std::max(0.001, static_cast<double>(std::max(elapsed, sync_interval).count()) / 1000.0);
    const double rate = static_cast<double>(demand) / seconds;
    // Up at once with a surge, down by halves after it.
    return std::max(rate, 0.5 * previous + 0.5 * rate);
}

util::Milliseconds share_window(util::Milliseconds sync_interval) { return std::max(util::Milliseconds{4000}, 16 * sync_interval); }

util::Milliseconds grant_validity(util::Milliseconds sync_interval) { return 3 * sync_interval + util::Milliseconds{250}; }

util::Milliseconds node_liveness(util::Milliseconds sync_interval) { return 3 * sync_interval + util::Milliseconds{250}; }

int64_t local_share_allowance(double share, int64_t free, int64_t used) {
    if (free <= 0) return 0;
    return static_cast<int64_t>(std::floor(share * static_cast<double>(free) + 1e-9)) - used;
}

} // namespace wr::state
