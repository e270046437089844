// Projects a room's admissions minute by minute from its counts.
#include "queue/admission_forecast.h"

#include <algorithm>
#include <cmath>

namespace wr::queue {

AdmissionForecast::AdmissionForecast(const ForecastInputs& inputs)
    : m_offset(std::clamp(inputs.minute_offset, 0.0, 1.0)),
      m_hold(std::clamp(inputs.hold_minutes, static_cast<double>(inputs.session_minutes + 1), static_cast<double>(k_ring - 2))),
      m_cap(std::max<int64_t>(0, inputs.new_users_per_minute)),
      m_first_cap(std::max<int64_t>(0, inputs.new_users_per_minute - inputs.admitted_this_minute)) {
    const int64_t session = std::clamp<int64_t>(inputs.session_minutes, 0, k_forecast_session_minutes);
    int64_t counted = 0;
    for (int64_t k = 0; k <= session; ++k) {
        const auto users = static_cast<double>(std::max<int64_t>(0, inputs.counted_minutes_ago[static_cast<size_t>(k)]));
        counted += static_cast<int64_t>(users);
        // Counted in minute now − k: frees at the start of minute now − k + session + 1.
        m_freeing[static_cast<size_t>(session + 1 - k)] += users;
        m_pending += users;
    }
    m_free = static_cast<double>(std::max<int64_t>(0, inputs.total_active_users - counted));
    m_pending += m_free;
}

void AdmissionForecast::free_later(double at_minute, double users) {
    // A hold of 6.4 minutes: 60 % of these slots free 6 minutes on, 40 % 7.
    const double whole = std::floor(at_minute);
    const double later = at_minute - whole;
    const auto minute = static_cast<int64_t>(whole);
    m_freeing[static_cast<size_t>(minute % k_ring)] += users * (1 - later);
    m_freeing[static_cast<size_t>((minute + 1) % k_ring)] += users * later;
    m_pending += users;
}

bool AdmissionForecast::next(ForecastAdmission& admission) {
    // A ring of 64 minutes holds every slot freeing within the longest hold; minutes without
    // admissions are skipped, and only a room that can never admit again ends the forecast.
    if (m_cap <= 0) return false;
    // Nothing given out over a whole ring of minutes: nothing is left to free but rounding.
    for (int64_t empty = 0; m_pending > 1e-9 && empty <= k_ring; ++empty) {
        const int64_t minute = m_minute++;
        if (minute > 0) {
            double& freeing = m_freeing[static_cast<size_t>(minute % k_ring)];
            m_free += freeing;
            freeing = 0;
        }
        const double given = std::min(static_cast<double>(minute == 0 ? m_first_cap : m_cap), m_free);
        if (given <= 1e-9) continue;
        m_free -= given;
        m_pending -= given;
        free_later(static_cast<double>(minute) + m_hold, given);
        admission.at_minutes = minute == 0 ? 0.0 : static_cast<double>(minute) - m_offset;
        admission.users = given;
        return true;
    }
    return false;
}

double slot_hold_minutes(int64_t session_minutes, double browse_minutes, double claim_minutes) {
    // Let in at s, uniform over [0, claim), the last request at s + b lies in minute
    // floor(s + b): on average floor(b), and one more for the share of s past 1 − frac(b).
    const double browse = std::clamp(browse_minutes, 0.0, static_cast<double>(k_forecast_session_minutes));
    const double claim = std::clamp(claim_minutes, 1e-6, 1.0);
    const double whole = std::floor(browse);
    const double crossing = std::clamp((browse - whole + claim - 1) / claim, 0.0, 1.0);
    return static_cast<double>(std::max<int64_t>(0, session_minutes) + 1) + whole + crossing;
}

bool ForecastInputs::same_room_as(const ForecastInputs& other) const {
    return total_active_users == other.total_active_users && new_users_per_minute == other.new_users_per_minute &&
           admitted_this_minute == other.admitted_this_minute && session_minutes == other.session_minutes &&
           counted_minutes_ago == other.counted_minutes_ago && hold_minutes == other.hold_minutes &&
           claim_minutes == other.claim_minutes;
}

namespace {
struct ForecastMinute {
    int64_t minute = 0;
    double users = 0;
};
} // namespace

struct ForecastCursor::Memo {
    ForecastInputs key;              // minute_offset 0
    AdmissionForecast forecast{key}; // where the projection has got to
    std::vector<ForecastMinute> minutes;
    bool ended = false;
    bool used = false;

    bool at(size_t index, ForecastMinute& out) {
        while (minutes.size() <= index && !ended) {
            ForecastAdmission admission;
            if (!forecast.next(admission)) {
                ended = true;
                break;
            }
            // Projected from the start of the minute, so at_minutes is the minute's number.
            minutes.push_back({static_cast<int64_t>(std::llround(admission.at_minutes)), admission.users});
        }
        if (index >= minutes.size()) return false;
        out = minutes[index];
        return true;
    }
};

namespace {
// A few rooms' forecasts per thread: a node serving several busy rooms at once keeps each one's
// between their requests; the oldest is replaced.
constexpr size_t k_memo_rooms = 8;
struct MemoTable {
    std::array<ForecastCursor::Memo, k_memo_rooms> memos;
    size_t next_victim = 0;
};
} // namespace

ForecastCursor::ForecastCursor(const ForecastInputs& inputs) : m_offset(std::clamp(inputs.minute_offset, 0.0, 1.0)) {
    thread_local MemoTable table;
    for (Memo& memo : table.memos)
        if (memo.used && memo.key.same_room_as(inputs)) {
            m_memo = &memo;
            return;
        }
    Memo& memo = table.memos[table.next_victim];
    table.next_victim = (table.next_victim + 1) % k_memo_rooms;
    memo.key = inputs;
    memo.key.minute_offset = 0;
    memo.forecast = AdmissionForecast(memo.key);
    memo.minutes.clear(); // keeps its capacity: no allocation once warm
    memo.ended = false;
    memo.used = true;
    m_memo = &memo;
}

bool ForecastCursor::next(ForecastAdmission& admission) {
    ForecastMinute minute;
    if (!m_memo->at(m_index, minute)) return false;
    ++m_index;
    admission.at_minutes = minute.minute == 0 ? 0.0 : static_cast<double>(minute.minute) - m_offset;
    admission.users = minute.users;
    return true;
}

} // namespace wr::queue
