#pragma once
// The room's admissions to come, minute by minute, projected from what the ledger counts. The
// ledger frees a slot at the start of the minute after its session ends (a user last counted in
// minute m holds it until minute m + session + 1), so admissions come at minute starts: the
// slots of the sessions counted now free one by one, free slots go to the queue at once,
// new_users_per_minute caps each minute, and every slot given out frees again one hold later.
// Pure arithmetic on a fixed ring of minutes: numbers in, no allocation, nothing else read.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace wr::queue {

// Sessions last at most 30 minutes; a slot is counted one more minute.
inline constexpr int64_t k_forecast_session_minutes = 30;

struct ForecastInputs {
    double minute_offset = 0;             // how far into the current minute now is, 0 ≤ x < 1
    int64_t total_active_users = 0;
    int64_t new_users_per_minute = 0;
    int64_t admitted_this_minute = 0;
    int64_t session_minutes = 5;
    // [k]: admitted users whose last counted request was in the minute k minutes ago (k ≤ session).
    std::array<int64_t, k_forecast_session_minutes + 1> counted_minutes_ago{};
    // A slot given out now frees again this much later: the session, the minute it is counted
    // in and whatever the user browses before their last request. At least session + 1.
    double hold_minutes = 6;
    // After a slot frees, the waiting users' next check-ins claim it within this much (FIFO: one
    // refresh interval; random queueing: the span over which a minute's slots are released).
    double claim_minutes = 1.0 / 3.0;

    // Equal in everything the minutes of the forecast depend on (not where now is in the minute).
    bool same_room_as(const ForecastInputs& other) const;
};

// How long a slot given out now stays held, from the minute it is given out in to the minute it
// frees (what ForecastInputs::hold_minutes takes): a session and a minute past the minute of the
// user's last request, which comes `browse_minutes` after they were let in, at a moment spread
// evenly over the first `claim_minutes` of the minute. A last request that falls in a later
// minute than the admission holds the slot a minute longer for every minute it crosses: with 40 s
// of browsing, none of FIFO's admissions do (claimed within 20 s of the minute start), a third of
// random queueing's (released over its first 30 s).
double slot_hold_minutes(int64_t session_minutes, double browse_minutes, double claim_minutes);

struct ForecastAdmission {
    double at_minutes = 0; // from now: 0 for the rest of this minute, else a minute start
    double users = 0;
};

class AdmissionForecast {
public:
    explicit AdmissionForecast(const ForecastInputs& inputs);
    // The next minute with admissions, in order; false when nothing will ever free again.
    bool next(ForecastAdmission& admission);

private:
    static constexpr int64_t k_ring = 64; // more minutes than the longest hold ahead

    void free_later(double at_minute, double users);

    std::array<double, k_ring> m_freeing{}; // slots freeing at the start of minute j (mod k_ring)
    double m_free = 0;                      // free slots not yet given out
    double m_pending = 0;                   // m_free and everything in m_freeing
    double m_offset = 0;
    double m_hold = 6;
    int64_t m_cap = 0;
    int64_t m_first_cap = 0;
    int64_t m_minute = 0;                   // the next minute to project, 0 = this one
};

// The same forecast, walked from memory: the room's admissions by minute are kept per thread
// for the last few rooms' counts (keyed by everything they depend on, so a hit gives exactly
// what a fresh forecast would), so that the many queued requests of one room between two
// changes of its counts walk a list instead of projecting the room again. Minutes are projected
// only as far as some walk has needed. The cursor is valid until the next cursor is made on
// this thread.
class ForecastCursor {
public:
    explicit ForecastCursor(const ForecastInputs& inputs);
    bool next(ForecastAdmission& admission);

    struct Memo; // defined in admission_forecast.cpp

private:
    Memo* m_memo;
    size_t m_index = 0;
    double m_offset = 0;
};

} // namespace wr::queue
