// Per-minute counts of a waiting room.
#include "queue/ledger.h"

#include <algorithm>

namespace wr::queue {
namespace {

int64_t ms_of(util::TimePoint time) { return time.time_since_epoch().count(); }

// The oldest check-in slot still kept: the window and the departures measured behind it.
int64_t oldest_kept_slot(int64_t now_slot) { return now_slot - k_check_in_retention_slots; }

// The minute an admitted user's request is counted in: that of the instant just before it. The
// cookie it sets is valid while now < t + session, so its last valid moment lies in minute
// minute_of(t − 1 ms) + session, and counted there the user holds their slot through exactly
// the minutes in which their cookie is valid at some moment. Counted in minute_of(t), a request
// at a minute's very first millisecond (12:00:00.000) would hold its slot through 12:05 as well,
// a minute at whose start its cookie has already run out: a full room to the ledger, a place
// left to the browsers, and someone waiting through it.
int64_t active_minute_of(util::TimePoint counted_at) { return minute_of(counted_at - util::Milliseconds{1}); }

} // namespace

int64_t minute_of(util::TimePoint time) {
    return std::chrono::floor<std::chrono::minutes>(time.time_since_epoch()).count();
}

util::TimePoint minute_start(int64_t minute) {
    return util::TimePoint{std::chrono::duration_cast<util::Milliseconds>(std::chrono::minutes{minute})};
}

int64_t check_in_slot_of(util::TimePoint time) {
    const int64_t ms = ms_of(time);
    return ms >= 0 ? ms / k_check_in_slot_ms : -((-ms + k_check_in_slot_ms - 1) / k_check_in_slot_ms);
}

int64_t Ledger::active_users(util::TimePoint now, std::chrono::minutes session_duration) const {
    // A user counted in minute m checked in after m began and at the latest as m + 1 began (see
    // active_minute_of); they are active until that instant plus the session, so the minute
    // counts while m + 1 + session > now.
    const int64_t oldest = minute_of(now) - session_duration.count();
    int64_t total = 0;
    for (auto it = m_active_by_minute.lower_bound(oldest); it != m_active_by_minute.end(); ++it) total += it->second;
    return std::max<int64_t>(0, total);
}

bool Ledger::in_waiting_window(util::TimePoint checked_in, util::TimePoint now) {
    return check_in_slot_of(checked_in) >= check_in_slot_of(now) - k_waiting_window_slots && checked_in <= now;
}

int64_t Ledger::waiting_through(util::TimePoint bucket, bool inclusive, util::TimePoint now) const {
    const int64_t oldest = check_in_slot_of(now) - k_waiting_window_slots;
    const int64_t limit = ms_of(bucket);
    int64_t total = 0;
    for (const auto& [key, slots] : m_waiting) {
        if (key > limit || (!inclusive && key == limit)) break;
        for (auto it = slots.lower_bound(oldest); it != slots.end(); ++it) total += it->second;
    }
    return std::max<int64_t>(0, total);
}

int64_t Ledger::waiting_users(util::TimePoint now) const {
    int64_t total = 0;
    for (auto it = m_waiting_by_slot.lower_bound(check_in_slot_of(now) - k_waiting_window_slots); it != m_waiting_by_slot.end(); ++it)
        total += it->second;
    return std::max<int64_t>(0, total);
}

int64_t Ledger::admitted_in_minute(util::TimePoint now) const {
    const auto it = m_admitted_by_minute.find(minute_of(now));
    return it == m_admitted_by_minute.end() ? 0 : it->second;
}

double Ledger::admission_rate(util::TimePoint now, int64_t minutes) const {
    if (m_first_minute < 0) return 0;
    const int64_t current = minute_of(now);
    const int64_t full_minutes = std::min({minutes, k_rate_window_minutes, current - m_first_minute});
    // No full minute seen yet: too little to know a rate (a few seconds of a burst extrapolate
    // to nonsense).
    if (full_minutes <= 0) return 0;
    int64_t admitted = 0;
    for (auto it = m_admitted_by_minute.lower_bound(current - full_minutes); it != m_admitted_by_minute.end() && it->first < current; ++it)
        admitted += it->second;
    return static_cast<double>(admitted) / static_cast<double>(full_minutes);
}

double Ledger::browse_minutes(util::TimePoint now) const {
    if (m_first_minute < 0) return 0;
    const int64_t current = minute_of(now);
    const int64_t full_minutes = std::min(k_browse_window_minutes, current - m_first_minute);
    if (full_minutes <= 0) return 0;
    int64_t admitted = 0, browsed_ms = 0;
    for (auto it = m_admitted_by_minute.lower_bound(current - full_minutes); it != m_admitted_by_minute.end() && it->first < current; ++it)
        admitted += it->second;
    for (auto it = m_browsed_by_minute.lower_bound(current - full_minutes); it != m_browsed_by_minute.end() && it->first < current; ++it)
        browsed_ms += it->second;
    return admitted > 0 ? static_cast<double>(browsed_ms) / 60000.0 / static_cast<double>(admitted) : 0;
}

int64_t Ledger::minutes_admitting(util::TimePoint now) const { return m_first_minute < 0 ? -1 : minute_of(now) - m_first_minute; }

int64_t Ledger::active_counted_in_minute(int64_t minute) const {
    const auto it = m_active_by_minute.find(minute);
    return it == m_active_by_minute.end() ? 0 : std::max<int64_t>(0, it->second);
}

int64_t Ledger::arrivals_within(util::TimePoint now, std::chrono::seconds span) const {
    const int64_t current = check_in_slot_of(now);
    const int64_t slots = std::clamp<int64_t>(span.count() * 1000 / k_check_in_slot_ms, 0, k_arrival_retention_slots);
    int64_t arrived = 0;
    for (auto it = m_arrived_by_slot.lower_bound(current - slots); it != m_arrived_by_slot.end() && it->first < current; ++it)
        arrived += it->second;
    return arrived;
}

double Ledger::stop_share(util::TimePoint now) const {
    // Slots that have left the window: whoever was last seen there and is still kept there
    // never checked in again (a later check-in or an admission moves or removes them).
    const int64_t newest = check_in_slot_of(now) - k_waiting_window_slots - 1;
    const int64_t oldest = oldest_kept_slot(check_in_slot_of(now));
    int64_t check_ins = 0;
    for (auto it = m_check_ins_by_slot.lower_bound(oldest); it != m_check_ins_by_slot.end() && it->first <= newest; ++it)
        check_ins += it->second;
    if (check_ins <= 0) return 0;
    int64_t stopped = 0;
    for (auto it = m_waiting_by_slot.lower_bound(oldest); it != m_waiting_by_slot.end() && it->first <= newest; ++it)
        stopped += it->second;
    return std::clamp(static_cast<double>(stopped) / static_cast<double>(check_ins), 0.0, 1.0);
}

void Ledger::apply(const LedgerChange& change) {
    const auto add = [](std::map<int64_t, int64_t>& counts, int64_t key, int64_t delta) {
        if (delta == 0) return;
        const auto [it, inserted] = counts.try_emplace(key, 0);
        if ((it->second += delta) == 0) counts.erase(it);
    };
    switch (change.kind) {
    case LedgerChange::Kind::active:
        add(m_active_by_minute, change.key, change.delta);
        break;
    case LedgerChange::Kind::waiting: {
        auto& bucket = m_waiting[change.key];
        add(bucket, change.minute, change.delta);
        if (bucket.empty()) m_waiting.erase(change.key);
        add(m_waiting_by_slot, change.minute, change.delta); // `minute` holds the check-in slot
        break;
    }
    case LedgerChange::Kind::arrived:
        add(m_arrived_by_slot, change.key, change.delta);
        break;
    case LedgerChange::Kind::checked_in:
        add(m_check_ins_by_slot, change.key, change.delta);
        break;
    case LedgerChange::Kind::browsed:
        add(m_browsed_by_minute, minute_of(util::TimePoint{util::Milliseconds{change.key * k_check_in_slot_ms}}), change.delta);
        break;
    case LedgerChange::Kind::admitted:
        add(m_admitted_by_minute, change.key, change.delta);
        if (change.delta > 0 && (m_first_minute < 0 || change.key < m_first_minute)) m_first_minute = change.key;
        break;
    case LedgerChange::Kind::revoked:
        m_revoked[static_cast<uint64_t>(change.key)] = util::TimePoint{util::Milliseconds{change.minute}};
        break;
    case LedgerChange::Kind::release_seed:
        m_seed_minute = change.key;
        m_seed = static_cast<uint64_t>(change.minute);
        break;
    }
}

void Ledger::add_active(util::TimePoint counted_at) {
    const int64_t minute = active_minute_of(counted_at);
    ++m_active_by_minute[minute];
    record(LedgerChange::Kind::active, minute, 0, 1);
}

void Ledger::remove_active(util::TimePoint counted_at, util::TimePoint now) {
    const int64_t minute = active_minute_of(counted_at);
    if (minute < minute_of(now) - k_active_retention_minutes) return;
    const auto it = m_active_by_minute.find(minute);
    if (m_journal.shared_view) {
        // Counted elsewhere, maybe not in this view yet: removed all the same.
        const auto [entry, inserted] = m_active_by_minute.try_emplace(minute, 0);
        if (--entry->second == 0) m_active_by_minute.erase(entry);
        record(LedgerChange::Kind::active, minute, 0, -1);
        return;
    }
    // Absent means already forgotten (or never counted here); counts never go below zero.
    if (it == m_active_by_minute.end()) return;
    if (--it->second <= 0) m_active_by_minute.erase(it);
    record(LedgerChange::Kind::active, minute, 0, -1);
}

void Ledger::renew_active(util::TimePoint counted_at, util::TimePoint now) {
    const int64_t minute = active_minute_of(now);
    if (active_minute_of(counted_at) == minute && (m_journal.shared_view || m_active_by_minute.contains(minute))) return;
    remove_active(counted_at, now);
    add_active(now);
}

void Ledger::add_waiting(util::TimePoint bucket, util::TimePoint checked_in) {
    const int64_t slot = check_in_slot_of(checked_in);
    ++m_waiting[ms_of(bucket)][slot];
    ++m_waiting_by_slot[slot];
    record(LedgerChange::Kind::waiting, ms_of(bucket), slot, 1);
}

void Ledger::remove_waiting(util::TimePoint bucket, util::TimePoint checked_in, util::TimePoint now) {
    const int64_t slot = check_in_slot_of(checked_in);
    if (slot < oldest_kept_slot(check_in_slot_of(now))) return;
    if (m_journal.shared_view) {
        // Counted elsewhere, maybe not in this view yet: removed all the same.
        const auto add = [](std::map<int64_t, int64_t>& counts, int64_t key) {
            const auto [it, inserted] = counts.try_emplace(key, 0);
            if (--it->second == 0) counts.erase(it);
        };
        add(m_waiting[ms_of(bucket)], slot);
        if (m_waiting[ms_of(bucket)].empty()) m_waiting.erase(ms_of(bucket));
        add(m_waiting_by_slot, slot);
        record(LedgerChange::Kind::waiting, ms_of(bucket), slot, -1);
        return;
    }
    const auto bucket_it = m_waiting.find(ms_of(bucket));
    if (bucket_it == m_waiting.end()) return;
    const auto it = bucket_it->second.find(slot);
    // Absent means pruned already (or never counted here); counts never go below zero.
    if (it == bucket_it->second.end()) return;
    if (--it->second <= 0) bucket_it->second.erase(it);
    if (bucket_it->second.empty()) m_waiting.erase(bucket_it);
    if (const auto sum = m_waiting_by_slot.find(slot); sum != m_waiting_by_slot.end() && --sum->second <= 0) m_waiting_by_slot.erase(sum);
    record(LedgerChange::Kind::waiting, ms_of(bucket), slot, -1);
}

void Ledger::count_admission(util::TimePoint now) {
    const int64_t minute = minute_of(now);
    ++m_admitted_by_minute[minute];
    if (m_first_minute < 0 || minute < m_first_minute) m_first_minute = minute;
    record(LedgerChange::Kind::admitted, minute, 0, 1);
}

void Ledger::revoke(uint64_t session_id, util::TimePoint until) {
    m_revoked[session_id] = until;
    record(LedgerChange::Kind::revoked, static_cast<int64_t>(session_id), until.time_since_epoch().count(), 0);
}

void Ledger::count_arrival(util::TimePoint now) {
    const int64_t slot = check_in_slot_of(now);
    ++m_arrived_by_slot[slot];
    record(LedgerChange::Kind::arrived, slot, 0, 1);
}

void Ledger::count_check_in(util::TimePoint now) {
    const int64_t slot = check_in_slot_of(now);
    ++m_check_ins_by_slot[slot];
    record(LedgerChange::Kind::checked_in, slot, 0, 1);
}

void Ledger::count_browse(util::TimePoint now, util::Milliseconds since_previous) {
    if (since_previous.count() <= 0) return;
    m_browsed_by_minute[minute_of(now)] += since_previous.count();
    record(LedgerChange::Kind::browsed, check_in_slot_of(now), 0, since_previous.count());
}

uint64_t Ledger::release_seed(util::TimePoint now, util::Random& random) {
    const int64_t minute = minute_of(now);
    if (minute != m_seed_minute) {
        m_seed_minute = minute;
        m_seed = random.next();
        record(LedgerChange::Kind::release_seed, minute, static_cast<int64_t>(m_seed), 0);
    }
    return m_seed;
}

void Ledger::prune(util::TimePoint now) {
    const int64_t now_minute = minute_of(now);
    if (now_minute == m_pruned_minute) return;
    m_pruned_minute = now_minute;
    prune_now(now_minute, now);
}

void Ledger::prune_now(int64_t now_minute, util::TimePoint now) {
    m_active_by_minute.erase(m_active_by_minute.begin(), m_active_by_minute.lower_bound(now_minute - k_active_retention_minutes));
    m_admitted_by_minute.erase(m_admitted_by_minute.begin(), m_admitted_by_minute.lower_bound(now_minute - k_rate_window_minutes - 1));
    m_arrived_by_slot.erase(m_arrived_by_slot.begin(), m_arrived_by_slot.lower_bound(check_in_slot_of(now) - k_arrival_retention_slots - 1));
    m_browsed_by_minute.erase(m_browsed_by_minute.begin(), m_browsed_by_minute.lower_bound(now_minute - k_browse_window_minutes));
    const int64_t oldest_slot = oldest_kept_slot(check_in_slot_of(now));
    m_check_ins_by_slot.erase(m_check_ins_by_slot.begin(), m_check_ins_by_slot.lower_bound(oldest_slot));
    m_waiting_by_slot.erase(m_waiting_by_slot.begin(), m_waiting_by_slot.lower_bound(oldest_slot));
    for (auto bucket = m_waiting.begin(); bucket != m_waiting.end();) {
        bucket->second.erase(bucket->second.begin(), bucket->second.lower_bound(oldest_slot));
        bucket = bucket->second.empty() ? m_waiting.erase(bucket) : std::next(bucket);
    }
    std::erase_if(m_revoked, [now](const auto& entry) { return entry.second <= now; });
}

} // namespace wr::queue
