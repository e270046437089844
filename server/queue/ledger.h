#pragma once
// The live counts of one waiting room, kept per minute rather than per user, so that memory
// stays flat while a million people wait: admitted users by the minute of their last counted
// request, waiting users by (arrival bucket, minute of their last check-in), and admissions by
// minute. A user moves between minutes when they check in; a user who stops checking in falls
// out of the window. Pure data: no clock, no I/O.
#include <chrono>
#include <cstdint>
#include <map>
#include <unordered_map>

#include "util/clock.h"
#include "util/random.h"

namespace wr::queue {

// A queued user counts while their last check-in lies in the current or the previous two
// minutes (users check in every 15–25 s); a closed tab drops out within three minutes.
inline constexpr int64_t k_waiting_window_minutes = 2;
// Admitted users are kept for the longest session plus one minute.
inline constexpr int64_t k_active_retention_minutes = 31;
// The admission rate behind wait estimates averages whole minutes: at least five, and at least
// two sessions' worth, because a full room admits in waves one session apart and a shorter
// window would see a wave or a lull instead of the rate.
inline constexpr int64_t k_min_rate_window_minutes = 5;
inline constexpr int64_t k_max_rate_window_minutes = 30;

int64_t minute_of(util::TimePoint time);                 // minutes since the epoch
util::TimePoint minute_start(int64_t minute);

// One change to a ledger, for rooms that several nodes share (server/state/): each node journals
// the changes its requests make, pushes them to the shared store, and rebuilds its ledger as the
// global counts plus the changes the store has not seen yet.
struct LedgerChange {
    enum class Kind : uint8_t {
        active,       // key: minute; delta: users
        waiting,      // key: bucket (ms); minute: check-in minute; delta: users
        admitted,     // key: minute; delta: admissions
        revoked,      // key: session id (bits); minute: until (ms); delta unused
        release_seed, // key: minute; minute: the seed (bits); delta unused
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
    // Users admitted per minute over the last whole minutes; 0 when no one has been admitted, or
    // before a whole minute has passed since the first admission.
    double admission_rate(util::TimePoint now, std::chrono::minutes session_duration = std::chrono::minutes{1}) const;

    void add_active(util::TimePoint counted_at);
    // Forgets a user counted at `counted_at`, if that minute is still kept.
    void remove_active(util::TimePoint counted_at, util::TimePoint now);
    void add_waiting(util::TimePoint bucket, util::TimePoint checked_in);
    void remove_waiting(util::TimePoint bucket, util::TimePoint checked_in, util::TimePoint now);
    // Whether a waiting user last seen at `checked_in` is still in the count.
    static bool in_waiting_window(util::TimePoint checked_in, util::TimePoint now);
    void count_admission(util::TimePoint now);

    bool is_revoked(uint64_t session_id) const { return m_revoked.contains(session_id); }
    void revoke(uint64_t session_id, util::TimePoint until);
    size_t revoked_sessions() const { return m_revoked.size(); }

    // A per-minute seed for releasing random-queue slots at random moments; drawn once a minute.
    uint64_t release_seed(util::TimePoint now, util::Random& random);

    // Drops minutes that no longer count and revocations whose cookies have expired. Cheap to
    // call on every request: the work happens once per minute.
    void prune(util::TimePoint now);

    // For tests and memory checks.
    size_t bucket_count() const { return m_waiting.size(); }

    // Every change the mutators above make from now on is also told to `journal` (nullptr: none).
    // Copies of a ledger do not inherit it.
    void set_journal(LedgerJournal* journal) { m_journal.journal = journal; }
    // Adds a change as it stands, without the checks the mutators make and without journaling
    // it: for building a ledger from global counts and replaying journaled changes onto them.
    void apply(const LedgerChange& change);

private:
    void record(LedgerChange::Kind kind, int64_t key, int64_t minute, int64_t delta) {
        if (m_journal.journal) m_journal.journal->record({kind, key, minute, delta});
    }

    void prune_now(int64_t now_minute, util::TimePoint now);

    std::map<int64_t, int64_t> m_active_by_minute;
    std::map<int64_t, std::map<int64_t, int64_t>> m_waiting; // bucket (ms) → check-in minute → users
    std::map<int64_t, int64_t> m_admitted_by_minute;
    std::unordered_map<uint64_t, util::TimePoint> m_revoked;
    int64_t m_first_minute = -1;   // when the ledger first saw an admission
    int64_t m_pruned_minute = -1;
    int64_t m_seed_minute = -1;
    uint64_t m_seed = 0;
    // Not copied: a copy of a ledger (or a ledger assigned another's counts) keeps its own.
    struct JournalLink {
        LedgerJournal* journal = nullptr;
        JournalLink() = default;
        JournalLink(const JournalLink&) {}
        JournalLink& operator=(const JournalLink&) { return *this; }
    };
    JournalLink m_journal;
};

} // namespace wr::queue
