#pragma once
// How nodes that share a room share out its free slots, after Cloudflare's "How Waiting Room
// makes queueing decisions on Cloudflare's highly distributed network"
// (https://blog.cloudflare.com/how-waiting-room-queues/): each node admits from slots it holds
// locally, sized by its recent share of the demand, and learns the global counts in the
// background. Here the shared store hands each node a grant at every sync and reserves it until
// the node's next one, so grants never add up to more than the room has free. Pure arithmetic:
// the store's Lua script computes the same grant (tests hold the two to the same answers).
#include <chrono>
#include <cstdint>

#include "util/clock.h"

namespace wr::state {

// What admission does while a node cannot reach the shared store.
enum class FailureMode {
    local_share, // admit from this node's last known share of both limits
    open,        // admit everyone
    closed,      // admit no one new; admitted users keep their sessions
};
const char* to_string(FailureMode mode);

// New admissions a node may make until its next sync: `total` against total_active_users,
// `this_minute` against new_users_per_minute in `minute` only (none in a later minute).
struct Grant {
    int64_t total = 0;
    int64_t this_minute = 0;
    int64_t minute = -1;
    bool operator==(const Grant&) const = default;
};

// The room as the store sees it when a node syncs. The other nodes count as sums (the store
// keeps them so, not node by node, so that a sync costs the same with a hundred nodes as with
// one); demand weights are in thousandths of a request per second, integers that the store and
// its twin add up alike.
struct GrantRequest {
    int64_t free_total = 0;       // total_active_users − active users
    int64_t free_minute = 0;      // new_users_per_minute − admitted this minute
    int64_t reserved_total = 0;   // other nodes' grants still in force
    int64_t reserved_minute = 0;  // … of them, against this minute
    int64_t own_weight = 0;       // this node's demand over the share window (share_window), thousandths
    int64_t own_rate_milli = 0;   // its demand right now (next_demand_weight), thousandths: sizes its need
    int64_t others_weight = 0;    // the other live nodes' demand over the share window, thousandths
    int64_t others_live = 0;      // how many other nodes are live
    int64_t validity_ms = 1000;   // how long the grant is used (grant_validity)
};

// This node's share of the demand: own ÷ total, or an even share when no one has demand; in
// whole millionths (rounded down), as the store answers it.
double demand_share(const GrantRequest& request);

// The seats of `free` that fall to this node when they are shared out over the live nodes by
// weight, rounded up: the nodes' seats add up to at least `free` (the grants, which never exceed
// what other grants leave, then fill the room), and a node with no demand has none.
int64_t apportioned_seats(const GrantRequest& request, int64_t free);

// The grant: this node's seats of the free slots, but no more than it needs — twice what its
// demand would take while the grant lasts, or an even share among one node more than are live,
// whichever is more — so that the first node to sync when traffic starts does not reserve the
// whole room before the others are heard of; while the room has two free slots per live node,
// at least room for a few arrivals at once (its need and 4 more, up to that even share), so
// that a quiet node does not queue visitors while the room has plenty (Cloudflare's "more slots
// at low utilisation"); and never more than other nodes' grants leave.
Grant compute_grant(const GrantRequest& request, int64_t minute);

// A node's demand weight, in requests per second that wanted a slot: up at once when demand
// rises, down by halves at each sync when it falls, so a node that goes quiet loses its share
// within a few syncs.
// The rate is measured over at least `sync_interval`, so that a sync right after another (a room
// waking up) does not make one request look like a flood.
double next_demand_weight(double previous, int64_t demand, util::Milliseconds elapsed, util::Milliseconds sync_interval);

// Shares of the slots follow each node's demand over this window, measured by every node the
// same way, so that nodes syncing at different moments still see shares that add up to one.
util::Milliseconds share_window(util::Milliseconds sync_interval);

// A grant is used for this long after the push that asked for it; the store reserves it as long.
util::Milliseconds grant_validity(util::Milliseconds sync_interval);
// A node counts as live (its demand weighs in the shares) this long after its last sync.
util::Milliseconds node_liveness(util::Milliseconds sync_interval);

// What a node may admit from `free` slots of a limit when it cannot reach the store: its share,
// rounded down, less what it has already used of them.
int64_t local_share_allowance(double share, int64_t free, int64_t used);

} // namespace wr::state
