#pragma once
// The room's live state as `wr simulate` plays it: one node deciding alone on one ledger, or
// several nodes sharing the room through the in-process store (state::MemoryStore), each node a
// state::RoomReplica — the code `wr serve --state redis://…` runs — syncing every interval with
// a simulated round trip, requests spread over the nodes by their traffic shares.
#include <memory>
#include <optional>
#include <vector>

#include "queue/admission.h"
#include "util/clock.h"
#include "util/random.h"

namespace wr::simulate {

struct NodesSpec {
    int nodes = 1;
    std::chrono::milliseconds sync_interval{250};
    std::chrono::milliseconds latency{2};  // one round trip to the store
    std::vector<double> shares;            // of the requests, per node; empty: even
    uint64_t seed = 1;                     // for spreading requests over the nodes
};

class SimulatedState {
public:
    virtual ~SimulatedState() = default;
    // One request, on the node the load balancer picks.
    virtual queue::Outcome check_in(const queue::Policy& policy, const std::optional<queue::Ticket>& ticket, util::TimePoint now,
                                    util::Random& random) = 0;
    // A user who joined the queue before the simulation starts (reference scenarios): counted as
    // waiting and as arrived.
    virtual void add_waiting(util::TimePoint bucket, util::TimePoint checked_in) = 0;
    // The room's counts at `now` (with nodes: as the store holds them).
    virtual queue::Ledger counts(util::TimePoint now) = 0;
    // Round trips made to the store (0 for one node).
    virtual int64_t syncs() const { return 0; }
};

std::unique_ptr<SimulatedState> make_simulated_state(const NodesSpec& spec);

} // namespace wr::simulate
