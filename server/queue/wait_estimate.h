#pragma once
// Estimated waits. Pure: the room's forecast admissions (queue/admission_forecast.h) and a few
// counts in, minutes out.
//
// Each estimate is the distribution of the moment this user will be let in, over what is not
// known: their place within their arrival bucket (FIFO), the draws (random queueing), and whether
// those ahead leave first. It is weighted by the user's own chance of still waiting then, so
// that it describes the users who are let in: among them, a share p is in within the p-th
// percentile shown. Pages show whole minutes; a percentile between two whole minutes is shown as
// the later one to a share of users and as the earlier one to the others (by a draw fixed per
// user), so that over everyone a share p is in within what they were shown.
#include <cstdint>

#include "queue/admission_forecast.h"
#include "util/clock.h"

namespace wr::queue {

struct WaitEstimate {
    bool known = false;
    int64_t minutes = 0;      // FIFO estimate, or the median when random
    int64_t p25_minutes = 0;  // random only
    int64_t p50_minutes = 0;
    int64_t p75_minutes = 0;
    // Worked out from the room's limits alone: it has not run long enough to measure how fast
    // it lets people in (pages say so; see queue/admission.cpp).
    bool from_limits = false;
};

// Estimates look this far ahead; a wait beyond shows as this long (the queue counts as full).
inline constexpr double k_estimate_horizon_minutes = 2 * 24 * 60;

// FIFO. The user is let in once the room's admissions cover everyone still there before them;
// within a bucket, users go in the order they check in, so the place in it is equally likely
// anywhere. They are let in at their own first check-in after a slot frees for them: their
// refresh interval is fixed, so that moment is known to the second (each refresh arrives a
// little after it is due: a tenth of a second is allowed per refresh).
struct FifoPlace {
    double ahead = 0;                  // users waiting in older buckets
    double own_bucket = 1;             // the user's bucket, the user included (its expected final count while it still fills)
    double refresh_minutes = 0;        // the user's refresh interval; 0: unknown, any moment of the claim time
    double since_check_in_minutes = 0; // how long ago their last counted check-in was
};
// `leave_rate` is the chance per minute that a waiting user gives up; `draw` in [0, 1) is fixed per user.
WaitEstimate fifo_estimate(const ForecastInputs& forecast, const FifoPlace& place, double leave_rate, double draw);

// Random queueing: whoever checks in after a slot is released takes it, so at each minute's
// admissions every waiting user has the same chance, admissions ÷ users waiting then. The pool
// changes meanwhile: users leave (`leave_rate` per minute), and arrivals go on at
// `arrivals_per_minute`, the surge having lasted `arrival_minutes` so far (it is as likely to end
// within as long again as after); with no arrivals the pool drains and the last in line waits
// the whole drain.
// The 25th, 50th and 75th percentiles; `minutes` is the median.
struct RandomPool {
    double waiting = 0;              // users waiting now, the user included
    double arrivals_per_minute = 0;
    double arrival_minutes = 0;      // how long arrivals have gone on at about this rate
    double leave_rate = 0;
};
WaitEstimate random_estimate(const ForecastInputs& forecast, const RandomPool& pool, double draw);

// The chance per minute that a waiting user gives up, from the share of check-ins that no
// further check-in followed (users check in about every `interval_seconds`).
double leave_rate_per_minute(double stop_share, double interval_seconds);

// What the infinite queue shows a bot `waited` after it joined: starting between 20 and 40
// minutes (by `seed`), falling a minute per minute at first like a real queue's, then ever
// slower, E(t) = E0·E0 / (E0 + t), so that it never reaches zero (at least 1, rounded up).
WaitEstimate infinite_queue_estimate(uint64_t seed, util::Milliseconds waited);

} // namespace wr::queue
