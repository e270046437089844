#pragma once
// One node's copy of a room that several nodes share. Requests are decided on a local view —
// the global counts from the last sync plus this node's changes since — and capped by the
// node's allowance of new admissions: the grant the store handed it, or, when the store cannot
// be reached, what the failure mode allows. In the background the node pushes its journaled
// changes and rebuilds the view from the answer. Pure: time comes in as an argument, no I/O,
// no locks (SharedCounters holds one per room around every call).
#include <deque>
#include <map>
#include <optional>
#include <string>

#include "queue/admission.h"
#include "state/change_set.h"
#include "state/shared_store.h"
#include "state/shares.h"

namespace wr::state {

// The refresh of a visitor who waits only for this node's next grant (the room has a place):
// two sync intervals, so the grant has come when they return — 2 s at the default 250 ms and
// never less, and never more than the usual refresh interval.
int grant_retry_seconds(util::Milliseconds sync_interval);

struct ReplicaSettings {
    util::Milliseconds sync_interval{250};
    FailureMode failure_mode = FailureMode::local_share;
};

// Where a node's admissions come from at one moment.
enum class Footing {
    granted,  // a grant from the store, still in force
    cold,     // the room is new here and its first sync is under way: one admission at most
    degraded, // no grant in force (the store is away): the failure mode decides
};
const char* to_string(Footing footing);

class RoomReplica {
public:
    explicit RoomReplica(ReplicaSettings settings);
    RoomReplica(const RoomReplica&) = delete;
    RoomReplica& operator=(const RoomReplica&) = delete;

    // The request path: never waits for anything.
    queue::Outcome check_in(const queue::Policy& policy, const std::optional<queue::Ticket>& ticket, util::TimePoint now,
                            util::Random& random, queue::Arrival arrival);
    bool try_join(const queue::ClientAddress& client, int64_t limit, util::TimePoint now);
    bool revoke(const queue::Policy& policy, const queue::Ticket& ticket, util::TimePoint now);
    queue::RoomFigures figures(const queue::Policy& policy, util::TimePoint now);
    // A user already waiting when a simulation starts (`wr simulate`'s reference scenarios).
    void add_waiting_for_simulation(util::TimePoint bucket, util::TimePoint checked_in) {
        m_view.add_waiting(bucket, checked_in);
        m_view.count_arrival(checked_in);
    }

    // The next push: every change the store has not acknowledged, the limits last in force and
    // this node's demand. `read_only` for a room this node only reports on.
    RoomPush begin_sync(const std::string& room_id, util::TimePoint now, bool read_only = false);
    // The store's answer to that push.
    void end_sync(const RoomReply& reply, util::TimePoint now);
    // The push failed; `maybe_applied`: it may have reached the store, so its batches are frozen.
    void sync_failed(bool maybe_applied, util::TimePoint now);

    Footing footing(util::TimePoint now) const;
    // New admissions this node may make now (queue::k_unlimited_allowance when the failure mode is open).
    int64_t allowance(const queue::Policy& policy, util::TimePoint now) const;
    bool needs_push() const;               // changes the store has not acknowledged
    bool needs_resync() const { return m_resync; } // the store lost the room: push everything again at once
    util::TimePoint last_activity() const { return m_last_activity; }
    std::optional<util::TimePoint> last_reply() const { return m_last_reply; }
    // The last answer of any kind, a read-only one included: how fresh figures() is.
    std::optional<util::TimePoint> last_read() const { return m_last_read; }
    double share() const { return m_share; }
    bool share_known() const { return m_share_known; }
    const Grant& grant() const { return m_grant; }
    // Acknowledged batches the store lost after a failover, sent again; and of those, the ones
    // whose waiting users, arrivals and browsing could not be (older than the batches kept; the
    // admission counts, revocations and seeds of every one are always sent again).
    int64_t recovered_batches() const { return m_recovered_batches; }
    int64_t lost_batches() const { return m_lost_batches; }

private:
    struct Batch {
        uint64_t sequence = 0;
        ChangeSet changes;
        bool frozen = false;  // may have reached the store, or sends again what it lost: its content stays as it is
        bool counted = false; // sends again what the store lost: already in m_contribution
        util::TimePoint acknowledged{};
        // Acknowledged: the store's raw log holds it at or before this record; until a digest
        // covers that record its changes stay in the view.
        int64_t record = -1;
        bool in_view = false;
    };
    // The merger's next digest: the raw records from `from` to `to`, summed.
    struct Digest {
        int64_t from = 0;
        int64_t to = 0;
        std::vector<queue::LedgerChange> changes;
    };
    // Fans the view's journal out to what needs it.
    struct Recorder final : queue::LedgerJournal {
        RoomReplica* replica = nullptr;
        void record(const queue::LedgerChange& change) override;
    };
    void touch(const queue::Policy* policy, util::TimePoint now);
    // The store lost room state after acknowledging it: what it lacks goes again.
    void start_over(const RoomReply& reply, util::TimePoint now);
    void send_again_what_was_lost(const RoomReply& reply, util::TimePoint now);
    // The count changes an answer brings, into m_global and the view.
    void take_counts(const RoomReply& reply);
    // Acknowledged batches that a digest now covers leave the view (m_global has them).
    void drop_digested(int64_t digested);
    void drop_from_view(Batch& batch);
    // This node run's admission counts once the batches waiting to go are in.
    ChangeSet contribution_with_batches(util::TimePoint now) const;
    bool counts_as_demand(const queue::Outcome& outcome) const;

    ReplicaSettings m_settings;
    Recorder m_recorder;
    // The global counts as of the last answer, kept up to date by the count changes each answer
    // brings, with the place in the store's log and the generation of the state they were read
    // from.
    ChangeSet m_global;
    int64_t m_view_seed_minute = -1;    // the minute of the seed the view holds
    int64_t m_version = 0;
    int64_t m_generation = 0;
    bool m_snapshot_wanted = false; // the store asked for m_global as of m_version
    std::optional<Digest> m_digest; // this node is the room's merger: what it sends next
    // Always m_global + the revocations and seeds known + every batch in m_batches, those of
    // m_history still in view, and m_open: kept so by each change rather than rebuilt, since a
    // room's counts run to hundreds.
    queue::Ledger m_view;
    ChangeSet m_open;        // changes since the last push was sealed
    ChangeSet m_since_basis; // changes since the push of the grant in force was sent
    ChangeSet m_in_flight;   // changes since the push now on its way was sent
    std::deque<Batch> m_batches;  // sealed, not acknowledged, oldest first
    // Acknowledged recently: in the view until a digest covers them, and the waiting users,
    // arrivals and browsing in them go again if a failover lost them (the admission counts come
    // from the store's copy of the contribution).
    std::deque<Batch> m_history;
    uint64_t m_trimmed_through = 0; // the last batch dropped from m_history by age
    ChangeSet m_contribution;       // everything acknowledged that still counts, for a store that lost it
    uint64_t m_last_sequence = 0;
    uint64_t m_acknowledged_sequence = 0;
    std::optional<util::TimePoint> m_pushed_ok_at; // the last push the store answered ok
    size_t m_batches_in_flight = 0;
    int64_t m_epoch = 0;
    int64_t m_store_seed_minute = -1; // the minute of the last release seed the store handed
    bool m_resync = false;
    std::map<uint64_t, int64_t> m_revocations; // known globally: session id → until (ms)
    int64_t m_revocation_cursor = 0;
    // Joins this minute: global counts at the last answer, and this node's since.
    int64_t m_join_minute = -1;
    std::map<queue::ClientAddress, int64_t> m_joins_global;
    std::map<queue::ClientAddress, int64_t> m_joins_local;

    Grant m_grant;
    util::TimePoint m_grant_until{};
    double m_share = 1; // last known; a node that never heard from the store assumes it is alone
    bool m_share_known = false;

    bool m_failed_since_reply = false;
    bool m_read_only_in_flight = false;
    int64_t m_cold_admissions = 0; // admissions since the grant lapsed, with no failure seen
    int64_t m_contribution_pruned_minute = -1;
    int64_t m_global_pruned_minute = -1;
    std::optional<util::TimePoint> m_last_reply;
    std::optional<util::TimePoint> m_last_read;
    std::optional<util::TimePoint> m_sent_at;
    std::optional<util::TimePoint> m_last_push;
    util::TimePoint m_last_activity{};
    int64_t m_demand = 0;
    double m_weight = 0;
    std::deque<std::pair<util::TimePoint, int64_t>> m_demand_history; // per push, over the share window
    std::optional<util::TimePoint> m_first_push;
    queue::Policy m_policy; // the limits last in force here, for the grant
    int64_t m_recovered_batches = 0;
    int64_t m_lost_batches = 0;
};

} // namespace wr::state
