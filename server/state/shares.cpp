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

namespace {

struct Seat {
    const std::string* node;
    double weight;
    int64_t whole = 0;
    double remainder = 0;
};

// The nodes in name order, so that every sum runs in the same order here and in the script.
std::vector<Seat> seats_in_order(const GrantRequest& request) {
    std::vector<Seat> seats;
    seats.push_back({&request.node, request.own_weight});
    for (const NodeWeight& other : request.others) seats.push_back({&other.node, other.weight});
    std::sort(seats.begin(), seats.end(), [](const Seat& a, const Seat& b) { return *a.node < *b.node; });
    return seats;
}

double total_weight(const std::vector<Seat>& seats) {
    double total = 0;
    for (const Seat& seat : seats) total += seat.weight;
    return total;
}

} // namespace

double demand_share(const GrantRequest& request) {
    const std::vector<Seat> seats = seats_in_order(request);
    const double total = total_weight(seats);
    if (total > 0) return std::clamp(request.own_weight / total, 0.0, 1.0);
    return 1.0 / static_cast<double>(seats.size());
}

int64_t apportioned_seats(const GrantRequest& request, int64_t free) {
    if (free <= 0) return 0;
    std::vector<Seat> seats = seats_in_order(request);
    const double total = total_weight(seats);
    int64_t handed = 0;
    for (Seat& seat : seats) {
        const double quota = total > 0 ? seat.weight / total * static_cast<double>(free)
                                       : static_cast<double>(free) / static_cast<double>(seats.size());
        seat.whole = static_cast<int64_t>(std::floor(quota));
        seat.remainder = quota - static_cast<double>(seat.whole);
        handed += seat.whole;
    }
    // The seats left go to the largest remainders.
    std::stable_sort(seats.begin(), seats.end(), [](const Seat& a, const Seat& b) { return a.remainder > b.remainder; });
    const int64_t left = free - handed;
    for (size_t rank = 0; rank < seats.size(); ++rank)
        if (*seats[rank].node == request.node) return seats[rank].whole + (static_cast<int64_t>(rank) < left ? 1 : 0);
    return 0;
}

namespace {

constexpr int64_t k_quiet_headroom = 4;

int64_t granted(const GrantRequest& request, int64_t free, int64_t reserved) {
    if (free <= 0) return 0;
    const auto live = static_cast<int64_t>(request.others.size()) + 1;
    const auto need = static_cast<int64_t>(std::ceil(2.0 * request.own_rate * static_cast<double>(request.validity_ms) / 1000.0)) + 1;
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
