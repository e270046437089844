#pragma once
// The live counts of one waiting room, kept per minute (or per ten-second slot) rather than per
// user, so that memory stays flat while a million people wait: admitted users by the minute of
// their last counted request, waiting users by (arrival bucket, slot of their last check-in),
// and admissions, arrivals into the queue and waiting check-ins by minute or slot. A user moves
// between minutes or slots when they check in; a user who stops checking in falls out of the
// window. Pure data: no clock, no I/O.
//
// Every change goes through a few primitive operations, each adding or removing one count under
// integer keys (add/remove active, add/remove waiting, count admission, arrival or check-in,
// revoke), so that a journal of them can be replayed on another node; everything else is read
// from the counts. add/remove waiting change one user's count in the per-bucket map and in its
// sum over buckets together.
#include <chrono>
#include <cstdint>
#include <map>
#include <unordered_map>

#include "util/clock.h"
#include "util/random.h"

namespace wr::queue {

// Waiting users are counted by the ten-second slot of their last check-in.
inline constexpr int64_t k_check_in_slot_ms = 10'000;
// A queued user counts (holds their place, and FIFO keeps a slot for them) while their last
// check-in lies in the current slot or the three before: 30 to 40 seconds, more than the longest
// refresh interval (25 s) plus a few seconds for the network. A closed tab stops holding a place
// within 40 seconds.
inline constexpr int64_t k_waiting_window_slots = 3;
// Check-ins that fell out of the window (users who stopped checking in) are kept three minutes
// longer, so that the share of check-ins never followed by another is measured, not guessed.
inline constexpr int64_t k_departure_window_slots = 18;
// Admitted users are kept for the longest session plus one minute.
inline constexpr int64_t k_active_retention_minutes = 31;
// Admission rates average whole minutes, up to half an hour.
inline constexpr int64_t k_rate_window_minutes = 30;
// Arrivals into the queue are counted per check-in slot and kept half an hour.
inline constexpr int64_t k_arrival_retention_slots = 30 * 60 * 1000 / k_check_in_slot_ms;
// Admitted users' browsing is measured over the last 29 whole minutes: a shared store keeps it by
// check-in slot with the arrivals, and those are the whole minutes all of whose slots it still
// holds while a minute goes on.
inline constexpr int64_t k_browse_window_minutes = k_arrival_retention_slots * k_check_in_slot_ms / 60000 - 1;
// Waiting users and check-ins are kept while their slot is at least this many slots old: the
// window and the departures measured behind it (for a shared store's pruning too).
inline constexpr int64_t k_check_in_retention_slots = k_waiting_window_slots + k_departure_window_slots;

int64_t minute_of(util::TimePoint time);                 // minutes since the epoch
util::TimePoint minute_start(int64_t minute);
int64_t check_in_slot_of(util::TimePoint time);          // ten-second slots since the epoch

// One change to a ledger, for rooms that several nodes share (server/state/): each node journals
// the changes its requests make, pushes them to the shared store, and rebuilds its ledger as the
// global counts plus the changes the store has not seen yet.
struct LedgerChange {
    enum class Kind : uint8_t {
        active,       // key: minute; delta: users
        waiting,      // key: bucket (ms); minute: check-in slot (check_in_slot_of); delta: users
        admitted,     // key: minute; delta: admissions
        revoked,      // key: session id (bits); minute: until (ms); delta unused
        release_seed, // key: minute; minute: the seed (bits); delta unused
        arrived,      // key: check-in slot; delta: new users who joined the queue
        checked_in,   // key: check-in slot; delta: counted check-ins of waiting users
        browsed,      // key: check-in slot (summed by minute here); delta: ms since an admitted user's previous counted request
    };
    Kind kind = Kind::active;
    int64_t key = 0;
    int64_t minute = 0;
    int64_t delta = 0;
    bool operator==(const LedgerChange&) const = default;
};

class LedgerJournal {
public:
    virtual ~LedgerJournal() = default;
    virtual void record(const LedgerChange& change) = 0;
};

class Ledger {
public:
    // Admitted users whose last counted request is recent enough to be inside a session of
    // this length. Counts by minute: a user may count for up to one extra minute, never one less.
    int64_t active_users(util::TimePoint now, std::chrono::minutes session_duration) const;
    int64_t waiting_users(util::TimePoint now) const;
    // Waiting users whose bucket is at or before `bucket` (strictly before when `inclusive` is false).
    int64_t waiting_through(util::TimePoint bucket, bool inclusive, util::TimePoint now) const;
    int64_t admitted_in_minute(util::TimePoint now) const;
    // Users admitted per minute over the last `minutes` whole minutes (at most
    // k_rate_window_minutes, and none before the first admission); 0 before a whole minute has
    // passed since the first admission.
    double admission_rate(util::TimePoint now, int64_t minutes = k_rate_window_minutes) const;
    // How long an admitted user goes on making requests after being let in, on average over
    // the last k_browse_window_minutes whole minutes (at most; none before the first admission):
    // the time between each one's counted requests summed, per admission. Renewal after renewal
    // a user's times add up to the time from their admission to their last request, and in a
    // steady room the browsing counted in a span is what those let in during it browse. 0 until
    // a whole minute has passed since the first admission.
    double browse_minutes(util::TimePoint now) const;
    // Whole minutes since the minute of the first admission this ledger counted; -1 before it.
    int64_t minutes_admitting(util::TimePoint now) const;
    // Admitted users whose last counted request was in `minute` (as minute_of numbers it).
    int64_t active_counted_in_minute(int64_t minute) const;
    // New users who joined the queue in the whole check-in slots of the last `span` (the
    // current slot left out; at most k_arrival_retention_slots).
    int64_t arrivals_within(util::TimePoint now, std::chrono::seconds span) const;
    // Of the waiting check-ins of the last three minutes that have left the window since, the
    // share that no further check-in followed: the chance that a waiting user gives up between
    // two check-ins. 0 until such check-ins exist.
    double stop_share(util::TimePoint now) const;

    // Counts an admitted user's request at `counted_at` in its minute; one at a minute's first
    // millisecond counts in the minute before, as its cookie runs out a session later just as a
    // minute begins (the slot is held through the minutes the cookie is valid in, no more).
    void add_active(util::TimePoint counted_at);
    // Forgets a user counted at `counted_at`, if that minute is still kept.
    void remove_active(util::TimePoint counted_at, util::TimePoint now);
    // An active user renewed at `now` who was counted at `counted_at`: moved to now's minute. A
    // renewal within the minute they are counted in changes nothing (and journals nothing, so a
    // shared room's push does not grow with every request of an admitted visitor).
    void renew_active(util::TimePoint counted_at, util::TimePoint now);
    void add_waiting(util::TimePoint bucket, util::TimePoint checked_in);
    // Forgets a waiting user last seen at `checked_in`, counted or (back after a gap) not, if
    // that slot is still kept at `now`.
    void remove_waiting(util::TimePoint bucket, util::TimePoint checked_in, util::TimePoint now);
    // Whether a waiting user last seen at `checked_in` is still in the count.
    static bool in_waiting_window(util::TimePoint checked_in, util::TimePoint now);
    void count_admission(util::TimePoint now);
    void count_arrival(util::TimePoint now);   // a new user joined the queue
    void count_check_in(util::TimePoint now);  // a waiting user's check-in was counted
    // An admitted user's request was counted, `since_previous` after their previous one.
    void count_browse(util::TimePoint now, util::Milliseconds since_previous);

    bool is_revoked(uint64_t session_id) const { return m_revoked.contains(session_id); }
    void revoke(uint64_t session_id, util::TimePoint until);
    size_t revoked_sessions() const { return m_revoked.size(); }

    // A per-minute seed for releasing random-queue slots at random moments; drawn once a minute.
    uint64_t release_seed(util::TimePoint now, util::Random& random);

    // Drops minutes and slots that no longer count and revocations whose cookies have expired.
    // Cheap to call on every request: the work happens once per minute.
    void prune(util::TimePoint now);

    // For tests and memory checks.
    size_t bucket_count() const { return m_waiting.size(); }

    // Every change the mutators above make from now on is also told to `journal` (nullptr: none).
    // Copies of a ledger do not inherit it.
    void set_journal(LedgerJournal* journal) { m_journal.journal = journal; }
    // This ledger is one node's view of counts kept elsewhere (a room several nodes share: the
    // global counts plus the node's own changes). A user it has not counted may be counted there
    // already, by another node whose changes have not reached the view yet: removing them then
    // still removes (the view's count may dip below zero until those changes arrive) and is
    // journaled, and a renewal within their minute changes nothing. A ledger of its own (the
    // default) counts anew a user it never counted. Copies do not inherit it, as the journal.
    void set_shared_view(bool shared) { m_journal.shared_view = shared; }
    // Adds a change as it stands, without the checks the mutators make and without journaling
    // it: for building a ledger from global counts and replaying journaled changes onto them.
    void apply(const LedgerChange& change);

private:
    void record(LedgerChange::Kind kind, int64_t key, int64_t minute, int64_t delta) {
        if (m_journal.journal) m_journal.journal->record({kind, key, minute, delta});
    }

    void prune_now(int64_t now_minute, util::TimePoint now);

    std::map<int64_t, int64_t> m_active_by_minute;
    std::map<int64_t, std::map<int64_t, int64_t>> m_waiting; // bucket (ms) → check-in slot → users
    std::map<int64_t, int64_t> m_waiting_by_slot;            // the same summed over buckets: check-in slot → users
    std::map<int64_t, int64_t> m_admitted_by_minute;
    std::map<int64_t, int64_t> m_arrived_by_slot;
    std::map<int64_t, int64_t> m_check_ins_by_slot;
    std::map<int64_t, int64_t> m_browsed_by_minute; // milliseconds between admitted users' requests
    std::unordered_map<uint64_t, util::TimePoint> m_revoked;
    int64_t m_first_minute = -1;   // when the ledger first saw an admission
    int64_t m_pruned_minute = -1;
    int64_t m_seed_minute = -1;
    uint64_t m_seed = 0;
    // Not copied: a copy of a ledger (or a ledger assigned another's counts) keeps its own.
    struct JournalLink {
        LedgerJournal* journal = nullptr;
        bool shared_view = false;
        JournalLink() = default;
        JournalLink(const JournalLink&) {}
        JournalLink& operator=(const JournalLink&) { return *this; }
    };
    JournalLink m_journal;
};

} // namespace wr::queue
