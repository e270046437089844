#pragma once
// Changes one node made to a shared room, merged per key: what a node journals between two
// syncs, pushes to the shared store, and replays onto the global counts it gets back. Counts
// add up (so a change set stays as small as the minutes and buckets it touches, however many
// requests made it), revocations and release seeds are kept as set. Pure data: no clock, no I/O.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "queue/join_limiter.h"
#include "queue/ledger.h"

namespace wr::state {

// A join counted against the per-address limit of one minute.
struct JoinChange {
    int64_t minute = 0;
    queue::ClientAddress address{};
    int64_t delta = 0;
    bool operator==(const JoinChange&) const = default;
};

class ChangeSet final : public queue::LedgerJournal {
public:
    void record(const queue::LedgerChange& change) override;
    void add_join(int64_t minute, const queue::ClientAddress& address, int64_t delta);
    void merge(const ChangeSet& other);
    // Takes `other`'s counts away (revocations and seeds, which cannot be undone, are left alone).
    void subtract_counts(const ChangeSet& other);
    // For a change set that holds counts as they stand (a node's copy of the global counts):
    // the count under `change`'s key, and setting it to `change.delta`.
    int64_t count(const queue::LedgerChange& change) const;
    void set_count(const queue::LedgerChange& change);
    // Adds the counts to `ledger`, or takes them away (revocations and seeds left out).
    void replay_counts_onto(queue::Ledger& ledger) const;
    void unreplay_counts_from(queue::Ledger& ledger) const;
    void clear();
    bool empty() const;

    // The changes admissions are measured against: active users and admissions, by minute.
    ChangeSet admission_counts() const;
    // Revocations and release seeds: applying one twice changes nothing.
    ChangeSet revocations_and_seeds() const;
    // Everything else: waiting users, arrivals, check-ins, browsing and joins.
    ChangeSet other_counts() const;

    // Every change, counts summed per key (sums of zero left out), revocations and seeds last.
    std::vector<queue::LedgerChange> changes() const;
    std::vector<JoinChange> joins() const;
    // Replays the changes onto `ledger` as they stand (queue::Ledger::apply).
    void replay_onto(queue::Ledger& ledger) const;

    // Admissions recorded in `minute`, and in all.
    int64_t admitted(int64_t minute) const;
    int64_t admitted_total() const;
    // The net change to active users that still counts at `now` for sessions this long.
    int64_t active_users(util::TimePoint now, std::chrono::minutes session_duration) const;
    // This minute's joins from `address`.
    int64_t joins_of(int64_t minute, const queue::ClientAddress& address) const;

    // Drops what no longer counts anywhere at `now`: the minutes a ledger prunes, revocations
    // past their end, seeds and joins of past minutes.
    void prune(util::TimePoint now);

private:
    struct CountKey {
        queue::LedgerChange::Kind kind;
        int64_t key;
        int64_t minute;
        auto operator<=>(const CountKey&) const = default;
    };
    std::map<CountKey, int64_t> m_counts;
    std::map<uint64_t, int64_t> m_revoked; // session id → until (ms)
    std::map<int64_t, int64_t> m_seeds;    // minute → seed bits
    std::map<std::pair<int64_t, queue::ClientAddress>, int64_t> m_joins;
};

} // namespace wr::state
